import numpy as np
import pytest

from tests.helpers import Rand

_R = Rand(3)


def rand(*shape, dtype="float32"):
    return _R.of(shape, dtype, -4, 5)


def ref_scan(x, axis, exclusive, reverse, prod=False):
    x = x.astype(np.float64 if x.dtype.kind == "f" else np.int64)
    if reverse:
        x = np.flip(x, axis)
    out = np.cumprod(x, axis) if prod else np.cumsum(x, axis)
    if exclusive:
        ident = np.ones_like(np.take(out, [0], axis)) if prod else np.zeros_like(np.take(out, [0], axis))
        out = np.concatenate([ident, np.delete(out, -1, axis)], axis)
    return np.flip(out, axis) if reverse else out


# shapes covering the per-line path (axis at least as long as the inner block) and the per-step path
SCAN_SHAPES = [(6,), (3, 4), (4, 3), (2, 3, 4), (2, 5, 2, 3)]


@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, False), (False, True), (True, True)])
def test_scans_match_numpy(run, fn, dtype, exclusive, reverse):
    for shape in SCAN_SHAPES:
        x = rand(*shape, dtype=dtype)
        for axis in range(-len(shape), len(shape)):
            out = run(f"tf.{fn}(x, {axis}, {exclusive}, {reverse})", x=x)
            ref = ref_scan(x, axis % len(shape), exclusive, reverse, prod=fn == "cumprod")
            assert out.dtype == x.dtype and out.shape == shape
            if dtype == "int32":
                np.testing.assert_array_equal(out, ref, err_msg=f"{shape} {axis}")
            else:
                np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5, err_msg=f"{shape} {axis}")


