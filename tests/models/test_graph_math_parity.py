"""The math share's converter ops in one synthetic graph model, run in the page by webtf (cpu) and by TF.js
4.22's GraphModel (its cpu backend) on the same model.json, weights and input; outputs must match.
BitwiseAnd and EnsureShape are left out: TF.js 4.22's converter passes BitwiseAnd no inputs and reads
EnsureShape's shape (a TF attr) as a second input (the host test covers webtf's handlers)."""

import base64
import json

import numpy as np

from tests.helpers import LOAD_TFJS_JS
from tests.models.synth import Graph, attr_ints, attr_str

ORACLE_JS = (
    """async ([model, data, feeds, outputs]) => {
"""
    + LOAD_TFJS_JS
    + """  await tf.setBackend("cpu");
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const m = await tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: model.modelTopology, format: "graph-model",
    weightSpecs: model.weightsManifest[0].weights, weightData: bytes.buffer,
  }));
  const inputs = {};
  for (const [k, v] of Object.entries(feeds)) inputs[k] = tf.tensor(v.values, v.shape, v.dtype);
  const outs = await m.executeAsync(inputs, outputs);
  const res = [];
  for (const t of outs) res.push({ shape: t.shape, dtype: t.dtype, values: Array.from(await t.data()) });
  tf.dispose(outs); tf.dispose(Object.values(inputs)); m.dispose();
  return res;
}"""
)

WEBTF_PY = """
import base64, json, js
import webtf as tf
spec = json.loads(str(js.webtfParity))
await tf.set_backend("cpu")
m = await tf.load_graph_model(tf.io.from_memory(spec["model"], base64.b64decode(spec["data"])))
feeds = {k: tf.tensor(v["values"], v["shape"], v["dtype"]) for k, v in spec["feeds"].items()}
outs = await m.execute_async(feeds, spec["outputs"])
res = [{"shape": list(t.shape), "dtype": t.dtype, "values": list(t.data_sync())} for t in outs]
tf.dispose(outs); tf.dispose(list(feeds.values())); m.dispose()
res
"""


def _graph():
    rng = np.random.default_rng(22)
    g = Graph()
    g.placeholder("x", "float32", [1, 3, 3, 4])
    g.placeholder("v", "int32", [6])
    g.op("acosh", "Acosh", g.op("xp", "AddV2", "x", g.const("two", 2.0)))
    g.op("asinh", "Asinh", "x")
    g.op("atanh", "Atanh", g.op("xs", "Mul", "x", g.const("half", 0.5)))
    g.op("lrn", "LRN", "x", depth_radius={"i": "1"}, bias={"f": 2.0}, alpha={"f": 0.5}, beta={"f": 0.75})
    g.op("enorm", "EuclideanNorm", "x", g.const("axes", [1, 2], "int32"), keep_dims={"b": True})
    g.op("flat", "Reshape", "x", g.const("flat_shape", [9, 4], "int32"))
    g.op("einsum", "Einsum", "flat", g.const("m", rng.uniform(size=(4, 2))), equation=attr_str("ij,jk->ik"))
    # equal bounds: TF.js 4.22's op list reads num_upper from input 1 too (webtf reads input 2, as TF does)
    g.op("band", "MatrixBandPart", "flat", g.const("lo", 1, "int32"), g.const("hi", 1, "int32"))
    g.const("idx", [[1], [3], [1]], "int32")
    g.const("upd", [5.0, 6.0, 7.0])
    g.op("scatter", "ScatterNd", "idx", "upd", g.const("shape", [5], "int32"))
    g.op("tsu", "TensorScatterUpdate", g.const("base", [1.0, 2, 3, 4, 5]), g.const("idx2", [[4], [0]], "int32"),
         g.const("upd2", [8.0, 9.0]))  # fmt: skip
    g.op("bincount", "Bincount", "v", g.const("size", 5, "int32"), g.const("w", np.zeros(0, np.float32)))
    g.op("dense", "DenseBincount", "v", "size", "w", binary_output={"b": True})
    g.op("unique", "UniqueV2", "v", g.const("uaxis", [0], "int32"))
    g.const("seq", [[1.0, 2, 2, 4]])
    g.op("lower", "LowerBound", "seq", g.const("vals", [[2.0, 3, 5]]))
    g.op("upper", "UpperBound", "seq", "vals")
    g.op("bargs", "BroadcastArgs", g.const("s0", [2, 1], "int32"), g.const("s1", [3], "int32"))
    g.op("dil", "Dilation2D", "x", g.const("f", rng.uniform(-1, 1, size=(2, 2, 4))), strides=attr_ints(1, 1, 1, 1),
         rates=attr_ints(1, 1, 1, 1), padding=attr_str("SAME"))  # fmt: skip
    g.op("argmax", "MaxPoolWithArgmax", "x", ksize=attr_ints(1, 2, 2, 1), strides=attr_ints(1, 1, 1, 1),
         padding=attr_str("VALID"))  # fmt: skip
    g.op("diff", "ListDiff", "v", g.const("drop", [1, 5], "int32"))
    outputs = ["acosh", "asinh", "atanh", "lrn", "enorm", "einsum", "band", "scatter", "tsu", "bincount",
               "dense", "unique", "unique:1", "lower", "upper", "bargs", "dil", "argmax",
               "argmax:1", "diff", "diff:1"]  # fmt: skip
    return g, outputs


def test_math_ops_match_tfjs(webtf_page, py):
    g, outputs = _graph()
    model, data = g.model()
    model["modelTopology"]["versions"] = {"producer": 1395}  # TF.js reads the graph's producer version
    rng = np.random.default_rng(23)
    feeds = {
        "x": {"values": rng.uniform(-0.9, 0.9, size=36).tolist(), "shape": [1, 3, 3, 4], "dtype": "float32"},
        "v": {"values": [3, 1, 3, 2, 0, 5], "shape": [6], "dtype": "int32"},
    }
    b64 = base64.b64encode(data).decode()
    tfjs = webtf_page.evaluate(ORACLE_JS, [model, b64, feeds, outputs])
    spec = json.dumps({"model": model, "data": b64, "feeds": feeds, "outputs": outputs})
    webtf_page.evaluate("(s) => { window.webtfParity = s; }", spec)
    ours = py(WEBTF_PY)
    assert len(ours) == len(tfjs) == len(outputs)
    for name, a, b in zip(outputs, ours, tfjs, strict=True):
        assert a["shape"] == b["shape"], (name, a["shape"], b["shape"])
        assert a["dtype"] == b["dtype"], (name, a["dtype"], b["dtype"])
        np.testing.assert_allclose(np.array(a["values"], float), np.array(b["values"], float), rtol=1e-5,
                                   atol=1e-5, err_msg=name)  # fmt: skip
