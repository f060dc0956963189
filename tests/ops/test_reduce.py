import numpy as np
import pytest

from tests.helpers import Rand

_R = Rand(11)


def rand(*shape, dtype="float32"):
    return _R.of(shape, dtype, -5, 6)


def np_axis(axis, rank):
    if axis is None:
        return None
    return tuple(a % rank for a in ([axis] if isinstance(axis, int) else axis))


# (shape, axis): scalars, contiguous inner axes, an outer axis (strided slices), a short middle axis with a
# long inner block (pairwise rows), many short rows (pairwise strided columns), non-contiguous axes
# (gathered), size-1 axes, and no axes at all.
CASES = [
    ((), None),
    ((7,), None),
    ((7,), 0),
    ((7,), -1),
    ((4, 5), 0),
    ((4, 5), 1),
    ((4, 5), [0, 1]),
    ((4, 5), [-1]),
    ((12, 3), 1),
    ((6, 4, 2), 2),
    ((3, 4, 5), 1),
    ((2, 3, 9), 1),
    ((3, 4, 5), [0, 2]),
    ((3, 4, 5), [1, 2]),
    ((2, 3, 4, 5), [0, 2]),
    ((2, 3, 4, 5), [1, 3]),
    ((2, 3, 4, 5), [0, 1, 3]),
    ((2, 3, 4, 5), -2),
    ((3, 1, 4), 1),
    ((3, 1, 4), [0, 1]),
    ((3, 4), []),
]

NP_REDUCE = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}


@pytest.mark.parametrize("fn", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("keep_dims", [False, True])
def test_reductions_match_numpy(run, fn, dtype, keep_dims):
    for shape, axis in CASES:
        x = rand(*shape, dtype=dtype)
        if fn == "prod" and dtype == "float32":
            x = (x / 2 + np.sign(x)).astype(np.float32)  # |x| around 1: products stay moderate
        if fn == "prod" and dtype == "int32":
            x = np.clip(x, -2, 2).astype(np.int32)  # |prod| <= 2**30 over the <= 30 values reduced here
        out = run(f"tf.{fn}(x, {axis!r}, {keep_dims})", x=x)
        ref = NP_REDUCE[fn](x.astype(np.float64), axis=np_axis(axis, x.ndim), keepdims=keep_dims)
        expected_dtype = np.float32 if fn == "mean" or dtype == "float32" else np.int32
        assert out.dtype == expected_dtype, (fn, shape, axis)
        assert out.shape == np.shape(ref), (fn, shape, axis)
        if expected_dtype == np.int32:
            np.testing.assert_array_equal(out, ref, err_msg=f"{fn} {shape} {axis}")
        else:
            np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5, err_msg=f"{fn} {shape} {axis}")


