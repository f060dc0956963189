"""Coverage of the public methods and properties of TF.js 4.22's classes: GraphModel, LayersModel, Sequential,
Layer, Optimizer (SGD), TensorBuffer, Variable and Tensor.

TF.js's names are read from the vendored tf.min.js in a bare page (one load): for each class, an instance's own
property names plus the names on its prototype chain (up to Object.prototype). Names starting with `_` are
TF.js-private by convention and skipped. webtf's side: the same kind of object made on the host, where each
name must exist as its snake_case attribute. ALLOW lists what cannot apply (why beside each); a listed name that
webtf has, or that TF.js lacks, fails too.
"""

from __future__ import annotations

from typing import Any

from tests.ops.test_coverage import snake

TFJS_CLASS_NAMES_JS = """async ([base, graph]) => {
  await new Promise((ok, fail) => {
    const s = document.createElement("script");
    s.src = base + "vendor/tfjs/tf.min.js"; s.onload = ok; s.onerror = () => fail(new Error("no tf.min.js"));
    document.head.appendChild(s);
  });
  const names = (obj, from) => {
    const out = new Set(Object.getOwnPropertyNames(obj));
    for (let p = from; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      for (const k of Object.getOwnPropertyNames(p)) out.add(k);
    }
    out.delete("constructor");
    return [...out].filter((k) => !k.startsWith("_"));
  };
  const of = (obj) => names(obj, Object.getPrototypeOf(obj));
  const gm = await tf.loadGraphModel(tf.io.fromMemory({ modelTopology: graph, weightSpecs: [],
                                                         weightData: new ArrayBuffer(0) }));
  const inp = tf.input({ shape: [2] });
  const lm = tf.model({ inputs: inp, outputs: tf.layers.dense({ units: 1 }).apply(inp) });
  const seq = tf.sequential({ layers: [tf.layers.dense({ units: 1, inputShape: [2] })] });
  const LayerClass = Object.getPrototypeOf(Object.getPrototypeOf(tf.layers.dense({ units: 1 }))).constructor;
  const layer = new LayerClass({ name: "layer" });
  const opt = tf.train.sgd(0.1);
  const x = tf.zeros([1]);
  const v = tf.variable(tf.zeros([1]));
  const out = {
    GraphModel: of(gm), LayersModel: of(lm), Sequential: of(seq), Layer: of(layer), Optimizer: of(opt),
    TensorBuffer: of(tf.buffer([1])), Variable: of(v), Tensor: of(x),
  };
  gm.dispose(); lm.dispose(); seq.dispose(); v.dispose(); x.dispose(); opt.dispose();
  return out;
}"""

#: a graph of one Placeholder and an Identity, for both sides' GraphModel
GRAPH = {
    "node": [
        {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}}},
        {"name": "y", "op": "Identity", "input": ["x"]},
    ],
    "versions": {"producer": 1395},
}


def test_dump(browser, server):
    page = browser.new_page()
    try:
        page.goto(server + "vendor/tfjs/")
        names = page.evaluate(TFJS_CLASS_NAMES_JS, [server, GRAPH])
    finally:
        page.close()
    import json
    print("DUMP", json.dumps(names))
    assert snake
    _: Any = None
