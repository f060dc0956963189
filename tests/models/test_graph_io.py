"""Host tests: graph model loading (files, memory), execution vs numpy, and clean failures on bad files."""


import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models import synth
from webtf.models.graph.model import TensorSpec


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


@pytest.fixture
def conv(tmp_path):
    model, data, w = synth.conv_model(np.random.default_rng(0))
    return tmp_path, model, data, w


def load(path):
    return run_sync(tf.load_graph_model(str(path)))


def test_load_and_execute_matches_numpy(conv):
    tmp, model, data, w = conv
    m = load(synth.write(tmp / "m", model, data))
    assert m.input_nodes == ["input"] and m.output_nodes == ["out"]
    assert m.inputs[0].shape == [-1, 8, 8, 3]
    x = np.random.default_rng(1).standard_normal((2, 8, 8, 3)).astype(np.float32)
    n_before = tf.memory().num_tensors
    xt = tf.tensor(x)
    y = m.predict(xt)
    assert tf.memory().num_tensors == n_before + 2  # the input and the output: no intermediates left
    np.testing.assert_allclose(np.array(y.array_sync()), synth.conv_reference(x, w), rtol=1e-4, atol=1e-5)
    mid = m.execute({"input": xt}, ["conv", "flat"])
    assert [t.shape for t in mid] == [(2, 4, 4, 4), (2, 64)]
    tf.dispose([xt, y, mid])
    m.dispose()


def test_from_memory_and_errors_on_inputs(conv):
    tmp, model, data, w = conv
    m = run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))
    bad = tf.zeros([1, 4, 4, 3])
    with pytest.raises(
        ValueError, match=r"The shape of input 'input' must be \[-1,8,8,3\], but was \[1,4,4,3\]"
    ):
        m.predict(bad)
    with pytest.raises(ValueError, match="has no input named 'nope'"):
        m.execute({"nope": bad})
    good = tf.zeros([1, 8, 8, 3])
    with pytest.raises(ValueError, match="no node named 'zzz'"):
        m.execute({"input": good}, "zzz")
    tf.dispose([bad, good])
    m.dispose()
    assert all(t.is_disposed for t in m.weights.values())


def test_missing_shard(conv):
    tmp, model, data, w = conv
    path = synth.write(tmp / "m", model, data)
    (tmp / "m" / "weights.bin").unlink()
    with pytest.raises(OSError, match=r"weight shard .*weights.bin: file not found"):
        load(path)


def test_truncated_shard_and_extra_bytes(conv):
    tmp, model, data, w = conv
    with pytest.raises(ValueError, match="truncated or missing shard"):
        load(synth.write(tmp / "a", model, data[:-10]))
    with pytest.raises(ValueError, match="hold 460 bytes but the manifest describes 456"):
        load(synth.write(tmp / "b", model, data + b"\0" * 4))


def test_unknown_dtype_and_malformed_json(conv):
    tmp, model, data, w = conv
    model["weightsManifest"][0]["weights"][0]["dtype"] = "float64"
    with pytest.raises(ValueError, match="unsupported dtype 'float64'"):
        load(synth.write(tmp / "a", model, data))
    (tmp / "b").mkdir()
    (tmp / "b" / "model.json").write_text("{not json")
    with pytest.raises(ValueError, match="model.json is not valid JSON"):
        load(tmp / "b" / "model.json")


def test_unsupported_op_named_at_load(conv):
    tmp, model, data, w = conv
    model["modelTopology"]["node"][-1]["op"] = "FancyNewOp"
    with pytest.raises(ValueError, match=r"'FancyNewOp' \(node 'out'\)"):
        load(synth.write(tmp / "a", model, data))


