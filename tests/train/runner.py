"""Runs the tf.train and tf.losses cases with webtf: imported on the host, sent as text to the page (the
same source). Each result holds flat values (non-finite ones as strings), errors and tensor counts."""

import math


def _flat(t):
    return [v if math.isfinite(v) else repr(v) for v in t.data_sync().tolist()]


def _tensor(tf, spec):
    return tf.tensor(spec["values"], spec["shape"], "float32")


def _variable(tf, spec, name):
    init = _tensor(tf, spec)
    try:
        return tf.variable(init, True, name)
    finally:
        init.dispose()


def _loss(tf, problem, x, y, w, b):
    logits = tf.add(tf.mat_mul(x, w), b)
    if problem == "regression":
        return tf.mean(tf.square(tf.sub(logits, y)))
    return tf.losses.softmax_cross_entropy(y, logits)


def train(tf, case, problem, steps):
    """case: {py, problem}; problem: {x, y, w, b} specs. Trains `steps` times with minimize (return_cost and
    var_list alternating) and reports the variables, costs, get_weights() and the tensor counts after each
    step and after dispose() (over the count once the problem is set up)."""
    before = tf.memory().num_tensors
    x, y = _tensor(tf, problem["x"]), _tensor(tf, problem["y"])
    w, b = _variable(tf, problem["w"], "w"), _variable(tf, problem["b"], "b")
    out = {"costs": [], "counts": [], "error": None}
    base = tf.memory().num_tensors
    try:
        opt = eval(case["py"], {"tf": tf})
        for i in range(steps):
            f = lambda: _loss(tf, case["problem"], x, y, w, b)  # noqa: E731
            if i % 2:
                cost = opt.minimize(f, True, [w, b])
                out["costs"].append(cost.data_sync()[0])
                cost.dispose()
            else:
                assert opt.minimize(f) is None
            out["counts"].append(tf.memory().num_tensors - base)
        out["iterations"] = opt.iterations
        weights = opt.get_weights()
        out["weights"] = [[nt.name, _flat(nt.tensor)] for nt in weights]
        weights[0].tensor.dispose()
        out["w"], out["b"] = _flat(w), _flat(b)
        opt.dispose()
        out["after_dispose"] = tf.memory().num_tensors - base
    except Exception as e:  # reported to the test with the case's name
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        tf.dispose([x, y, w, b])
    out["leaked"] = tf.memory().num_tensors - before
    return out


def loss(tf, case):
    """The loss's value and its gradient with respect to the predictions."""
    before = tf.memory().num_tensors
    inputs = {k: _tensor(tf, s) for k, s in case["inputs"].items()}
    out = {"error": None}
    try:
        scope = {"tf": tf, "weights": None, **inputs}
        value = eval(case["py"], scope)
        out["value"] = _flat(value)
        value.dispose()
        g = tf.grad(lambda p: eval(case["py"], {**scope, "predictions": p}))(inputs["predictions"])
        out["grad"] = _flat(g)
        g.dispose()
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        tf.dispose(list(inputs.values()))
    out["leaked"] = tf.memory().num_tensors - before
    return out


def run_all(tf, train_cases, problems, steps, loss_cases):
    """Every optimizer case (train) and loss case (loss), in order."""
    trained = [train(tf, c, problems[c["problem"]], steps) for c in train_cases]
    return {"train": trained, "losses": [loss(tf, c) for c in loss_cases]}
