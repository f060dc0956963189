"""Host tests of the 1-D / 3-D conv and pooling layers, Dot, CenterCrop and Resizing: forward against numpy
oracles (float64 loops), weights' gradients against finite differences of those oracles, config errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.helpers import Rand

rand = Rand(41)


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    variables = set(tf.ENGINE.registered_variables)
    yield
    for name in set(tf.ENGINE.registered_variables) - variables:
        tf.ENGINE.registered_variables[name].dispose()
    assert tf.memory().num_tensors == before


def arr(t: tf.Tensor) -> np.ndarray:
    return np.array(t.data_sync(), dtype=np.float64).reshape(t.shape)


def axis_geometry(n, k, s, pad, d=1):
    """(pad before, out size) along one axis, TF's 'same' / 'valid'."""
    eff = (k - 1) * d + 1
    if pad == "same":
        out = -(-n // s)
        return max(0, (out - 1) * s + eff - n) // 2, out
    return 0, (n - eff) // s + 1


def np_conv(x, w, strides, pad, dil=None):
    """N-d channels-last convolution by explicit loops over outputs (x [b, *spatial, c], w [*k, c, o])."""
    nd = x.ndim - 2
    dil = dil or (1,) * nd
    geo = [
        axis_geometry(n, k, s, pad, d)
        for n, k, s, d in zip(x.shape[1:-1], w.shape[:nd], strides, dil, strict=True)
    ]
    out = np.zeros((x.shape[0], *(g[1] for g in geo), w.shape[-1]))
    for pos in itertools.product(*(range(g[1]) for g in geo)):
        for tap in itertools.product(*(range(k) for k in w.shape[:nd])):
            src = [p * s - g[0] + t * d for p, s, g, t, d in zip(pos, strides, geo, tap, dil, strict=True)]
            if all(0 <= i < n for i, n in zip(src, x.shape[1:-1], strict=True)):
                out[(slice(None), *pos)] += x[(slice(None), *src)] @ w[tap]
    return out


def np_conv_transpose(x, w, out_spatial, strides, pad):
    """The adjoint of np_conv (w [*k, filters, c]) mapping x [b, *in, c] to [b, *out_spatial, filters]."""
    b, filters = x.shape[0], w.shape[-2]
    n = int(np.prod(out_spatial)) * filters
    basis = np.eye(n).reshape(n, 1, *out_spatial, filters)
    cols = np.stack([np_conv(u, w, strides, pad).ravel() for u in basis])  # [n, in size * c]
    return (x.reshape(b, -1) @ cols.T).reshape(b, *out_spatial, filters)


def np_pool(x, size, strides, pad, is_max):
    nd = x.ndim - 2
    geo = [axis_geometry(n, k, s, pad) for n, k, s in zip(x.shape[1:-1], size, strides, strict=True)]
    out = np.zeros((x.shape[0], *(g[1] for g in geo), x.shape[-1]))
    for pos in itertools.product(*(range(g[1]) for g in geo)):
        ranges = [
            slice(max(0, p * s - g[0]), min(n, p * s - g[0] + k))
            for p, s, g, k, n in zip(pos, strides, geo, size, x.shape[1:-1], strict=True)
        ]
        win = x[(slice(None), *ranges)].reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None), *pos)] = win.max(1) if is_max else win.mean(1)
    assert nd == len(size)
    return out


