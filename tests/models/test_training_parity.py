"""model.fit in the page vs TF.js 4.22's model.fit in the same page (TF.js cpu is the oracle); all but the
first steps of each batch size replay a recorded step (models/step_capture.py).

TF.js builds a small model with fixed initial weights, saves it (the start point), trains it with
shuffle=false on fixed data and reports its loss/metric history and final weights; webtf loads the start
point, compiles the same way, fits the same batches and must reproduce both. Relative error: max |webtf -
tfjs| / max(1, max |tfjs|).
"""

import pytest

from tests.models.test_layers_parity import LOAD_TFJS

BACKENDS = ["cpu", "wasm", "webgl"]
TOLERANCE = {"cpu": 1e-4, "wasm": 1e-4, "webgl": 1e-2}

MODELS_JS = {
    "mlp": """
  const model = tf.sequential({ layers: [
    tf.layers.dense({ inputShape: [6], units: 8, activation: "relu" }),
    tf.layers.dense({ units: 3, activation: "softmax" }),
  ]});
  const xShape = [20, 6], classes = 3;
""",
    "convnet": """
  const model = tf.sequential({ layers: [
    tf.layers.conv2d({ inputShape: [8, 8, 2], filters: 4, kernelSize: 3, activation: "relu" }),
    tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.flatten(),
    tf.layers.dense({ units: 3, activation: "softmax" }),
  ]});
  const xShape = [12, 8, 8, 2], classes = 3;
""",
    "lstm": """
  const model = tf.sequential({ layers: [
    tf.layers.lstm({ inputShape: [5, 3], units: 4 }),
    tf.layers.dense({ units: 3, activation: "softmax" }),
  ]});
  const xShape = [12, 5, 3], classes = 3;
""",
}

FIT_JS = (
    "async ([kind, optimizer, loss, metrics, batchSize, epochs]) => {"
    + LOAD_TFJS
    + """
  const builders = {
"""
    + "".join(
        f"    {k}: () => {{{v}  return {{ model, xShape, classes }};\n    }},\n" for k, v in MODELS_JS.items()
    )
    + """
  };
  const { model, xShape, classes } = builders[kind]();
  model.setWeights(model.weights.map((v, i) => {
    const u = tf.tensor(fill(v.shape, 1000 + i), v.shape);
    const w = u.sub(0.5);
    u.dispose();
    return w;
  }));
  const capture = async (m, opts) => {
    let a;
    await m.save(tf.io.withSaveHandler(async (x) => { a = x; return { modelArtifactsInfo: {} }; }), opts);
    return { topology: JSON.stringify(a.modelTopology), specs: JSON.stringify(a.weightSpecs), weights: a.weightData,
             training: JSON.stringify(a.trainingConfig || null) };
  };
  const start = await capture(model);
  const x = tf.tensor(fill(xShape, 77), xShape).mul(2).sub(1);
  const labels = Array.from(fill([xShape[0]], 5), (v) => Math.floor(v * classes));
  const sparse = loss.toLowerCase().includes("sparse");
  const y = sparse ? tf.tensor(labels, [labels.length, 1]) : tf.oneHot(tf.tensor1d(labels, "int32"), classes).toFloat();
  model.compile({ optimizer, loss, metrics });
  const h = await model.fit(x, y, { batchSize, epochs, shuffle: false, verbose: 0 });
  const finalWeights = await Promise.all(model.getWeights().map((w) => w.data()));
  const trained = await capture(model, { includeOptimizer: true });
  const more = (await model.fit(x, y, { batchSize, epochs: 1, shuffle: false, verbose: 0 })).history;
  window.webtfFitParity = {
    start, trained, x: await x.data(), xShape, y: await y.data(), yShape: y.shape,
    finalWeights,
  };
  const result = { history: h.history, epoch: h.epoch, more };
  tf.dispose([x, y]);
  model.dispose();
  return result;
}"""
)