def test_default_axis_and_tensor_methods(run):
    x = rand(3, 4)
    np.testing.assert_allclose(run("tf.sum(x)", x=x), x.sum(dtype=np.float64), rtol=1e-5)
    np.testing.assert_allclose(run("x.sum(1)", x=x), x.sum(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        run("x.mean(axis=0, keep_dims=True)", x=x), x.mean(0, keepdims=True), rtol=1e-5
    )
    np.testing.assert_array_equal(run("x.max(-1)", x=x), x.max(-1))
    np.testing.assert_array_equal(run("x.min()", x=x), x.min())
    assert run("tf.sum([1, 2, 3])").tolist() == 6
    assert run("tf.max([[1.5, -2.0]], 1)").tolist() == [1.5]


def test_bool_and_int_dtypes(run):
    b = np.array([[True, False, True], [True, True, True]])
    out = run("tf.sum(b, 1)", b=b)
    assert out.dtype == np.int32 and out.tolist() == [2, 3]
    out = run("tf.prod(b, 1)", b=b)
    assert out.dtype == np.int32 and out.tolist() == [0, 1]
    out = run("tf.mean(b)", b=b)
    assert out.dtype == np.float32 and out.tolist() == pytest.approx(5 / 6)
    out = run("tf.max(b, 1)", b=b)
    assert out.dtype == np.bool_ and out.tolist() == [True, True]
    assert run("tf.min(b, 1)", b=b).tolist() == [False, True]
    i = np.array([[3, -7], [2, 9]], dtype=np.int32)
    out = run("tf.mean(i, 0)", i=i)
    assert out.dtype == np.float32 and out.tolist() == [2.5, 1.0]


def test_int32_sum_and_prod_wrap_like_int32_arrays(run):
    big = np.array([2**31 - 1, 1], dtype=np.int32)
    assert run("tf.sum(x)", x=big).tolist() == -(2**31)
    assert run("tf.prod(x)", x=np.array([65536, 65536, 3], dtype=np.int32)).tolist() == 0
    assert run("tf.prod(x)", x=np.array([-46341, 46341], dtype=np.int32)).tolist() == -(46341**2) + 2**32
    # the same wrapping on the pairwise-rows path ([outer, short axis, long inner])
    x = np.full((2, 3, 20), 2**30, dtype=np.int32)
    out = run("tf.sum(x, 1)", x=x)
    np.testing.assert_array_equal(out, np.full((2, 20), -(2**30), dtype=np.int32))


def test_nan_propagates_in_max_and_min(run):
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0], [np.nan, 0.0, -1.0]], dtype=np.float32)
    for fn in ("max", "min"):
        out = run(f"tf.{fn}(x, 1)", x=x)
        ref = getattr(np, fn)(x, axis=1)
        np.testing.assert_array_equal(out, ref)
        np.testing.assert_array_equal(run(f"tf.{fn}(x, 0)", x=x), getattr(np, fn)(x, axis=0))
        assert np.isnan(run(f"tf.{fn}(x)", x=x))
    y = np.array([np.inf, -np.inf, 2.0], dtype=np.float32)
    assert run("tf.max(y)", y=y).tolist() == np.inf
    assert run("tf.min(y)", y=y).tolist() == -np.inf
    assert np.isnan(run("tf.sum(y)", y=y))
    # a NaN in the long inner block of the pairwise path still wins
    z = rand(2, 3, 40)
    z[1, 2, 7] = np.nan
    for fn in ("max", "min"):
        np.testing.assert_array_equal(run(f"tf.{fn}(z, 1)", z=z), getattr(np, fn)(z, axis=1))


def test_empty_reductions(run):
    xf = np.zeros((3, 0), dtype=np.float32)
    xi = np.zeros((3, 0), dtype=np.int32)
    assert run("tf.sum(x, 1)", x=xf).tolist() == [0, 0, 0]
    assert run("tf.prod(x, 1)", x=xf).tolist() == [1, 1, 1]
    assert run("tf.sum(x, 1)", x=xi).tolist() == [0, 0, 0]
    assert run("tf.prod(x, 1, True)", x=xi).tolist() == [[1], [1], [1]]
    # TF.js's cpu max/min of an empty axis read past the (empty) data: NaN for float32, 0 for int32
    assert np.isnan(run("tf.max(x, 1)", x=xf)).all() and run("tf.max(x, 1)", x=xf).shape == (3,)
    assert np.isnan(run("tf.min(x)", x=xf))
    assert run("tf.max(x, 1)", x=xi).tolist() == [0, 0, 0]
    assert np.isnan(run("tf.mean(x, 1)", x=xf)).all()
    # reducing the non-empty axis leaves an empty result
    for fn in ("sum", "mean", "max", "min", "prod"):
        out = run(f"tf.{fn}(x, 0)", x=xf)
        assert out.shape == (0,), fn
        assert run(f"tf.{fn}(x, 0, True)", x=xf).shape == (1, 0), fn
    assert run("tf.sum(x)", x=np.zeros((2, 0, 3), dtype=np.float32)).tolist() == 0


