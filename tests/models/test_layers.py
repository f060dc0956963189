"""Host tests: layers models (Keras JSON topology + weights) written by the test, checked against numpy.

Every layer class runs in a one-layer Sequential model against a numpy reference; functional graphs
(several inputs/outputs, shared layers, nested models), load errors, predict batching, summary() and
save/load round trips get their own tests. The autouse fixture checks that no test leaks a tensor.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.helpers import Rand
from webtf.models.layers import LayersModel, load_layers_model

r = Rand(7).normal


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


# ---------------------------------------------------------------------------------------------- builders


def layer(class_name: str, name: str, inbound: list | None = None, **config: Any) -> dict[str, Any]:
    """A layer entry; `inbound` makes it a functional-model entry ([[name, node, tensor], ...] per call)."""
    entry: dict[str, Any] = {"class_name": class_name, "config": {"name": name, "trainable": True, **config}}
    if inbound is not None:
        entry["name"] = name
        entry["inbound_nodes"] = [[[*ref, {}] for ref in call] for call in inbound]
    return entry


def sequential(*layers: dict[str, Any], name: str = "seq") -> dict[str, Any]:
    return {"class_name": "Sequential", "config": {"name": name, "layers": list(layers)},
            "keras_version": "tfjs-layers 4.22.0", "backend": "tensor_flow.js"}  # fmt: skip


def functional(layers: list[dict], inputs: list[str], outputs: list, name: str = "model") -> dict[str, Any]:
    outs = [[o, 0, 0] if isinstance(o, str) else o for o in outputs]
    config = {
        "name": name,
        "layers": layers,
        "input_layers": [[i, 0, 0] for i in inputs],
        "output_layers": outs,
    }
    return {"class_name": "Model", "config": config, "keras_version": "2.2.4", "backend": "tensorflow"}


def artifacts(topology: dict[str, Any], weights: dict[str, np.ndarray]) -> tuple[dict[str, Any], bytes]:
    """model.json (as a dict) and the shard bytes for float32 weights."""
    specs = [{"name": k, "shape": list(v.shape), "dtype": "float32"} for k, v in weights.items()]
    data = b"".join(np.asarray(v, np.float32).tobytes() for v in weights.values())
    return {"modelTopology": topology, "format": "layers-model",
            "weightsManifest": [{"paths": ["weights.bin"], "weights": specs}]}, data  # fmt: skip


def load(model_json: dict[str, Any], data: bytes = b"", strict: bool = True) -> LayersModel:
    return run_sync(load_layers_model(tf.io.from_memory(model_json, data), strict=strict))


def run(model: LayersModel, *xs: np.ndarray, **kwargs: Any) -> Any:
    """predict() on numpy inputs; numpy outputs (a list when the model has several)."""
    ts = [tf.tensor(x) for x in xs]
    before = tf.memory().num_tensors
    out = model.predict(ts if len(ts) > 1 else ts[0], **kwargs)
    outs = out if isinstance(out, list) else [out]
    assert tf.memory().num_tensors == before + len(outs), "intermediates left alive after predict"
    arrays = [np.array(t.data_sync(), dtype=np.float32 if t.dtype == "float32" else np.int32).reshape(t.shape)
              for t in outs]  # fmt: skip
    tf.dispose(outs + ts)
    return arrays if isinstance(out, list) else arrays[0]


# ---------------------------------------------------------------------------------------------- numpy refs


def _pads(n: int, k: int, s: int, d: int, padding: str) -> tuple[int, int, int]:
    span = (k - 1) * d + 1
    if padding == "valid":
        return (n - span) // s + 1, 0, 0
    out = -(-n // s)
    total = max((out - 1) * s + span - n, 0)
    return out, total // 2, total - total // 2


def _windows(
    x: np.ndarray, kh: int, kw: int, strides: Any, padding: str, dil: Any = (1, 1), fill: float = 0.0
):
    """Yield (a, b, patch) with patch [N, oh, ow, C] for every kernel tap."""
    (sh, sw), (dh, dw) = strides, dil
    oh, pt, pb = _pads(x.shape[1], kh, sh, dh, padding)
    ow, pl, pr = _pads(x.shape[2], kw, sw, dw, padding)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=fill)
    for a in range(kh):
        for b in range(kw):
            yield (
                a,
                b,
                xp[:, a * dh : a * dh + (oh - 1) * sh + 1 : sh, b * dw : b * dw + (ow - 1) * sw + 1 : sw, :],
            )


def conv_ref(x, w, strides=(1, 1), padding="valid", dil=(1, 1)):
    out = 0.0
    for a, b, p in _windows(x.astype(np.float64), w.shape[0], w.shape[1], strides, padding, dil):
        out = out + p @ w[a, b].astype(np.float64)
    return out


def depthwise_ref(x, w, strides=(1, 1), padding="valid", dil=(1, 1)):
    out = 0.0
    for a, b, p in _windows(x.astype(np.float64), w.shape[0], w.shape[1], strides, padding, dil):
        out = out + (p[..., :, None] * w[a, b]).reshape(*p.shape[:3], -1)
    return out


def conv_transpose_ref(x, w, strides, padding):
    n, h, wd, _ = x.shape
    kh, kw, f, _ = w.shape
    (sh, sw) = strides

    def length(size, k, s):
        return size * s + (max(k - s, 0) if padding == "valid" else 0)

    oh, ow = length(h, kh, sh), length(wd, kw, sw)
    full = np.zeros((n, max((h - 1) * sh + kh, oh + kh), max((wd - 1) * sw + kw, ow + kw), f))
    for i in range(h):
        for j in range(wd):
            full[:, i * sh : i * sh + kh, j * sw : j * sw + kw, :] += np.einsum(
                "nc,abfc->nabf", x[:, i, j, :], w
            )
    pt = max((h - 1) * sh + kh - oh, 0) // 2 if padding == "same" else 0
    pl = max((wd - 1) * sw + kw - ow, 0) // 2 if padding == "same" else 0
    return full[:, pt : pt + oh, pl : pl + ow, :]


def pool_ref(x, size, strides, padding, kind):
    if kind == "max":
        return np.max([p for _, _, p in _windows(x, *size, strides, padding, fill=-np.inf)], axis=0)
    total = sum(p for _, _, p in _windows(x.astype(np.float64), *size, strides, padding))
    count = sum(p for _, _, p in _windows(np.ones_like(x, np.float64), *size, strides, padding))
    return total / count


def bilinear_ref(x, oh, ow):
    n, h, w, c = x.shape

    def axis(o, i):
        src = np.arange(o) * (i / o)
        lo = np.floor(src).astype(int)
        return lo, np.minimum(lo + 1, i - 1), src - lo

    y0, y1, fy = axis(oh, h)
    x0, x1, fx = axis(ow, w)
    top = x[:, y0][:, :, x0] * (1 - fx)[None, None, :, None] + x[:, y0][:, :, x1] * fx[None, None, :, None]
    bot = x[:, y1][:, :, x0] * (1 - fx)[None, None, :, None] + x[:, y1][:, :, x1] * fx[None, None, :, None]
    return top * (1 - fy)[None, :, None, None] + bot * fy[None, :, None, None]


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


ERF = np.vectorize(math.erf)
NP_ACT = {
    "linear": lambda x: x,
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "sigmoid": sigmoid,
    "hard_sigmoid": lambda x: np.clip(0.2 * x + 0.5, 0, 1),
    "tanh": np.tanh,
    "softmax": softmax,
    "log_softmax": lambda x: np.log(softmax(x)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "swish": lambda x: x * sigmoid(x),
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))),
    "gelu": lambda x: 0.5 * x * (1 + ERF(x / np.sqrt(2))),
    "gelu_new": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
}


def bn_ref(x, gamma, beta, mean, var, eps):
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


# ------------------------------------------------------------------------------------------ one layer each


def one_layer(class_name: str, in_shape: tuple, weights: dict[str, np.ndarray] | None = None, dtype="float32",
              **config: Any) -> LayersModel:  # fmt: skip
    """A Sequential model of a single layer named 'l' taking inputs [None, *in_shape]."""
    entry = layer(class_name, "l", batch_input_shape=[None, *in_shape], dtype=dtype, **config)
    return load(*artifacts(sequential(entry), {f"l/{k}": v for k, v in (weights or {}).items()}))


def check(model: LayersModel, x: np.ndarray, ref: np.ndarray, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    try:
        np.testing.assert_allclose(run(model, x), ref, rtol=rtol, atol=atol)
    finally:
        model.dispose()


@pytest.mark.parametrize(
    "units,activation,use_bias,shape",
    [
        (3, "linear", True, (5,)),
        (4, "relu", True, (6,)),
        (3, "softmax", False, (5,)),
        (2, "tanh", True, (3, 5)),
    ],
)
def test_dense(units, activation, use_bias, shape):
    w = {"kernel": r(shape[-1], units)} | ({"bias": r(units)} if use_bias else {})
    x = r(2, *shape)
    ref = NP_ACT[activation](x @ w["kernel"] + (w["bias"] if use_bias else 0))
    check(one_layer("Dense", shape, w, units=units, activation=activation, use_bias=use_bias), x, ref)


@pytest.mark.parametrize("name", sorted(NP_ACT))
def test_activation(name):
    x = r(2, 7) * 3
    check(one_layer("Activation", (7,), activation=name), x, NP_ACT[name](x.astype(np.float64)), 1e-4, 1e-5)


def test_activation_camel_case_alias():
    x = r(2, 3)
    check(one_layer("Activation", (3,), activation="hardSigmoid"), x, NP_ACT["hard_sigmoid"](x))


@pytest.mark.parametrize(
    "cfg,pad,strides,dil,act,bias",
    [
        ({"kernel_size": [3, 3]}, "valid", (1, 1), (1, 1), "linear", True),
        ({"kernel_size": 3, "strides": 2}, "same", (2, 2), (1, 1), "relu", True),
        ({"kernel_size": [2, 3], "strides": [1, 2]}, "same", (1, 2), (1, 1), "relu6", False),
        ({"kernel_size": 3, "dilation_rate": 2}, "same", (1, 1), (2, 2), "swish", True),
    ],
)
def test_conv2d(cfg, pad, strides, dil, act, bias):
    x = r(2, 7, 8, 3)
    kh, kw = (cfg["kernel_size"],) * 2 if isinstance(cfg["kernel_size"], int) else cfg["kernel_size"]
    w = {"kernel": r(kh, kw, 3, 4)} | ({"bias": r(4)} if bias else {})
    ref = NP_ACT[act](conv_ref(x, w["kernel"], strides, pad, dil) + (w["bias"] if bias else 0))
    m = one_layer("Conv2D", (7, 8, 3), w, filters=4, padding=pad, activation=act, use_bias=bias, **cfg)
    assert m.outputs[0].shape == [None, *ref.shape[1:]]
    check(m, x, ref, 1e-4, 1e-5)


@pytest.mark.parametrize("pad,strides,mult,act", [("same", (2, 2), 2, "relu"), ("valid", (1, 1), 1, "tanh")])
def test_depthwise_conv2d(pad, strides, mult, act):
    x = r(2, 6, 7, 3)
    w = {"depthwise_kernel": r(3, 3, 3, mult), "bias": r(3 * mult)}
    ref = NP_ACT[act](depthwise_ref(x, w["depthwise_kernel"], strides, pad) + w["bias"])
    m = one_layer("DepthwiseConv2D", (6, 7, 3), w, kernel_size=[3, 3], strides=list(strides), padding=pad,
                  depth_multiplier=mult, activation=act)  # fmt: skip
    check(m, x, ref, 1e-4, 1e-5)


def test_separable_conv2d():
    x = r(2, 6, 6, 3)
    w = {"depthwise_kernel": r(3, 3, 3, 2), "pointwise_kernel": r(1, 1, 6, 5), "bias": r(5)}
    ref = np.maximum(conv_ref(depthwise_ref(x, w["depthwise_kernel"], (1, 1), "same"), w["pointwise_kernel"])
                     + w["bias"], 0)  # fmt: skip
    m = one_layer("SeparableConv2D", (6, 6, 3), w, filters=5, kernel_size=3, padding="same",
                  depth_multiplier=2, activation="relu")  # fmt: skip
    check(m, x, ref, 1e-4, 1e-5)


@pytest.mark.parametrize("pad,k,s", [("valid", 3, 2), ("same", 3, 2), ("valid", 2, 3), ("same", 4, 1)])
def test_conv2d_transpose(pad, k, s):
    x = r(2, 4, 5, 3)
    w = {"kernel": r(k, k, 6, 3), "bias": r(6)}
    ref = sigmoid(conv_transpose_ref(x, w["kernel"], (s, s), pad) + w["bias"])
    m = one_layer("Conv2DTranspose", (4, 5, 3), w, filters=6, kernel_size=k, strides=s, padding=pad,
                  activation="sigmoid")  # fmt: skip
    assert m.outputs[0].shape == [None, *ref.shape[1:]]
    check(m, x, ref, 1e-4, 1e-5)


@pytest.mark.parametrize("center,scale", [(True, True), (False, True), (True, False), (False, False)])
def test_batch_normalization(center, scale):
    x = r(3, 4, 5)
    p = {"gamma": r(5), "beta": r(5), "moving_mean": r(5), "moving_variance": np.abs(r(5)) + 0.1}
    w = {k: v for k, v in p.items() if (k != "gamma" or scale) and (k != "beta" or center)}
    ref = bn_ref(
        x,
        p["gamma"] if scale else 1,
        p["beta"] if center else 0,
        p["moving_mean"],
        p["moving_variance"],
        0.01,
    )
    check(
        one_layer("BatchNormalization", (4, 5), w, axis=-1, epsilon=0.01, center=center, scale=scale), x, ref
    )


def test_batch_normalization_runs_one_fused_batch_norm():
    """At inference a last-axis batch norm is one FusedBatchNorm kernel (TF.js's tf.batchNorm), not its
    affine's seven kernels."""
    from webtf.engine import ENGINE

    x = r(3, 4, 5)
    p = {"gamma": r(5), "beta": r(5), "moving_mean": r(5), "moving_variance": np.abs(r(5)) + 0.1}
    m = one_layer("BatchNormalization", (4, 5), p, axis=-1, epsilon=0.01)
    log: list[Any] = []
    xt = tf.tensor(x)
    ENGINE.record_kernels(log)
    try:
        y = m.predict(xt)
    finally:
        ENGINE.record_kernels(None)
    ref = bn_ref(x, p["gamma"], p["beta"], p["moving_mean"], p["moving_variance"], 0.01)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-5, atol=1e-5)
    assert [e[0] for e in log if len(e) == 4 and e[0] != "Reshape"] == ["FusedBatchNorm"]
    tf.dispose([xt, y])
    m.dispose()


