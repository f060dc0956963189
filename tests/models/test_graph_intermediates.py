"""GraphModel.get_intermediate_tensors / dispose_intermediate_tensors under the KEEP_INTERMEDIATE_TENSORS flag:
host checks against numpy, and (page) the kept tensors of execute and execute_async compared with TF.js 4.22's
on the same model.json, by node name and (execute) in TF.js's order, with memory returning to where it started."""

import base64
import json

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.helpers import LOAD_TFJS_JS
from tests.models.synth import Graph
from webtf.models import capture

FLAG = "KEEP_INTERMEDIATE_TENSORS"
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)


def _graph() -> Graph:
    """x [2,3] -> MatMul w -> AddV2 b -> Relu -> Unpack (2 outputs) and Sigmoid / Neg of Relu -> sums -> out."""
    g = Graph()
    g.placeholder("x", "float32", [2, 3])
    g.const("w", [[1.0, -2.0], [0.5, 1.0], [-1.0, 0.25]])
    g.const("b", [0.1, -0.2])
    g.op("mm", "MatMul", "x", "w")
    g.op("add", "AddV2", "mm", "b")
    g.op("relu", "Relu", "add")
    g.op("rows", "Unpack", "relu", num={"i": "2"}, axis={"i": "0"})
    g.op("sig", "Sigmoid", "relu")
    g.op("neg", "Neg", "relu")
    g.op("rsum", "AddV2", "rows", "rows:1")
    g.op("mix", "AddV2", "sig", "neg")
    g.op("out", "Identity", g.op("total", "AddV2", "mix", "rsum"))
    return g


def _numpy_values() -> dict[str, list[np.ndarray]]:
    w = np.array([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.25]], np.float32)
    b = np.array([0.1, -0.2], np.float32)
    relu = np.maximum(X @ w + b, 0)
    sig, neg, rsum = 1 / (1 + np.exp(-relu)), -relu, relu[0] + relu[1]
    total = sig + neg + rsum
    return {"w": [w], "b": [b], "x": [X], "mm": [X @ w], "add": [X @ w + b], "relu": [relu],
            "rows": [relu[0], relu[1]], "sig": [sig], "neg": [neg], "rsum": [rsum], "mix": [sig + neg],
            "total": [total], "out": [total]}  # fmt: skip


@pytest.fixture
def keep_flag():
    tf.env().set(FLAG, True)
    try:
        yield
    finally:
        tf.env().set(FLAG, False)


def _load():
    model, data = _graph().model()
    return run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))


def _check(kept, names):
    want = _numpy_values()
    assert sorted(kept) == sorted(names)
    for name in names:
        assert len(kept[name]) == len(want[name]), name
        for t, w in zip(kept[name], want[name], strict=True):
            np.testing.assert_allclose(t.data_sync(), w.ravel(), rtol=1e-6, err_msg=name)


def test_flag_off_keeps_nothing():
    before = tf.memory().num_tensors
    m = _load()
    x = tf.tensor(X)
    tf.dispose(m.execute(x))
    assert m.get_intermediate_tensors() is None
    m.dispose_intermediate_tensors()  # nothing kept: a no-op
    x.dispose()
    m.dispose()
    assert tf.memory().num_tensors == before