def test_all_any(run):
    for shape, axis in CASES:
        b = rand(*shape, dtype="bool")
        for keep in (False, True):
            for fn in ("all", "any"):
                out = run(f"tf.{fn}(b, {axis!r}, {keep})", b=b)
                ref = getattr(np, fn)(b, axis=np_axis(axis, b.ndim), keepdims=keep)
                assert out.dtype == np.bool_
                np.testing.assert_array_equal(out, ref, err_msg=f"{fn} {shape} {axis}")
    b = np.ones((2, 3, 10), dtype=bool)
    b[0, 1, 4] = False
    np.testing.assert_array_equal(run("tf.all(b, 1)", b=b), b.all(1))
    np.testing.assert_array_equal(run("tf.any(b, 1)", b=~b), (~b).any(1))


def test_all_any_non_bool_and_empty(run):
    x = np.array([[0.0, 2.5], [1.0, -1.0]], dtype=np.float32)
    assert run("tf.all(x, 1)", x=x).tolist() == [False, True]
    assert run("tf.any(x, 1)", x=x).tolist() == [True, True]
    assert run("tf.any([0, 0, 3])").tolist() is True
    e = np.zeros((2, 0), dtype=bool)
    assert run("tf.all(e, 1)", e=e).tolist() == [True, True]
    assert run("tf.any(e, 1)", e=e).tolist() == [False, False]


@pytest.mark.parametrize("fn", ["arg_max", "arg_min"])
def test_arg_max_min(run, fn):
    ref_fn = np.argmax if fn == "arg_max" else np.argmin
    for dtype in ("float32", "int32"):
        for shape in ((6,), (4, 5), (3, 4, 5), (2, 3, 4, 5)):
            x = rand(*shape, dtype=dtype)  # int32 values in [-5, 5] have many ties: the first index wins
            for axis in range(-len(shape), len(shape)):
                out = run(f"tf.{fn}(x, {axis})", x=x)
                assert out.dtype == np.int32
                np.testing.assert_array_equal(out, ref_fn(x, axis=axis), err_msg=f"{shape} {axis}")
    x = rand(3, 4)
    np.testing.assert_array_equal(run(f"tf.{fn}(x)", x=x), ref_fn(x, axis=0))
    np.testing.assert_array_equal(run(f"x.{fn}(1)", x=x), ref_fn(x, axis=1))
    b = np.array([[False, True, True], [False, False, False]])
    np.testing.assert_array_equal(run(f"tf.{fn}(b, 1)", b=b), ref_fn(b, axis=1))
    assert run(f"tf.{fn}([[2, 2, 2]], 1)").tolist() == [0]


def test_arg_max_nan_and_empty(run):
    # TF.js scans with a strict comparison: a NaN is skipped unless it comes first
    x = np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, 9.0]], dtype=np.float32)
    assert run("tf.arg_max(x, 1)", x=x).tolist() == [2, 0]
    assert run("tf.arg_min(x, 1)", x=x).tolist() == [0, 0]
    e = np.zeros((3, 0), dtype=np.float32)
    assert run("tf.arg_max(e, 1)", e=e).tolist() == [0, 0, 0]
    assert run("tf.arg_min(e, 0)", e=e).shape == (0,)