def test_batch_normalization_inner_axis():
    x = r(2, 3, 4)
    w = {"gamma": r(3), "beta": r(3), "moving_mean": r(3), "moving_variance": np.abs(r(3)) + 0.1}
    ref = bn_ref(x, *(w[k][:, None] for k in ("gamma", "beta", "moving_mean", "moving_variance")), 1e-3)
    check(one_layer("BatchNormalization", (3, 4), w, axis=[1]), x, ref)


@pytest.mark.parametrize(
    "cfg,fn",
    [
        ({}, lambda x: np.maximum(x, 0)),
        ({"max_value": 6}, lambda x: np.clip(x, 0, 6)),
        ({"max_value": 0.5}, lambda x: np.clip(x, 0, 0.5)),
        ({"max_value": 1.5, "negative_slope": 0.1, "threshold": 0.5},
         lambda x: np.where(x >= 0.5, np.minimum(x, 1.5), 0.1 * (x - 0.5))),
    ],
)  # fmt: skip
def test_relu_layer(cfg, fn):
    x = r(2, 9) * 4
    check(one_layer("ReLU", (9,), **cfg), x, fn(x))


def test_leaky_relu_elu_thresholded_prelu():
    x = r(2, 3, 4, 5)
    check(one_layer("LeakyReLU", (3, 4, 5), alpha=0.1), x, np.where(x >= 0, x, 0.1 * x))
    check(one_layer("LeakyReLU", (3, 4, 5)), x, np.where(x >= 0, x, 0.3 * x))
    check(one_layer("ELU", (3, 4, 5), alpha=0.5), x, np.where(x > 0, x, 0.5 * np.expm1(x)))
    check(one_layer("ThresholdedReLU", (3, 4, 5), theta=0.5), x, np.where(x > 0.5, x, 0))
    alpha = r(1, 1, 5)
    check(
        one_layer("PReLU", (3, 4, 5), {"alpha": alpha}, shared_axes=[1, 2]), x, np.where(x >= 0, x, alpha * x)
    )