def check_layer(layer, x, oracle, names, dtype_out="float32", grads=True):
    """The layer's output on x against oracle(x, *weights), and each weight's gradient of sum(y * dy)
    against central differences of the oracle."""
    xt = tf.tensor(x)
    y0 = layer.apply(xt)
    weights = [arr(w) for w in layer.weights]
    assert [w.original_name.split("/")[-1] for w in layer.weights] == names
    want = oracle(x.astype(np.float64), *weights)
    assert y0.dtype == dtype_out
    assert tuple(y0.shape) == want.shape
    np.testing.assert_allclose(arr(y0), want, rtol=1e-4, atol=1e-4)
    if not grads:  # (dilated convs: TF.js has no gradient for them either)
        tf.dispose([xt, y0])
        layer.dispose_weights()
        return
    dy = rand.uniform(*want.shape, lo=0.5, hi=1.5).astype(np.float64)
    dyt = tf.tensor(dy.astype(np.float32))
    if not layer.trainable_weights:  # a layer without weights: the gradient w.r.t. its input
        g = tf.grad(lambda a: tf.sum(tf.mul(layer.apply(a), dyt)))(xt)
        np.testing.assert_allclose(
            arr(g), numeric_grad(lambda v: oracle(v), x.astype(np.float64), dy), atol=1e-3
        )
        tf.dispose([xt, y0, dyt, g])
        return
    got = tf.variable_grads(lambda: tf.sum(tf.mul(layer.apply(xt), dyt)), layer.trainable_weights)
    for i, w in enumerate(layer.trainable_weights):
        num = numeric_grad(lambda v, i=i: oracle(x, *weights[:i], v, *weights[i + 1 :]), weights[i], dy)
        np.testing.assert_allclose(arr(got.grads[w.name]), num, rtol=1e-3, atol=1e-3, err_msg=w.name)
    tf.dispose([xt, y0, dyt, got.value, list(got.grads.values())])
    layer.dispose_weights()


def numeric_grad(f, v, dy, eps=1e-4):
    """d sum(f(v) * dy) / dv by central differences (float64)."""
    num = np.zeros_like(v, dtype=np.float64)
    for j in np.ndindex(v.shape):
        vals = []
        for step in (eps, -eps):
            moved = v.astype(np.float64).copy()
            moved[j] += step
            vals.append(float((f(moved) * dy).sum()))
        num[j] = (vals[0] - vals[1]) / (2 * eps)
    return num


def init(seed):
    return tf.initializers.random_normal(seed=seed)


def test_conv1d_layer():
    layer = tf.layers.conv1d(
        filters=3, kernel_size=3, strides=2, padding="same", activation="tanh", kernel_initializer=init(1),
        bias_initializer=init(2),
    )  # fmt: skip
    oracle = lambda x, k, b: np.tanh(np_conv(x, k, (2,), "same") + b)  # noqa: E731
    check_layer(layer, rand.normal(2, 7, 2), oracle, ["kernel", "bias"])
    layer = tf.layers.conv1d(
        filters=2, kernel_size=[2], dilation_rate=2, use_bias=False, kernel_initializer=init(3)
    )
    oracle = lambda x, k: np_conv(x, k, (1,), "valid", (2,))  # noqa: E731
    check_layer(layer, rand.normal(1, 6, 3), oracle, ["kernel"], grads=False)


def test_conv3d_layer():
    layer = tf.layers.conv3d(
        filters=2, kernel_size=[2, 3, 2], strides=[1, 2, 1], padding="same", activation="relu",
        kernel_initializer=init(4), bias_initializer=init(5),
    )  # fmt: skip
    oracle = lambda x, k, b: np.maximum(np_conv(x, k, (1, 2, 1), "same") + b, 0)  # noqa: E731
    check_layer(layer, rand.normal(1, 3, 4, 3, 2), oracle, ["kernel", "bias"])
    assert layer.compute_output_shape((None, 3, 4, 3, 2)) == (None, 3, 2, 3, 2)


def test_conv3d_transpose_layer():
    layer = tf.layers.conv3d_transpose(
        filters=2,
        kernel_size=2,
        strides=2,
        padding="same",
        kernel_initializer=init(6),
        bias_initializer=init(7),
    )
    x = rand.normal(1, 2, 1, 2, 3)
    oracle = lambda x, k, b: np_conv_transpose(x, k, (4, 2, 4), (2, 2, 2), "same") + b  # noqa: E731
    check_layer(layer, x, oracle, ["kernel", "bias"])
    layer = tf.layers.conv3d_transpose(filters=1, kernel_size=[3, 2, 2], padding="valid", use_bias=False)
    assert layer.compute_output_shape((None, 2, 3, None, 4)) == (None, 4, 4, None, 1)


