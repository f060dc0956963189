"""Host tests: tf.io helpers (CompositeArrayBuffer, weight specs, model.json -> artifacts, weight loaders,
streams, sync memory / save handlers, tf.io.http), load_graph_model_sync, register_callback_constructor and
InputSpec, against hand-built bytes and JSON."""

import json

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models import synth
from webtf.models.layers import callbacks as cb_module


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


A = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
B = np.array([7, -8, 9], dtype=np.int32)
C = np.array([[1.5]], dtype=np.float32)
MANIFEST = [
    {"paths": ["g0a.bin", "g0b.bin"], "weights": [
        {"name": "a", "shape": [2, 3], "dtype": "float32"}, {"name": "b", "shape": [3], "dtype": "int32"}]},
    {"paths": ["g1.bin"], "weights": [{"name": "c", "shape": [1, 1], "dtype": "float32"}]},
]  # fmt: skip
GROUP0 = A.tobytes() + B.tobytes()
SHARDS = {"g0a.bin": GROUP0[:10], "g0b.bin": GROUP0[10:], "g1.bin": C.tobytes()}


def _arrays(tensors):
    out = {k: np.array(t.array_sync()) for k, t in tensors.items()}
    tf.dispose(list(tensors.values()))
    return out


def test_composite_array_buffer_slices_across_shards():
    parts = [b"abc", b"", b"defg", b"h"]
    whole = b"".join(parts)
    c = tf.io.CompositeArrayBuffer(parts)
    assert c.byte_length == 8
    for start, end in [(0, 8), (1, 5), (3, 7), (2, 3), (7, 8), (5, 5), (6, 100), (-3, None)]:
        assert c.slice(start, end) == whole[start:end], (start, end)
    assert tf.io.CompositeArrayBuffer.join(parts) == whole == tf.io.concatenate_array_buffers(parts)
    assert tf.io.concatenate_array_buffers(b"xy") == b"xy" and tf.io.CompositeArrayBuffer().byte_length == 0
    with pytest.raises(TypeError, match=r"CompositeArrayBuffer: buffers\[1\] must be bytes.*got int"):
        tf.io.CompositeArrayBuffer([b"a", 3])


def test_weight_specs_and_artifacts_for_json():
    specs = tf.io.get_weight_specs(MANIFEST)
    assert [(s.name, s.shape, s.dtype) for s in specs] == [("a", (2, 3), "float32"), ("b", (3,), "int32"),
                                                           ("c", (1, 1), "float32")]  # fmt: skip
    model_json = {"modelTopology": {"node": []}, "format": "graph-model", "generatedBy": "2.x",
                  "convertedBy": "conv", "weightsManifest": MANIFEST, "userDefinedMetadata": {"k": 1}}  # fmt: skip
    data = [GROUP0, C.tobytes()]
    art = tf.io.get_model_artifacts_for_json_sync(model_json, specs, data)
    assert art.model_topology == {"node": []} and art.format == "graph-model" and art.generated_by == "2.x"
    assert art.converted_by == "conv" and art.user_defined_metadata == {"k": 1}
    assert art.weight_specs == specs and art.weight_data == GROUP0 + C.tobytes()

    async def loader(manifest):
        assert manifest is MANIFEST
        return tf.io.get_weight_specs(manifest), data

    art2 = run_sync(tf.io.get_model_artifacts_for_json(model_json, loader))
    assert art2.weight_data == art.weight_data and art2.weight_specs == specs
    info = tf.io.get_model_artifacts_info_for_json(art)
    assert info.model_topology_type == "JSON" and info.model_topology_bytes == len('{"node":[]}')
    assert info.weight_data_bytes == 40  # 6 + 3 + 1 four-byte values
    entries = MANIFEST[0]["weights"] + MANIFEST[1]["weights"]
    assert info.weight_specs_bytes == len(json.dumps(entries, separators=(",", ":")))  # JSON.stringify's length
    with pytest.raises(ValueError, match="get_model_artifacts_for_json_sync: .*weight_specs is None"):
        tf.io.get_model_artifacts_for_json_sync(model_json)
    with pytest.raises(ValueError, match="get_model_artifacts_for_json_sync: .*weight_data is None"):
        tf.io.get_model_artifacts_for_json_sync(model_json, specs)
    with pytest.raises(ValueError, match=r"get_weight_specs\(weights_manifest\): weightsManifest weight 'x'"):
        tf.io.get_weight_specs([{"paths": [], "weights": [{"name": "x", "shape": "2", "dtype": "float32"}]}])


