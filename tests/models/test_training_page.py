"""Models built and trained in webtf in the page, saved to indexeddb:// with their optimizer, load in TF.js 4.22
(tf.loadLayersModel from the same IndexedDB store), predict as webtf does and continue training as webtf does.

Three models in one page call: a functional model with a nested Sequential (and sample weights in fit), a
Sequential LSTM with unit_forget_bias, and a two-output model (per-output losses logged as TF.js does). TF.js runs
on its cpu backend; webtf on each backend.
"""

from __future__ import annotations

import pytest

from tests.helpers import LOAD_TFJS_JS

TOLERANCE = {"cpu": 1e-4, "wasm": 1e-4, "webgl": 1e-2}

BUILD_PY = """
import math
from webtf import layers
ok = await tf.set_backend(BACKEND)
assert ok, BACKEND
before = tf.memory().num_tensors

glorot = tf.initializers.glorot_uniform

def data(shape, seed):
    n = math.prod(shape)
    return tf.tensor([math.sin(seed + 0.7 * i) for i in range(n)], shape)

def nested():
    inner = tf.sequential(name="inner_seq", layers=[tf.layers.dense(units=8, activation="relu", input_shape=[6],
                                                                     kernel_initializer=glorot(seed=1))])
    inp = tf.input(shape=[6], name="in_a")
    out = tf.layers.dense(units=3, activation="softmax", name="head_a",
                          kernel_initializer=glorot(seed=2)).apply(inner.apply(inp))
    return tf.model(inputs=inp, outputs=out, name="nested_a"), [16, 6]

def recurrent():
    return tf.sequential(name="lstm_b", layers=[
        tf.layers.lstm(units=4, input_shape=[5, 3], unit_forget_bias=True,
                       kernel_initializer=glorot(seed=3),
                       recurrent_initializer=tf.initializers.orthogonal(seed=4)),
        tf.layers.dense(units=3, activation="softmax", kernel_initializer=glorot(seed=5)),
    ]), [12, 5, 3]

def seq_in_seq():
    inner = tf.sequential(name="inner_seq2", layers=[tf.layers.dense(units=4, activation="relu", input_shape=[6],
                                                                     kernel_initializer=glorot(seed=9))])
    outer = tf.sequential(name="outer_seq")
    outer.add(inner)
    outer.add(tf.layers.dense(units=3, activation="softmax", kernel_initializer=glorot(seed=10)))
    return outer, [8, 6]

def two_heads():
    inp = tf.input(shape=[6], name="in_c")
    hidden = tf.layers.dense(units=5, activation="tanh", kernel_initializer=glorot(seed=6)).apply(inp)
    cls = tf.layers.dense(units=3, activation="softmax", name="cls",
                          kernel_initializer=glorot(seed=7)).apply(hidden)
    reg = tf.layers.dense(units=1, name="reg", kernel_initializer=glorot(seed=8)).apply(hidden)
    return tf.model(inputs=inp, outputs=[cls, reg], name="heads_c"), [16, 6]

out = {}
for key, make in (("nested", nested), ("lstm", recurrent), ("heads", two_heads), ("seqnest", seq_in_seq)):
    model, shape = make()
    x = data(shape, 1.0)
    labels = tf.tensor([i % 3 for i in range(shape[0])], None, "int32")
    y = tf.one_hot(labels, 3)
    ys = [y, data([shape[0], 1], 2.0)] if key == "heads" else [y]
    sw = tf.tensor([1.0 + (i % 4) * 0.25 for i in range(shape[0])]) if key == "nested" else None
    opt = tf.train.adam(0.01, 0.9, 0.999, 1e-7)
    loss = ["categoricalCrossentropy", "meanSquaredError"] if key == "heads" else "categoricalCrossentropy"
    model.compile(opt, loss, ["accuracy"] if key != "heads" else None)
    target = ys if key == "heads" else y
    h = await model.fit(x, target, batch_size=4, epochs=2, shuffle=False, verbose=0, sample_weight=sw)
    await model.save("indexeddb://webtf-built-" + key, include_optimizer=True)
    preds = model.predict(x)
    preds = preds if isinstance(preds, list) else [preds]
    more = await model.fit(x, target, batch_size=4, epochs=1, shuffle=False, verbose=0)
    out[key] = {"x": x.data_sync().tolist(), "shape": shape, "ys": [t.data_sync().tolist() for t in ys],
                "history": h.history, "pred": [v for p in preds for v in p.data_sync().tolist()],
                "more": {k: v[0] for k, v in more.history.items()}}
    tf.dispose([x, labels] + ys + preds + ([sw] if sw is not None else []))
    model.dispose()
    opt.dispose()
out["leak"] = tf.memory().num_tensors - before
out
"""