def test_medium_fast_paths(run):
    x = rand(300, 64)
    np.testing.assert_allclose(run("tf.sum(x, 0)", x=x), x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(run("tf.mean(x, 1)", x=x), x.astype(np.float64).mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(run("tf.max(x, 0)", x=x), x.max(0))
    np.testing.assert_array_equal(run("tf.arg_max(x, 0)", x=x), x.argmax(0))
    y = rand(8, 2, 512)
    np.testing.assert_allclose(run("tf.sum(y, 1)", y=y), y.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    z = rand(6, 10, 7, 9)
    np.testing.assert_array_equal(run("tf.min(z, [1, 3])", z=z), z.min((1, 3)))


def ref_log_sum_exp(x, axis, keep_dims):
    x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return out if keep_dims else np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def test_log_sum_exp(run):
    for shape, axis in [((5,), None), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), [0, 2]), ((2, 3), -1)]:
        x = rand(*shape) * 3
        for keep in (False, True):
            out = run(f"tf.log_sum_exp(x, {axis!r}, {keep})", x=x)
            ref = ref_log_sum_exp(x, np_axis(axis, x.ndim), keep)
            assert out.shape == ref.shape and out.dtype == np.float32
            np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    big = np.array([[1000.0, 1000.0], [-1000.0, -1001.0]], dtype=np.float32)
    np.testing.assert_allclose(
        run("tf.log_sum_exp(x, 1)", x=big), [1000 + np.log(2), -1000 + np.log1p(np.exp(-1))]
    )
    np.testing.assert_allclose(run("x.log_sum_exp()", x=big), ref_log_sum_exp(big, None, False), rtol=1e-6)
    i = np.array([1, 2, 3], dtype=np.int32)
    np.testing.assert_allclose(run("tf.log_sum_exp(i)", i=i), np.log(np.exp([1, 2, 3]).sum()), rtol=1e-6)


@pytest.mark.parametrize("fn", ["sum", "mean", "max", "min", "prod", "all", "any", "log_sum_exp"])
def test_axis_errors(run, fn):
    x = rand(2, 3)
    with pytest.raises(ValueError, match=f"Error in {fn}: axis 2 is out of range for a tensor of rank 2"):
        run(f"tf.{fn}(x, 2)", x=x)
    with pytest.raises(ValueError, match=f"Error in {fn}: axis -3 is out of range for a tensor of rank 2"):
        run(f"tf.{fn}(x, [0, -3])", x=x)
    with pytest.raises(ValueError, match=rf"Error in {fn}: axis \[1, -1\] has repeated axes"):
        run(f"tf.{fn}(x, [1, -1])", x=x)
    with pytest.raises(
        TypeError, match=f"Error in {fn}: argument 'axis' must be an int, a list of ints or None, but got 1.5"
    ):
        run(f"tf.{fn}(x, 1.5)", x=x)
    with pytest.raises(
        TypeError, match=rf"Error in {fn}: argument 'axis' must be an int, a list of ints or None"
    ):
        run(f"tf.{fn}(x, [0, 'a'])", x=x)
    with pytest.raises(ValueError, match=f"Error in {fn}: axis 0 is out of range for a tensor of rank 0"):
        run(f"tf.{fn}(s, 0)", s=np.float32(2.0))
    with pytest.raises(ValueError, match=f"Error in {fn}: argument 'x' is a disposed tensor"):
        run(f"tf.{fn}(x)", setup="x.dispose()", x=x)


@pytest.mark.parametrize("fn", ["arg_max", "arg_min"])
def test_arg_errors(run, fn):
    x = rand(2, 3)
    with pytest.raises(ValueError, match=f"Error in {fn}: axis 2 is out of range for a tensor of rank 2"):
        run(f"tf.{fn}(x, 2)", x=x)
    with pytest.raises(ValueError, match=f"Error in {fn}: axis 0 is out of range for a tensor of rank 0"):
        run(f"tf.{fn}(s)", s=np.float32(1.0))
    with pytest.raises(
        TypeError, match=rf"Error in {fn}: argument 'axis' must be an integer, but got \[0, 1\]"
    ):
        run(f"tf.{fn}(x, [0, 1])", x=x)
    with pytest.raises(TypeError, match=f"Error in {fn}: argument 'axis' must be an integer, but got None"):
        run(f"tf.{fn}(x, None)", x=x)
    with pytest.raises(ValueError, match=f"Error in {fn}: argument 'x' is a disposed tensor"):
        run(f"tf.{fn}(x)", setup="x.dispose()", x=x)