def test_weights_loader_factory_fetches_needed_groups_only():
    fetched = []

    def fetch(urls):
        fetched.append(list(urls))
        return [SHARDS[u.removeprefix("pre/")] for u in urls]

    load = tf.io.weights_loader_factory(fetch)
    got = _arrays(run_sync(load(MANIFEST, "pre/")))
    assert fetched == [["pre/g0a.bin", "pre/g0b.bin", "pre/g1.bin"]]
    np.testing.assert_array_equal(got["a"], A)
    np.testing.assert_array_equal(got["b"], B)
    np.testing.assert_array_equal(got["c"], C)
    got = _arrays(run_sync(load(MANIFEST, "pre/", ["b"])))
    assert fetched[-1] == ["pre/g0a.bin", "pre/g0b.bin"] and list(got) == ["b"]
    np.testing.assert_array_equal(got["b"], B)
    with pytest.raises(ValueError, match="Could not find weights in manifest with names: zz.*a, b, c"):
        run_sync(load(MANIFEST, "", ["a", "zz"]))


def test_load_weights_reads_files(tmp_path):
    for name, data in SHARDS.items():
        (tmp_path / name).write_bytes(data)
    got = _arrays(run_sync(tf.io.load_weights(MANIFEST, f"{tmp_path}/", ["c", "a"])))
    assert sorted(got) == ["a", "c"]
    np.testing.assert_array_equal(got["a"], A)
    np.testing.assert_array_equal(got["c"], C)
    (tmp_path / "g1.bin").unlink()
    with pytest.raises(OSError, match="g1.bin: file not found"):
        run_sync(tf.io.load_weights(MANIFEST, f"{tmp_path}/"))


def test_decode_weights_stream_in_odd_chunks():
    specs = tf.io.get_weight_specs(MANIFEST)
    whole = GROUP0 + C.tobytes()

    async def chunks():
        for i in range(0, len(whole), 5):
            yield whole[i : i + 5]

    got = _arrays(run_sync(tf.io.decode_weights_stream(chunks(), specs)))
    np.testing.assert_array_equal(got["a"], A)
    np.testing.assert_array_equal(got["b"], B)
    np.testing.assert_array_equal(got["c"], C)
    with pytest.raises(ValueError, match="decode_weights_stream: the stream ended but weight 'c' still expects 4"):
        run_sync(tf.io.decode_weights_stream([GROUP0], specs))


def test_sync_handlers_http_and_scheme():
    art = tf.io.get_model_artifacts_for_json_sync({"modelTopology": {"x": 1}})
    assert tf.io.from_memory_sync(art).load_sync() is art
    saved = []
    h = tf.io.with_save_handler_sync(lambda a: saved.append(a) or {"ok": 1})
    assert h.save_sync(art) == {"ok": 1} and saved == [art]
    with pytest.raises(TypeError, match="with_save_handler_sync: save_handler must be callable"):
        tf.io.with_save_handler_sync(3)
    assert tf.io.is_http_scheme("http://a/b") and tf.io.is_http_scheme("https://a")
    assert not tf.io.is_http_scheme("indexeddb://m") and not tf.io.is_http_scheme("/m.json")
    assert tf.io.http("https://x/model.json").url == "https://x/model.json"
    assert tf.io.browser_http_request("m.json").url == "m.json"
    with pytest.raises(ValueError, match="tf.io.http: path must be a non-empty URL string"):
        tf.io.http("")
    assert tf.io.http("m.json", {"weight_path_prefix": "w/"}).load_options.weight_path_prefix == "w/"


def test_load_graph_model_sync_from_each_source():
    model, data, w = synth.conv_model(np.random.default_rng(0))
    x = np.random.default_rng(1).standard_normal((1, 8, 8, 3)).astype(np.float32)
    want = synth.conv_reference(x, w)
    specs = tf.io.get_weight_specs(model["weightsManifest"])
    art = tf.io.get_model_artifacts_for_json_sync(model, specs, data)
    for source in ([model, data], art, tf.io.from_memory_sync(art)):
        m = tf.load_graph_model_sync(source)
        xt = tf.tensor(x)
        y = m.predict(xt)
        np.testing.assert_allclose(np.array(y.array_sync()), want, rtol=1e-4, atol=1e-5)
        tf.dispose([xt, y])
        m.dispose()
    with pytest.raises(ValueError, match=r"load_graph_model_sync\(model_source\): model_source is None"):
        tf.load_graph_model_sync(None)
    with pytest.raises(ValueError, match="model JSON is missing 'weightsManifest'"):
        tf.load_graph_model_sync([{"modelTopology": {}}, b""])
    with pytest.raises(ValueError, match="weight bytes must be the second element, got str"):
        tf.load_graph_model_sync([model, "x"])
    with pytest.raises(TypeError, match=r"load_graph_model_sync\(model_source\): expected a handler"):
        tf.load_graph_model_sync(tf.io.from_memory(art).load)
    with pytest.raises(ValueError, match="weight shards hold"):
        tf.load_graph_model_sync([model, data[:-4]])


