"""tf.io's browser handlers in the page, with TF.js 4.22.0 (vendor/tfjs/tf.min.js) in the same page as the
other side: models TF.js saves into IndexedDB / localStorage load in webtf and the reverse; webtf's own
round trips, list/copy/move/remove; downloads:// through Playwright's download events; browser_files from
File objects made in JS. Few page calls: each test does its work in one or two evaluations.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

from tests.helpers import LOAD_TFJS_JS
from tests.models import synth

LOAD_TFJS = LOAD_TFJS_JS + '  await tf.setBackend("cpu");\n'

# TF.js makes a small layers model and a graph model and saves them into both stores.
TFJS_SAVES_JS = (
    "async ([graphJson, graphWeights]) => {"
    + LOAD_TFJS
    + """
  const model = tf.sequential({ layers: [
    tf.layers.dense({ inputShape: [4], units: 3, activation: "relu", name: "d1" }),
    tf.layers.dense({ units: 2, name: "d2" }),
  ] });
  model.setWeights(model.getWeights().map((w, i) => tf.sin(tf.range(0, w.size).add(i + 1)).reshape(w.shape)));
  const x = tf.tensor2d([[0.1, -0.2, 0.3, 0.5], [1, 2, -1, 0]]);
  const y = model.predict(x);
  await model.save("indexeddb://tfjs-made");
  await model.save("localstorage://tfjs-made");
  const graph = JSON.parse(graphJson);
  const bytes = Uint8Array.from(atob(graphWeights), (c) => c.charCodeAt(0));
  const g = await tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: { versions: { producer: 1 }, ...graph.modelTopology }, format: graph.format,
    weightSpecs: graph.weightsManifest[0].weights, weightData: bytes.buffer }));
  const gx = tf.tensor(Array.from({ length: 192 }, (_, i) => Math.cos(i)), [1, 8, 8, 3]);
  const gy = g.execute(gx);
  await g.save("localstorage://tfjs-graph");
  window.webtfIo = { x: await x.array(), gx: await gx.data() };
  const out = { layers: await y.array(), graph: Array.from(await gy.data()) };
  tf.dispose([x, y, gx, gy]);
  model.dispose();
  g.dispose();
  return out;
}"""
)

WEBTF_PY = """
import js
from array import array
before = tf.memory().num_tensors
x = tf.tensor(js.webtfIo.x.to_py())
out = {}
for store in ("indexeddb", "localstorage"):
    m = await tf.load_layers_model(store + "://tfjs-made")
    y = m.predict(x)
    out[store] = y.array_sync()
    y.dispose()
    saved = await m.save(store + "://webtf-made")
    m.dispose()
g = await tf.load_graph_model("localstorage://tfjs-graph")
gx = tf.tensor(array("f", js.webtfIo.gx.to_py()), [1, 8, 8, 3])
gy = g.execute(gx)
out["graph"] = gy.data_sync().tolist()
tf.dispose([gx, gy]); g.dispose()
listed = await tf.io.list_models()
a = await tf.io.get_load_handler("indexeddb://webtf-made").load()
b = await tf.io.get_load_handler("localstorage://webtf-made").load()
await tf.io.copy_model("indexeddb://webtf-made", "localstorage://copied")
c = await tf.io.get_load_handler("localstorage://copied").load()
await tf.io.move_model("localstorage://copied", "indexeddb://moved")
await tf.io.move_model("indexeddb://moved", "indexeddb://moved-again")
d = await tf.io.get_load_handler("indexeddb://moved-again").load()
removed = await tf.io.remove_model("indexeddb://moved-again")
errors = []
for url in ("indexeddb://moved-again", "localstorage://copied", "indexeddb://moved"):
    try:
        await tf.io.get_load_handler(url).load()
    except OSError as e:
        errors.append(str(e))
x.dispose()
{"out": out, "listed": sorted(listed), "same": a == b == c == d, "generated_by": a.generated_by,
 "weight_bytes": listed["indexeddb://tfjs-made"].weight_data_bytes,
 "saved_bytes": saved["model_artifacts_info"].weight_data_bytes, "removed_bytes": removed.weight_data_bytes,
 "errors": errors, "leak": tf.memory().num_tensors - before}
