"""The converter ops of issue 15 in small graph models (tests/models/graph_op_cases.py and
graph_op_cases_more.py, with string and complex64 outputs): webtf vs TF.js 4.22 executing the same model.json
in the same page (TF.js on its cpu backend, executeAsync), all cases in one page call per side. Float outputs
match to 1e-4 of the output's scale (1e-2 on webgl), others exactly; random ops match in shape, dtype and
range. Every webtf run leaves no tensor behind but the model's tables.
"""

import json

import pytest

from tests.helpers import LOAD_TFJS_JS
from tests.models.graph_op_cases import cases
from tests.models.graph_op_cases_more import more_cases

CASES = {**cases(), **more_cases()}
TOLERANCE = {"cpu": 1e-4, "wasm": 1e-4, "webgl": 1e-2}

ORACLE_JS = (
    "async (cases) => {"
    + LOAD_TFJS_JS
    + """
  await tf.setBackend("cpu");
  const out = {};
  for (const [id, c] of Object.entries(cases)) {
    const bytes = Uint8Array.from(atob(c.weights), (ch) => ch.charCodeAt(0));
    const m = c.model;
    const model = await tf.loadGraphModel(tf.io.fromMemory({
      modelTopology: m.modelTopology, format: m.format, signature: m.signature,
      modelInitializer: m.modelInitializer, initializerSignature: m.initializerSignature,
      weightSpecs: m.weightsManifest[0].weights, weightData: bytes.buffer,
    }));
    const feeds = {};
    for (const [name, [vals, shape, dtype]] of Object.entries(c.feeds)) feeds[name] = tf.tensor(vals, shape, dtype);
    try {
      let res = await model.executeAsync(feeds, c.outputs);
      if (!Array.isArray(res)) res = [res];
      out[id] = [];
      for (const t of res) {
        const v = Array.from(await t.data(), (x) => (Number.isFinite(x) ? x : String(x)));
        out[id].push({ values: v, shape: t.shape, dtype: t.dtype });
      }
      tf.dispose(res);
    } catch (e) {
      out[id] = { error: String(e.message || e) };
    }
    tf.dispose(Object.values(feeds));
    model.dispose();
  }
  return out;
}"""
)

WEBTF_PY = """
import base64, json, math
ok = await tf.set_backend(BACKEND)
assert ok, "backend " + BACKEND + " did not start"
out = {}
for cid, c in json.loads(CASES).items():
    model = await tf.load_graph_model(tf.io.from_memory(c["model"], base64.b64decode(c["weights"])))
    loaded = tf.memory().num_tensors
    feeds = {k: tf.tensor(v, s, d) for k, (v, s, d) in c["feeds"].items()}
    try:
        res = await model.execute_async(feeds, c["outputs"])
        res = res if isinstance(res, list) else [res]
        outs = []
        for t in res:
            vals = [v if isinstance(v, str) or math.isfinite(v) else
                    str(v).replace("inf", "Infinity").replace("nan", "NaN") for v in list(await t.data())]
            outs.append({"values": vals, "shape": list(t.shape), "dtype": t.dtype})
        tf.dispose(res)
        tf.dispose(list(feeds.values()))
        tables = sum(len(t.items) for t in model.tables.by_name.values())
        out[cid] = {"outs": outs, "leak": tf.memory().num_tensors - loaded - tables}
    except Exception as e:
        tf.dispose(list(feeds.values()))
        out[cid] = {"error": f"{type(e).__name__}: {e}"}
    model.dispose()
out
"""


def _close(got, want, tol):
    if isinstance(want, str) or isinstance(got, str):
        return got == want
    return abs(got - want) <= tol


@pytest.fixture(scope="module")
def oracle(webtf_booted):
    return webtf_booted.page.evaluate(ORACLE_JS, CASES)


@pytest.mark.parametrize("backend", ["cpu", "wasm", "webgl"])
def test_graph_ops_match_tfjs(webtf_page, py, oracle, backend):
    before = py("tf.memory().num_tensors")
    got = py(f"BACKEND = {backend!r}\nCASES = {json.dumps(json.dumps(CASES))}\n" + WEBTF_PY)
    assert py("tf.memory().num_tensors") == before
    bad = {}
    for cid, case in CASES.items():
        want, mine = oracle[cid], got[cid]
        if "error" in want or "error" in mine or mine["leak"]:
            bad[cid] = {"tfjs": want if "error" in want else "ok", "webtf": mine.get("error"), "leak": mine.get("leak")}
            continue
        for k, (g, w) in enumerate(zip(mine["outs"], want, strict=True)):
            if (g["shape"], g["dtype"]) != (w["shape"], w["dtype"]):
                bad[f"{cid}[{case['outputs'][k]}]"] = ((g["shape"], g["dtype"]), (w["shape"], w["dtype"]))
            elif case["random"]:
                lo, hi = min(w["values"]), max(w["values"])
                span = (hi - lo) * 0.25
                if not (lo - span <= min(g["values"]) and max(g["values"]) <= hi + span):
                    bad[f"{cid}[{case['outputs'][k]}]"] = ("range", min(g["values"]), max(g["values"]), lo, hi)
            else:
                finite = [abs(v) for v in w["values"] if not isinstance(v, str)]
                tol = (TOLERANCE[backend] if w["dtype"] in ("float32", "complex64") else 0) * max([1.0, *finite])
                if not all(_close(a, b, tol) for a, b in zip(g["values"], w["values"], strict=True)):
                    bad[f"{cid}[{case['outputs'][k]}]"] = (g["values"][:12], w["values"][:12])
    assert not bad, "\n" + "\n".join(f"{k}: {v}" for k, v in bad.items())
