"""Host tests: corrupted graph model files fail at load with an error naming what is wrong, and leak nothing.

Each named corruption expects its error; a sweep of generated corruptions (keys removed, values replaced by
the wrong kind, the file cut short) accepts only a clean load or ValueError / OSError / TypeError.
"""

import copy
import json
import re

import numpy as np
import pytest

import webtf as tf
from tests.models import synth
from tests.models.test_graph_io import _no_leaks, load  # noqa: F401  (_no_leaks: autouse, checks every test)


@pytest.fixture
def conv():
    model, data, _ = synth.conv_model(np.random.default_rng(0))
    return model, data


def _weights(model):
    return model["weightsManifest"][0]["weights"]


def _const(model, name):
    return next(n for n in model["modelTopology"]["node"] if n["name"] == name)


def _declare_shape(node, shape):
    node["attr"]["value"] = {
        "tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": str(d)} for d in shape]}}
    }


CASES = {
    "model.json is a list": (
        lambda m: [m],
        ValueError,
        "model.json must hold a JSON object, but holds a list",
    ),
    "weight without a name": (lambda m: _weights(m)[0].pop("name"), ValueError, "entry 0.0 has no name"),
    "null shape": (
        lambda m: _weights(m)[0].update(shape=None),
        ValueError,
        "weight 'conv/filter' must have a shape that is a list of integers, but has None",
    ),
    "negative dim": (
        lambda m: _weights(m)[0].update(shape=[3, -3, 3, 4]),
        ValueError,
        "weight 'conv/filter' has shape [3,-3,3,4]: dims must not be negative",
    ),
    "float dim": (lambda m: _weights(m)[1].update(shape=[4.5]), ValueError, "'conv/bias' must have a shape"),
    "group not an object": (lambda m: m.update(weightsManifest=[3]), ValueError, "group 0 must be an object"),
    "paths not strings": (
        lambda m: m["weightsManifest"][0].update(paths=[1]),
        ValueError,
        "group 0 must have 'paths' that is a list of strings",
    ),
    "unknown quantization": (
        lambda m: _weights(m)[0].update(quantization={"dtype": "int4"}),
        ValueError,
        "Weight 'conv/filter' has unknown quantization",
    ),
    "uint8 without scale": (
        lambda m: _weights(m)[0].update(quantization={"dtype": "uint8"}),
        ValueError,
        "quantized with uint8 but has no numeric scale and min",
    ),
    "float16 of int32": (
        lambda m: _weights(m)[2].update(quantization={"dtype": "float16"}),
        ValueError,
        "'flat/shape' is quantized with float16, which only holds float32, not int32",
    ),
    "manifest dtype contradicts the graph": (
        lambda m: _const(m, "conv/bias")["attr"].update(dtype={"type": "DT_INT32"}),
        ValueError,
        "Weight 'conv/bias' has dtype float32 and shape [4] in the weights manifest, but its Const node in the "
        "graph declares dtype int32",
    ),
    "manifest shape contradicts the graph": (
        lambda m: _declare_shape(_const(m, "conv/filter"), [3, 3, 4, 3]),
        ValueError,
        "declares dtype float32 and shape [3,3,4,3]",
    ),
    "node without an op": (
        lambda m: m["modelTopology"]["node"][1].pop("op"),
        ValueError,
        "node 1 must be an object",
    ),
    "node inputs not a list": (
        lambda m: m["modelTopology"]["node"][4].update(input="input"),
        ValueError,
        "node 'conv' must have 'input' that is a list of strings",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_named_corruption_fails_at_load_naming_it(tmp_path, conv, case):
    model, data = copy.deepcopy(conv[0]), conv[1]
    corrupt, cls, message = CASES[case]
    changed = corrupt(model)
    if isinstance(changed, list):
        model = changed
    (tmp_path / "weights.bin").write_bytes(data)
    (tmp_path / "model.json").write_text(json.dumps(model))
    with pytest.raises(cls, match=re.escape(message)):
        load(tmp_path / "model.json")


def _mutations(model):
    """(where, mutated model) for every key of every manifest entry and node removed or given a wrong value."""
    bad_values = [None, -1, "x", [], {}, [None], 1.5]
    entries = [("weight", i, w) for i, w in enumerate(_weights(model))]
    entries += [("node", i, n) for i, n in enumerate(model["modelTopology"]["node"])]
    for kind, i, entry in entries:
        for key in list(entry):
            for value in [...] + bad_values:
                mutated = copy.deepcopy(model)
                target = _weights(mutated)[i] if kind == "weight" else mutated["modelTopology"]["node"][i]
                if value is ...:
                    del target[key]
                else:
                    target[key] = value
                yield f"{kind} {i} {key}={value!r}", mutated


def test_generated_corruptions_fail_cleanly_or_load(tmp_path, conv):
    model, data = conv
    (tmp_path / "weights.bin").write_bytes(data)
    cases = list(_mutations(model))
    text = json.dumps(model)
    cases += [(f"cut at {k}", text[:k]) for k in range(0, len(text), max(1, len(text) // 20))]
    cases += [("deep json", "[" * 100000), ("no topology", json.dumps({"weightsManifest": []}))]
    loaded = 0
    for where, mutated in cases:
        (tmp_path / "model.json").write_text(mutated if isinstance(mutated, str) else json.dumps(mutated))
        try:
            m = load(tmp_path / "model.json")
        except (ValueError, OSError, TypeError) as e:
            assert str(e), where
            continue
        loaded += 1
        x = tf.zeros([1, 8, 8, 3])
        try:
            tf.dispose(m.predict(x))
        except (ValueError, TypeError, NotImplementedError) as e:  # a graph that loads may still not run
            message = "\n".join([str(e), *getattr(e, "__notes__", ())])
            assert "node" in message or "input" in message, (where, e)
        finally:
            x.dispose()
            m.dispose()
    assert len(cases) > 150 and loaded < len(cases)