@pytest.mark.parametrize("is_max", [True, False])
def test_pooling_layers(is_max):
    kind = "max" if is_max else "average"
    make1 = getattr(tf.layers, f"{kind}_pooling1d")
    make3 = getattr(tf.layers, f"{kind}_pooling3d")
    x1 = rand.normal(2, 7, 3)
    check_layer(
        make1(pool_size=3, strides=2, padding="same"),
        x1,
        lambda x: np_pool(x, (3,), (2,), "same", is_max),
        [],
    )
    check_layer(make1(), x1, lambda x: np_pool(x, (2,), (2,), "valid", is_max), [])
    x3 = rand.normal(2, 3, 4, 5, 2)
    check_layer(make3(), x3, lambda x: np_pool(x, (2, 2, 2), (2, 2, 2), "valid", is_max), [])
    layer = make3(pool_size=[3, 2, 2], strides=1, padding="same")
    check_layer(layer, x3, lambda x: np_pool(x, (3, 2, 2), (1, 1, 1), "same", is_max), [])


def test_pool3d_gradient_through_a_model():
    """AvgPooling3D / MaxPooling3D inside a model: the gradient w.r.t. the input reaches every window."""
    x = rand.normal(1, 2, 2, 2, 1)
    xt = tf.tensor(x)
    g = tf.grad(lambda a: tf.sum(tf.layers.average_pooling3d(pool_size=2).apply(a)))(xt)
    np.testing.assert_allclose(arr(g), np.full(x.shape, 1 / 8), rtol=1e-6)
    g2 = tf.grad(lambda a: tf.sum(tf.layers.max_pooling3d(pool_size=2).apply(a)))(xt)
    assert arr(g2).ravel().tolist() == (x.ravel() == x.max()).astype(float).tolist()
    tf.dispose([xt, g, g2])


def np_l2(x, axis):
    return x / np.sqrt(np.maximum((x * x).sum(axis, keepdims=True), 1e-7))


@pytest.mark.parametrize(
    "shapes,axes,normalize,spec",
    [
        (((4, 3), (4, 3)), -1, False, "bi,bi->b"),
        (((2, 3, 4), (2, 5, 4)), 2, True, "bik,bjk->bij"),
        (((2, 3, 4), (2, 3, 5)), [1, 1], False, "bki,bkj->bij"),
        (((2, 3, 4), (2, 4)), [2, 1], False, "bik,bk->bi"),
        (((2, 4), (2, 4, 3)), [1, 1], True, "bk,bkj->bj"),
    ],
)
def test_dot_layer(shapes, axes, normalize, spec):
    a, b = rand.normal(*shapes[0]), rand.normal(*shapes[1])
    layer = tf.layers.dot(axes=axes, normalize=normalize)
    ta, tb = tf.tensor(a), tf.tensor(b)
    y = layer.apply([ta, tb])
    ax = [axes, axes] if isinstance(axes, int) else axes
    na, nb = (np_l2(a, ax[0]), np_l2(b, ax[1])) if normalize else (a, b)
    want = np.einsum(spec, na.astype(np.float64), nb.astype(np.float64))
    want = want[:, None] if want.ndim == 1 else want
    assert tuple(y.shape) == want.shape == layer.compute_output_shape([shapes[0], shapes[1]])
    np.testing.assert_allclose(arr(y), want, rtol=1e-5, atol=1e-5)
    g = tf.grads(lambda p, q: tf.sum(layer.apply([p, q])))([ta, tb])
    if not normalize:  # sum(dot) is linear in each input: check the gradient along a random direction
        eps = 1e-3
        u = rand.normal(*a.shape)
        lin = (np.einsum(spec, a + eps * u, b) - np.einsum(spec, a, b)).sum() / eps
        np.testing.assert_allclose((arr(g[0]) * u).sum(), lin, rtol=1e-3, atol=1e-3)
    tf.dispose([ta, tb, y, g])


