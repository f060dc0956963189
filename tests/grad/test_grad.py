"""Gradients on the host: every case of the table against finite differences of numpy (float64), and the
gradient API (errors, memory, tape, higher order, custom_grad, variables) against TF.js's behaviour."""

from __future__ import annotations

import numpy as np
import pytest

import webtf as tf
from tests.grad.cases import CASES, dy_for, finite_differences, payload, spec
from tests.grad.conftest import HOST_BACKENDS, mismatch
from tests.grad.runner import run_case
from tests.harness.aio import run_sync
from webtf.engine import ENGINE
from webtf.gradients import registered_gradients
from webtf.gradients.tape import Tape

pytestmark = [
    pytest.mark.skipif(not HOST_BACKENDS, reason="no host target in WEBTF_OP_TARGETS"),
    pytest.mark.usefixtures("host_backend"),
]
HOST_CASES = [c for c in CASES if c.only is None]

#: gradients the finite-difference cases cannot reach: ComplexAbs takes a complex64 input (see its own test)
NOT_FINITE_DIFFERENTIABLE = {"ComplexAbs"}

@pytest.mark.parametrize("case", HOST_CASES, ids=[c.name for c in HOST_CASES])
def test_gradient_matches_finite_differences(case):
    (data,) = payload([case])
    res = run_case(tf, data)
    assert res["error"] is None, res["error"]
    assert res["leaked"] == 0
    problem = mismatch(res["grads"], finite_differences(case, dy_for(case)), 1e-4)
    assert problem is None, problem


def test_every_registered_gradient_has_a_case():
    """Run each case's function on a tape and collect the kernels: every registered gradient is reached."""
    reached: set[str] = set()
    for case in HOST_CASES:
        f = eval(case.py, {"tf": tf})
        inputs = [tf.tensor(s["values"], s["shape"], s["dtype"]) for s in map(spec, case.inputs)]
        tape = Tape()
        previous = ENGINE.use_tape(tape)
        try:
            tf.dispose(tf.tidy(lambda f=f, inputs=inputs: f(*inputs)))
        finally:
            ENGINE.use_tape(previous)
        reached.update(node.kernel_name for node in tape.nodes)
        tape.dispose()
        tf.dispose(inputs)
    missing = set(registered_gradients()) - reached - NOT_FINITE_DIFFERENTIABLE
    assert not missing, f"gradients without a case in tests/grad/cases.py: {sorted(missing)}"


# ---- the API -------------------------------------------------------------------------------------
@pytest.fixture
def no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before, "tensors leaked"


def test_grad_and_memory(no_leaks):
    x = tf.tensor([1.0, 2.0, 3.0])
    before = tf.memory().num_tensors
    g = tf.grad(lambda x: tf.sum(x * x * x))(x)
    assert tf.memory().num_tensors == before + 1  # only the gradient is left
    np.testing.assert_allclose(g.data_sync(), [3.0, 12.0, 27.0])
    gs = tf.grads(lambda a, b: a * b)([x, [4.0, 5.0, 6.0]], [1.0, 1.0, 2.0])
    assert [t.data_sync().tolist() for t in gs] == [[4.0, 5.0, 12.0], [1.0, 2.0, 6.0]]
    assert tf.memory().num_tensors == before + 3  # the converted list arguments were freed
    tf.dispose([x, g, gs])


def test_value_and_grad(no_leaks):
    x = tf.tensor([1.0, -2.0])
    value, grad = tf.value_and_grad(lambda x: tf.sum(tf.square(x)))(x)
    assert value.data_sync().tolist() == [5.0] and grad.data_sync().tolist() == [2.0, -4.0]
    y = tf.tensor([3.0, 4.0])
    res = tf.value_and_grads(lambda a, b: tf.sum(a * b))([x, y])
    assert res.value.data_sync().tolist() == [-5.0]
    assert [g.data_sync().tolist() for g in res.grads] == [[3.0, 4.0], [1.0, -2.0]]
    same = tf.grads(lambda a, b: tf.sum(a * b))([x, x])  # one tensor twice: its gradients add (as TF.js)
    assert [g.data_sync().tolist() for g in same] == [[2.0, -4.0], [2.0, -4.0]]
    tf.dispose([x, y, value, grad, res, same])


