"""conv1d and the 3-D ops (conv3d, conv3d_transpose, avg_pool3d, max_pool3d and their backward ops) against
numpy loops over the filter taps. One batched check runs on every target; the rest are host-only."""

import math

import numpy as np
import pytest

from tests.helpers import Rand

_R = Rand(31)
rand = _R.normal


def triple(v):
    return (v, v, v) if isinstance(v, int) else tuple(v)


def pads(size, window, stride, pad, dil=1):
    """(before, after, out) along one axis: TF's 'same' / 'valid' / number padding."""
    eff = (window - 1) * dil + 1
    if pad == "same":
        out = math.ceil(size / stride)
        total = max(0, (out - 1) * stride + eff - size)
        return total // 2, total - total // 2, out
    p = 0 if pad == "valid" else pad
    return p, p, (size + 2 * p - eff) // stride + 1


def taps(x, window, strides, pad, dil=(1, 1, 1), fill=0.0):
    """Per filter tap (i, j, k): x at that tap for every output position [b, od, oh, ow, c] (padding = fill)."""
    geo = [pads(n, w, s, pad, d) for n, w, s, d in zip(x.shape[1:4], window, strides, dil, strict=True)]
    xp = np.pad(
        x.astype(np.float64), ((0, 0), *((b, a + 20) for b, a, _ in geo), (0, 0)), constant_values=fill
    )
    (sd, sh, sw), (od, oh, ow) = strides, [g[2] for g in geo]
    for i in range(window[0]):
        for j in range(window[1]):
            for k in range(window[2]):
                a, b, c = i * dil[0], j * dil[1], k * dil[2]
                yield (i, j, k), xp[:, a : a + od * sd : sd, b : b + oh * sh : sh, c : c + ow * sw : sw]


def ref_conv3d(x, f, strides, pad, dil=1):
    return sum(win @ f[t] for t, win in taps(x, f.shape[:3], triple(strides), pad, triple(dil)))


def ref_pool3d(x, size, strides, pad, is_max):
    """A window wholly in the padding gives -inf (max) or 0 (avg), as TF.js's 3-D pools."""
    wins = np.stack([w for _, w in taps(x, triple(size), triple(strides), pad, fill=np.nan)])
    empty = np.isnan(wins).all(0)
    wins = np.where(empty, -np.inf if is_max else 0.0, wins)
    return np.nanmax(wins, 0) if is_max else np.nanmean(wins, 0)


def ref_conv3d_transpose(x, f, out_shape, strides, pad):
    """conv3d_transpose(x) is the adjoint of conv3d: <conv3d(u), x> = <u, transpose(x)> for every u."""
    n = int(np.prod(out_shape))
    basis = np.eye(n).reshape(n, *out_shape)
    cols = np.stack([ref_conv3d(u, f, strides, pad).ravel() for u in basis])
    return (cols @ x.ravel().astype(np.float64)).reshape(out_shape)


def ref_conv1d(x, f, stride, pad, dil=1):
    return ref_conv3d(x[:, None, None], f[None, None], (1, 1, stride), pad, (1, 1, dil))[:, 0, 0]


HOST = ("host", "host-numpy")


def host_only(run):
    if run.backend not in HOST:
        pytest.skip("host only (the batched test covers the page backends)")


