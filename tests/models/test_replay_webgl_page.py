"""The compiled replay on webgl (backends/webgl/replay.py) in the page, against TF.js 4.22.0 (cpu) as the
oracle: one JS call of draws per run gives the right outputs with every slot texture poisoned (NaN) between
runs; a trip through cpu (the weights come back in new textures) plans anew; a flags change compiles anew;
compiled runs leave tf.memory() and the backend's texture count as they found them; a disposed model
returns its slots to the pool; kernels that run on the host from the feed's values keep the Python replay."""

import base64
import json

import numpy as np

from tests.models.test_parity import ORACLE_JS

CHECKS_PY = """
import js
from array import array
from webtf.models.capture import STATS
from webtf.backends.webgl import replay
assert await tf.set_backend("webgl")
backend = tf.backend()
before = tf.memory().num_tensors
model = await tf.load_graph_model("models/facemesh.json")
inp = js.webtfParityInput
x = tf.tensor(array("f", inp.data.to_py()), list(inp.shape.to_py()), str(inp.dtype))
refs = [r.to_py().tolist() for r in js.webtfParityOracle]

async def errors():
    outs = await model.execute_async(x)
    outs = outs if isinstance(outs, list) else [outs]
    worst = 0.0
    for out, ref in zip(outs, refs, strict=True):
        got = (await out.data()).tolist()
        scale = max(1.0, max(abs(v) for v in ref))
        worst = max(worst, max(abs(a - b) for a, b in zip(got, ref, strict=True)) / scale)
        out.dispose()
    return worst

def programs():
    return [c.compiled for p in model.executor._plans.values() for prog in p.compiled.values()
            for c in prog.captures.values() if c is not None and c.compiled]

res = {}
stats = dict(STATS)
res["errors"] = [await errors() for _ in range(3)]  # captured, compiled, compiled
res["compiled_runs"] = STATS["compiled"] - stats["compiled"]
res["refusals"] = dict(replay.REFUSALS)
(program,) = programs()
res["draws"] = [program.draws, program.textures, program.num_slots]
tensors, textures = tf.memory().num_tensors, backend.memory()["num_textures"]
await errors()
res["memory_unchanged"] = [tf.memory().num_tensors == tensors, backend.memory()["num_textures"] == textures]
# poison every slot texture of the intermediates with NaN between runs
poisoned = []
stats = dict(STATS)
for _ in range(2):
    for tex, w, h in program.owned[: program.num_slots]:
        backend.ctx.upload_js(tex, w, js.Float32Array.new(w * h * 4).fill(float("nan")))
    poisoned.append(await errors())
res["poisoned"] = poisoned + [STATS["compiled"] - stats["compiled"]]
# a round trip through cpu: the weights come back in new textures; that run goes the Python way, the next
# one plans anew
assert await tf.set_backend("cpu")
await errors()
assert await tf.set_backend("webgl")
stats = dict(STATS)
res["after_switch"] = [await errors(), await errors(), STATS["compiled"] - stats["compiled"], len(programs())]
# a flags change: captured and compiled anew
stats = dict(STATS)
tf.env().set("KEEP_INTERMEDIATE_TENSORS", False)
res["after_flags"] = [await errors() for _ in range(2)]
res["flags_stats"] = [STATS[k] - stats[k] for k in ("captured", "compiled")]
finalizers = [p._finalizer for p in programs()]
model.dispose()
x.dispose()
res["released"] = [not f.alive for f in finalizers]
res["leak"] = tf.memory().num_tensors - before
res
"""


def test_webgl_compiled_replay(webtf_page, py):
    webtf_page.evaluate(ORACLE_JS, "facemesh")
    res = py(CHECKS_PY)
    assert max(res["errors"]) <= 1e-2, res
    assert res["compiled_runs"] == 2, res
    assert res["draws"][0] > 50 and 0 < res["draws"][2] < res["draws"][1] / 3, res  # slots are shared
    assert res["memory_unchanged"] == [True, True], res
    assert max(res["poisoned"][:2]) <= 1e-2 and res["poisoned"][2] == 2, res
    assert max(res["after_switch"][:2]) <= 1e-2 and res["after_switch"][2:] == [1, 1], res
    assert max(res["after_flags"]) <= 1e-2 and res["flags_stats"] == [1, 1], res
    assert res["released"] and all(res["released"]), res
    assert res["leak"] == 0, res


def _host_graph() -> tuple[dict, bytes]:
    """x int32 [4] + c -> Cast float -> * w: every kernel of it runs on webgl's cpu twins (small int32)."""
    c = np.array([1, -2, 3, 100], np.int32)
    w = np.array([0.5, 2.0, -1.0, 0.25], np.float32)
    t_int, t_float = {"type": "DT_INT32"}, {"type": "DT_FLOAT"}
    nodes = [
        {"name": "x", "op": "Placeholder", "attr": {"dtype": t_int, "shape": {"shape": {"dim": [{"size": "4"}]}}}},
        {"name": "c", "op": "Const", "attr": {"dtype": t_int}},
        {"name": "w", "op": "Const", "attr": {"dtype": t_float}},
        {"name": "s", "op": "AddV2", "input": ["x", "c"], "attr": {"T": t_int}},
        {"name": "f", "op": "Cast", "input": ["s"], "attr": {"SrcT": t_int, "DstT": t_float}},
        {"name": "out", "op": "Mul", "input": ["f", "w"], "attr": {"T": t_float}},
    ]  # fmt: skip
    specs = [{"name": "c", "shape": [4], "dtype": "int32"}, {"name": "w", "shape": [4], "dtype": "float32"}]
    model = {"format": "graph-model", "modelTopology": {"node": nodes},
             "weightsManifest": [{"paths": ["weights.bin"], "weights": specs}]}  # fmt: skip
    return model, c.tobytes() + w.tobytes()


