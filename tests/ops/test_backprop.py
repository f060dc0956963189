"""The backward kernels (ops/backprop.py) on every target, against numpy loops written from the definitions:
each gradient is the transpose of its forward op, summed window by window."""

import math

import numpy as np
import pytest

from tests.helpers import Rand, pair, window_geometry

R = Rand(12)
RNG, rand = R.rng, R.normal
BP = "from webtf.ops import backprop as bp"


def window_taps(x_shape, fh, fw, strides, dilations, pad, mode=None):
    """(out_h, out_w, [(oy, ox, iy, ix, r, s) for every in-bounds tap of every window])."""
    (sh, sw), (dh, dw) = pair(strides), pair(dilations)
    top, _, oh = window_geometry(x_shape[1], fh, sh, dh, pad, mode, 0)
    left, _, ow = window_geometry(x_shape[2], fw, sw, dw, pad, mode, 1)
    taps = []
    for oy in range(oh):
        for ox in range(ow):
            for r in range(fh):
                for s in range(fw):
                    iy, ix = oy * sh - top + r * dh, ox * sw - left + s * dw
                    if 0 <= iy < x_shape[1] and 0 <= ix < x_shape[2]:
                        taps.append((oy, ox, iy, ix, r, s))
    return oh, ow, taps


def ref_conv(x, f, strides, pad, dilations=1, depthwise=False, mode=None):
    oh, ow, taps = window_taps(x.shape, f.shape[0], f.shape[1], strides, dilations, pad, mode)
    out_c = f.shape[2] * f.shape[3] if depthwise else f.shape[3]
    out = np.zeros((x.shape[0], oh, ow, out_c))
    for oy, ox, iy, ix, r, s in taps:
        if depthwise:
            out[:, oy, ox] += (x[:, iy, ix, :, None] * f[r, s]).reshape(x.shape[0], -1)
        else:
            out[:, oy, ox] += x[:, iy, ix] @ f[r, s].astype(np.float64)
    return out


def ref_filter_grad(x, dy, fshape, strides, pad, dilations=1, depthwise=False, mode=None):
    _, _, taps = window_taps(x.shape, fshape[0], fshape[1], strides, dilations, pad, mode)
    df = np.zeros(fshape)
    for oy, ox, iy, ix, r, s in taps:
        xv, g = x[:, iy, ix].astype(np.float64), dy[:, oy, ox].astype(np.float64)
        if depthwise:
            df[r, s] += np.einsum("bc,bcm->cm", xv, g.reshape(g.shape[0], fshape[2], fshape[3]))
        else:
            df[r, s] += xv.T @ g
    return df


def ref_input_grad(x_shape, dy, f, strides, pad, dilations=1, depthwise=False, mode=None):
    _, _, taps = window_taps(x_shape, f.shape[0], f.shape[1], strides, dilations, pad, mode)
    dx = np.zeros(x_shape)
    for oy, ox, iy, ix, r, s in taps:
        g = dy[:, oy, ox].astype(np.float64)
        if depthwise:
            dx[:, iy, ix] += np.einsum("bcm,cm->bc", g.reshape(g.shape[0], *f.shape[2:]), f[r, s])
        else:
            dx[:, iy, ix] += g @ f[r, s].T.astype(np.float64)
    return dx


def close(out, ref, tol=1e-4):
    assert out.shape == ref.shape, (out.shape, ref.shape)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)


CONV_CASES = [
    ((1, 5, 5, 2), (3, 3, 2, 3), 1, "same"),
    ((2, 7, 6, 3), (3, 3, 3, 4), 2, "same"),
    ((2, 7, 6, 3), (3, 2, 3, 4), [2, 1], "valid"),
    ((1, 9, 9, 1), (2, 2, 1, 1), 3, "valid"),
    ((1, 6, 5, 3), (2, 3, 3, 2), 2, [[0, 0], [1, 2], [0, 1], [0, 0]]),
    ((2, 5, 5, 3), (1, 1, 3, 4), 1, "valid"),
    ((1, 6, 6, 2), (3, 3, 2, 2), 2, 1),
    ((1, 4, 4, 3), (5, 5, 3, 2), 1, "same"),
    ((3, 8, 8, 4), (3, 3, 4, 8), 1, "same"),
]