@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax_layer(axis):
    x = r(2, 3, 4)
    check(one_layer("Softmax", (3, 4), axis=axis), x, softmax(x, axis))


@pytest.mark.parametrize(
    "cls,cfg,size,strides,pad",
    [
        ("MaxPooling2D", {}, (2, 2), (2, 2), "valid"),
        ("MaxPooling2D", {"pool_size": 3, "strides": 2, "padding": "same"}, (3, 3), (2, 2), "same"),
        ("AveragePooling2D", {"pool_size": [2, 3], "strides": [1, 2]}, (2, 3), (1, 2), "valid"),
        ("AveragePooling2D", {"pool_size": 3, "strides": 2, "padding": "same"}, (3, 3), (2, 2), "same"),
    ],
)
def test_pooling(cls, cfg, size, strides, pad):
    x = r(2, 7, 6, 3)
    ref = pool_ref(x, size, strides, pad, "max" if cls.startswith("Max") else "avg")
    check(one_layer(cls, (7, 6, 3), **cfg), x, ref)


def test_global_pooling():
    x = r(2, 4, 5, 3)
    check(one_layer("GlobalAveragePooling2D", (4, 5, 3)), x, x.mean(axis=(1, 2)))
    check(one_layer("GlobalMaxPooling2D", (4, 5, 3)), x, x.max(axis=(1, 2)))
    check(one_layer("GlobalMaxPooling2D", (4, 5, 3), keepdims=True), x, x.max(axis=(1, 2), keepdims=True))
    check(one_layer("GlobalAveragePooling1D", (5, 3)), x[:, 0], x[:, 0].mean(axis=1))