TFJS_LOADS_JS = (
    "async (mine) => {"
    + LOAD_TFJS_JS
    + """
  await tf.setBackend("cpu");
  const result = {};
  for (const key of ["nested", "lstm", "heads", "seqnest"]) {
    const m = mine[key];
    const model = await tf.loadLayersModel("indexeddb://webtf-built-" + key);
    const x = tf.tensor(m.x, m.shape);
    const ys = m.ys.map((v) => tf.tensor(v, [m.shape[0], v.length / m.shape[0]]));
    const outs = [model.predict(x)].flat();
    const pred = (await Promise.all(outs.map((t) => t.data()))).flatMap((d) => Array.from(d));
    let err = pred.length === m.pred.length ? 0 : Infinity;
    m.pred.forEach((v, i) => { err = Math.max(err, Math.abs(v - pred[i])); });
    const h = await model.fit(x, ys.length > 1 ? ys : ys[0], { batchSize: 4, epochs: 1, shuffle: false, verbose: 0 });
    const more = Object.fromEntries(Object.entries(h.history).map(([k, v]) => [k, v[0]]));
    result[key] = { err, more, layers: model.layers.map((l) => l.getClassName()),
                    iterations: model.optimizer.iterations };
    tf.dispose([x, ...ys, ...outs]);
    model.dispose();
    await tf.io.removeModel("indexeddb://webtf-built-" + key);
  }
  return result;
}"""
)


@pytest.mark.parametrize("backend", ["cpu", "webgl"])
def test_webtf_built_model_loads_and_trains_in_tfjs(webtf_page, py, backend):
    mine = py(f"BACKEND = {backend!r}\n" + BUILD_PY)
    assert mine.pop("leak") == 0
    theirs = webtf_page.evaluate(TFJS_LOADS_JS, mine)
    tol = TOLERANCE[backend]
    assert theirs["nested"]["layers"] == ["InputLayer", "Sequential", "Dense"]
    assert theirs["lstm"]["layers"] == ["LSTM", "Dense"]
    # several outputs: TF.js logs each output's loss as '<output>_loss', and so does webtf
    assert (
        sorted(theirs["heads"]["more"]) == sorted(mine["heads"]["more"]) == ["cls_loss", "loss", "reg_loss"]
    )
    assert theirs["seqnest"]["layers"] == ["Sequential", "Dense"]
    for key in ("nested", "lstm", "heads", "seqnest"):
        assert mine[key]["history"]["loss"][1] < mine[key]["history"]["loss"][0]
        assert theirs[key]["err"] <= tol, (key, theirs[key])
        # TF.js continues from webtf's weights and Adam state: its next epoch's losses are webtf's
        for name, ref in mine[key]["more"].items():
            assert abs(theirs[key]["more"][name] - ref) <= tol * max(1.0, abs(ref)), (
                key,
                theirs[key],
                mine[key],
            )
        # the optimizer's step count came along: 2 saved epochs + the one TF.js ran
        assert theirs[key]["iterations"] == 3 * (mine[key]["shape"][0] // 4), theirs[key]
