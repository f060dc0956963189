"""depth_to_space, space_to_batch_nd, batch_to_space_nd vs numpy reshape/transpose definitions (TF docs)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from tests.helpers import Rand

_R = Rand(3)
rng = _R.rng
rand = functools.partial(_R.uniform, lo=-1.0, hi=1.0)


def ref_depth_to_space(x: np.ndarray, bs: int, data_format: str = "NHWC") -> np.ndarray:
    if data_format == "NHWC":
        b, h, w, c = x.shape
        y = x.reshape(b, h, w, bs, bs, c // bs**2).transpose(0, 1, 3, 2, 4, 5)
        return y.reshape(b, h * bs, w * bs, c // bs**2)
    b, c, h, w = x.shape
    y = x.reshape(b, bs, bs, c // bs**2, h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(b, c // bs**2, h * bs, w * bs)


def ref_space_to_batch(x: np.ndarray, block: list[int], pads: list[list[int]]) -> np.ndarray:
    m, batch = len(block), x.shape[0]
    padded = np.pad(x, [(0, 0), *pads] + [(0, 0)] * (x.ndim - 1 - m))
    spatial, rest = padded.shape[1 : 1 + m], padded.shape[1 + m :]
    shape = [batch] + [v for d, b in zip(spatial, block, strict=True) for v in (d // b, b)] + list(rest)
    r = padded.reshape(shape)
    perm = (
        [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, r.ndim))
    )
    out_spatial = [d // b for d, b in zip(spatial, block, strict=True)]
    return r.transpose(perm).reshape([batch * int(np.prod(block)), *out_spatial, *rest])


def ref_batch_to_space(x: np.ndarray, block: list[int], crops: list[list[int]]) -> np.ndarray:
    m, batch = len(block), x.shape[0]
    p = int(np.prod(block))
    r = x.reshape(list(block) + [batch // p] + list(x.shape[1:]))
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1, r.ndim))
    r = r.transpose(perm).reshape(
        [batch // p] + [x.shape[1 + i] * block[i] for i in range(m)] + list(x.shape[1 + m :])
    )
    index = tuple([slice(None)] + [slice(c0, r.shape[1 + i] - c1) for i, (c0, c1) in enumerate(crops)])
    return r[index]


# ---- depth_to_space -----------------------------------------------------------------------------
def test_depth_to_space_nhwc_and_nchw(run):
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 1, 4)
    assert run("tf.depth_to_space(x, 2)", x=x).reshape(2, 2).tolist() == [[1, 2], [3, 4]]
    for shape, bs in [((2, 3, 4, 8), 2), ((1, 2, 2, 18), 3), ((3, 1, 5, 4), 2)]:
        x = rand(*shape)
        np.testing.assert_array_equal(run(f"tf.depth_to_space(x, {bs})", x=x), ref_depth_to_space(x, bs))
        xc = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
        out = run(f"tf.depth_to_space(x, {bs}, 'NCHW')", x=xc)
        np.testing.assert_array_equal(out, ref_depth_to_space(xc, bs, "NCHW"))
        np.testing.assert_array_equal(out.transpose(0, 2, 3, 1), ref_depth_to_space(x, bs))


def test_depth_to_space_dtypes_empty_method_and_medium(run):
    xi = rng.integers(-9, 9, (2, 2, 3, 4)).astype(np.int32)
    out = run("x.depth_to_space(2)", x=xi)
    assert out.dtype == np.int32 and np.array_equal(out, ref_depth_to_space(xi, 2))
    xb = rng.random((1, 2, 2, 4)) < 0.5
    np.testing.assert_array_equal(run("tf.depth_to_space(x, 2)", x=xb), ref_depth_to_space(xb, 2))
    assert run("tf.depth_to_space(x, 2)", x=rand(0, 2, 2, 4)).shape == (0, 4, 4, 1)
    big = rand(2, 16, 16, 64)  # long contiguous channel runs
    np.testing.assert_array_equal(run("tf.depth_to_space(x, 2)", x=big), ref_depth_to_space(big, 2))


def test_depth_to_space_errors(run):
    with pytest.raises(
        ValueError, match=r"Error in depth_to_space: x must be rank 4, but got rank 3 \(\[1,1,4\]\)"
    ):
        run("tf.depth_to_space(x, 2)", x=rand(1, 1, 4))
    with pytest.raises(
        ValueError, match="Error in depth_to_space: block_size should be an int > 1, but was: 1"
    ):
        run("tf.depth_to_space(x, 1)", x=rand(1, 1, 1, 4))
    msg = r"Error in depth_to_space: dimension size must be evenly divisible by 4 but is 6 for depth_to_space"
    with pytest.raises(ValueError, match=msg + r" with input shape \[1,1,1,6\]"):
        run("tf.depth_to_space(x, 2)", x=rand(1, 1, 1, 6))
    with pytest.raises(
        ValueError, match=r"evenly divisible by 9 but is 4 for depth_to_space with input shape \[1,4,2,2\]"
    ):
        run("tf.depth_to_space(x, 3, 'NCHW')", x=rand(1, 4, 2, 2))
    with pytest.raises(
        ValueError, match="Error in depth_to_space: data_format must be 'NHWC' or 'NCHW', but was 'NWHC'"
    ):
        run("tf.depth_to_space(x, 2, 'NWHC')", x=rand(1, 1, 1, 4))
    with pytest.raises(ValueError, match="Error in depth_to_space: argument 'x' is a disposed tensor"):
        run("tf.depth_to_space(x, 2)", setup="x.dispose()", x=rand(1, 1, 1, 4))


# ---- space_to_batch_nd / batch_to_space_nd --------------------------------------------------------
CASES = [
    ((1, 2, 2, 1), [2, 2], [[0, 0], [0, 0]]),
    ((2, 4, 6, 3), [2, 3], [[0, 0], [0, 0]]),
    ((2, 3, 5, 2), [2, 2], [[1, 0], [2, 1]]),
    ((3, 5, 2), [3], [[2, 2]]),
    ((2, 2, 3, 4, 2), [1, 3, 2], [[0, 0], [1, 2], [0, 2]]),
    ((2, 7), [2], [[0, 1]]),
    ((2, 3, 40), [1], [[1, 0]]),  # long contiguous remaining run (slice path), with padding
]


@pytest.mark.parametrize(("shape", "block", "pads"), CASES)
def test_space_to_batch_and_back(run, shape, block, pads):
    x = rand(*shape)
    out = run(f"tf.space_to_batch_nd(x, {block}, {pads})", x=x)
    np.testing.assert_array_equal(out, ref_space_to_batch(x, block, pads))
    back = run(f"tf.batch_to_space_nd(y, {block}, {pads})", y=out)
    np.testing.assert_array_equal(back, ref_batch_to_space(out, block, pads))
    np.testing.assert_array_equal(back, x)


def test_space_to_batch_hand_values_dtypes_and_empty(run):
    x = np.array([1, 2, 3, 4], np.float32).reshape(1, 2, 2, 1)
    assert run("x.space_to_batch_nd([2, 2], [[0, 0], [0, 0]])", x=x).ravel().tolist() == [1, 2, 3, 4]
    y = np.array([1, 2, 3, 4], np.int32).reshape(4, 1, 1, 1)
    out = run("y.batch_to_space_nd([2, 2], [[0, 0], [0, 0]])", y=y)
    assert out.dtype == np.int32 and out.reshape(2, 2).tolist() == [[1, 2], [3, 4]]
    xb = rng.random((2, 4, 2)) < 0.5
    out = run("tf.space_to_batch_nd(x, [2], [[1, 1]])", x=xb)
    assert out.dtype == np.bool_ and np.array_equal(out, ref_space_to_batch(xb, [2], [[1, 1]]))
    xi = rng.integers(-5, 5, (8, 2, 3, 2)).astype(np.int32)
    out = run("tf.batch_to_space_nd(x, [2, 2], [[1, 2], [0, 3]])", x=xi)
    assert out.shape == (2, 1, 3, 2) and np.array_equal(out, ref_batch_to_space(xi, [2, 2], [[1, 2], [0, 3]]))
    assert run("tf.space_to_batch_nd(x, [2], [[0, 0]])", x=rand(0, 4, 2)).shape == (0, 2, 2)
    assert run("tf.batch_to_space_nd(x, [2], [[1, 1]])", x=rand(2, 1, 3)).shape == (1, 0, 3)
    x = rand(2, 3)
    np.testing.assert_array_equal(run("tf.space_to_batch_nd(x, [], [])", x=x), x)


def test_space_to_batch_errors(run):
    x, fn = rand(1, 4, 4, 1), "Error in space_to_batch_nd"
    msg = rf"{fn}: input rank 2 should be > the length of block_shape 2 \(input shape \[4,4\]\)"
    with pytest.raises(ValueError, match=msg):
        run("tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])", x=rand(4, 4))
    with pytest.raises(
        ValueError, match=f"{fn}: paddings has 1 rows but should have 2, the length of block_shape"
    ):
        run("tf.space_to_batch_nd(x, [2, 2], [[0, 0]])", x=x)
    msg = (
        rf"{fn}: input spatial dimensions \[4,4\] with paddings \[\[0, 1\], \[0, 0\]\] must be divisible by "
    )
    with pytest.raises(ValueError, match=msg + r"block_shape \[2,2\]"):
        run("tf.space_to_batch_nd(x, [2, 2], [[0, 1], [0, 0]])", x=x)
    with pytest.raises(ValueError, match=rf"{fn}: paddings must be >= 0, but got \[\[-1, 1\]"):
        run("tf.space_to_batch_nd(x, [2, 2], [[-1, 1], [0, 0]])", x=x)
    with pytest.raises(ValueError, match=rf"{fn}: paddings must have shape \[2,2\]"):
        run("tf.space_to_batch_nd(x, [2, 2], [[0, 0, 0], [0, 0]])", x=x)
    with pytest.raises(ValueError, match=rf"{fn}: block_shape values must be >= 1, but got \[0, 2\]"):
        run("tf.space_to_batch_nd(x, [0, 2], [[0, 0], [0, 0]])", x=x)
    with pytest.raises(
        TypeError, match=rf"{fn}: argument 'block_shape' must be a list of integers, but got 2"
    ):
        run("tf.space_to_batch_nd(x, 2, [[0, 0]])", x=x)


def test_batch_to_space_errors(run):
    x, fn = rand(4, 2, 2, 1), "Error in batch_to_space_nd"
    with pytest.raises(ValueError, match=f"{fn}: input rank 2 should be > the length of block_shape 2"):
        run("tf.batch_to_space_nd(x, [2, 2], [[0, 0], [0, 0]])", x=rand(4, 4))
    with pytest.raises(
        ValueError, match=f"{fn}: crops has 1 rows but should have 2, the length of block_shape"
    ):
        run("tf.batch_to_space_nd(x, [2, 2], [[0, 0]])", x=x)
    msg = (
        rf"{fn}: input tensor batch is 4 but is not divisible by the product of the elements of block_shape "
    )
    with pytest.raises(ValueError, match=msg + r"3 \* 2 === 6"):
        run("tf.batch_to_space_nd(x, [3, 2], [[0, 0], [0, 0]])", x=x)
    msg = rf"{fn}: crops\[1\] = \[3,2\] crop more than the 4 elements of spatial dimension 1"
    with pytest.raises(ValueError, match=msg):
        run("tf.batch_to_space_nd(x, [2, 2], [[0, 0], [3, 2]])", x=x)
    with pytest.raises(ValueError, match=rf"{fn}: crops must be >= 0"):
        run("tf.batch_to_space_nd(x, [2, 2], [[0, -1], [0, 0]])", x=x)