def test_dy_weights_the_output(no_leaks):
    x = tf.tensor([1.0, 2.0])
    dy = tf.tensor([10.0, 100.0])
    g = tf.grad(lambda x: x * 3)(x, dy)
    assert g.data_sync().tolist() == [30.0, 300.0]
    wrong = tf.ones([3])
    with pytest.raises(ValueError, match=r"dy passed in grad\(f\)\(x, dy\) must match.*\[2\] and \[3\]"):
        tf.grad(lambda x: x * 3)(x, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"dy passed in value_and_grads\(f\)\(\[x1,...\], dy\) must match"):
        tf.value_and_grads(lambda x: x * 3)([x], wrong)
    tf.dispose([x, dy, g, wrong])


def test_errors_match_tfjs(no_leaks):
    x = tf.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="The f passed in grad"):
        tf.grad(3)
    with pytest.raises(ValueError, match=r"Cannot compute gradient of y=f\(x\) with respect to x"):
        tf.grad(lambda x: x)(x)
    with pytest.raises(ValueError, match="Cannot compute gradient of y=f"):
        tf.grads(lambda a, b: a * 2)([x, [3.0, 4.0]])
    with pytest.raises(TypeError, match="dy must have 'float32' dtype, but has 'int32'"):
        tf.grad(lambda x: x * 2)(x, [1, 1])
    with pytest.raises(TypeError, match="The x passed in value_and_grad"):
        tf.value_and_grad(lambda x: x * 2)([1.0])
    with pytest.raises(TypeError, match="must be a tensor"):
        tf.grad(lambda x: [x * 2])(x)
    dead = tf.tensor([1.0])
    dead.dispose()
    with pytest.raises(ValueError, match="argument 'x' is a disposed tensor"):
        tf.grad(lambda x: x * 2)(dead)
    x.dispose()


def test_the_tape_is_freed_when_f_raises(no_leaks):
    x = tf.tensor([1.0, 2.0])

    def f(x):
        tf.exp(x * x)  # its tape node saves the output
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        tf.grad(f)(x)
    assert ENGINE._tape is None
    x.dispose()


def test_missing_gradient_names_the_kernel(no_leaks):
    image = tf.ones([1, 3, 3, 1])
    with pytest.raises(LookupError, match="no gradient is registered for kernel 'Transform'"):
        tf.grad(lambda im: tf.image.transform(im, [[1, 0, 0, 0, 1, 0, 0, 0]]))(image)
    image.dispose()


def test_gradient_of_an_int_tensor_is_float(no_leaks):
    x = tf.tensor([1, 2], dtype="int32")
    g = tf.grad(lambda x: tf.square(x))(x)
    assert g.dtype == "float32" and g.data_sync().tolist() == [2.0, 4.0]
    tf.dispose([x, g])


def test_second_and_third_order(no_leaks):
    x = tf.tensor([0.5, -1.0, 2.0])
    d2 = tf.grad(lambda x: tf.grad(lambda y: tf.sum(y * y * y))(x))(x)  # d/dx sum(3x^2) = 6x
    np.testing.assert_allclose(d2.data_sync(), [3.0, -6.0, 12.0])
    d3 = tf.grad(lambda x: tf.grad(lambda x: tf.grad(lambda x: tf.sin(x))(x))(x))(x)  # -cos
    np.testing.assert_allclose(d3.data_sync(), -np.cos([0.5, -1.0, 2.0]), rtol=1e-6)
    sq = tf.grad(lambda x: tf.grad(lambda y: tf.exp(y))(x))(x)  # through a saved output (Exp)
    np.testing.assert_allclose(sq.data_sync(), np.exp([0.5, -1.0, 2.0]), rtol=1e-6)
    tf.dispose([x, d2, d3, sq])


def test_nothing_is_recorded_outside_gradients(no_leaks):
    assert ENGINE._tape is None
    x = tf.tensor([1.0])
    y = tf.exp(x)
    assert ENGINE._tape is None
    tf.dispose([x, y])


def test_custom_grad(no_leaks):
    def f(x, save):
        save([x])
        return {"value": tf.square(x), "grad_func": lambda dy, saved: [dy * saved[0] * 10]}

    custom = tf.custom_grad(f)
    x = tf.tensor([1.0, 2.0])
    value = custom(x)
    assert value.data_sync().tolist() == [1.0, 4.0]
    g = tf.grad(lambda x: custom(x))(x)
    assert g.data_sync().tolist() == [10.0, 20.0]
    with pytest.raises(TypeError, match="must all be tensors"):
        custom([1.0])
    bad = tf.custom_grad(lambda x, save: {"value": x * 2})
    with pytest.raises(TypeError, match=r"obj\['grad_func'\]` is a function"):
        bad(x)
    two = tf.custom_grad(lambda x, save: {"value": x * 2, "grad_func": lambda dy, saved: [dy, dy]})
    with pytest.raises(ValueError, match="same number of tensors as inputs"):
        tf.grad(two)(x)
    tf.dispose([x, value, g])