HOST_PY = """
import json, base64
from webtf.models.capture import STATS
from webtf.backends.webgl import replay
assert await tf.set_backend("webgl")
before = tf.memory().num_tensors
model = await tf.load_graph_model(tf.io.from_memory(json.loads(MODEL), base64.b64decode(WEIGHTS)))
refusals = dict(replay.REFUSALS)
stats = dict(STATS)
got = []
for feed in FEEDS:
    x = tf.tensor(feed, [4], "int32")
    y = model.execute(x)
    got.append(y.data_sync().tolist())
    tf.dispose([x, y])
model.dispose()
{"got": got, "stats": [STATS[k] - stats[k] for k in ("captured", "replayed", "compiled", "not_compiled")],
 "refused": {k: v - refusals.get(k, 0) for k, v in replay.REFUSALS.items() if v != refusals.get(k, 0)},
 "leak": tf.memory().num_tensors - before}
"""


def test_webgl_host_kernels_on_run_values_are_not_compiled(py):
    """Kernels that run on the host from the feed's values cannot be baked: the Python replay goes on."""
    model, data = _host_graph()
    feeds = [[0, 1, 2, 3], [5, 6, 7, 8], [-9, 9, 0, 1]]
    res = py(
        f"MODEL = {json.dumps(json.dumps(model))}\nWEIGHTS = {base64.b64encode(data).decode()!r}\n"
        f"FEEDS = {feeds!r}\n" + HOST_PY
    )
    c = np.array([1, -2, 3, 100], np.int32)
    w = np.array([0.5, 2.0, -1.0, 0.25], np.float32)
    want = [((np.array(f, np.int32) + c).astype(np.float32) * w).tolist() for f in feeds]
    assert res["got"] == want, res
    assert res["stats"] == [1, 2, 0, 1], res
    assert res["refused"] == {"a kernel ran on the host on values of the run": 1}, res
    assert res["leak"] == 0


ASSIGN_PY = """
from webtf.models.capture import STATS
assert await tf.set_backend("webgl")
before = tf.memory().num_tensors
model = tf.sequential()
model.add(tf.layers.dense(units=4, input_shape=[3]))
model.add(tf.layers.batch_normalization())
x = tf.tensor(X, [64, 3])
outs, compiled = [], []
given = [tf.tensor(w, s) for w, s in zip(WEIGHTS[0], SHAPES)]
model.set_weights(given)
tf.dispose(given)
for k in range(len(WEIGHTS)):
    if k:  # only the moving variance changes: a weight the program never draws from (its math runs once)
        new = tf.tensor(WEIGHTS[k][5], SHAPES[5])
        model.weights[5].assign(new)
        new.dispose()
    for _ in range(3):
        c = STATS["compiled"]
        y = model.predict(x)
        outs.append(y.data_sync().tolist())
        compiled.append(STATS["compiled"] - c)
        y.dispose()
x.dispose(); model.dispose()
{"outs": outs, "compiled": compiled, "leak": tf.memory().num_tensors - before}
"""


def test_webgl_compiled_predict_follows_assigned_weights(py):
    """The batch norm's weight-only arithmetic runs on the host once per plan: a variable assigned a new value
    (the moving variance, which no draw reads) makes a new plan, and the outputs follow it (numpy oracle)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    shapes = [(3, 4), (4,), (4,), (4,), (4,), (4,)]
    w = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    sets = [w, [*w[:5], np.abs(rng.standard_normal(4)).astype(np.float32) + 0.5]]  # a new moving variance
    w[5] = np.abs(w[5]) + 0.5
    res = py(
        f"X = {x.ravel().tolist()!r}\nSHAPES = {[list(s) for s in shapes]!r}\n"
        f"WEIGHTS = {[[w.ravel().tolist() for w in ws] for ws in sets]!r}\n" + ASSIGN_PY
    )
    for k, (kernel, bias, gamma, beta, mean, var) in enumerate(sets):
        want = (x @ kernel + bias - mean) / np.sqrt(var + 1e-3) * gamma + beta
        for run in range(3):
            got = np.array(res["outs"][3 * k + run], np.float32).reshape(64, 4)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # each predict is two batches of 32: recorded + compiled, then compiled twice; after the assign the first
    # batch finds the old plan stale (a Python replay), the second plans anew
    assert res["compiled"] == [1, 2, 2, 1, 2, 2], res["compiled"]
    assert res["leak"] == 0
