"""The converter ops of issue 15's math share in small synthetic graph models on the host, against numpy:
Acosh/Asinh/Atanh, LRN, EuclideanNorm, Einsum, MatrixBandPart, ScatterNd, TensorScatterUpdate, Bincount,
DenseBincount, Unique(V2), LowerBound/UpperBound, BitwiseAnd, BroadcastArgs, EnsureShape, Dilation2D,
MaxPoolWithArgmax, Multinomial, RandomStandardNormal, RandomUniformInt, Print, and a custom op (tf.register_op)."""

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models.synth import Graph, attr_ints, attr_str, shape_attr

_RNG = np.random.default_rng(21)


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def _run(g: Graph, feeds: dict, outputs: list[str]) -> list[np.ndarray]:
    model, data = g.model()
    m = run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))
    tensors = {k: tf.tensor(v) for k, v in feeds.items()}
    try:
        out = run_sync(m.execute_async(tensors, outputs))
        out = out if isinstance(out, list) else [out]
        values = [t.numpy() for t in out]
        tf.dispose(out)
    finally:
        tf.dispose(list(tensors.values()))
        m.dispose()
    return values


def test_math_converter_ops():
    x = _RNG.uniform(-0.9, 0.9, size=(1, 3, 3, 4)).astype(np.float32)
    v = np.array([3, 1, 3, 2], np.int32)
    g = Graph()
    g.placeholder("x", "float32", [1, 3, 3, 4])
    g.placeholder("v", "int32", [4])
    g.op("acosh", "Acosh", "x")
    g.op("asinh", "Asinh", "x")
    g.op("atanh", "Atanh", "x")
    g.op("lrn", "LRN", "x", depth_radius={"i": "1"}, bias={"f": 2.0}, alpha={"f": 0.5}, beta={"f": 0.75})
    g.const("axes", [1, 2], "int32")
    g.op("enorm", "EuclideanNorm", "x", "axes", keep_dims={"b": False})
    g.const("m", _RNG.uniform(size=(4, 2)).astype(np.float32))
    g.op("flat", "Reshape", "x", g.const("flat_shape", [9, 4], "int32"))
    g.op("einsum", "Einsum", "flat", "m", equation=attr_str("ij,jk->ik"), N={"i": "2"})
    g.op("band", "MatrixBandPart", "flat", g.const("lo", 1, "int32"), g.const("hi", 0, "int32"))
    g.const("idx", [[1], [3]], "int32")
    g.const("upd", [5.0, 6.0])
    g.op("scatter", "ScatterNd", "idx", "upd", g.const("shape", [5], "int32"))
    g.op("tsu", "TensorScatterUpdate", g.const("base", [1.0, 2, 3, 4, 5]), "idx", "upd")
    g.op("bincount", "Bincount", "v", g.const("size", 4, "int32"), g.const("w", np.zeros(0, np.float32)))
    g.op("dense", "DenseBincount", "v", "size", "w", binary_output={"b": True})
    g.op("unique", "UniqueV2", "v", g.const("uaxis", [0], "int32"))
    sorted_seq = g.const("seq", [[1.0, 2, 2, 4]])
    g.op("lower", "LowerBound", sorted_seq, g.const("vals", [[2.0, 3]]))
    g.op("upper", "UpperBound", sorted_seq, "vals")
    g.op("band_and", "BitwiseAnd", "v", g.const("mask", [1, 1, 2, 2], "int32"))
    g.op("bargs", "BroadcastArgs", g.const("s0", [2, 1], "int32"), g.const("s1", [3], "int32"))
    g.op("ensured", "EnsureShape", "x", shape=shape_attr([1, 3, 3, 4]))
    g.op("dil", "Dilation2D", "x", g.const("f", np.zeros((2, 2, 4), np.float32)), strides=attr_ints(1, 1, 1, 1),
         rates=attr_ints(1, 1, 1, 1), padding=attr_str("VALID"))  # fmt: skip
    g.op("argmax", "MaxPoolWithArgmax", "x", ksize=attr_ints(1, 2, 2, 1), strides=attr_ints(1, 1, 1, 1),
         padding=attr_str("VALID"))  # fmt: skip
    g.op("multi", "Multinomial", g.const("logits", [[0.0, 50.0]]), g.const("n", 3, "int32"), seed={"i": "1"})
    g.op("normal", "RandomStandardNormal", g.const("rshape", [2, 3], "int32"), dtype={"type": "DT_FLOAT"})
    g.op("randint", "RandomUniformInt", "rshape", g.const("lo2", 4, "int32"), g.const("hi2", 6, "int32"))
    g.op("printed", "Print", "v", "v", message=attr_str("v is"))
    g.op("diff", "ListDiff", "v", g.const("drop", [1, 5], "int32"))
    outs = ["acosh", "asinh", "atanh", "lrn", "enorm", "einsum", "band", "scatter", "tsu", "bincount", "dense",
            "unique", "unique:1", "lower", "upper", "band_and", "bargs", "ensured", "dil", "argmax", "argmax:1",
            "multi", "normal", "randint", "printed", "diff", "diff:1"]  # fmt: skip
    got = dict(zip(outs, _run(g, {"x": x, "v": v}, outs), strict=True))
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(got["acosh"], np.arccosh(x), rtol=1e-5)
    np.testing.assert_allclose(got["asinh"], np.arcsinh(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["atanh"], np.arctanh(x), rtol=1e-5, atol=1e-6)
    sq = np.stack([np.sum(x[..., max(0, i - 1) : i + 2] ** 2, -1) for i in range(4)], -1)
    np.testing.assert_allclose(got["lrn"], x / (2 + 0.5 * sq) ** 0.75, rtol=1e-5)
    np.testing.assert_allclose(got["enorm"], np.sqrt((x**2).sum((1, 2))), rtol=1e-5)
    flat = x.reshape(9, 4)
    np.testing.assert_allclose(got["einsum"], flat @ g.weights["m"], rtol=1e-5)
    rows, cols = np.indices((9, 4))
    np.testing.assert_array_equal(got["band"], np.where((rows - cols <= 1) & (cols <= rows), flat, 0))
    np.testing.assert_array_equal(got["scatter"], [0, 5, 0, 6, 0])
    np.testing.assert_array_equal(got["tsu"], [1, 5, 3, 6, 5])
    np.testing.assert_array_equal(got["bincount"], [0, 1, 1, 2])
    np.testing.assert_array_equal(got["dense"], [0, 1, 1, 2])  # a 1-D x is counted (TF.js ignores binary)
    assert got["unique"].tolist() == [3, 1, 2] and got["unique:1"].tolist() == [0, 1, 0, 2]
    assert got["lower"].tolist() == [[1, 3]] and got["upper"].tolist() == [[3, 3]]
    np.testing.assert_array_equal(got["band_and"], v & [1, 1, 2, 2])
    assert got["bargs"].tolist() == [2, 3]
    np.testing.assert_array_equal(got["ensured"], x)
    pooled = np.array([[x[0, i : i + 2, j : j + 2].max((0, 1)) for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(got["dil"], pooled[None], rtol=1e-6)
    np.testing.assert_array_equal(x.ravel()[got["argmax:1"]], got["argmax"])
    assert got["multi"].tolist() == [[1, 1, 1]]
    assert got["normal"].shape == (2, 3) and set(got["randint"].ravel().tolist()) <= {4, 5}
    np.testing.assert_array_equal(got["printed"], v)
    assert got["diff"].tolist() == [3, 3, 2] and got["diff:1"].tolist() == [0, 2, 3]


def test_register_op():
    g = Graph()
    g.placeholder("x", "float32", [3])
    g.op("custom", "MyTwice", "x", scale={"f": 2.0})
    tf.register_op("MyTwice", lambda node: tf.mul(node.inputs[0], node.attrs["scale"]["f"]))
    try:
        (out,) = _run(g, {"x": np.array([1.0, 2, 3], np.float32)}, ["custom"])
    finally:
        tf.deregister_op("MyTwice")
    np.testing.assert_array_equal(out, [2, 4, 6])