def test_variable_grads(no_leaks):
    a = tf.variable([1.0, 2.0], name="grad_test_a")
    b = tf.variable([3.0], name="grad_test_b")
    frozen = tf.variable([5.0], trainable=False, name="grad_test_frozen")
    res = tf.variable_grads(lambda: tf.sum(a * b * frozen))
    assert res.value.data_sync().tolist() == [45.0]
    assert {k: g.data_sync().tolist() for k, g in res.grads.items()} == {
        "grad_test_a": [15.0, 15.0],
        "grad_test_b": [15.0],
    }
    named = tf.variable_grads(lambda: tf.sum(a * 2), [a, frozen])
    assert named.grads["grad_test_frozen"] is None
    assert named.grads["grad_test_a"].data_sync().tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="must return a scalar, but it returned a rank-1 tensor"):
        tf.variable_grads(lambda: a * 2)
    with pytest.raises(ValueError, match="Cannot find a connection between any variable"):
        tf.variable_grads(lambda: tf.sum(tf.ones([2])), [a])
    with pytest.raises(ValueError, match="none of the 1 variables is trainable"):
        tf.variable_grads(lambda: tf.sum(frozen), [frozen])
    with pytest.raises(ValueError, match="Variable with name grad_test_a was already registered"):
        tf.variable([0.0], name="grad_test_a")
    tf.dispose([res, named])
    tf.dispose_variables()
    assert a.is_disposed and b.is_disposed and frozen.is_disposed and not ENGINE.registered_variables


def test_variable_dtype_and_reuse_of_names(no_leaks):
    v = tf.variable([1, 2], dtype="float32", name="grad_test_v")
    assert v.dtype == "float32"
    v.dispose()
    w = tf.variable([0.0], name="grad_test_v")  # the name is free again
    w.dispose()


def test_gradients_inside_tidy_and_async_reads(no_leaks):
    x = tf.tensor([[1.0, 2.0], [3.0, 4.0]])
    g = tf.tidy(lambda: tf.grad(lambda x: tf.sum(tf.softmax(x) * x))(x))
    values = run_sync(g.data())
    assert len(values) == 4
    tf.dispose([x, g])


def test_a_training_loop_converges_without_leaks(no_leaks):
    """Plain gradient descent on y = 2x - 1 with variables, variable_grads and assign."""
    xs = tf.tensor([[0.0], [1.0], [2.0], [3.0]])
    ys = tf.tensor([[-1.0], [1.0], [3.0], [5.0]])
    w = tf.variable([[0.0]], name="grad_test_w")
    b = tf.variable([0.0], name="grad_test_b2")
    start = tf.memory().num_tensors
    for _ in range(80):
        res = tf.variable_grads(lambda: tf.mean(tf.square(xs @ w + b - ys)))
        for v in (w, b):
            new = tf.tidy(lambda v=v, g=res.grads[v.name]: v - g * 0.2)
            v.assign(new)
            new.dispose()
        tf.dispose(res)
        assert tf.memory().num_tensors == start
    assert abs(w.data_sync()[0] - 2.0) < 1e-2 and abs(b.data_sync()[0] + 1.0) < 1e-2
    tf.dispose([xs, ys, w, b])


def test_complex_abs_gradient_is_tfjs_abs_gradient_of_the_real_part():
    """TF.js differentiates ComplexAbs with Abs's gradient: dy * step(real(x), -1), a float32 tensor."""
    re, im, dy = np.array([1.0, -2.0, 0.0, 3.5]), np.array([3.0, 1.0, -1.0, 0.0]), np.array([0.5, 2.0, -1.0, 4.0])
    before = tf.memory().num_tensors
    x, dyt = tf.complex(re.tolist(), im.tolist()), tf.tensor(dy.tolist())
    g = tf.grad(tf.abs)(x, dyt)
    assert g.dtype == "float32"
    np.testing.assert_allclose(g.data_sync().tolist(), dy * np.where(re > 0, 1.0, -1.0))
    tf.dispose([x, dyt, g])
    assert tf.memory().num_tensors == before
