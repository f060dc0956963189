import numpy as np
import pytest

from tests.helpers import Rand

rand = Rand(5).normal


def ref_softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def ref_log_softmax(x):
    x = x.astype(np.float64)
    s = x - x.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


SHAPES = [(1,), (5,), (3, 4), (2, 3, 7), (2, 2, 3, 5), (4, 1)]


def test_softmax_matches_numpy(run):
    for shape in SHAPES:
        x = rand(*shape, scale=3)
        out = run("tf.softmax(x)", x=x)
        assert out.dtype == np.float32 and out.shape == shape
        np.testing.assert_allclose(out, ref_softmax(x), rtol=1e-5, atol=1e-7, err_msg=str(shape))
        np.testing.assert_allclose(
            run(f"tf.softmax(x, {len(shape) - 1})", x=x), ref_softmax(x), rtol=1e-5, atol=1e-7
        )
    x = rand(2, 3)
    np.testing.assert_allclose(run("x.softmax()", x=x), ref_softmax(x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        run("tf.softmax([1.0, 2.0, 3.0])"), ref_softmax(np.array([1.0, 2, 3])), rtol=1e-6
    )


def test_log_softmax_matches_numpy(run):
    for shape in SHAPES:
        x = rand(*shape, scale=3)
        out = run("tf.log_softmax(x)", x=x)
        assert out.dtype == np.float32 and out.shape == shape
        np.testing.assert_allclose(out, ref_log_softmax(x), rtol=1e-5, atol=1e-6, err_msg=str(shape))
        np.testing.assert_allclose(
            run(f"tf.log_softmax(x, {len(shape) - 1})", x=x), ref_log_softmax(x), atol=1e-6
        )
    x = rand(3, 4)
    np.testing.assert_allclose(run("x.log_softmax(-1)", x=x), ref_log_softmax(x), rtol=1e-5, atol=1e-6)


def test_large_logits_are_stable(run):
    x = np.array(
        [[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -2000.0], [88.0, 89.0, -88.0]], dtype=np.float32
    )
    sm = run("tf.softmax(x)", x=x)
    assert np.isfinite(sm).all()
    np.testing.assert_allclose(sm, ref_softmax(x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sm.sum(-1), 1.0, rtol=1e-6)
    ls = run("tf.log_softmax(x)", x=x)
    assert np.isfinite(ls).all()
    np.testing.assert_allclose(ls, ref_log_softmax(x), rtol=1e-5, atol=1e-5)
    assert ls[1, 2] == pytest.approx(-1000 - np.log(2), rel=1e-6)


def test_int_input_gives_float32(run):
    i = np.array([[1, 2, 3], [0, 0, 0]], dtype=np.int32)
    out = run("tf.softmax(i)", i=i)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref_softmax(i), rtol=1e-6)
    out = run("tf.log_softmax(i)", i=i)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref_log_softmax(i), rtol=1e-6, atol=1e-6)


def test_nan_and_inf_rows(run):
    x = np.array([[1.0, np.nan, 2.0], [np.inf, 1.0, 0.0], [0.0, 1.0, 2.0]], dtype=np.float32)
    for fn in ("softmax", "log_softmax"):
        out = run(f"tf.{fn}(x)", x=x)
        assert np.isnan(out[0]).all() and np.isnan(out[1, 0])
        ref = ref_softmax(x[2:]) if fn == "softmax" else ref_log_softmax(x[2:])
        np.testing.assert_allclose(out[2:], ref, rtol=1e-5, atol=1e-6)
    y = rand(9, 2)  # many short rows take the strided-column path
    y[4, 1] = np.nan
    for fn, ref_fn in (("softmax", ref_softmax), ("log_softmax", ref_log_softmax)):
        out = run(f"tf.{fn}(y)", y=y)
        assert np.isnan(out[4]).all()
        np.testing.assert_allclose(np.delete(out, 4, 0), ref_fn(np.delete(y, 4, 0)), rtol=1e-5, atol=1e-6)


def test_empty_logits(run):
    for fn in ("softmax", "log_softmax"):
        assert run(f"tf.{fn}(x)", x=np.zeros((0, 3), dtype=np.float32)).shape == (0, 3)
        assert run(f"tf.{fn}(x)", x=np.zeros((2, 0), dtype=np.float32)).shape == (2, 0)


def test_softmax_errors(run):
    x = rand(2, 3)
    with pytest.raises(
        ValueError,
        match="Error in softmax: Softmax along a non-last dimension is not yet supported. "
        "Logits was rank 2 and dim was 0",
    ):
        run("tf.softmax(x, 0)", x=x)
    with pytest.raises(ValueError, match="Logits was rank 2 and dim was -2"):
        run("tf.softmax(x, -2)", x=x)
    with pytest.raises(ValueError, match="Error in softmax: dim 2 is out of range for a tensor of rank 2"):
        run("tf.softmax(x, 2)", x=x)
    with pytest.raises(TypeError, match="Error in softmax: argument 'dim' must be an integer, but got 1.0"):
        run("tf.softmax(x, 1.0)", x=x)
    with pytest.raises(ValueError, match=r"Error in softmax: logits must have rank >= 1, but got a scalar"):
        run("tf.softmax(s)", s=np.float32(1))
    with pytest.raises(ValueError, match="Error in softmax: argument 'logits' is a disposed tensor"):
        run("tf.softmax(x)", setup="x.dispose()", x=x)


def test_log_softmax_errors(run):
    x = rand(2, 3, 4)
    with pytest.raises(
        ValueError,
        match="Error in log_softmax: Log Softmax along a non-last dimension is not yet supported. "
        "Logits was rank 3 and axis was 1",
    ):
        run("tf.log_softmax(x, 1)", x=x)
    with pytest.raises(
        ValueError, match="Error in log_softmax: axis -4 is out of range for a tensor of rank 3"
    ):
        run("tf.log_softmax(x, -4)", x=x)
    with pytest.raises(
        TypeError, match=r"Error in log_softmax: argument 'axis' must be an integer, but got \[2\]"
    ):
        run("tf.log_softmax(x, [2])", x=x)
    with pytest.raises(
        ValueError, match=r"Error in log_softmax: logits must have rank >= 1, but got a scalar"
    ):
        run("tf.log_softmax(3.0)")
    with pytest.raises(ValueError, match="Error in log_softmax: argument 'logits' is a disposed tensor"):
        run("tf.log_softmax(x)", setup="x.dispose()", x=x)


def test_medium_batch(run):
    x = rand(256, 40, scale=4)
    np.testing.assert_allclose(run("tf.softmax(x)", x=x), ref_softmax(x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(run("tf.log_softmax(x)", x=x), ref_log_softmax(x), rtol=1e-5, atol=1e-5)
