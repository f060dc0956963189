"""tf.train and tf.losses on the host: every optimizer case against its numpy run, every loss case against
numpy (value, and finite differences for the gradient), and the optimizer API: state, errors, memory."""

from __future__ import annotations

import numpy as np
import pytest

import webtf as tf
from tests.grad.conftest import HOST_BACKENDS, host_backend  # noqa: F401  (the fixture, on cpu and numpy)
from tests.harness.aio import run_sync
from tests.train.cases import LOSSES, OPTIMIZERS, PROBLEMS, STEPS, loss_oracle, loss_payload, numpy_train
from tests.train.runner import loss, train
from webtf.engine import ENGINE
from webtf.update_rules import RULES

pytestmark = [
    pytest.mark.skipif(not HOST_BACKENDS, reason="no host target in WEBTF_OP_TARGETS"),
    pytest.mark.usefixtures("host_backend"),
]


def _payload(name: str) -> dict:
    return {k: {"values": v.ravel().tolist(), "shape": list(v.shape)} for k, v in PROBLEMS[name].items()}


def check_training(res: dict, case, tol: float) -> None:
    """A train() result against numpy: variables, costs, get_weights names, tensor counts."""
    assert res["error"] is None, res["error"]
    want = numpy_train(case)
    np.testing.assert_allclose(res["w"], want["w"].ravel(), rtol=tol, atol=tol)
    np.testing.assert_allclose(res["b"], want["b"].ravel(), rtol=tol, atol=tol)
    np.testing.assert_allclose(res["costs"], want["costs"][1::2], rtol=tol, atol=tol)
    assert [name for name, _ in res["weights"]] == ["iter", *case.slots]
    assert res["weights"][0][1] == [STEPS] and res["iterations"] == STEPS
    assert res["counts"] == [len(case.slots)] * STEPS, "minimize left more than the slot variables"
    assert res["after_dispose"] == 0
    assert res["leaked"] == 0


@pytest.mark.parametrize("case", OPTIMIZERS, ids=[c.name for c in OPTIMIZERS])
def test_optimizer_matches_numpy(case):
    check_training(train(tf, case.payload(), _payload(case.problem), STEPS), case, 1e-5)