@pytest.mark.parametrize("xs,fs,strides,pad", CONV_CASES)
def test_conv2d_backprop_filter_and_input(run, xs, fs, strides, pad):
    x, f = rand(*xs), rand(*fs)
    dy = rand(*ref_conv(x, f, strides, pad).shape)
    out = run(f"bp.conv2d_backprop_filter(x, dy, {list(fs)}, {strides!r}, {pad!r})", setup=BP, x=x, dy=dy)
    close(out, ref_filter_grad(x, dy, fs, strides, pad))
    out = run(f"bp.conv2d_backprop_input({list(xs)}, dy, f, {strides!r}, {pad!r})", setup=BP, dy=dy, f=f)
    close(out, ref_input_grad(xs, dy, f, strides, pad))


def test_conv2d_backprop_benchmark_shapes(run):
    """The conv net of the training benchmark: 28x28x1 -> conv 8 -> pool -> conv 16, batch 32."""
    x1, f1 = rand(32, 28, 28, 1), rand(3, 3, 1, 8)
    dy1 = rand(32, 28, 28, 8)
    out = run("bp.conv2d_backprop_filter(x, dy, [3, 3, 1, 8], 1, 'same')", setup=BP, x=x1, dy=dy1)
    close(out, ref_filter_grad(x1, dy1, f1.shape, 1, "same"), 2e-3)
    x2, f2 = rand(32, 14, 14, 8), rand(3, 3, 8, 16)
    dy2 = rand(32, 14, 14, 16)
    out = run("bp.conv2d_backprop_filter(x, dy, [3, 3, 8, 16], 1, 'same')", setup=BP, x=x2, dy=dy2)
    close(out, ref_filter_grad(x2, dy2, f2.shape, 1, "same"), 2e-3)
    out = run("bp.conv2d_backprop_input([32, 14, 14, 8], dy, f, 1, 'same')", setup=BP, dy=dy2, f=f2)
    close(out, ref_input_grad(x2.shape, dy2, f2, 1, "same"), 1e-3)


@pytest.mark.parametrize("mode", ["floor", "ceil"])
def test_conv2d_backprop_dim_rounding_mode(run, mode):
    x, f = rand(1, 6, 7, 2), rand(3, 3, 2, 2)
    dy = rand(*ref_conv(x, f, 2, 1, mode=mode).shape)
    out = run(f"bp.conv2d_backprop_filter(x, dy, [3, 3, 2, 2], 2, 1, 'NHWC', '{mode}')", setup=BP, x=x, dy=dy)
    close(out, ref_filter_grad(x, dy, f.shape, 2, 1, mode=mode))
    out = run(f"bp.conv2d_backprop_input([1, 6, 7, 2], dy, f, 2, 1, 'NHWC', '{mode}')", setup=BP, dy=dy, f=f)
    close(out, ref_input_grad(x.shape, dy, f, 2, 1, mode=mode))


def test_conv2d_backprop_rank3_and_empty(run):
    x, f = rand(5, 4, 2), rand(3, 3, 2, 3)
    dy = rand(5, 4, 3)
    out = run("bp.conv2d_backprop_filter(x, dy, [3, 3, 2, 3], 1, 'same')", setup=BP, x=x, dy=dy)
    close(out, ref_filter_grad(x[None], dy[None], f.shape, 1, "same"))
    out = run("bp.conv2d_backprop_input([5, 4, 2], dy, f, 1, 'same')", setup=BP, dy=dy, f=f)
    close(out, ref_input_grad((1, 5, 4, 2), dy[None], f, 1, "same")[0])
    out = run("bp.conv2d_backprop_filter(x, dy, [3, 3, 2, 3], 1, 'same')", setup=BP, x=rand(0, 4, 4, 2),
              dy=rand(0, 4, 4, 3))  # fmt: skip
    np.testing.assert_array_equal(out, np.zeros((3, 3, 2, 3), np.float32))


