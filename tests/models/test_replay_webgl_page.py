"""The compiled replay on webgl (backends/webgl/replay.py) in the page, against TF.js 4.22.0 (cpu) as the
oracle: one JS call of draws per run gives the right outputs with every slot texture poisoned (NaN) between
runs; a trip through cpu (the weights come back in new textures) plans anew; a flags change compiles anew;
compiled runs leave tf.memory() and the backend's texture count as they found them; a disposed model
returns its slots to the pool."""

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
res["draws"] = program.draws
tensors, textures = tf.memory().num_tensors, backend.memory()["num_textures"]
await errors()
res["memory_unchanged"] = [tf.memory().num_tensors == tensors, backend.memory()["num_textures"] == textures]
# poison every slot texture (intermediates and constants) with NaN between runs
poisoned = []
stats = dict(STATS)
for _ in range(2):
    for tex, w, h in program.owned:
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
    assert res["draws"] > 50, res
    assert res["memory_unchanged"] == [True, True], res
    assert max(res["poisoned"][:2]) <= 1e-2 and res["poisoned"][2] == 2, res
    assert max(res["after_switch"][:2]) <= 1e-2 and res["after_switch"][2:] == [1, 1], res
    assert max(res["after_flags"]) <= 1e-2 and res["flags_stats"] == [1, 1], res
    assert res["released"] and all(res["released"]), res
    assert res["leak"] == 0, res