def test_all_new_ops_batched(run):
    """Every new op and backward op in one call per target (forward and gradient kernels)."""
    x, f = rand(2, 4, 5, 3, 2), rand(2, 3, 2, 2, 3)
    x1, f1 = rand(2, 7, 3), rand(3, 3, 2)
    xi = _R.ints(1, 3, 4, 4, 2)
    xt = rand(1, 2, 3, 3, 3)
    dy, dyp, dyv = rand(2, 4, 3, 3, 3), rand(2, 2, 3, 2, 2), rand(2, 3, 3, 2, 3)
    out = run(
        "[tf.conv3d(x, f, 1, 'same'), tf.conv3d(x, f, [2, 1, 2], 'valid'), tf.conv3d(x0, f, 1, 'valid', "
        "'NDHWC', [1, 2, 1]), tf.conv1d(x1, f1, 2, 'same'), tf.conv1d(x10, f1, 1, 'valid', 'NWC', 2), "
        "tf.conv3d_transpose(xt, f, [1, 3, 5, 3, 2], [2, 2, 1], 'same'), tf.max_pool3d(x, 2, [2, 2, 1], 'same'), "
        "tf.avg_pool3d(x, [3, 2, 2], 1, 'same'), tf.max_pool3d(x1b, [1, 2, 3], 1, 'valid'), "
        "tf.grads(lambda a, b: tf.conv3d(a, b, [1, 2, 1], 'same'))([x, f], dy), "
        "tf.grad(lambda a: tf.max_pool3d(a, 2, 2, 'same'))(x, dyp), "
        "tf.grad(lambda a: tf.avg_pool3d(a, [3, 2, 2], 2, 'same'))(x, dyp), "
        "tf.grads(lambda a, b: tf.conv3d(a, b, 1, 'valid'))([x, f], dyv), "
        "tf.max_pool3d(xi, 2, 1, 'same'), tf.avg_pool3d(xi, 2, [1, 2, 2], 'valid')]",
        x=x, f=f, x1=x1, f1=f1, xt=xt, dy=dy, dyp=dyp, dyv=dyv, x0=x[0], x10=x1[0], x1b=x[1], xi=xi,
    )  # fmt: skip
    want = [
        ref_conv3d(x, f, 1, "same"),
        ref_conv3d(x, f, (2, 1, 2), "valid"),
        ref_conv3d(x[:1], f, 1, "valid", (1, 2, 1))[0],
        ref_conv1d(x1, f1, 2, "same"),
        ref_conv1d(x1[:1], f1, 1, "valid", 2)[0],
        ref_conv3d_transpose(xt, f, (1, 3, 5, 3, 2), (2, 2, 1), "same"),
        ref_pool3d(x, 2, (2, 2, 1), "same", True),
        ref_pool3d(x, (3, 2, 2), 1, "same", False),
        ref_pool3d(x[1:], (1, 2, 3), 1, "valid", True)[0],
    ]
    tol = 1e-3 if run.backend == "webgl" else 1e-5
    for got, ref in zip(out, want, strict=False):
        assert got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
    # gradients: conv3d's as the adjoint identities, the pools' by where each window's dy goes
    y_of, eps = ref_conv3d, 1e-2  # <conv3d(x, f), dy> is linear in x and in f: check along random directions
    u, v = rand(*x.shape), rand(*f.shape)
    for grads, strides, pad, g in ((out[9], (1, 2, 1), "same", dy), (out[12], (1, 1, 1), "valid", dyv)):
        dx, df = grads
        lin = (y_of(x + eps * u, f, strides, pad) - y_of(x, f, strides, pad)) / eps
        np.testing.assert_allclose((dx * u).sum(), (lin * g).sum(), rtol=1e-3, atol=1e-3)
        lin = (y_of(x, f + eps * v, strides, pad) - y_of(x, f, strides, pad)) / eps
        np.testing.assert_allclose((df * v).sum(), (lin * g).sum(), rtol=1e-3, atol=1e-3)
    for got, ref in (
        (out[13], ref_pool3d(xi, 2, 1, "same", True)),
        (out[14], ref_pool3d(xi, 2, (1, 2, 2), "valid", False)),
    ):
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, np.trunc(ref).astype(np.int32))
    gmax, gavg = out[10], out[11]
    np.testing.assert_allclose(gmax.sum(), dyp.sum(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gavg.sum(), dyp.sum(), rtol=1e-4, atol=1e-4)
    wins = ref_pool3d(x, 2, 2, "same", True)  # max windows don't overlap: each maximum gets its window's dy
    np.testing.assert_allclose(np.sort(gmax[gmax != 0]), np.sort(dyp.ravel()), rtol=1e-6)
    assert np.isin(x[gmax != 0], wins).all()


@pytest.mark.parametrize(
    "xs,fs,strides,pad,dil",
    [
        ((1, 3, 4, 5, 2), (1, 2, 3, 2, 3), 1, "valid", 1),
        ((2, 5, 4, 4, 1), (3, 3, 3, 1, 2), 2, "same", 1),
        ((1, 4, 6, 5, 3), (2, 2, 2, 3, 1), (1, 2, 3), 1, 1),
        ((1, 6, 5, 5, 2), (2, 2, 3, 2, 2), 1, "same", (2, 1, 2)),
        ((1, 2, 2, 2, 1), (1, 1, 1, 1, 1), 1, "valid", 1),
    ],
)
def test_conv3d(run, xs, fs, strides, pad, dil):
    host_only(run)
    x, f = rand(*xs), rand(*fs)
    out = run(f"tf.conv3d(x, f, {strides!r}, {pad!r}, 'NDHWC', {dil!r})", x=x, f=f)
    np.testing.assert_allclose(out, ref_conv3d(x, f, strides, pad, dil), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "xs,fs,stride,pad,dil,mode",
    [((2, 9, 3), (3, 3, 4), 1, "same", 1, None), ((1, 8, 2), (2, 2, 1), 3, "valid", 1, None),
     ((7, 2), (3, 2, 2), 1, "valid", 2, None), ((1, 6, 1), (2, 1, 1), 2, 1, 1, "ceil")],
)  # fmt: skip
def test_conv1d(run, xs, fs, stride, pad, dil, mode):
    host_only(run)
    x, f = rand(*xs), rand(*fs)
    out = run(f"tf.conv1d(x, f, {stride}, {pad!r}, 'NWC', {dil}, {mode!r})", x=x, f=f)
    x3 = x if x.ndim == 3 else x[None]
    if mode == "ceil":  # width 6 padded by 1 each side, window 2, stride 2: ceil(7 / 2) = 4 outputs
        xp = np.pad(x3, ((0, 0), (1, 2), (0, 0)))
        ref = np.stack([xp[:, 2 * o : 2 * o + 2].reshape(1, -1) @ f.reshape(-1, 1) for o in range(4)], 1)[
            ..., 0
        ]
        ref = ref[..., None]
    else:
        ref = ref_conv1d(x3, f, stride, pad, dil)
    np.testing.assert_allclose(out, ref if x.ndim == 3 else ref[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "xs,fs,out_shape,strides,pad",
    [((1, 2, 2, 2, 3), (2, 2, 2, 2, 3), (1, 4, 4, 4, 2), 2, "same"),
     ((2, 2, 3, 1, 1), (3, 2, 2, 2, 1), (2, 4, 4, 2, 2), 1, "valid"),
     ((1, 2, 2, 3, 2), (1, 3, 2, 1, 2), (2, 4, 6, 1), (1, 2, 2), "same")],
)  # fmt: skip
def test_conv3d_transpose(run, xs, fs, out_shape, strides, pad):
    host_only(run)
    x, f = rand(*xs), rand(*fs)
    x_in = x[0] if len(out_shape) == 4 else x
    out = run(f"tf.conv3d_transpose(x, f, {list(out_shape)!r}, {strides!r}, {pad!r})", x=x_in, f=f)
    shape5 = (1, *out_shape) if len(out_shape) == 4 else out_shape
    ref = ref_conv3d_transpose(x, f, shape5, strides, pad)
    np.testing.assert_allclose(out, ref[0] if len(out_shape) == 4 else ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "xs,size,strides,pad",
    [((1, 4, 4, 4, 2), 2, 2, "valid"), ((2, 5, 3, 4, 1), 3, 2, "same"), ((1, 3, 5, 4, 3), (1, 2, 3), (2, 1, 1), 1),
     ((1, 2, 2, 2, 1), 5, 1, "same")],
)  # fmt: skip
def test_pool3d(run, xs, size, strides, pad):
    host_only(run)
    x = rand(*xs)
    mx, av = run(
        f"[tf.max_pool3d(x, {size!r}, {strides!r}, {pad!r}), tf.avg_pool3d(x, {size!r}, {strides!r}, {pad!r})]",
        x=x,
    )
    np.testing.assert_allclose(mx, ref_pool3d(x, size, strides, pad, True), rtol=1e-6)
    np.testing.assert_allclose(av, ref_pool3d(x, size, strides, pad, False), rtol=1e-5, atol=1e-6)


def test_pool3d_int_nan_and_ties(run):
    host_only(run)
    xi = np.arange(-8, 8, dtype=np.int32).reshape(1, 2, 2, 4, 1)
    mx, av = run("[tf.max_pool3d(x, 2, 2, 'valid'), tf.avg_pool3d(x, 2, 2, 'valid')]", x=xi)
    assert mx.dtype == np.int32 and mx.ravel().tolist() == [5, 7]
    assert av.dtype == np.int32 and av.ravel().tolist() == [-1, 0]  # -1.5 and 0.5 truncated, as TF.js's cast
    x = np.array([np.nan, 1, 3, 3, -np.inf, -np.inf, np.nan, np.nan], np.float32).reshape(1, 1, 2, 4, 1)
    mx, g = run("[tf.max_pool3d(x, [1, 2, 2], [1, 2, 2], 'valid'), tf.grad(lambda a: tf.max_pool3d(a, [1, 2, 2], "
                "[1, 2, 2], 'valid'))(x)]", x=x)  # fmt: skip
    assert mx.ravel().tolist() == [1.0, 3.0]  # nan and -inf lose to any number
    assert g.ravel().tolist() == [
        0,
        1,
        0,
        1,
        0,
        0,
        0,
        0,
    ]  # to each window's last maximum, as TF.js's cpu kernel


ERR_INPUTS = {
    "x5": (1, 3, 3, 4, 2), "f5": (2, 2, 2, 2, 3), "x3": (3, 4, 2), "f4": (2, 2, 2, 2), "f5b": (2, 2, 2, 3, 1),
    "f9": (9, 1, 1, 2, 1), "x1": (1, 5, 2), "f1a": (2, 3, 1), "f1b": (2, 2, 1), "xt": (1, 2, 2, 2, 3),
    "xt4": (1, 2, 2, 2, 4),
}  # fmt: skip


@pytest.mark.parametrize(
    "expr,err,words",
    [
        ("tf.conv3d(x5, f5, 1, 'same', 'NCDHW')", ValueError, ["conv3d", "data_format", "NCDHW"]),
        ("tf.conv3d(x3, f5, 1, 'same')", ValueError, ["conv3d", "x", "rank 4 or 5", "[3,4,2]"]),
        ("tf.conv3d(x5, f4, 1, 'same')", ValueError, ["conv3d", "filter", "rank 5", "[2,2,2,2]"]),
        ("tf.conv3d(x5, f5b, 1, 'same')", ValueError, ["conv3d", "depth of input (2)", "3", "[1,3,3,4,2]"]),
        ("tf.conv3d(x5, f5, 2, 'same', 'NDHWC', 2)", ValueError, ["conv3d", "strides", "dilations"]),
        ("tf.conv3d(x5, f5, 0, 'same')", ValueError, ["conv3d", "strides", "larger than 0"]),
        ("tf.conv3d(x5, f5, 1, 'full')", ValueError, ["conv3d", "padding", "full"]),
        ("tf.conv3d(x5, f5, 1, [[0, 0], [1, 1], [1, 1], [0, 0]])", ValueError, ["conv3d", "padding"]),
        ("tf.conv3d(x5, f9, 1, 'valid')", ValueError, ["conv3d", "larger than the input", "[9,1,1,2,1]"]),
        ("tf.conv3d(x5, f5, [1, 2], 'same')", TypeError, ["conv3d", "strides", "triple"]),
        ("tf.conv1d(x5, f5, 1, 'same')", ValueError, ["conv1d", "x", "rank 2 or 3"]),
        ("tf.conv1d(x1, f1a, 1, 'same')", ValueError, ["conv1d", "depth of input (2)", "[2,3,1]"]),
        ("tf.conv1d(x1, f1b, 1, 'same', 'NCW')", ValueError, ["conv1d", "NCW"]),
        ("tf.conv1d(x1, f1b, 2, 'same', 'NWC', 2)", ValueError, ["conv1d", "strides", "dilations"]),
        ("tf.conv3d_transpose(x5, f5, [1, 3, 3, 3], 1, 'same')", ValueError, ["conv3d_transpose", "rank"]),
        ("tf.conv3d_transpose(xt, f5, [1, 9, 9, 9, 2], 2, 'same')", ValueError,
         ["conv3d_transpose", "does not fit", "[1,9,9,9,2]"]),
        ("tf.conv3d_transpose(xt4, f5, [1, 4, 4, 4, 2], 2, 'same')", ValueError,
         ["conv3d_transpose", "depth of x (4)"]),
        ("tf.max_pool3d(x3, 2, 1, 'same')", ValueError, ["max_pool3d", "rank 4 or 5"]),
        ("tf.avg_pool3d(x5, 2, 0, 'same')", ValueError, ["avg_pool3d", "strides"]),
        ("tf.avg_pool3d(x5, 0, 1, 'same')", ValueError, ["avg_pool3d", "filter_size"]),
        ("tf.max_pool3d(x5, 2, 1, 'same', 'ceil')", ValueError, ["max_pool3d", "dim_rounding_mode"]),
        ("tf.max_pool3d(x5, 2, 1, 'same', None, 'NCDHW')", ValueError, ["max_pool3d", "NCDHW"]),
        ("tf.avg_pool3d(b5, 2, 1, 'same')", TypeError, ["avg_pool3d", "bool"]),
    ],
)  # fmt: skip
def test_errors(run, expr, err, words):
    host_only(run)
    inputs = {k: np.zeros(v, np.float32) for k, v in ERR_INPUTS.items()}
    with pytest.raises(err) as info:
        run(expr, b5=np.zeros((1, 2, 2, 2, 1), bool), **inputs)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_graph_handlers_conv1d_conv3d_pool3d():
    """The converter ops Conv1D, Conv3D, AvgPool3D and MaxPool3D read TF's attrs as TF.js's executor."""
    import base64

    import webtf as tf
    from webtf.models.graph.nodes import Node
    from webtf.models.graph.op_table import table

    def s(v):
        return {"s": base64.b64encode(v.encode()).decode()}

    def ints(*v):
        return {"list": {"i": [str(i) for i in v]}}

    x, f = rand(1, 3, 4, 5, 2), rand(2, 2, 3, 2, 3)
    x1, f1 = rand(2, 7, 2), rand(3, 2, 2)
    cases = [
        ("Conv3D", {"strides": ints(1, 1, 2, 1, 1), "padding": s("SAME"), "data_format": s("NDHWC"),
                    "dilations": ints(1, 1, 1, 1, 1)}, (x, f), ref_conv3d(x, f, (1, 2, 1), "same")),
        ("Conv1D", {"stride": {"i": "2"}, "padding": s("VALID"), "dilation": {"i": "1"}}, (x1, f1),
         ref_conv1d(x1, f1, 2, "valid")),
        ("MaxPool3D", {"ksize": ints(1, 2, 2, 2, 1), "strides": ints(1, 1, 2, 2, 1), "padding": s("SAME")}, (x,),
         ref_pool3d(x, 2, (1, 2, 2), "same", True)),
        ("AvgPool3D", {"ksize": ints(1, 1, 2, 3, 1), "strides": ints(1, 1, 1, 1, 1), "padding": s("VALID")}, (x,),
         ref_pool3d(x, (1, 2, 3), 1, "valid", False)),
    ]  # fmt: skip
    before = tf.memory().num_tensors
    for op, attr, inputs, want in cases:
        node = Node("n", op, [], [], attr)
        ins = [tf.tensor(v) for v in inputs]
        out = table()[op](node, ins, None)
        np.testing.assert_allclose(np.array(out.data_sync()).reshape(out.shape), want, rtol=1e-5, atol=1e-5)
        tf.dispose([*ins, out])
    assert tf.memory().num_tensors == before