def test_scan_defaults_dtypes_and_methods(run):
    x = rand(3, 4)
    np.testing.assert_allclose(run("tf.cumsum(x)", x=x), np.cumsum(x, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run("x.cumsum(1)", x=x), np.cumsum(x, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        run("x.cumprod(-1, reverse=True)", x=x), ref_scan(x, 1, False, True, True), rtol=1e-5
    )
    b = np.array([True, False, True, True])
    out = run("tf.cumsum(b)", b=b)
    assert out.dtype == np.int32 and out.tolist() == [1, 1, 2, 3]
    out = run("tf.cumprod(b, 0, True)", b=b)
    assert out.dtype == np.int32 and out.tolist() == [1, 1, 0, 0]
    assert run("tf.cumsum([1, 2, 3], 0, True, True)").tolist() == [5, 3, 0]
    big = np.array([2**31 - 1, 1, 1], dtype=np.int32)
    assert run("tf.cumsum(x)", x=big).tolist() == [2**31 - 1, -(2**31), -(2**31) + 1]


def test_scan_empty_and_medium(run):
    for fn in ("cumsum", "cumprod"):
        assert run(f"tf.{fn}(x, 1)", x=np.zeros((3, 0), dtype=np.float32)).shape == (3, 0)
        assert run(f"tf.{fn}(x, 0, True)", x=np.zeros((0, 2), dtype=np.int32)).shape == (0, 2)
    x = rand(50, 80)
    for axis in (0, 1):
        np.testing.assert_allclose(
            run(f"tf.cumsum(x, {axis})", x=x), ref_scan(x, axis, False, False), atol=1e-4
        )


@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_scan_errors(run, fn):
    x = rand(2, 3)
    with pytest.raises(ValueError, match=f"Error in {fn}: axis 2 is out of range for a tensor of rank 2"):
        run(f"tf.{fn}(x, 2)", x=x)
    with pytest.raises(ValueError, match=f"Error in {fn}: axis 0 is out of range for a tensor of rank 0"):
        run(f"tf.{fn}(s)", s=np.float32(1))
    with pytest.raises(TypeError, match=rf"Error in {fn}: argument 'axis' must be an integer, but got \[0\]"):
        run(f"tf.{fn}(x, [0])", x=x)
    with pytest.raises(ValueError, match=f"Error in {fn}: argument 'x' is a disposed tensor"):
        run(f"tf.{fn}(x)", setup="x.dispose()", x=x)


def ref_top_k(x, k):
    idx = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, -1), idx


def test_top_k_matches_stable_argsort(run):
    for dtype in ("float32", "int32"):  # int32 values in [-4, 4]: many ties, lower index first
        for shape in ((7,), (3, 6), (2, 3, 9), (2, 2, 2, 5)):
            x = rand(*shape, dtype=dtype)
            for k in (0, 1, 3, shape[-1]):
                values, indices = run(f"tf.top_k(x, {k})", x=x)
                ref_v, ref_i = ref_top_k(x, k)
                assert values.dtype == x.dtype and indices.dtype == np.int32
                assert values.shape == (*shape[:-1], k) and indices.shape == (*shape[:-1], k)
                np.testing.assert_array_equal(values, ref_v, err_msg=f"{shape} {k}")
                np.testing.assert_array_equal(indices, ref_i, err_msg=f"{shape} {k}")


def test_top_k_defaults_ties_and_unsorted(run):
    x = np.array([[1.0, 5.0, 3.0], [4.0, 3.0, 4.0]], dtype=np.float32)
    values, indices = run("tf.top_k(x)", x=x)
    assert values.tolist() == [[5.0], [4.0]] and indices.tolist() == [[1], [0]]
    values, indices = run("x.top_k(2)", x=x)
    assert values.tolist() == [[5.0, 3.0], [4.0, 4.0]] and indices.tolist() == [[1, 2], [0, 2]]
    # sorted=False leaves the order unspecified: check the selected set
    values, indices = run("tf.top_k(x, 2, False)", x=x)
    assert [sorted(r) for r in indices.tolist()] == [[1, 2], [0, 2]]
    np.testing.assert_array_equal(values, np.take_along_axis(x, indices, -1))
    values, indices = run("tf.top_k([2, 2, 2, 2], 3)")
    assert values.tolist() == [2, 2, 2] and indices.tolist() == [0, 1, 2]
    b = np.array([False, True, False, True])
    values, indices = run("tf.top_k(b, 3)", b=b)
    assert values.tolist() == [True, True, False] and indices.tolist() == [1, 3, 0]


def test_top_k_nan_ranks_first_and_medium(run):
    x = np.array([1.0, np.nan, 3.0, np.nan, -np.inf, np.inf], dtype=np.float32)
    values, indices = run("tf.top_k(x, 4)", x=x)
    assert indices.tolist() == [1, 3, 5, 2]
    assert np.isnan(values[:2]).all() and values[2:].tolist() == [np.inf, 3.0]
    m = rand(64, 200)
    values, indices = run("tf.top_k(m, 5)", m=m)
    ref_v, ref_i = ref_top_k(m, 5)
    np.testing.assert_array_equal(values, ref_v)
    np.testing.assert_array_equal(indices, ref_i)
    e = np.zeros((3, 0), dtype=np.float32)
    values, indices = run("tf.top_k(e, 0)", e=e)
    assert values.shape == (3, 0) and indices.shape == (3, 0)


def test_top_k_errors(run):
    x = rand(2, 3)
    with pytest.raises(
        ValueError,
        match=r"Error in top_k: 'k' passed to top_k\(\) must be <= the last dimension \(3\) but got 4",
    ):
        run("tf.top_k(x, 4)", x=x)
    with pytest.raises(ValueError, match=r"Error in top_k: 'k' passed to top_k\(\) must be >= 0 but got -1"):
        run("tf.top_k(x, -1)", x=x)
    with pytest.raises(
        ValueError, match=r"Error in top_k: x must be of rank 1 or higher, but got shape \[\]"
    ):
        run("tf.top_k(s)", s=np.float32(1))
    with pytest.raises(TypeError, match="Error in top_k: argument 'k' must be an integer, but got 1.5"):
        run("tf.top_k(x, 1.5)", x=x)
    with pytest.raises(ValueError, match="Error in top_k: argument 'x' is a disposed tensor"):
        run("tf.top_k(x)", setup="x.dispose()", x=x)