DEPTHWISE_CASES = [
    ((1, 5, 5, 3), (3, 3, 3, 1), 1, "same", 1),
    ((2, 7, 6, 3), (3, 3, 3, 2), 2, "same", 1),
    ((1, 8, 7, 2), (3, 2, 2, 2), [1, 2], "valid", 1),
    ((1, 8, 9, 2), (3, 3, 2, 1), 1, "same", 2),
    ((1, 7, 7, 1), (2, 2, 1, 2), 2, [[0, 0], [1, 0], [0, 2], [0, 0]], 1),
    ((2, 6, 6, 4), (3, 3, 4, 1), 2, "same", 1),
]


@pytest.mark.parametrize("xs,fs,strides,pad,dil", DEPTHWISE_CASES)
def test_depthwise_backprop_filter_and_input(run, xs, fs, strides, pad, dil):
    x, f = rand(*xs), rand(*fs)
    dy = rand(*ref_conv(x, f, strides, pad, dil, True).shape)
    expr = f"bp.depthwise_conv2d_native_backprop_filter(x, dy, {list(fs)}, {strides!r}, {pad!r}, {dil!r})"
    close(run(expr, setup=BP, x=x, dy=dy), ref_filter_grad(x, dy, fs, strides, pad, dil, True))
    expr = f"bp.depthwise_conv2d_native_backprop_input({list(xs)}, dy, f, {strides!r}, {pad!r}, {dil!r})"
    close(run(expr, setup=BP, dy=dy, f=f), ref_input_grad(xs, dy, f, strides, pad, dil, True))


def ref_pool_grad(x, dy, size, strides, pad, is_max, mode=None):
    """dy of each window to its first maximum (max) or spread over its in-bounds taps (avg)."""
    (fh, fw) = pair(size)
    oh, ow, taps = window_taps(x.shape, fh, fw, strides, 1, pad, mode)
    windows: dict = {}
    for oy, ox, iy, ix, _, _ in taps:
        windows.setdefault((oy, ox), []).append((iy, ix))
    dx = np.zeros(x.shape)
    for (oy, ox), cells in windows.items():
        g = dy[:, oy, ox].astype(np.float64)
        if not is_max:
            for iy, ix in cells:
                dx[:, iy, ix] += g / len(cells)
            continue
        vals = np.stack([x[:, iy, ix] for iy, ix in cells])  # [taps, b, c]
        first = np.argmax(vals, axis=0)  # the first maximum
        for k, (iy, ix) in enumerate(cells):
            dx[:, iy, ix] += np.where(first == k, g, 0.0)
    return dx


POOL_CASES = [
    ((1, 4, 4, 2), 2, 2, "valid"),
    ((1, 5, 5, 2), 2, 2, "valid"),
    ((2, 7, 6, 3), 3, 2, "same"),
    ((1, 6, 7, 1), [3, 2], [1, 2], "same"),
    ((1, 6, 6, 4), 3, 1, "same"),
    ((2, 9, 8, 3), [2, 3], 3, "valid"),
    ((1, 6, 5, 2), 3, 2, [[0, 0], [1, 2], [2, 0], [0, 0]]),
    ((1, 4, 4, 2), 5, 1, "same"),
    ((2, 7, 7, 8), 2, 2, "same"),
    ((32, 28, 28, 8), 2, 2, "valid"),
]


@pytest.mark.parametrize("xs,size,strides,pad", POOL_CASES)
def test_pool_grads(run, xs, size, strides, pad):
    x = rand(*xs)
    oh, ow, _ = window_taps(xs, *pair(size), strides, 1, pad)
    dy, y = rand(xs[0], oh, ow, xs[3]), rand(xs[0], oh, ow, xs[3])
    out = run(f"bp.max_pool_grad(dy, x, y, {size!r}, {strides!r}, {pad!r})", setup=BP, dy=dy, x=x, y=y)
    close(out, ref_pool_grad(x, dy, size, strides, pad, True))
    out = run(f"bp.avg_pool_grad(dy, x, {size!r}, {strides!r}, {pad!r})", setup=BP, dy=dy, x=x)
    close(out, ref_pool_grad(x, dy, size, strides, pad, False))