def test_quantized_weights_dequantize(tmp_path):
    vals = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    q8 = np.array([0, 128, 255, 7], np.uint8)
    model = {
        "modelTopology": {"node": [
            {"name": "h", "op": "Const"}, {"name": "q", "op": "Const"},
            {"name": "out", "op": "AddV2", "input": ["h", "q"]},
        ]},
        "weightsManifest": [{"paths": ["weights.bin"], "weights": [
            {"name": "h", "shape": [2, 2], "dtype": "float32", "quantization": {"dtype": "float16"}},
            {"name": "q", "shape": [2, 2], "dtype": "float32",
             "quantization": {"dtype": "uint8", "scale": 0.5, "min": -1.0}},
        ]}],
    }  # fmt: skip
    m = load(synth.write(tmp_path, model, vals.astype(np.float16).tobytes() + q8.tobytes()))
    y = m.execute({})
    np.testing.assert_allclose(np.array(y.array_sync()), vals + (q8.reshape(2, 2) * 0.5 - 1.0), rtol=1e-6)
    y.dispose()
    m.dispose()


def _values(ts):
    return [np.array(t.array_sync()) for t in ts]


def test_signature_from_metadata_names_and_orders_outputs():
    model, data = synth.signature_model()
    m = run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))
    # the metadata's signature wins; outputs in JavaScript's key order, each named by its key
    assert m.model_signature == model["userDefinedMetadata"]["signature"]
    assert m.metadata == model["userDefinedMetadata"]
    assert m.input_nodes == ["image"] and m.output_nodes == ["0", "also", "scores"]
    assert m.inputs == [TensorSpec("x", [-1, 2], "float32")]
    assert [s.name for s in m.outputs] == ["Identity_1", "Identity", "Identity_2"]
    x = tf.tensor([[1.0, 2.0]])
    xv = np.array([[1.0, 2.0]])
    for feed in (x, [x], {"image": x}, {"x": x}, {"x:0": x}):
        out = m.execute(feed)
        np.testing.assert_array_equal(np.stack(_values(out)), [xv + 2, xv + 1, xv + 3])
        tf.dispose(out)
    out = run_sync(m.execute_async(x))
    np.testing.assert_array_equal(np.stack(_values(out)), [xv + 2, xv + 1, xv + 3])
    tf.dispose(out)
    # asked outputs (signature keys, node names, tensor names) come back in the order asked
    out = m.execute({"image": x}, ["scores", "Identity_1:0", "also", "Identity"])
    np.testing.assert_array_equal(np.stack(_values(out)), [xv + 3, xv + 2, xv + 1, xv + 1])
    tf.dispose(out)
    with pytest.raises(ValueError, match=r"no node named 'nope' to output; its outputs are \['0', 'also'"):
        m.execute(x, "nope")
    tf.dispose(x)
    m.dispose()


def test_predict_names_outputs_by_structured_output_keys():
    model, data = synth.signature_model()
    model["userDefinedMetadata"]["structuredOutputKeys"] = ["b", "a", "c"]
    m = run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))
    x = tf.tensor([[1.0, 2.0]])
    out = m.predict(x)
    assert list(out) == ["b", "a", "c"]
    np.testing.assert_array_equal(np.stack(_values(out.values())), [[[3.0, 4.0]], [[2.0, 3.0]], [[4.0, 5.0]]])
    tf.dispose([x, *out.values()])
    m.dispose()


def test_without_signature_outputs_are_the_unconsumed_nodes():
    model, data = synth.signature_model(signed=False)
    m = run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))
    assert m.model_signature is None and m.metadata is None
    assert m.input_nodes == ["x"]
    # as TF.js: any node nothing consumes (a control input counts), integer-like names first
    assert m.output_nodes == ["7", "spare", "Identity", "Identity_1", "guard"]
    x = tf.tensor([[1.0, 2.0]])
    out = m.execute(x, ["Identity_1", "7"])
    np.testing.assert_array_equal(np.stack(_values(out)), [[[3.0, 4.0]], [[4.0, 5.0]]])
    tf.dispose([x, *out])
    m.dispose()