def test_execute_keeps_clones_of_every_tensor_until_the_next_run(keep_flag):
    before = tf.memory()
    m = _load()
    x = tf.tensor(X)
    start = tf.memory()
    captured = dict(capture.STATS)
    for _ in range(2):  # a second run replaces the first's kept tensors (and is not a replay)
        out = tf.tidy(lambda: m.execute(x))
        kept = m.get_intermediate_tensors()
        nodes = ["w", "b", "x", "mm", "add", "relu", "rows", "sig", "neg", "rsum", "mix", "total", "out"]
        # weights, the input, then the nodes in TF.js's execution order
        assert list(kept) == ["w", "b", "x", "mm", "add", "relu", "rows", "sig", "neg", "mix", "rsum", "total", "out"]
        _check(kept, nodes)
        kept_count = sum(len(v) for v in kept.values())
        # clones share their originals' data: one tensor each, no bytes beyond the output's
        assert tf.memory().num_tensors == start.num_tensors + kept_count + 1
        out.dispose()
        assert tf.memory().num_tensors == start.num_tensors + kept_count
    assert (
        capture.STATS["replayed"] == captured["replayed"]
        and capture.STATS["captured"] == captured["captured"]
    )
    # disposing an output leaves its kept clone readable
    np.testing.assert_allclose(kept["out"][0].data_sync(), _numpy_values()["out"][0].ravel(), rtol=1e-6)
    m.dispose_intermediate_tensors()
    assert m.get_intermediate_tensors() is None
    assert tf.memory().num_tensors == start.num_tensors and tf.memory().num_bytes == start.num_bytes
    tf.dispose(m.execute(x))  # a run with the flag on, then dispose() frees what it kept
    x.dispose()
    m.dispose()
    assert tf.memory().num_tensors == before.num_tensors and tf.memory().num_bytes == before.num_bytes


def test_execute_async_keeps_no_inputs_and_a_flag_off_run_frees_the_last(keep_flag):
    before = tf.memory().num_tensors
    m = _load()
    x = tf.tensor(X)
    tf.dispose(run_sync(m.execute_async({"x": x}, ["relu", "rows:1"])))
    _check(m.get_intermediate_tensors(), ["w", "b", "mm", "add", "relu", "rows"])
    tf.env().set(FLAG, False)
    tf.dispose(m.execute(x))
    assert m.get_intermediate_tensors() is None
    x.dispose()
    m.dispose()
    assert tf.memory().num_tensors == before


def test_control_flow_run_keeps_each_node_by_context_key(keep_flag):
    g = Graph()
    g.placeholder("x", "float32", [2])
    g.placeholder("p", "bool", [])
    g.op("sw", "Switch", "x", "p")
    g.op("t", "Neg", "sw:1")
    g.op("f", "Square", "sw")
    g.op("m", "Merge", "f", "t")
    model, data = g.model()
    before = tf.memory().num_tensors
    m = run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))
    x, p = tf.tensor([1.0, -2.0]), tf.scalar(True)
    tf.dispose(run_sync(m.execute_async({"x": x, "p": p}, "m")))
    kept = m.get_intermediate_tensors()
    assert kept["sw"][0] is None and kept["sw"][1].data_sync().tolist() == [
        1.0,
        -2.0,
    ]  # the dead output: None
    assert kept["m"][0].data_sync().tolist() == [-1.0, 2.0] and "f" not in kept
    tf.dispose([x, p])
    m.dispose()
    assert tf.memory().num_tensors == before


def test_a_flag_that_is_not_a_bool_warns_and_keeps_nothing():
    m = _load()
    x = tf.tensor(X)
    tf.env().set(FLAG, "yes")
    try:
        with pytest.warns(UserWarning, match=FLAG):
            tf.dispose(m.execute(x))
    finally:
        tf.env().set(FLAG, False)
    assert m.get_intermediate_tensors() is None
    x.dispose()
    m.dispose()


