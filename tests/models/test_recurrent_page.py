"""Recurrent models made with TF.js 4.22's tf.layers API, saved, loaded by webtf in the page; TF.js is the oracle."""

import pytest

from tests.models import test_layers_parity as parity

MODELS_JS = {
    "lstm_gru": """
  const model = tf.sequential({ layers: [
    tf.layers.lstm({ units: 4, returnSequences: true, inputShape: [5, 3] }),
    tf.layers.gru({ units: 3, returnSequences: true, goBackwards: true }),
    tf.layers.simpleRNN({ units: 2 }),
  ]});
  const inputs = [[2, 5, 3]];
""",
    "wrappers_masking": """
  const model = tf.sequential({ layers: [
    tf.layers.reLU({ inputShape: [6, 2] }),
    tf.layers.masking({ maskValue: 0 }),
    tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 3, returnSequences: true }), mergeMode: "ave" }),
    tf.layers.timeDistributed({ layer: tf.layers.dense({ units: 2, activation: "tanh" }) }),
    tf.layers.bidirectional({ layer: tf.layers.gru({ units: 2 }) }),
  ]});
  const inputs = [[4, 6, 2]];
""",
}

SMALL_JS = parity.SMALL_JS.replace(
    "".join(f"    {k}: () => {{{v}  return {{ model, inputs }};\n    }},\n" for k, v in parity.MODELS_JS.items()),
    "".join(f"    {k}: () => {{{v}  return {{ model, inputs }};\n    }},\n" for k, v in MODELS_JS.items()),
)


@pytest.mark.parametrize("backend", parity.BACKENDS)
@pytest.mark.parametrize("kind", sorted(MODELS_JS))
def test_tfjs_made_recurrent_model_matches_tfjs(webtf_page, py, kind, backend):
    oracle = webtf_page.evaluate(SMALL_JS, kind)
    res = py(f"BACKEND = {backend!r}\n" + parity.SMALL_PY)
    assert res["shapes"] == oracle["shapes"]
    assert max(res["errors"]) <= parity.TOLERANCE[backend], res["errors"]
    assert res["extra_after_predict"] == 0, "intermediates left alive after predict"
    assert res["leak"] == 0
