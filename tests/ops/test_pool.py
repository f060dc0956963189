
import numpy as np
import pytest

from tests.helpers import Rand, pair, window_geometry

_R = Rand(5)
RNG, rand = _R.rng, _R.normal


def ref_pool(x, size, strides, pad, reduce, mode=None):
    """Pool windows that ignore the padding: pad with NaN and use nanmax / nanmean."""
    (fh, fw), (sh, sw) = pair(size), pair(strides)
    top, _, oh = window_geometry(x.shape[1], fh, sh, 1, pad, mode, 0)
    left, _, ow = window_geometry(x.shape[2], fw, sw, 1, pad, mode, 1)
    bottom = max(0, (oh - 1) * sh + fh - top - x.shape[1])
    right = max(0, (ow - 1) * sw + fw - left - x.shape[2])
    xp = np.pad(x.astype(np.float64), ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=np.nan)
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for y in range(oh):
        for c in range(ow):
            out[:, y, c] = reduce(xp[:, y * sh : y * sh + fh, c * sw : c * sw + fw], axis=(1, 2))
    return out


CASES = [
    ((1, 5, 5, 2), 2, 2, "valid"),
    ((2, 7, 6, 3), 3, 2, "same"),
    ((1, 6, 7, 1), [3, 2], [1, 2], "same"),
    ((1, 6, 6, 4), 3, 1, "same"),
    ((2, 9, 8, 3), [2, 3], 3, "valid"),
    ((1, 6, 5, 2), 3, 2, [[0, 0], [1, 2], [2, 0], [0, 0]]),
    ((1, 4, 4, 2), 5, 1, "same"),
    ((2, 5, 7, 3), [5, 7], 1, "valid"),  # one window over the whole input (global pooling)
]


@pytest.mark.parametrize("xs,size,strides,pad", CASES)
def test_max_pool(run, xs, size, strides, pad):
    x = rand(*xs)
    out = run(f"tf.max_pool(x, {size!r}, {strides!r}, {pad!r})", x=x)
    ref = ref_pool(x, size, strides, pad, np.nanmax)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("xs,size,strides,pad", CASES)
def test_avg_pool(run, xs, size, strides, pad):
    x = rand(*xs)
    out = run(f"tf.avg_pool(x, {size!r}, {strides!r}, {pad!r})", x=x)
    ref = ref_pool(x, size, strides, pad, np.nanmean)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_pool_same_padding_counts_only_valid(run):
    # hand-computed: every 3x3 'same' window over a 2x2 input holds the 4 real values (padding not counted)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32).reshape(1, 2, 2, 1)
    assert run("tf.avg_pool(x, 3, 1, 'same')", x=x).ravel().tolist() == [2.5, 2.5, 2.5, 2.5]
    x = np.array([[-1.0, -2.0], [-3.0, -4.0]], dtype=np.float32).reshape(1, 2, 2, 1)
    assert run("tf.max_pool(x, 2, 1, 'same')", x=x).ravel().tolist() == [-1.0, -2.0, -3.0, -4.0]


def test_pool_rank3_medium_and_rounding(run):
    x = rand(6, 5, 3)
    out = run("tf.max_pool(x, 2, 2, 'same')", x=x)
    np.testing.assert_allclose(out, ref_pool(x[None], 2, 2, "same", np.nanmax)[0], rtol=1e-6)
    x = rand(2, 24, 24, 16)
    out = run("tf.avg_pool(x, 3, 2, 'same')", x=x)
    np.testing.assert_allclose(out, ref_pool(x, 3, 2, "same", np.nanmean), rtol=1e-5, atol=1e-6)
    x = rand(1, 6, 7, 2)  # (6 - 3 + 2) / 2 + 1 = 3.5 rows
    for mode, rows in (("floor", 3), ("ceil", 4), ("round", 4)):
        for name, reduce in (("max_pool", np.nanmax), ("avg_pool", np.nanmean)):
            out = run(f"tf.{name}(x, 3, 2, 1, '{mode}')", x=x)
            assert out.shape[1] == rows
            np.testing.assert_allclose(out, ref_pool(x, 3, 2, 1, reduce, mode), rtol=1e-5, atol=1e-6)


def test_pool_identity_window_and_methods(run):
    x = rand(1, 3, 4, 2)
    np.testing.assert_array_equal(run("tf.avg_pool(x, 1, 1, 'valid')", x=x), x)
    np.testing.assert_array_equal(run("x.max_pool(1, 1, 'same')", x=x), x)
    # atol: a window mean near 0 carries the float32 rounding of its inputs (XNNPACK sums in another order)
    np.testing.assert_allclose(
        run("x.avg_pool(2, 2, 'valid')", x=x), ref_pool(x, 2, 2, "valid", np.nanmean), 1e-6, 1e-7
    )


def test_pool_dtypes_and_empty(run):
    x = RNG.integers(-50, 50, (1, 5, 5, 2)).astype(np.int32)
    out = run("tf.max_pool(x, 3, 2, 'same')", x=x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ref_pool(x, 3, 2, "same", np.nanmax).astype(np.int32))
    out = run("tf.avg_pool(x, 2, 2, 'valid')", x=x)
    assert out.dtype == np.int32  # the mean is truncated back to int32, as TF.js casts it
    np.testing.assert_array_equal(out, np.trunc(ref_pool(x, 2, 2, "valid", np.nanmean)).astype(np.int32))
    assert run("tf.max_pool(x, 2, 2, 'same')", x=rand(0, 4, 4, 3)).shape == (0, 2, 2, 3)
    assert run("tf.avg_pool(x, 2, 1, 'valid')", x=rand(1, 3, 3, 0)).shape == (1, 2, 2, 0)


def test_pool_errors(run):
    x = rand(1, 4, 4, 2)
    with pytest.raises(
        ValueError, match=r"Error in max_pool: x must be rank 4 \(or 3 without a batch\), but got rank 2"
    ):
        run("tf.max_pool(x, 2, 2, 'same')", x=rand(4, 4))
    with pytest.raises(ValueError, match="Error in avg_pool: unknown padding parameter 'full'"):
        run("tf.avg_pool(x, 2, 2, 'full')", x=x)
    with pytest.raises(
        ValueError, match="Error in avg_pool: pad must be an integer when using dim_rounding_mode floor"
    ):
        run("tf.avg_pool(x, 2, 2, 'valid', 'floor')", x=x)
    with pytest.raises(ValueError, match="Error in max_pool: strides should be larger than 0"):
        run("tf.max_pool(x, 2, 0, 'valid')", x=x)
    with pytest.raises(ValueError, match="Error in max_pool: filter_size should be larger than 0"):
        run("tf.max_pool(x, 0, 1, 'valid')", x=x)
    with pytest.raises(TypeError, match="Error in max_pool: argument 'x' has dtype bool"):
        run("tf.max_pool(x, 2, 2, 'same')", x=np.ones((1, 2, 2, 1), dtype=bool))
    with pytest.raises(ValueError, match="Error in avg_pool: argument 'x' is a disposed tensor"):
        run("tf.avg_pool(x, 2, 2, 'same')", setup="x.dispose()", x=x)