def test_reshaping_layers():
    x = r(2, 3, 4)
    check(one_layer("Flatten", (3, 4)), x, x.reshape(2, 12))
    m = one_layer("Reshape", (3, 4), target_shape=[-1, 2])
    assert m.outputs[0].shape == [None, 6, 2]
    check(m, x, x.reshape(2, 6, 2))
    check(one_layer("Permute", (3, 4), dims=[2, 1]), x, x.transpose(0, 2, 1))
    check(one_layer("RepeatVector", (4,), n=3), x[:, 0], np.repeat(x[:, 0][:, None], 3, axis=1))
    check(one_layer("Dropout", (3, 4), rate=0.5), x, x)
    check(one_layer("Rescaling", (3, 4), scale=1 / 255, offset=-1), x, x / 255 - 1)


def test_padding_cropping_upsampling():
    x = r(2, 3, 4, 2)
    check(one_layer("ZeroPadding2D", (3, 4, 2), padding=[[1, 2], [0, 3]]), x,
          np.pad(x, ((0, 0), (1, 2), (0, 3), (0, 0))))  # fmt: skip
    check(one_layer("ZeroPadding2D", (3, 4, 2), padding=1), x, np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))))
    check(one_layer("Cropping2D", (3, 4, 2), cropping=[[1, 0], [1, 2]]), x, x[:, 1:, 1:2])
    check(one_layer("UpSampling2D", (3, 4, 2), size=[2, 3]), x, x.repeat(2, axis=1).repeat(3, axis=2))
    check(one_layer("UpSampling2D", (3, 4, 2), size=2, interpolation="bilinear"), x, bilinear_ref(x, 6, 8))


def test_embedding_and_layer_normalization():
    emb = r(10, 3)
    idx = np.array([[1, 0, 9], [4, 4, 2]], np.int32)
    check(
        one_layer("Embedding", (3,), {"embeddings": emb}, dtype="int32", input_dim=10, output_dim=3),
        idx,
        emb[idx],
    )
    x = r(2, 3, 4)
    g, b = r(4), r(4)
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    ref = (x - mu) / np.sqrt(var + 1e-3) * g + b
    check(one_layer("LayerNormalization", (3, 4), {"gamma": g, "beta": b}, axis=-1), x, ref, 1e-4, 1e-5)