def np_resize(x, h, w, align, nearest):
    """TF.js resize (no half-pixel centers) of [b, ih, iw, c], float64."""
    ih, iw = x.shape[1:3]

    def coords(n_in, n_out):
        r = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
        return [r * i for i in range(n_out)]

    out = np.zeros((x.shape[0], h, w, x.shape[3]))
    for i, sy in enumerate(coords(ih, h)):
        for j, sx in enumerate(coords(iw, w)):
            if nearest:
                yi = min(ih - 1, math.floor(sy + 0.5) if align else math.floor(sy))
                xi = min(iw - 1, math.floor(sx + 0.5) if align else math.floor(sx))
                out[:, i, j] = x[:, yi, xi]
                continue
            y0, x0 = math.floor(sy), math.floor(sx)
            y1, x1 = min(ih - 1, y0 + 1), min(iw - 1, x0 + 1)
            fy, fx = sy - y0, sx - x0
            top = x[:, y0, x0] * (1 - fx) + x[:, y0, x1] * fx
            bot = x[:, y1, x0] * (1 - fx) + x[:, y1, x1] * fx
            out[:, i, j] = top * (1 - fy) + bot * fy
    return out


@pytest.mark.parametrize("interp,crop", [("bilinear", False), ("nearest", False), ("bilinear", True)])
def test_resizing_layer(interp, crop):
    x = rand.normal(2, 5, 4, 3)
    layer = tf.layers.resizing(height=3, width=7, interpolation=interp, crop_to_aspect_ratio=crop)
    check_layer(layer, x, lambda v: np_resize(v, 3, 7, not crop, interp == "nearest"), [])
    layer = tf.layers.resizing(height=2, width=2)
    check_layer(layer, x[0], lambda v: np_resize(v[None], 2, 2, True, False)[0], [])