def test_max_pool_grad_ties_and_negatives(run):
    """Ties (relu zeros) go to the first maximum; all-negative windows still find theirs."""
    x = np.maximum(RNG.integers(-3, 3, (2, 6, 6, 3)), 0).astype(np.float32)
    x[1] -= 10  # all negative
    dy = rand(2, 3, 3, 3)
    for size, strides, pad in ((2, 2, "valid"), (3, 1, "same"), (3, 2, "same")):
        oh, ow, _ = window_taps(x.shape, *pair(size), strides, 1, pad)
        g = dy if oh == 3 else rand(2, oh, ow, 3)
        out = run(f"bp.max_pool_grad(dy, x, dy, {size}, {strides}, '{pad}')", setup=BP, dy=g, x=x)
        close(out, ref_pool_grad(x, g, size, strides, pad, True))


@pytest.mark.parametrize("mode", ["floor", "ceil"])
def test_pool_grads_dim_rounding_mode(run, mode):
    x = rand(1, 6, 7, 2)
    oh, ow, _ = window_taps(x.shape, 3, 3, 2, 1, 1, mode)
    dy = rand(1, oh, ow, 2)
    out = run(f"bp.max_pool_grad(dy, x, dy, 3, 2, 1, '{mode}')", setup=BP, dy=dy, x=x)
    close(out, ref_pool_grad(x, dy, 3, 2, 1, True, mode))
    out = run(f"bp.avg_pool_grad(dy, x, 3, 2, 1, '{mode}')", setup=BP, dy=dy, x=x)
    close(out, ref_pool_grad(x, dy, 3, 2, 1, False, mode))


def resize_weights(n_in, n_out, align, half, bilinear):
    """[n_out, n_in] matrix of the forward resize along one axis (TF.js's source coordinates)."""
    ratio = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        src = ratio * (o + 0.5) - 0.5 if (half and bilinear) else ratio * (o + 0.5) if half else ratio * o
        if bilinear:
            lo, hi = max(0, math.floor(src)), min(n_in - 1, math.ceil(src))
            t = src - lo
            m[o, lo] += 1 - t
            m[o, hi] += t
        else:
            k = math.floor(src + 0.5) if align else math.floor(src)
            k = min(n_in - 1, k)
            m[o, max(0, k) if half else k] = 1
    return m


RESIZE_CASES = [
    ((1, 4, 4, 2), (8, 8), False, False),
    ((2, 5, 3, 3), (3, 7), False, False),
    ((1, 5, 3, 1), (3, 7), True, False),
    ((1, 6, 4, 2), (9, 5), False, True),
    ((1, 3, 5, 4), (1, 1), True, False),
    ((1, 6, 9, 2), (4, 6), False, False),
]


@pytest.mark.parametrize("xs,size,align,half", RESIZE_CASES)
def test_resize_grads(run, xs, size, align, half):
    """Non-square images too (TF.js's cpu kernel gets their shape wrong): dx = Wy^T dy Wx per image."""
    x = rand(*xs)
    dy = rand(xs[0], size[0], size[1], xs[3])
    for name, bilinear in (("resize_bilinear_grad", True), ("resize_nearest_neighbor_grad", False)):
        wy = resize_weights(xs[1], size[0], align, half, bilinear)
        wx = resize_weights(xs[2], size[1], align, half, bilinear)
        ref = np.einsum("oh,bopc,pw->bhwc", wy, dy.astype(np.float64), wx)
        close(run(f"bp.{name}(x, dy, {align}, {half})", setup=BP, x=x, dy=dy), ref)


def test_elu_grad(run):
    y = np.concatenate([rand(50), -RNG.uniform(0, 1, 50).astype(np.float32), [0.0, -1.0]]).astype(np.float32)
    dy = rand(y.size)
    close(run("bp.elu_grad(dy, y)", setup=BP, dy=dy, y=y), np.where(y >= 0, dy, dy * (y + 1.0)), 1e-6)