FIT_PY = """
import js, json, math
from array import array
from webtf.models.layers import load_layers_model
from webtf.models.io.weights import weight_specs_json
from webtf.models.capture import STATS

def rel(got, ref):
    scale = max(1.0, max((abs(v) for v in ref), default=1.0))
    return max((abs(a - b) for a, b in zip(got, ref)), default=0.0) / scale if len(got) == len(ref) else math.inf

ok = await tf.set_backend(BACKEND)
assert ok, "backend " + BACKEND + " did not start"
before = tf.memory().num_tensors
p = js.webtfFitParity
s = p.start
model_json = {"modelTopology": json.loads(s.topology),
              "weightsManifest": [{"paths": [], "weights": json.loads(s.specs)}]}
model = await load_layers_model(tf.io.from_memory(model_json, s.weights.to_bytes()))
x = tf.tensor(array("f", p.x.to_py()), list(p.xShape.to_py()))
y = tf.tensor(array("f", p.y.to_py()), list(p.yShape.to_py()))
model.compile(OPTIMIZER, LOSS, METRICS)
counts = []
class Count(tf.callbacks.Callback):
    async def on_epoch_end(self, epoch, logs=None):
        counts.append(tf.memory().num_tensors)
replayed = STATS["replayed"]
h = await model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0, callbacks=[Count()])
replayed = STATS["replayed"] - replayed
weight_errors = [rel(w.data_sync().tolist(), ref.to_py().tolist())
                 for w, ref in zip(model.get_weights(), p.finalWeights)]
# a model TF.js trained (with its optimizer state) loads, predicts as ours and continues training
t = p.trained
tjson = {"modelTopology": json.loads(t.topology), "weightsManifest": [{"paths": [], "weights": json.loads(t.specs)}],
         "trainingConfig": json.loads(t.training)}
loaded = await load_layers_model(tf.io.from_memory(tjson, t.weights.to_bytes()))
a, b = model.predict(x), loaded.predict(x)
predict_error = rel(a.data_sync().tolist(), b.data_sync().tolist())
more = await loaded.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
# and ours, saved with its optimizer, for TF.js to load, predict and continue training
saved = []
await model.save(tf.io.with_save_handler(saved.append), include_optimizer=True)
mine = {"topology": json.dumps(saved[0].model_topology), "training": json.dumps(saved[0].training_config),
        "specs": json.dumps(weight_specs_json(saved[0].weight_specs)),
        "weights": list(saved[0].weight_data), "pred": a.data_sync().tolist()}
mine_more = (await model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)).history
tf.dispose([a, b])
loaded.dispose()
tf.dispose([x, y]); model.dispose()
{"history": h.history, "epoch": h.epoch, "weight_errors": weight_errors, "counts": counts,
 "predict_error": predict_error, "more": more.history, "mine": mine, "mine_more": mine_more,
 "leak": tf.memory().num_tensors - before, "replayed": replayed}
"""

LOAD_OURS_JS = """async ([mine, batchSize]) => {
  const p = window.webtfFitParity;
  const model = await tf.loadLayersModel(tf.io.fromMemory({
    modelTopology: JSON.parse(mine.topology), weightSpecs: JSON.parse(mine.specs),
    weightData: new Uint8Array(mine.weights).buffer, trainingConfig: JSON.parse(mine.training) }));
  const x = tf.tensor(p.x, p.xShape), y = tf.tensor(p.y, p.yShape);
  const pred = await model.predict(x).data();
  let err = 0;
  mine.pred.forEach((v, i) => { err = Math.max(err, Math.abs(v - pred[i])); });
  const more = (await model.fit(x, y, { batchSize, epochs: 1, shuffle: false, verbose: 0 })).history;
  tf.dispose([x, y]);
  model.dispose();
  return { err, more };
}"""

CASES = {
    "mlp-sgd-cce": ("mlp", "sgd", "categoricalCrossentropy", ["accuracy"], 8, 3),
    "mlp-adam-sparse": ("mlp", "adam", "sparseCategoricalCrossentropy", ["accuracy"], 6, 3),
    "mlp-rmsprop-mse": ("mlp", "rmsprop", "meanSquaredError", ["mse"], 7, 2),
    "convnet-adam-cce": ("convnet", "adam", "categoricalCrossentropy", ["accuracy"], 5, 2),
    "lstm-adam-cce": ("lstm", "adam", "categoricalCrossentropy", ["accuracy"], 5, 2),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_fit_matches_tfjs(webtf_page, py, case, backend):
    kind, optimizer, loss, metrics, batch, epochs = CASES[case]
    oracle = webtf_page.evaluate(FIT_JS, [kind, optimizer, loss, metrics, batch, epochs])
    header = (
        f"BACKEND = {backend!r}\nOPTIMIZER = {optimizer!r}\nLOSS = {loss!r}\nMETRICS = {metrics!r}\n"
        f"BATCH = {batch}\nEPOCHS = {epochs}\n"
    )
    res = py(header + FIT_PY)
    tol = TOLERANCE[backend]
    assert res["epoch"] == oracle["epoch"] == list(range(epochs))
    assert sorted(res["history"]) == sorted(oracle["history"])
    for key, ref in oracle["history"].items():
        got = res["history"][key]
        err = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(got, ref, strict=True))
        assert err <= tol, (key, got, ref)
    assert max(res["weight_errors"]) <= tol, res["weight_errors"]
    assert res["predict_error"] <= tol
    # TF.js's trained model, loaded with its optimizer state, continues training as TF.js does
    for key, ref in oracle["more"].items():
        assert abs(res["more"][key][0] - ref[0]) / max(1.0, abs(ref[0])) <= tol, (
            key,
            res["more"],
            oracle["more"],
        )
    # ours, saved with its optimizer, loads in TF.js: same predictions, and the next epoch matches ours
    theirs = webtf_page.evaluate(LOAD_OURS_JS, [res["mine"], batch])
    assert theirs["err"] <= tol
    for key, ref in res["mine_more"].items():
        assert abs(theirs["more"][key][0] - ref[0]) / max(1.0, abs(ref[0])) <= tol, (
            key,
            theirs,
            res["mine_more"],
        )
    # steps after the optimizer's first replay a recording per batch size (models/step_capture.py)
    steps, last = divmod(20 if kind == "mlp" else 12, batch)
    assert res["replayed"] == (steps + (last > 0)) * epochs - 1 - 1 - (last > 0), res["replayed"]
    assert len(set(res["counts"])) == 1, f"tensors grew across epochs: {res['counts']}"
    assert res["leak"] == 0