@pytest.mark.parametrize(
    "in_hw,out_hw,dtype",
    [
        ((6, 7), (2, 3), "float32"),
        ((5, 5), (5, 4), "int32"),
        ((4, 6), (2, 6), "float32"),
        ((3, 3), (5, 4), "float32"),
    ],
)
def test_center_crop_layer(in_hw, out_hw, dtype):
    x = rand.normal(2, *in_hw, 2) * 10
    x = x.astype(np.int32) if dtype == "int32" else x
    (ih, iw), (h, w) = in_hw, out_hw
    top = (ih - h) // 2
    left = (iw - w) // 2 if iw != w else 0
    left = 1 if iw != w and left == 0 else left
    if top < 0 or left < 0:  # smaller than the crop: a bilinear resize up
        want = np_resize(x.astype(np.float64), h, w, False, False)
    else:  # TF.js's nearest crop_and_resize of the box: source row top*(ih-1)/ih + i*h*(ih-1)/(ih*(h-1))
        rows = [
            round(top * (ih - 1) / ih + (i * h * (ih - 1) / (ih * (h - 1)) if h > 1 else 0)) for i in range(h)
        ]
        cols = [
            round(left * (iw - 1) / iw + (j * w * (iw - 1) / (iw * (w - 1)) if w > 1 else 0))
            for j in range(w)
        ]
        want = x[:, rows][:, :, cols].astype(np.float64)
        assert rows == list(range(top, top + h))
    layer = tf.layers.center_crop(height=h, width=w)
    xt = tf.tensor(x)
    y = layer.apply(xt)
    assert y.dtype == dtype and tuple(y.shape) == (2, h, w, 2)
    np.testing.assert_allclose(
        arr(y), want.astype(np.int32) if dtype == "int32" else want, rtol=1e-5, atol=1e-5
    )
    x0 = tf.tensor(x[0])
    y0 = tf.layers.center_crop(height=h, width=w).apply(x0)
    assert tuple(y0.shape) == (h, w, 2)
    tf.dispose([xt, y, x0, y0])


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: tf.layers.conv1d(filters=2, kernel_size=[2, 2]), r"\(Conv1D\): kernel_size must be an int or a list"),
        (lambda: tf.layers.conv3d(filters=2, kernel_size=2, padding="causal"), r"\(Conv3D\): padding 'causal'"),
        (lambda: tf.layers.conv3d(filters=2, kernel_size=2, strides=[1, 2]), r"\(Conv3D\): strides must be"),
        (lambda: tf.layers.conv3d_transpose(filters=2, kernel_size=2, dilation_rate=2), r"dilation_rate \[2, 2, 2\]"),
        (lambda: tf.layers.max_pooling3d(pool_size=[2, 2]), r"\(MaxPooling3D\): pool_size must be"),
        (lambda: tf.layers.dot(), r"\(Dot\): the axes argument is required"),
        (lambda: tf.layers.dot(axes=[1, 2, 3]), r"\(Dot\): axes must be"),
        (lambda: tf.layers.center_crop(height=0, width=2), r"\(CenterCrop\): height must be a positive int"),
        (lambda: tf.layers.resizing(height=2, width=2, interpolation="area"), r"\(Resizing\): invalid interpolation"),
    ],
)  # fmt: skip
def test_bad_configs(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_bad_input_shapes_name_the_layer():
    x, x4, x2 = tf.zeros([2, 4, 3]), tf.zeros([2, 4, 4]), tf.zeros([2, 3])
    with pytest.raises(ValueError, match=r"\(Conv3D\): expects inputs of rank 5, but got shape \[2,4,3\]"):
        tf.layers.conv3d(filters=1, kernel_size=1).apply(x)
    with pytest.raises(ValueError, match=r"\(Dot\): dimension incompatibility: 3 != 4"):
        tf.layers.dot(axes=-1).apply([x, x4])
    with pytest.raises(ValueError, match=r"\(Dot\): axes \[0, 0\] must name non-batch axes"):
        tf.layers.dot(axes=0).apply([x, x])
    with pytest.raises(ValueError, match=r"\(MaxPooling1D\): expects inputs of rank 3"):
        tf.layers.max_pooling1d().apply(x2)
    tf.dispose([x, x4, x2])


def test_model_with_the_new_layers_trains_and_saves_config():
    inp = tf.input(shape=[4, 4, 4, 1])
    h = tf.layers.conv3d(filters=2, kernel_size=2, padding="same", activation="relu").apply(inp)
    h = tf.layers.max_pooling3d(pool_size=2).apply(h)
    h = tf.layers.conv3d_transpose(filters=1, kernel_size=2, strides=2).apply(h)
    h = tf.layers.average_pooling3d(pool_size=[4, 4, 1]).apply(h)
    out = tf.layers.dense(units=1).apply(tf.layers.flatten().apply(h))
    m = tf.model(inputs=inp, outputs=out)
    assert [w.original_name.split("/")[-1] for w in m.weights] == ["kernel", "bias"] * 3
    m.compile(optimizer="sgd", loss="meanSquaredError")
    x, y = tf.tensor(rand.normal(4, 4, 4, 4, 1)), tf.tensor(rand.normal(4, 1))
    hist = run_sync(m.fit(x, y, epochs=3, batch_size=2, shuffle=False, verbose=0))
    losses = hist.history["loss"]
    assert len(losses) == 3 and all(math.isfinite(v) for v in losses)
    captured = []  # saved and loaded back: the same weights and outputs
    run_sync(m.save(tf.io.with_save_handler(captured.append)))
    m2 = run_sync(tf.load_layers_model(tf.io.from_memory(captured[0])))
    assert [w.original_name for w in m2.weights] == [w.original_name for w in m.weights]
    a, b = m.predict(x), m2.predict(x)
    np.testing.assert_array_equal(arr(a), arr(b))
    tf.dispose([x, y, a, b])
    m.dispose()
    m2.dispose()


def test_sequential_of_the_new_layers_saves_and_loads():
    m = tf.sequential(
        [
            tf.layers.conv1d(filters=3, kernel_size=2, input_shape=[6, 2]),
            tf.layers.max_pooling1d(pool_size=2, padding="same"),
            tf.layers.average_pooling1d(pool_size=2, strides=1),
            tf.layers.flatten(),
            tf.layers.category_encoding(num_tokens=7, output_mode="count"),
        ]
    )
    captured = []
    run_sync(m.save(tf.io.with_save_handler(captured.append)))
    m2 = run_sync(tf.load_layers_model(tf.io.from_memory(captured[0])))
    x = tf.tensor(np.abs(rand.normal(2, 6, 2)) * 0.01)
    a, b = m.predict(x), m2.predict(x)
    np.testing.assert_array_equal(arr(a), arr(b))
    tf.dispose([x, a, b])
    m.dispose()
    m2.dispose()


def np_encode(x, n, mode, w=None):
    """TF.js's encodeCategoricalInputs (denseBincount over the last axis) in numpy."""
    x = np.asarray(x).reshape(-1) if np.ndim(x) == 0 else np.asarray(x)
    if mode == "oneHot" and x.shape[-1] != 1:
        x = x[..., None]
    rows = x.reshape(-1, x.shape[-1])
    w = np.ones(rows.shape) if w is None else np.asarray(w, np.float64).reshape(rows.shape)
    out = np.zeros((rows.shape[0], n))
    for r, (ids, ws) in enumerate(zip(rows, w, strict=True)):
        for i, v in zip(ids, ws, strict=True):
            out[r, i] = 1 if mode != "count" else out[r, i] + v
    return out.reshape(*x.shape[:-1], n)


@pytest.mark.parametrize(
    "x,n,mode,weights",
    [
        ([[0, 1, 1, 3], [2, 2, 2, 0]], 5, "multiHot", None),
        ([[0, 1, 1, 3], [2, 2, 2, 0]], 4, "count", None),
        ([[0, 1, 1], [2, 2, 0]], 3, "count", [[0.5, 1.0, 2.0], [1.0, 1.0, -1.0]]),
        ([3, 1, 0, 2], 4, "oneHot", None),
        ([[1], [0], [2]], 3, "oneHot", None),
        ([2, 0, 2], 3, "multiHot", None),
        ([0, 0], 1, "count", None),
    ],
)
def test_category_encoding_layer(x, n, mode, weights):
    xt = tf.tensor(np.array(x, np.int32))
    wt = None if weights is None else tf.tensor(np.array(weights, np.float32))
    layer = tf.layers.category_encoding(num_tokens=n, output_mode=mode)
    y = layer.apply(xt) if wt is None else layer.apply(xt, count_weights=wt)
    want = np_encode(x, n, mode, weights)
    assert y.dtype == "float32" and tuple(y.shape) == want.shape == layer.compute_output_shape(
        tuple(xt.shape)
    )
    np.testing.assert_allclose(arr(y), want)
    tf.dispose([xt, y] + ([] if wt is None else [wt]))


def test_category_encoding_errors():
    xt = tf.tensor(np.array([[0, 4]], np.int32))
    with pytest.raises(ValueError, match=r"\(CategoryEncoding\): input values must be in \[0, num_tokens\)"):
        tf.layers.category_encoding(num_tokens=4).apply(xt)
    with pytest.raises(ValueError, match=r"\(CategoryEncoding\): count_weights is only used"):
        tf.layers.category_encoding(num_tokens=5).apply(xt, count_weights=xt)
    with pytest.raises(ValueError, match=r"\(CategoryEncoding\): output_mode must be"):
        tf.layers.category_encoding(num_tokens=5, output_mode="tfIdf")
    with pytest.raises(ValueError, match=r"\(CategoryEncoding\): when output_mode is not int, the maximum"):
        tf.layers.category_encoding(num_tokens=5, output_mode="oneHot").apply(xt)
    tf.dispose(xt)


def np_conv_lstm(x, k, rk, b, strides, pad, return_sequences):
    """ConvLSTM2D in numpy: gates i, f, c, o (hard_sigmoid recurrent activation, tanh)."""
    hs = lambda z: np.clip(0.2 * z + 0.5, 0, 1)  # noqa: E731
    n = k.shape[-1] // 4
    h = c = None
    outs = []
    for t in range(x.shape[1]):
        z = np_conv(x[:, t], k, strides, pad) + b
        if h is None:
            h = c = np.zeros(z.shape[:-1] + (n,))
        z = z + np_conv(h, rk, (1, 1), "same")
        zi, zf, zc, zo = (z[..., j * n : (j + 1) * n] for j in range(4))
        c = hs(zf) * c + hs(zi) * np.tanh(zc)
        h = hs(zo) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1) if return_sequences else h