def test_register_callback_constructor_adds_callbacks_to_fit(monkeypatch):
    monkeypatch.setattr(cb_module, "CALLBACK_CONSTRUCTORS", {})
    seen = []

    class Quiet(tf.Callback):
        async def on_epoch_end(self, epoch, logs=None):
            seen.append(("quiet", epoch))

    class Loud(tf.Callback):
        async def on_epoch_end(self, epoch, logs=None):
            seen.append(("loud", epoch))

    tf.register_callback_constructor(0, Quiet)
    tf.register_callback_constructor(2, Loud)
    with pytest.raises(ValueError, match="register_callback_constructor: duplicate callback constructor"):
        tf.register_callback_constructor(1, Quiet)
    with pytest.raises(ValueError, match="verbosity_level must be an integer >= 0, but got -1"):
        tf.register_callback_constructor(-1, Loud)
    assert [type(c) for c in cb_module.create_callbacks(2)] == [Quiet, Loud]
    m = tf.sequential()
    m.add(tf.layers.dense(units=1, input_shape=[2]))
    m.compile(optimizer="sgd", loss="meanSquaredError")
    x, y = tf.ones([4, 2]), tf.ones([4, 1])
    run_sync(m.fit(x, y, epochs=2, verbose=0))
    assert seen == [("quiet", 0), ("quiet", 1)]
    tf.dispose([x, y])
    m.dispose()


def test_input_spec():
    s = tf.InputSpec(shape=[None, 4], ndim=7, dtype="float32")
    assert (s.shape, s.ndim, s.dtype, s.axes, s.max_ndim, s.min_ndim) == ((None, 4), 2, "float32", {}, None, None)
    s = tf.InputSpec(ndim=3, min_ndim=2, max_ndim=4, axes={-1: 8})
    assert (s.shape, s.ndim, s.min_ndim, s.max_ndim, s.axes) == (None, 3, 2, 4, {-1: 8})


# string and complex64 weights, laid out as TF.js stores them: each string its byte length (uint32 LE) and its
# UTF-8 bytes, each complex64 value two float32 (real, imag)
WORDS = ["", "héllo", "ab"]
WORDS_BYTES = b"\x00\x00\x00\x00" + b"\x06\x00\x00\x00h\xc3\xa9llo" + b"\x02\x00\x00\x00ab"
Z = np.array([[1 + 2j], [-3.5 + 0j]], np.complex64)
TYPED_MANIFEST = [{"paths": ["t0.bin", "t1.bin"], "weights": [
    {"name": "s", "shape": [3], "dtype": "string"}, {"name": "z", "shape": [2, 1], "dtype": "complex64"},
    {"name": "b", "shape": [3], "dtype": "int32"}]}]  # fmt: skip
TYPED = WORDS_BYTES + np.array([1, 2, -3.5, 0], np.float32).tobytes() + B.tobytes()


def _typed(tensors):
    out = {"s": tensors["s"].data_sync(), "z": np.array(tensors["z"].data_sync()), "b": tensors["b"].numpy()}
    assert tensors["s"].dtype == "string" and tensors["z"].dtype == "complex64"
    tf.dispose(list(tensors.values()))
    return out


def test_string_and_complex64_weights():
    specs = tf.io.get_weight_specs(TYPED_MANIFEST)
    for got in (
        tf.io.decode_weights(specs, TYPED),
        run_sync(tf.io.weights_loader_factory(lambda urls: [TYPED[:7], TYPED[7:]])(TYPED_MANIFEST)),
        run_sync(tf.io.decode_weights_stream([TYPED[i : i + 3] for i in range(0, len(TYPED), 3)], specs)),
    ):
        got = _typed(got)
        assert got["s"] == WORDS
        np.testing.assert_array_equal(got["z"], Z.view(np.float32).ravel())
        np.testing.assert_array_equal(got["b"], B)
    s, z = tf.tensor(WORDS), tf.tidy(lambda: tf.complex(tf.tensor([[1.0], [-3.5]]), tf.tensor([[2.0], [0.0]])))
    out_specs, data = tf.io.encode_weights({"s": s, "z": z})
    assert data == TYPED[: -B.nbytes]
    assert [(w.dtype, w.shape) for w in out_specs] == [("string", (3,)), ("complex64", (2, 1))]
    tf.dispose([s, z])
    with pytest.raises(ValueError, match="Weight 's' \\(string, shape \\[3\\]\\) is cut short"):
        tf.io.decode_weights(specs[:1], WORDS_BYTES[:6])
    with pytest.raises(ValueError, match="Weight 's' holds string bytes that are not UTF-8"):
        tf.io.decode_weights(specs[:1], b"\x00\x00\x00\x00\x01\x00\x00\x00\xff\x00\x00\x00\x00")