@pytest.mark.parametrize("case", LOSSES, ids=[c.name for c in LOSSES])
def test_loss_matches_numpy(case):
    res = loss(tf, loss_payload(case))
    assert res["error"] is None, res["error"]
    assert res["leaked"] == 0
    value, grad = loss_oracle(case)
    np.testing.assert_allclose(res["value"], value.ravel(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res["grad"], grad.ravel(), rtol=1e-4, atol=1e-5)


# ---- the optimizer API ---------------------------------------------------------------------------
@pytest.fixture
def no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before, "tensors leaked"


@pytest.fixture
def wb(no_leaks):
    p = PROBLEMS["regression"]
    w, b = tf.variable(p["w"], True, "w"), tf.variable(p["b"], True, "b")
    yield w, b
    tf.dispose([w, b])


def _f(w, b):
    p = PROBLEMS["regression"]
    return lambda: tf.mean(tf.square(tf.sub(tf.add(tf.mat_mul(p["x"], w), b), p["y"])))


def test_set_weights_resumes_training(wb):
    w, b = wb
    adam = next(c for c in OPTIMIZERS if c.name == "adam")
    opt = tf.train.adam(0.05)
    for _ in range(2):
        opt.minimize(_f(w, b))
    weights = opt.get_weights()
    saved = [tf.train.NamedTensor(nt.name, tf.clone(nt.tensor)) for nt in weights]
    weights[0].tensor.dispose()
    opt.dispose()
    resumed = tf.train.adam(0.05)
    before = tf.memory().num_tensors
    run_sync(resumed.set_weights(saved))
    assert resumed.iterations == 2
    assert tf.memory().num_tensors == before + 4  # the restored slots are Variables of their own
    tf.dispose([nt.tensor for nt in saved])
    weights = resumed.get_weights()
    assert [nt.name for nt in weights[1:]] == list(adam.slots)
    weights[0].tensor.dispose()
    for _ in range(STEPS - 2):
        resumed.minimize(_f(w, b))
    want = numpy_train(adam)
    np.testing.assert_allclose(w.data_sync(), want["w"].ravel(), rtol=1e-5)
    np.testing.assert_allclose(b.data_sync(), want["b"].ravel(), rtol=1e-5)
    resumed.dispose()


def test_apply_gradients_forms_and_none(wb):
    w, b = wb
    opt = tf.train.momentum(0.5, 0.5)
    g = tf.ones_like(w)
    before_b = b.data_sync().tolist()
    before = tf.memory().num_tensors
    opt.apply_gradients({"w": g, "b": None})  # b: slot made, value untouched (TF.js)
    assert tf.memory().num_tensors == before + 2
    assert b.data_sync().tolist() == before_b
    np.testing.assert_allclose(w.data_sync(), PROBLEMS["regression"]["w"].ravel() - 0.5, rtol=1e-6)
    opt.apply_gradients([tf.train.NamedTensor("w", g)])
    opt.apply_gradients([{"name": "w", "tensor": g}])
    opt.apply_gradients([("w", g)])
    assert opt.iterations == 4 and tf.memory().num_tensors == before + 2
    # accum: 1, 1.5, 1.75, 1.875 -> w moved by 0.5 * 6.125 in all
    np.testing.assert_allclose(w.data_sync(), PROBLEMS["regression"]["w"].ravel() - 3.0625, rtol=1e-6)
    g.dispose()
    opt.dispose()


def test_errors_name_the_optimizer_and_free_everything(wb):
    w, b = wb
    opt = tf.train.adam()
    g, zeros2, it = tf.zeros([3, 3]), tf.zeros([2]), tf.scalar(0, "int32")
    with pytest.raises(ValueError, match=r"Adam.apply_gradients: no variable named 'nope' is registered"):
        opt.apply_gradients({"nope": g})
    with pytest.raises(ValueError, match=r"gradient of 'w' has shape \[3,3\].*variable has shape \[3,2\]"):
        opt.apply_gradients({"b": zeros2, "w": g})
    assert opt.iterations == 0 and opt._slots == {}  # nothing was updated, no slot was made
    opt.apply_gradients({"b": zeros2})  # slots for b, shape [2]
    b2 = tf.variable([1.0, 2.0, 3.0], True, "b2")
    b.dispose()
    b3 = tf.variable([1.0, 2.0, 3.0], True, "b")
    with pytest.raises(
        ValueError, match=r"variable 'b' has shape \[3\], but this optimizer's slots .* \[2\]"
    ):
        opt.apply_gradients({"b": b2})
    tf.dispose([b2, b3])
    with pytest.raises(TypeError, match=r"gradient of 'w' must be a tensor"):
        opt.apply_gradients({"w": [1.0]})
    with pytest.raises(TypeError, match="expected a dict"):
        opt.apply_gradients(g)
    ints = tf.variable([1, 2], True, "ints", "int32")
    with pytest.raises(TypeError, match="variable 'ints' must be float32"):
        opt.apply_gradients({"ints": zeros2})
    ints.dispose()
    with pytest.raises(ValueError, match="Cannot find a connection"):
        opt.minimize(lambda: tf.scalar(1.0) * 2.0)
    with pytest.raises(TypeError, match="Adam: learning_rate must be a number"):
        tf.train.adam("fast")
    with pytest.raises(ValueError, match="learningRate for RMSPropOptimizer must be defined"):
        tf.train.rmsprop(None)
    with pytest.raises(ValueError, match="SGD.set_weights: got 1 slot tensors, expected a multiple of 0"):
        run_sync(tf.train.sgd(0.1).set_weights([("iter", it), ("w/m", g)]))
    tf.dispose([g, zeros2, it])
    opt.dispose()


def test_minimize_var_list_and_memory(wb):
    w, b = wb
    opt = tf.train.sgd(0.1)
    before = tf.memory().num_tensors
    cost = opt.minimize(_f(w, b), True, [w])  # b is left alone
    assert tf.memory().num_tensors == before + 1 and cost.shape == ()
    np.testing.assert_allclose(b.data_sync(), PROBLEMS["regression"]["b"].ravel())
    cost.dispose()
    b.trainable = False
    opt.minimize(_f(w, b))  # every trainable variable: only w now
    b.trainable = True
    assert tf.memory().num_tensors == before
    np.testing.assert_allclose(b.data_sync(), PROBLEMS["regression"]["b"].ravel())


def test_defaults_epsilon_and_config():
    assert tf.train.adam().get_config() == {
        "learningRate": 0.001,
        "beta1": 0.9,
        "beta2": 0.999,
        "epsilon": 1e-7,
    }
    assert tf.train.adamax().get_config()["learningRate"] == 0.002
    assert tf.train.adadelta().get_config() == {"learningRate": 0.001, "rho": 0.95, "epsilon": 1e-7}
    assert tf.train.adagrad(0.1).get_config() == {"learningRate": 0.1, "initialAccumulatorValue": 0.1}
    rms = tf.train.rmsprop(0.1, centered=True)
    assert rms.get_config() == {
        "learningRate": 0.1,
        "decay": 0.9,
        "momentum": 0.0,
        "epsilon": 1e-7,
        "centered": True,
    }
    again = tf.RMSPropOptimizer.from_config(rms.get_config())
    assert again.get_config() == rms.get_config() and again.slot_suffixes == ("rms", "momentum", "mg")
    nesterov = tf.MomentumOptimizer.from_config({"learningRate": 0.1, "momentum": 0.9, "useNesterov": True})
    assert nesterov.kernel == "ApplyNesterovMomentum"
    assert isinstance(tf.train.sgd(1), tf.Optimizer) and tf.train.sgd(1).class_name == "SGD"
    assert [r.value for r in tf.Reduction] == [0, 1, 2, 3] and tf.losses.Reduction is tf.Reduction


def test_update_kernels_follow_js_arithmetic(no_leaks):
    """Centered RMSProp's root of a negative is NaN, a zero denominator is inf (the fallback loop)."""
    value, grad = tf.tensor([1.0, 1.0]), tf.tensor([1.0, 0.0])
    ms, mom, mg = tf.tensor([0.0, 0.0]), tf.tensor([0.0, 0.0]), tf.tensor([2.0, 0.0])
    inputs = {"value": value, "grad": grad, "ms": ms, "mom": mom, "mg": mg}
    attrs = {"lr": 1.0, "decay": 0.5, "momentum": 0.0, "epsilon": 0.0}
    outs = ENGINE.run_kernel("ApplyCenteredRMSProp", inputs, attrs)
    new_value, new_ms, new_mom, new_mg = (o.data_sync().tolist() for o in outs)
    # ms' = 0.5, mg' = 1.5 -> sqrt(0.5 - 2.25) is NaN; second element: 0 * lr / sqrt(0) is NaN too
    assert np.isnan(new_value).all() and new_ms == [0.5, 0.0] and new_mg == [1.5, 0.0]
    tf.dispose([*outs, value, grad, ms, mom, mg])


@pytest.mark.parametrize("name", ["absolute_difference", "softmax_cross_entropy", "huber_loss"])
def test_loss_shape_errors(name, no_leaks):
    a, b = tf.zeros([2, 3]), tf.zeros([3, 2])
    with pytest.raises(
        ValueError, match=rf"Error in {name}: .* shape \[2,3\] and .* shape \[3,2\] must match"
    ):
        getattr(tf.losses, name)(a, b)
    tf.dispose([a, b])
    with pytest.raises(ValueError, match="unknown reduction 7"):
        tf.losses.compute_weighted_loss([1.0, 2.0], None, 7)


@pytest.mark.parametrize("name", sorted(RULES))
def test_update_kernels_are_native_on_every_backend(name):
    """Each update rule has its own kernel on cpu (Python), wasm (a JS heap loop) and webgl (GLSL)."""
    for backend in ("cpu", "wasm", "webgl"):
        assert tf.get_kernel(name, backend).__name__ == f"{backend}_{name}"