ORACLE_JS = (
    """async ([model, data, x]) => {
"""
    + LOAD_TFJS_JS
    + """  await tf.setBackend("cpu");
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const m = await tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: model.modelTopology, format: "graph-model",
    weightSpecs: model.weightsManifest[0].weights, weightData: bytes.buffer,
  }));
  const dump = async (map) => {
    const res = [];
    for (const [name, ts] of Object.entries(map)) {
      const vals = [];
      for (const t of ts) vals.push(t == null ? null : { shape: t.shape, values: Array.from(await t.data()) });
      res.push([name, vals]);
    }
    return res;
  };
  const input = tf.tensor(x, [2, 3]);
  const start = tf.memory();
  tf.env().set("KEEP_INTERMEDIATE_TENSORS", true);
  const out = m.execute(input);
  const during = tf.memory().numTensors - start.numTensors;
  const sync = await dump(m.getIntermediateTensors());
  out.dispose();
  const outs = await m.executeAsync({ x: input }, ["relu", "rows:1"]);
  const asyncKept = await dump(m.getIntermediateTensors());
  tf.dispose(outs);
  m.disposeIntermediateTensors();
  const none = m.getIntermediateTensors() == null;
  const after = [tf.memory().numTensors - start.numTensors, tf.memory().numBytes - start.numBytes];
  tf.env().set("KEEP_INTERMEDIATE_TENSORS", false);
  input.dispose(); m.dispose();
  return { sync, asyncKept, during, after, none };
}"""
)

WEBTF_PY = """
import base64, json, js
import webtf as tf
spec = json.loads(str(js.webtfIntermediates))
await tf.set_backend("cpu")
m = await tf.load_graph_model(tf.io.from_memory(spec["model"], base64.b64decode(spec["data"])))

def dump(kept):
    return [[name, [None if t is None else {"shape": list(t.shape), "values": t.data_sync().tolist()} for t in ts]]
            for name, ts in kept.items()]

inp = tf.tensor(spec["x"], [2, 3])
start = tf.memory()
tf.env().set("KEEP_INTERMEDIATE_TENSORS", True)
out = m.execute(inp)
during = tf.memory().num_tensors - start.num_tensors
sync = dump(m.get_intermediate_tensors())
out.dispose()
outs = await m.execute_async({"x": inp}, ["relu", "rows:1"])
async_kept = dump(m.get_intermediate_tensors())
tf.dispose(outs)
m.dispose_intermediate_tensors()
none = m.get_intermediate_tensors() is None
after = [tf.memory().num_tensors - start.num_tensors, tf.memory().num_bytes - start.num_bytes]
tf.env().set("KEEP_INTERMEDIATE_TENSORS", False)
inp.dispose(); m.dispose()
{"sync": sync, "asyncKept": async_kept, "during": during, "after": after, "none": none}
"""


def _same(ours, theirs, ordered):
    """Same names and values, walking TF.js's order; ordered: the names in the same order too."""
    names = [n for n, _ in theirs]
    assert sorted(n for n, _ in ours) == sorted(names)
    if ordered:
        assert [n for n, _ in ours] == names
    mine = dict(ours)
    for name, ts in theirs:
        assert len(mine[name]) == len(ts), name
        for a, b in zip(mine[name], ts, strict=True):
            assert (a is None) == (b is None), name
            if b is not None:
                assert a["shape"] == b["shape"], (name, a["shape"], b["shape"])
                np.testing.assert_allclose(a["values"], b["values"], rtol=1e-5, atol=1e-6, err_msg=name)


def test_intermediates_match_tfjs(webtf_page, py):
    model, data = _graph().model()
    model["modelTopology"]["versions"] = {"producer": 1395}  # TF.js reads the graph's producer version
    b64 = base64.b64encode(data).decode()
    x = X.ravel().tolist()
    tfjs = webtf_page.evaluate(ORACLE_JS, [model, b64, x])
    webtf_page.evaluate(
        "(s) => { window.webtfIntermediates = s; }", json.dumps({"model": model, "data": b64, "x": x})
    )
    ours = py(WEBTF_PY)
    _same(ours["sync"], tfjs["sync"], ordered=True)
    _same(ours["asyncKept"], tfjs["asyncKept"], ordered=False)  # TF.js's async order is its stack's
    assert ours["during"] == tfjs["during"]  # kept clones plus the output, tensor for tensor
    assert ours["none"] and tfjs["none"]
    assert ours["after"] == tfjs["after"] == [0, 0]