def test_backprop_errors(run):
    x, dy = rand(1, 5, 5, 3), rand(1, 5, 5, 2)
    with pytest.raises(
        ValueError, match=r"Error in conv2d_backprop_filter: dy of shape \[1,5,5,2\] does not"
    ):
        run("bp.conv2d_backprop_filter(x, dy, [3, 3, 3, 2], 2, 'same')", setup=BP, x=x, dy=dy)
    with pytest.raises(ValueError, match=r"Error in conv2d_backprop_filter: depth of x \(3\) must match 4"):
        run("bp.conv2d_backprop_filter(x, dy, [3, 3, 4, 2], 1, 'same')", setup=BP, x=x, dy=dy)
    with pytest.raises(ValueError, match=r"Error in conv2d_backprop_input: depth of dy \(2\) must match 4"):
        run("bp.conv2d_backprop_input([1, 5, 5, 3], dy, f, 1, 'same')", setup=BP, dy=dy, f=rand(3, 3, 3, 4))
    with pytest.raises(
        ValueError, match="Error in depthwise_conv2d_native_backprop_input: x_shape must be 4"
    ):
        run("bp.depthwise_conv2d_native_backprop_input([5, 5, 3], dy, f, 1, 'same')", setup=BP, dy=dy,
            f=rand(3, 3, 3, 1))  # fmt: skip
    with pytest.raises(ValueError, match=r"Error in max_pool_grad: output of shape \[1,2,2,3\] must match"):
        run(
            "bp.max_pool_grad(dy, x, y, 2, 2, 'same')", setup=BP, dy=rand(1, 3, 3, 3), x=x, y=rand(1, 2, 2, 3)
        )
    with pytest.raises(ValueError, match="Error in avg_pool_grad: input must be rank 4"):
        run("bp.avg_pool_grad(dy, x, 2, 2, 'same')", setup=BP, dy=rand(1, 3, 3, 3), x=rand(5, 5, 3))
    with pytest.raises(ValueError, match="Error in resize_bilinear_grad: dy of shape"):
        run("bp.resize_bilinear_grad(x, dy)", setup=BP, x=x, dy=rand(1, 7, 7, 2))
    with pytest.raises(ValueError, match=r"Error in elu_grad: dy of shape \[3\] must match y's \[4\]"):
        run("bp.elu_grad(dy, y)", setup=BP, dy=rand(3), y=rand(4))


def test_wasm_backward_kernels_run_natively(run):
    """On wasm none of these falls back to the cpu kernel (the binary's exports or JS over the heap)."""
    if not run.backend.startswith("wasm"):
        pytest.skip("wasm only")
    setup = BP + "\nfallbacks = tf.backend().fallbacks\nbefore = dict(fallbacks)"
    exprs = [
        "bp.conv2d_backprop_filter(x, dy, [3, 3, 2, 4], 1, 'same')",
        "bp.conv2d_backprop_input([2, 6, 6, 2], dy, f, 1, 'same')",
        "bp.conv2d_backprop_input([2, 6, 6, 2], d2, f, 2, 'valid')",
        "bp.depthwise_conv2d_native_backprop_filter(x, dy, [3, 3, 2, 2], 1, 'same')",
        "bp.depthwise_conv2d_native_backprop_input([2, 6, 6, 2], dy, fd, 1, 'same')",
        "bp.max_pool_grad(p, x, p, 3, 2, 'same')",
        "bp.avg_pool_grad(p, x, 3, 2, 'same')",
        "bp.elu_grad(x, x)",
        "bp.resize_bilinear_grad(x, r)",
        "bp.resize_nearest_neighbor_grad(x, r, True)",
    ]
    counts = run(
        f"(tf.dispose([{', '.join(exprs)}]), "
        "{k: v - before.get(k, 0) for k, v in fallbacks.items() if v != before.get(k, 0)})[1]",
        setup=setup, x=rand(2, 6, 6, 2), dy=rand(2, 6, 6, 4), f=rand(3, 3, 2, 4), p=rand(2, 3, 3, 2),
        r=rand(2, 12, 12, 2), d2=rand(2, 2, 2, 4), fd=rand(3, 3, 2, 2),
    )  # fmt: skip
    assert counts == {}