@pytest.mark.parametrize("strides,pad,seq", [((1, 1), "same", True), ((2, 1), "valid", False)])
def test_conv_lstm2d_layer(strides, pad, seq):
    layer = tf.layers.conv_lstm2d(
        filters=1, kernel_size=2, strides=list(strides), padding=pad, return_sequences=seq,
        kernel_initializer=init(8), recurrent_initializer=init(9), bias_initializer=init(10),
    )  # fmt: skip
    x = rand.normal(1, 2, 3, 3, 1)
    oracle = lambda x, k, rk, b: np_conv_lstm(x, k, rk, b, strides, pad, seq)  # noqa: E731
    check_layer(layer, x, oracle, ["kernel", "recurrent_kernel", "bias"])


def test_conv_lstm2d_errors():
    with pytest.raises(ValueError, match=r"\(ConvLSTM2D\): dropout and recurrent_dropout are not supported"):
        tf.layers.conv_lstm2d(filters=1, kernel_size=2, dropout=0.5)
    with pytest.raises(ValueError, match=r"\(ConvLSTM2D\): stateful convolutional RNNs are not supported"):
        tf.layers.conv_lstm2d(filters=1, kernel_size=2, stateful=True)
    x = tf.zeros([1, 2, 3, 3])
    with pytest.raises(ValueError, match=r"\(ConvLSTM2D\): expects inputs of rank 5"):
        tf.layers.conv_lstm2d(filters=1, kernel_size=2).apply(x)
    tf.dispose(x)


