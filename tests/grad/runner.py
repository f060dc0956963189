"""Runs gradient cases with webtf (the host's CPython, or the page's Pyodide, from the same source) and
with TF.js (JS_RUNNER, in the page). Each case: tf.grads of f with respect to the inputs in `wrt` (the
others are constants), with the case's dy; the result is the flat gradients, an error, and the leak."""

import math

JS_RUNNER = """async (cases) => {
  if (!window.tf) {
    await new Promise((ok, fail) => {
      const s = document.createElement("script");
      s.src = "vendor/tfjs/tf.min.js"; s.onload = ok; s.onerror = () => fail(new Error("no tf.min.js"));
      document.head.appendChild(s);
    });
  }
  await tf.setBackend("cpu");
  const make = (s) => tf.tensor(s.values, s.shape, s.dtype);
  return cases.map((c) => {
    if (!c.js) return null;
    try {
      return tf.tidy(() => {
        const f = eval(c.js);
        const inputs = c.inputs.map(make);
        const g = tf.grads((...xs) => f(...inputs.map((t, i) => (c.wrt.includes(i) ? xs[c.wrt.indexOf(i)] : t))));
        return { grads: g(c.wrt.map((i) => inputs[i]), make(c.dy)).map((t) => Array.from(t.dataSync())) };
      });
    } catch (e) {
      return { error: String(e) };
    }
  });
}"""


def _flat(t):
    return [v if math.isfinite(v) else repr(v) for v in t.data_sync().tolist()]


def run_case(tf, case):
    """{grads: [flat list per wrt input], error, leaked} for one case."""
    before = tf.memory().num_tensors
    inputs = [tf.tensor(s["values"], s["shape"], s["dtype"]) for s in case["inputs"]]
    dy = tf.tensor(case["dy"]["values"], case["dy"]["shape"], case["dy"]["dtype"])
    wrt = case["wrt"]
    f = eval(case["py"], {"tf": tf})

    def with_xs(*xs):
        args = list(inputs)
        for i, x in zip(wrt, xs, strict=True):
            args[i] = x
        return f(*args)

    grads, error = None, None
    try:
        result = tf.grads(with_xs)([inputs[i] for i in wrt], dy)
        grads = [_flat(t) for t in result]
        tf.dispose(result)
    except Exception as e:  # reported to the test with the case's name
        error = f"{type(e).__name__}: {e}"
    finally:
        tf.dispose(inputs)
        dy.dispose()
    return {"grads": grads, "error": error, "leaked": tf.memory().num_tensors - before}


def run_cases(tf, cases):
    """run_case for each case, in order."""
    return [run_case(tf, c) for c in cases]