"""

TFJS_LOADS_JS = """async () => {
  const x = tf.tensor2d(window.webtfIo.x);
  const out = {};
  for (const store of ["indexeddb", "localstorage"]) {
    const m = await tf.loadLayersModel(store + "://webtf-made");
    const y = m.predict(x);
    out[store] = await y.array();
    y.dispose();
    m.dispose();
  }
  x.dispose();
  const listed = await tf.io.listModels();
  return { out, listed: Object.keys(listed).sort(), keys: Object.keys(localStorage).filter(
    (k) => k.startsWith("tensorflowjs_models/webtf-made/")).sort() };
}"""


def test_browser_stores_round_trip_with_tfjs(webtf_page, py):
    rng = np.random.default_rng(3)
    graph_json, graph_weights, _ = synth.conv_model(rng)
    oracle = webtf_page.evaluate(TFJS_SAVES_JS, [json.dumps(graph_json), base64.b64encode(graph_weights).decode()])
    res = py(WEBTF_PY)
    for store in ("indexeddb", "localstorage"):
        np.testing.assert_allclose(res["out"][store], oracle["layers"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res["out"]["graph"], oracle["graph"], rtol=1e-4, atol=1e-5)
    assert res["listed"] == [
        "indexeddb://tfjs-made", "indexeddb://webtf-made", "localstorage://tfjs-graph", "localstorage://tfjs-made",
        "localstorage://webtf-made",
    ]  # fmt: skip
    assert res["same"] and res["generated_by"].startswith("webtf")
    assert res["weight_bytes"] == res["saved_bytes"] == res["removed_bytes"] == (4 * 3 + 3 + 3 * 2 + 2) * 4
    assert res["errors"] == [
        "Cannot find model with path 'moved-again' in IndexedDB",
        "In local storage, there is no model with name 'copied'",
        "Cannot find model with path 'moved' in IndexedDB",
    ]
    assert res["leak"] == 0

    back = webtf_page.evaluate(TFJS_LOADS_JS)  # TF.js reads what webtf saved
    for store in ("indexeddb", "localstorage"):
        np.testing.assert_allclose(back["out"][store], oracle["layers"], rtol=1e-5, atol=1e-6)
    assert back["listed"] == res["listed"]
    assert back["keys"] == [
        f"tensorflowjs_models/webtf-made/{k}"
        for k in ("info", "model_metadata", "model_topology", "weight_data", "weight_specs")
    ]


DENSE = {
    "class_name": "Sequential",
    "config": {"name": "seq", "layers": [{"class_name": "Dense", "config": {
        "name": "d", "units": 2, "activation": "linear", "use_bias": True, "batch_input_shape": [None, 3],
        "dtype": "float32", "trainable": True}}]},
    "keras_version": "tfjs-layers 4.22.0", "backend": "tensor_flow.js",
}  # fmt: skip

SAVE_TO_DOWNLOADS_PY = """
import json
model_json = json.loads(MODEL_JSON)
m = await tf.load_layers_model(tf.io.from_memory(model_json, bytes.fromhex(WEIGHTS)))
result = await m.save("downloads://dl-model")
m.dispose()
result["model_artifacts_info"].weight_data_bytes
"""

FILES_JS = """([jsonText, weightsB64]) => {
  const weights = Uint8Array.from(atob(weightsB64), (c) => c.charCodeAt(0));
  window.webtfFiles = [new File([jsonText], "dl-model.json"), new File([weights], "dl-model.weights.bin")];
}"""

LOAD_FILES_PY = """
import js
before = tf.memory().num_tensors
m = await tf.load_layers_model(tf.io.browser_files(js.webtfFiles))
x = tf.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
y = m.predict(x)
out = y.array_sync()
tf.dispose([x, y]); m.dispose()
{"out": out, "leak": tf.memory().num_tensors - before}
"""

TFJS_FILES_JS = """async () => {
  const m = await tf.loadLayersModel(tf.io.browserFiles(window.webtfFiles));
  const x = tf.tensor2d([[1, 2, 3], [-1, 0.5, 0]]);
  const y = m.predict(x);
  const out = await y.array();
  tf.dispose([x, y]); m.dispose();
  return out;
}"""


def test_downloads_then_browser_files(webtf_page, py):
    kernel = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], np.float32)
    bias = np.array([0.1, -0.2], np.float32)
    weights = kernel.tobytes() + bias.tobytes()
    model_json = {"modelTopology": DENSE, "weightsManifest": [{"paths": [], "weights": [
        {"name": "d/kernel", "shape": [3, 2], "dtype": "float32"},
        {"name": "d/bias", "shape": [2], "dtype": "float32"}]}]}  # fmt: skip
    code = f"MODEL_JSON = {json.dumps(model_json)!r}\nWEIGHTS = {weights.hex()!r}\n" + SAVE_TO_DOWNLOADS_PY
    with webtf_page.expect_download(predicate=lambda d: d.suggested_filename == "dl-model.json") as json_info:
        with webtf_page.expect_download(predicate=lambda d: d.suggested_filename == "dl-model.weights.bin") as bin_info:
            assert py(code) == len(weights)
    saved_json = json.loads(Path(json_info.value.path()).read_text())
    saved_weights = Path(bin_info.value.path()).read_bytes()
    assert saved_weights == weights
    assert saved_json["modelTopology"] == DENSE and saved_json["format"] == "layers-model"
    assert saved_json["weightsManifest"] == [
        {"paths": ["./dl-model.weights.bin"], "weights": model_json["weightsManifest"][0]["weights"]}
    ]

    webtf_page.evaluate(FILES_JS, [json.dumps(saved_json), base64.b64encode(saved_weights).decode()])
    expected = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], np.float32) @ kernel + bias
    res = py(LOAD_FILES_PY)
    np.testing.assert_allclose(res["out"], expected, rtol=1e-6)
    assert res["leak"] == 0
    webtf_page.evaluate("async () => {" + LOAD_TFJS + "}")
    np.testing.assert_allclose(webtf_page.evaluate(TFJS_FILES_JS), expected, rtol=1e-6)


# LoadOptions in the page: TF.js and webtf load the same served model with the same options; the URLs their
# fetch_func saw (with the init it got), on_progress's fractions and the weights loaded must agree.
TFJS_LOAD_OPTIONS_JS = (
    "async () => {"
    + LOAD_TFJS
    + """
  const calls = [], progress = [];
  const fetchFunc = (url, init) => { calls.push([String(url), init.cache]); return fetch(url, init); };
  const m = await tf.loadGraphModel("models/blazeface.json?v=2", { fetchFunc, weightPathPrefix: "models/",
    requestInit: { cache: "no-store" }, onProgress: (f) => progress.push(f) });
  const weights = Object.keys(m.weights).length;
  m.dispose();
  return { calls, progress, weights };
}"""
)

WEBTF_LOAD_OPTIONS_PY = """
import js
before = tf.memory().num_tensors
calls, progress = [], []
def fetch_func(url, init):
    calls.append([str(url), str(init.cache)])
    return js.fetch(url, init)