@pytest.mark.parametrize("interp", ["bilinear", "nearest"])
def test_random_width_layer(interp):
    x = rand.normal(2, 3, 10, 2)
    xt = tf.tensor(x)
    layer = tf.layers.random_width(factor=[-0.5, 0.5], interpolation=interp, seed=4)
    again = tf.layers.random_width(factor=[-0.5, 0.5], interpolation=interp, seed=4)
    widths = []
    for _ in range(4):
        y, y2 = layer.apply(xt), again.apply(xt)
        width = y.shape[2]
        assert 5 <= width <= 15 and tuple(y.shape) == (2, 3, width, 2)
        np.testing.assert_array_equal(arr(y), arr(y2))  # the same seed: the same widths, call after call
        np.testing.assert_allclose(
            arr(y), np_resize(x, 3, width, False, interp == "nearest"), rtol=1e-5, atol=1e-5
        )
        widths.append(width)
        tf.dispose([y, y2])
    assert len(set(widths)) > 1  # a new width each call
    assert layer.compute_output_shape((None, 3, 10, 2)) == (None, 3, None, 2)
    tf.dispose(xt)


def test_random_width_errors():
    for factor, message in (
        (0, "invalid factor"),
        ([-2, 0.5], "larger than -1"),
        ([0.5, 0.1], "upper bound"),
    ):
        with pytest.raises(ValueError, match=rf"\(RandomWidth\): .*{message}"):
            tf.layers.random_width(factor=factor)