# ---------------------------------------------------------------------------------------------- graphs


def test_merge_layers_multiple_inputs_and_outputs():
    a_in = layer("InputLayer", "a", [], batch_input_shape=[None, 4])
    b_in = layer("InputLayer", "b", [], batch_input_shape=[None, 4])
    ab = [[["a", 0, 0], ["b", 0, 0]]]
    merges = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"]
    layers = (
        [a_in, b_in] + [layer(c, c.lower(), ab) for c in merges] + [layer("Concatenate", "cat", ab, axis=-1)]
    )
    names = [c.lower() for c in merges] + ["cat"]
    m = load(*artifacts(functional(layers, ["a", "b"], names), {}))
    assert [s.name for s in m.inputs] == ["a", "b"] and [s.shape for s in m.outputs][-1] == [None, 8]
    a, b = r(3, 4), r(3, 4)
    outs = run(m, a, b)
    refs = [a + b, a - b, a * b, (a + b) / 2, np.maximum(a, b), np.minimum(a, b), np.concatenate([a, b], -1)]
    for got, ref in zip(outs, refs, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
    z = tf.zeros([3, 4])
    with pytest.raises(ValueError, match="Expected to see 2 Tensor"):
        m.predict(z)
    z.dispose()
    m.dispose()


def test_functional_shared_layer_nested_model_and_execute():
    inner = sequential(layer("Dense", "in1", units=3, activation="relu", batch_input_shape=[None, 3]),
                       layer("Dense", "in2", units=3), name="inner")  # fmt: skip
    inner.update(name="inner", inbound_nodes=[[["shared", 0, 0, {}]]])
    layers = [
        layer("InputLayer", "x", [], batch_input_shape=[None, 3]),
        layer("Dense", "shared", [[["x", 0, 0]], [["inner", 1, 0]]], units=3, activation="tanh"),
        inner,
        layer("Add", "sum", [[["shared", 0, 0], ["shared", 1, 0]]]),
    ]
    w = {"shared/kernel": r(3, 3), "shared/bias": r(3), "in1/kernel": r(3, 3), "in1/bias": r(3),
         "in2/kernel": r(3, 3), "in2/bias": r(3)}  # fmt: skip
    model_json, data = artifacts(functional(layers, ["x"], ["sum", ["shared", 1, 0]], name="functional"), w)
    model_json["modelTopology"] = {"model_config": model_json["modelTopology"] | {"class_name": "Functional"}}
    m = load(model_json, data)
    x = r(4, 3)
    h1 = np.tanh(x @ w["shared/kernel"] + w["shared/bias"])
    h2 = np.maximum(h1 @ w["in1/kernel"] + w["in1/bias"], 0) @ w["in2/kernel"] + w["in2/bias"]
    h3 = np.tanh(h2 @ w["shared/kernel"] + w["shared/bias"])
    total, second = run(m, x)
    np.testing.assert_allclose(total, h1 + h3, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(second, h3, rtol=1e-5, atol=1e-5)
    assert [layer.name for layer in m.layers] == ["x", "shared", "inner", "sum"]
    rows = [line.split() for line in m.summary(print_fn=None).splitlines()]
    assert ["inner", "(Sequential)", "[null,3]", "[null,3]", "24", "shared[0][0]"] in rows
    assert ["shared", "(Dense)", "[null,3],[null,3]", "multiple", "12", "x[0][0]"] in rows
    assert ["inner[1][0]"] in rows
    assert list(m.named_weights()) == [
        "shared/kernel",
        "shared/bias",
        "in1/kernel",
        "in1/bias",
        "in2/kernel",
        "in2/bias",
    ]
    xt = tf.tensor(x)
    mid = m.execute(xt, ["shared", "inner"])
    np.testing.assert_allclose(np.array(mid[1].array_sync()), h2, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="no layer named 'nope'"):
        m.execute(xt, "nope")
    tf.dispose([xt, mid])
    m.dispose()


def test_sequential_variants_and_call_kwargs():
    d = layer("Dense", "d", units=2, batch_input_shape=[None, 3])
    w = {"d/kernel": r(3, 2), "d/bias": r(2)}
    x = r(2, 3)
    # old Keras: the Sequential config is the list of layers; an explicit InputLayer first
    for topo in (
        {"class_name": "Sequential", "config": [d]},
        sequential(layer("InputLayer", "inp", batch_input_shape=[None, 3]), layer("Dense", "d", units=2)),
    ):
        m = load(*artifacts(topo, w))
        assert m.inputs[0].name in ("d_input", "inp")
        check(m, x, x @ w["d/kernel"] + w["d/bias"])
    # inbound node kwargs (training flag) and input_layers given as one triple
    layers = [
        layer("InputLayer", "x", [], batch_input_shape=[None, 3]),
        layer("Dropout", "drop", [[["x", 0, 0]]], rate=0.9),
    ]
    layers[1]["inbound_nodes"][0][0][3] = {"training": False}
    topo = functional(layers, ["x"], ["drop"])
    topo["config"]["input_layers"] = ["x", 0, 0]
    check(load(*artifacts(topo, {})), x, x)


def test_predict_batches_inputs_and_errors():
    dense = layer("Dense", "d", units=2, activation="softmax", batch_input_shape=[None, 3])
    m = load(*artifacts(sequential(dense), {"d/kernel": r(3, 2), "d/bias": r(2)}))
    x = r(5, 3)
    whole = run(m, x)
    np.testing.assert_array_equal(run(m, x, batch_size=2), whole)
    np.testing.assert_array_equal(run(m, x[:0]), np.zeros((0, 2), np.float32))
    good = tf.tensor(x)
    out = m.predict({"d_input": good})
    np.testing.assert_array_equal(np.array(out.array_sync()), whole)
    bad = tf.zeros([2, 4])
    with pytest.raises(
        ValueError, match=r"expected d_input to have shape \[null,3\] but got array with shape \[2,4\]"
    ):
        m.predict(bad)
    flat = tf.reshape(bad, [8])
    with pytest.raises(ValueError, match=r"expected d_input to have 2 dimension\(s\)"):
        m.predict(flat)
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        m.predict(good, batch_size=0)
    m.warmup()
    m.dispose()
    with pytest.raises(ValueError, match="has been disposed"):
        m.predict(good)
    tf.dispose([out, bad, flat, good])


def test_identity_model_output_is_a_fresh_tensor():
    m = load(*artifacts(sequential(layer("Dropout", "d", rate=0.5, batch_input_shape=[None, 2])), {}))
    x = tf.tensor([[1.0, 2.0]])
    y = m.predict(x)
    assert y is not x
    y.dispose()
    assert x.array_sync() == [[1.0, 2.0]]
    x.dispose()
    m.dispose()


def test_conv_batchnorm_relu_chains_run_fused():
    bn_w = {"gamma": r(6), "beta": r(6), "moving_mean": r(6), "moving_variance": np.abs(r(6)) + 0.1}
    layers = [
        layer("InputLayer", "x", [], batch_input_shape=[None, 6, 6, 3]),
        layer(
            "DepthwiseConv2D",
            "dw",
            [[["x", 0, 0]]],
            kernel_size=3,
            padding="same",
            depth_multiplier=2,
            use_bias=False,
        ),
        layer("BatchNormalization", "bn1", [[["dw", 0, 0]]], epsilon=1e-3),
        layer("ReLU", "relu", [[["bn1", 0, 0]]], max_value=6),
        layer("Conv2D", "pw", [[["relu", 0, 0]]], filters=4, kernel_size=1, use_bias=True),
        layer("BatchNormalization", "bn2", [[["pw", 0, 0]]], epsilon=1e-3, center=False),
        layer("Activation", "act", [[["bn2", 0, 0]]], activation="relu"),
        layer("Conv2D", "side", [[["x", 0, 0]]], filters=2, kernel_size=1, use_bias=False),
        layer("BatchNormalization", "bn3", [[["side", 0, 0]]], scale=False),
    ]
    w = {"dw/depthwise_kernel": r(3, 3, 3, 2)} | {f"bn1/{k}": v for k, v in bn_w.items()}
    w |= {"pw/kernel": r(1, 1, 6, 4), "pw/bias": r(4), "bn2/gamma": r(4), "bn2/moving_mean": r(4),
          "bn2/moving_variance": np.abs(r(4)) + 0.1, "side/kernel": r(1, 1, 3, 2), "bn3/beta": r(2),
          "bn3/moving_mean": r(2), "bn3/moving_variance": np.abs(r(2)) + 0.1}  # fmt: skip
    m = load(*artifacts(functional(layers, ["x"], ["act", "side", "bn3"]), w))
    # dw+bn1+relu and pw+bn2+act run fused; side is itself an output, so side+bn3 must not
    steps = [step.layer.class_name for step in m.network.plan(m.network.output_refs)[0]]
    assert steps == [
        "DepthwiseConv2D+BatchNormalization+ReLU", "Conv2D+BatchNormalization+Activation", "Conv2D",
        "BatchNormalization",
    ]  # fmt: skip
    x = r(2, 6, 6, 3)
    stats = [bn_w[k] for k in ("gamma", "beta", "moving_mean", "moving_variance")]
    h_pre = bn_ref(depthwise_ref(x, w["dw/depthwise_kernel"], padding="same"), *stats, 1e-3)
    h = np.clip(h_pre, 0, 6)
    h2 = conv_ref(h, w["pw/kernel"]) + w["pw/bias"]
    out = np.maximum(bn_ref(h2, w["bn2/gamma"], 0, w["bn2/moving_mean"], w["bn2/moving_variance"], 1e-3), 0)
    side = conv_ref(x, w["side/kernel"])
    bn3 = bn_ref(side, 1, w["bn3/beta"], w["bn3/moving_mean"], w["bn3/moving_variance"], 1e-3)
    fused = run(m, x)
    for got, ref in zip(fused, [out, side, bn3], strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    m.network.fuse = False
    for got, ref in zip(run(m, x), fused, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    m.network.fuse = True
    xt = tf.tensor(x)
    mid = m.execute(xt, "bn1")  # an inner output of a fused chain: that chain runs unfused
    np.testing.assert_allclose(np.array(mid.array_sync()), h_pre, rtol=1e-4, atol=1e-4)
    tf.dispose([xt, mid])
    m.dispose()


# ---------------------------------------------------------------------------------------------- load errors


def bn_model() -> tuple[dict[str, Any], bytes]:
    topo = sequential(
        layer("Dense", "d1", units=4, batch_input_shape=[None, 3]),
        layer("BatchNormalization", "bn"),
        layer("Dense", "d2", units=2, activation="relu"),
    )
    w = {"d1/kernel": r(3, 4), "d1/bias": r(4), "bn/gamma": r(4), "bn/beta": r(4), "bn/moving_mean": r(4),
         "bn/moving_variance": np.abs(r(4)) + 0.5, "d2/kernel": r(4, 2), "d2/bias": r(2)}  # fmt: skip
    return artifacts(topo, w)


def test_unknown_layer_class_and_unsupported_config():
    topo = sequential(layer("Dense", "d", units=2, batch_input_shape=[None, 3]), layer("FancyLayer", "fancy"))
    with pytest.raises(ValueError, match=r"Unsupported layer class 'FancyLayer' \(layer 'fancy'\)"):
        load(*artifacts(topo, {"d/kernel": r(3, 2), "d/bias": r(2)}))
    topo = sequential(layer("Conv2D", "c", filters=2, kernel_size=1, data_format="channels_first",
                            batch_input_shape=[None, 3, 4, 4]))  # fmt: skip
    with pytest.raises(
        ValueError, match=r"Layer 'c' \(Conv2D\): data_format 'channels_first' is not supported"
    ):
        load(*artifacts(topo, {}))
    with pytest.raises(ValueError, match=r"Layer 'a' \(Activation\): unsupported activation 'zigzag'"):
        load(
            *artifacts(
                sequential(layer("Activation", "a", activation="zigzag", batch_input_shape=[None, 2])), {}
            )
        )
    with pytest.raises(ValueError, match="first layer 'd' has no batch_input_shape"):
        load(*artifacts(sequential(layer("Dense", "d", units=2)), {}))


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda j, w: w.pop("bn/moving_variance"), "1 of 8 weights are not set: bn/moving_variance"),
        (lambda j, w: w.update({"extra/kernel": r(2)}),
         "Provided weight data has no target variable: extra/kernel"),
        (lambda j, w: w.update({"d1/kernel": r(3, 5)}),
         r"Weight 'd1/kernel' has shape \[3,5\] in the weights manifest, but layer 'd1' \(Dense\) "
         r"needs \[3,4\]"),
        (lambda j, w: j.update(modelTopology={"config": {}}), "modelTopology is not a Keras model config"),
        (lambda j, w: j["modelTopology"].update(class_name="Graph"), "Unsupported model class 'Graph'"),
        (lambda j, w: j["modelTopology"]["config"]["layers"].append(["x"]), "malformed layer entry"),
        (lambda j, w: j["modelTopology"]["config"]["layers"][0]["config"].pop("units"),
         r"Layer 'd1' \(Dense\): missing required argument 'units'"),
    ],
)  # fmt: skip
def test_load_errors_leave_no_tensors(mutate, message):
    model_json, _ = bn_model()
    names = [s["name"] for s in model_json["weightsManifest"][0]["weights"]]
    weights = dict(
        zip(names, [r(*s["shape"]) for s in model_json["weightsManifest"][0]["weights"]], strict=True)
    )
    mutate(model_json, weights)
    model_json["weightsManifest"] = artifacts(sequential(), weights)[0]["weightsManifest"]
    data = b"".join(v.tobytes() for v in weights.values())
    with pytest.raises(ValueError, match=message):
        load(model_json, data)


def test_functional_topology_errors():
    def topo(inbound, inputs=("x",)):
        layers = [layer("InputLayer", "x", [], batch_input_shape=[None, 2]), layer("ReLU", "r", inbound)]
        return artifacts(functional(layers, list(inputs), ["r"]), {})

    with pytest.raises(ValueError, match="Inbound node refers to unknown layer 'nope'"):
        load(*topo([[["nope", 0, 0]]]))
    with pytest.raises(ValueError, match="Cannot connect layers r"):
        load(*topo([[["r", 0, 0]]]))
    with pytest.raises(ValueError, match="input_layers must name InputLayer layers"):
        load(*topo([[["x", 0, 0]]], inputs=("r",)))
    keras3 = topo([[["x", 0, 0]]])
    keras3[0]["modelTopology"]["config"]["layers"][1]["inbound_nodes"] = [{"args": [], "kwargs": {}}]
    with pytest.raises(ValueError, match="unsupported inbound node .*Keras 3 format"):
        load(*keras3)
    with pytest.raises(
        ValueError, match=r"Layer 'a' \(Add\): inputs of shapes \[null,2\] and \[null,3\] cannot"
    ):
        layers = [layer("InputLayer", "x", [], batch_input_shape=[None, 2]),
                  layer("InputLayer", "y", [], batch_input_shape=[None, 3]),
                  layer("Add", "a", [[["x", 0, 0], ["y", 0, 0]]])]  # fmt: skip
        load(*artifacts(functional(layers, ["x", "y"], ["a"]), {}))


def test_non_strict_load_ignores_extra_weights():
    model_json, data = bn_model()
    model_json["weightsManifest"][0]["weights"].append({"name": "extra/w", "shape": [2], "dtype": "float32"})
    before = tf.memory().num_tensors
    m = load(model_json, data + r(2).tobytes(), strict=False)
    assert tf.memory().num_tensors == before + 8 and "extra/w" not in m.named_weights()
    m.dispose()


def test_malformed_files(tmp_path):
    (tmp_path / "model.json").write_text("{not json")
    with pytest.raises(ValueError, match="model.json is not valid JSON"):
        run_sync(load_layers_model(str(tmp_path / "model.json")))
    model_json, data = bn_model()
    (tmp_path / "model.json").write_text(json.dumps(model_json))
    (tmp_path / "weights.bin").write_bytes(data[:-4])
    with pytest.raises(ValueError, match="truncated or missing shard"):
        run_sync(load_layers_model(str(tmp_path)))


# ---------------------------------------------------------------------------------------------- summary, save


def test_summary_param_counts():
    model_json, data = bn_model()
    model_json["modelTopology"]["config"]["layers"][2]["config"]["trainable"] = False
    m = load(model_json, data)
    lines: list[str] = []
    text = m.summary(print_fn=lines.append)
    assert text == "\n".join(lines)
    rows = {
        line.split()[0]: line.split()
        for line in lines
        if line.split() and line.split()[0] in ("d1", "bn", "d2")
    }
    assert rows["d1"][1:] == ["(Dense)", "[null,3]", "[null,4]", "16"]
    assert rows["bn"][-1] == "16" and rows["d2"][-1] == "10"
    assert "Total params: 42" in lines
    assert "Trainable params: 24" in lines  # d1 (16) + bn gamma/beta (8); d2 is frozen
    assert "Non-trainable params: 18" in lines
    assert m.count_params() == 42
    assert list(m.named_weights())[-4:] == ["bn/moving_mean", "bn/moving_variance", "d2/kernel", "d2/bias"]
    m.dispose()


def test_summary_functional_lists_connections():
    layers = [
        layer("InputLayer", "a", [], batch_input_shape=[None, 2]),
        layer("InputLayer", "b", [], batch_input_shape=[None, 2]),
        layer("Add", "sum", [[["a", 0, 0], ["b", 0, 0]]]),
    ]
    m = load(*artifacts(functional(layers, ["a", "b"], ["sum"]), {}))
    text = m.summary(print_fn=None)
    assert "Receives inputs" in text and "a[0][0]" in text and "b[0][0]" in text and "Total params: 0" in text
    m.dispose()


def _roundtrip_check(m: LayersModel, m2: LayersModel, saved: tf.io.ModelArtifacts, model_json: dict) -> None:
    assert saved.model_topology == model_json["modelTopology"]
    assert saved.format == "layers-model"
    assert [s.name for s in saved.weight_specs] == list(m.named_weights()) == list(m2.named_weights())
    for name, t in m.named_weights().items():
        assert t.data_sync().tobytes() == m2.named_weights()[name].data_sync().tobytes()
    x = r(3, 3)
    np.testing.assert_array_equal(run(m, x), run(m2, x))


def test_save_load_roundtrip_files(tmp_path):
    model_json, data = bn_model()
    m = load(model_json, data)
    info = run_sync(m.save(str(tmp_path / "saved")))
    assert info["weight_bytes"] == 42 * 4
    m2 = run_sync(load_layers_model(str(tmp_path / "saved")))
    saved_json = json.loads((tmp_path / "saved" / "model.json").read_text())
    saved = run_sync(
        tf.io.from_memory(saved_json, (tmp_path / "saved" / "weights.bin").read_bytes()).load()
    )
    _roundtrip_check(m, m2, saved, model_json)
    m.dispose()
    m2.dispose()


def test_save_load_roundtrip_memory_quantized():
    model_json, data = bn_model()
    # store d1/kernel as uint8: save() writes the dequantized float32 values, bit for bit
    spec = model_json["weightsManifest"][0]["weights"][0]
    spec["quantization"] = {"dtype": "uint8", "scale": 0.01, "min": -1.0}
    data = np.arange(12, dtype=np.uint8).tobytes() + data[48:]
    m = load(model_json, data)
    captured: list[Any] = []
    run_sync(m.save(tf.io.with_save_handler(captured.append)))
    saved = captured[0]
    assert all(s.quantization is None and s.dtype == "float32" for s in saved.weight_specs)
    m2 = run_sync(load_layers_model(tf.io.from_memory(saved)))
    np.testing.assert_allclose(np.array(m2.named_weights()["d1/kernel"].array_sync()).ravel(),
                               np.arange(12) * 0.01 - 1.0, rtol=1e-6)  # fmt: skip
    _roundtrip_check(m, m2, saved, model_json)
    with pytest.raises(ValueError, match="Found no save handler for URL"):
        run_sync(m.save("http://example.com/model"))
    m.dispose()
    m2.dispose()