m = await tf.load_graph_model("models/blazeface.json?v=2", {"fetch_func": fetch_func, "weight_path_prefix": "models/",
    "request_init": {"cache": "no-store"}, "on_progress": progress.append})
weights = len(m.weights)
m.dispose()
progress2 = []
m = await tf.load_graph_model(tf.io.http("models/blazeface.json", {"on_progress": progress2.append,
    "weight_url_converter": lambda p: "models/" + p}))
same = len(m.weights) == weights
m.dispose()
{"calls": calls, "progress": progress, "weights": weights, "progress2": progress2, "same": same,
 "leak": tf.memory().num_tensors - before}
"""


def test_load_options_match_tfjs(webtf_page, py):
    want = webtf_page.evaluate(TFJS_LOAD_OPTIONS_JS)
    got = py(WEBTF_LOAD_OPTIONS_PY)
    assert want["calls"] == [["models/blazeface.json?v=2", "no-store"], ["models/blazeface.bin?v=2", "no-store"]]
    assert got["calls"] == want["calls"]
    assert got["progress"] == want["progress"] == got["progress2"] == [0.5, 1]
    assert got["weights"] == want["weights"] and got["same"]
    assert got["leak"] == 0


# tf.io.http(url).save in the page: TF.js and webtf POST the same small layers model through a capturing
# fetchFunc; the multipart parts (names, file names, types, weight bytes, the weights manifest) must agree.
CAPTURE_POST_JS = """
  const capture = async (url, init) => {
    const parts = [];
    for (const [name, blob] of init.body.entries()) {
      const bytes = new Uint8Array(await blob.arrayBuffer());
      parts.push({ name, file: blob.name, type: blob.type, size: bytes.length, text: name === "model.json"
        ? new TextDecoder().decode(bytes) : btoa(String.fromCharCode(...bytes)) });
    }
    window.webtfPosted.push({ url: String(url), method: init.method, key: init.headers["x-key"], parts });
    return new Response("{}", { status: 200 });
  };
"""

TFJS_HTTP_SAVE_JS = (
    "async () => {"
    + LOAD_TFJS
    + CAPTURE_POST_JS
    + """
  window.webtfPosted = [];
  window.webtfCapture = capture;
  const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [3], units: 2, name: "d" })] });
  model.setWeights([tf.tensor2d([[1, 2], [3, 4], [5, 6]]), tf.tensor1d([0.5, -0.5])]);
  let artifacts;
  await model.save(tf.io.withSaveHandler(async (a) => { artifacts = a; return {}; }));
  window.webtfHttpModel = { json: JSON.stringify({ modelTopology: artifacts.modelTopology, weightsManifest:
    [{ paths: [], weights: artifacts.weightSpecs }] }), weights: new Uint8Array(artifacts.weightData) };
  await model.save(tf.io.http("upload/model", { fetchFunc: capture, requestInit: { headers: { "x-key": "k" } } }));
  model.dispose();
  return window.webtfPosted.pop();
}"""
)

WEBTF_HTTP_SAVE_PY = """
import js, json
spec = js.webtfHttpModel
m = await tf.load_layers_model(tf.io.from_memory(json.loads(str(spec.json)), spec.weights.to_bytes()))
await m.save(tf.io.http("upload/model", {"fetch_func": js.webtfCapture, "request_init": {"headers": {"x-key": "k"}}}))
m.dispose()
"""


def test_http_save_matches_tfjs(webtf_page, py):
    want = webtf_page.evaluate(TFJS_HTTP_SAVE_JS)
    py(WEBTF_HTTP_SAVE_PY)
    got = webtf_page.evaluate("() => window.webtfPosted.pop()")
    assert [p["name"] for p in want["parts"]] == ["model.json", "model.weights.bin"]
    for side in (want, got):  # model.json's other fields (format, generatedBy ...) are each side's own
        model_json = side["parts"][0].pop("text")
        side["parts"][0].pop("size")
        side["manifest"] = json.loads(model_json)["weightsManifest"]
    assert got == want
