"""TF.js's LoadOptions on the host, through a fake fetch (fetch_func): the URLs fetched (model.json, then the
shards from its directory with its query, or weight_path_prefix / weight_url_converter / TF Hub URLs),
request_init on every fetch, on_progress's fractions, strict for layers models, and the errors TF.js gives.
The loaded models are checked against numpy."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models import synth
from tests.models.test_layers import artifacts, layer, sequential


class FakeResponse:
    """What fetch() resolves to, as far as loading reads it."""

    def __init__(self, body: bytes | None) -> None:
        self.body = body
        self.status = 404 if body is None else 200
        self.ok = body is not None

    async def json(self) -> Any:
        return json.loads(self.body)

    async def arrayBuffer(self) -> bytes:  # noqa: N802  (the Response method's name)
        return self.body


class FakeServer:
    """A fetch_func serving files by URL and recording each (url, init)."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.calls: list[tuple[str, Any]] = []

    async def __call__(self, url: str, init: Any = None) -> FakeResponse:
        self.calls.append((url, init))
        return FakeResponse(self.files.get(url))


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def _graph_files(model_url: str, shard_url: str) -> tuple[dict[str, bytes], Any]:
    model, data, w = synth.conv_model(np.random.default_rng(3))
    return {model_url: json.dumps(model).encode(), shard_url: data}, w


def _check_graph(m: Any, w: Any) -> None:
    x = np.random.default_rng(4).standard_normal((1, 8, 8, 3)).astype(np.float32)
    t = tf.tensor(x)
    out = m.predict(t)
    np.testing.assert_allclose(out.numpy(), synth.conv_reference(x, w), rtol=1e-4, atol=1e-4)
    tf.dispose([t, out])
    m.dispose()


def test_graph_model_over_fetch_func_with_init_and_progress():
    files, w = _graph_files("https://h/d/model.json?v=3", "https://h/d/weights.bin?v=3")
    fetch, progress = FakeServer(files), []
    init = {"headers": {"x-key": "k"}, "credentials": "include"}
    options = {"fetch_func": fetch, "request_init": init, "on_progress": progress.append}
    _check_graph(run_sync(tf.load_graph_model("https://h/d/model.json?v=3", options)), w)
    assert fetch.calls == [("https://h/d/model.json?v=3", init), ("https://h/d/weights.bin?v=3", init)]
    assert progress == [0.5, 1.0]


def test_weight_path_prefix_converter_and_tf_hub():
    files, w = _graph_files("https://h/d/model.json", "https://cdn/w/weights.bin")
    fetch = FakeServer(files)
    opts = tf.io.LoadOptions(fetch_func=fetch, weight_path_prefix="https://cdn/w/")
    _check_graph(run_sync(tf.load_graph_model(tf.io.http("https://h/d/model.json", opts))), w)

    async def convert(path: str) -> str:
        return "https://other/" + path.upper()

    files, w = _graph_files("m.json", "https://other/WEIGHTS.BIN")
    fetch = FakeServer(files)
    _check_graph(run_sync(tf.load_graph_model("m.json", {"fetch_func": fetch, "weight_url_converter": convert})), w)
    assert [u for u, _ in fetch.calls] == ["m.json", "https://other/WEIGHTS.BIN"]

    hub = "https://tfhub.dev/m/1/"
    files, w = _graph_files(hub + "model.json?tfjs-format=file", hub + "weights.bin?tfjs-format=file")
    _check_graph(run_sync(tf.load_graph_model(hub[:-1], {"fetch_func": FakeServer(files), "from_tf_hub": True})), w)


def test_layers_model_strict_option():
    rng = np.random.default_rng(5)
    kernel, bias = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    topology = sequential(layer("Dense", "d", units=2, batch_input_shape=[None, 3]))
    weights = {"d/kernel": kernel, "d/bias": bias, "extra/w": np.zeros(2, np.float32)}
    model_json, data = artifacts(topology, weights)
    files = {"https://h/m/model.json": json.dumps(model_json).encode(), "https://h/m/weights.bin": data}
    options = {"fetch_func": FakeServer(files), "strict": True}
    with pytest.raises(ValueError, match="extra/w"):
        run_sync(tf.load_layers_model("https://h/m/model.json", options))
    m = run_sync(tf.load_layers_model("https://h/m/model.json", {**options, "strict": False}))
    x = rng.standard_normal((4, 3)).astype(np.float32)
    t = tf.tensor(x)
    out = m.predict(t)
    np.testing.assert_allclose(out.numpy(), x @ kernel + bias, rtol=1e-5, atol=1e-5)
    tf.dispose([t, out])
    m.dispose()


def test_load_option_errors():
    files, _ = _graph_files("https://h/model.json", "https://h/weights.bin")
    with pytest.raises(ValueError, match="requestInit is expected to have no pre-existing body, but has one"):
        tf.io.http("m.json", {"request_init": {"body": "x"}})
    with pytest.raises(ValueError, match=r"unknown load options \['request'\]"):
        run_sync(tf.load_graph_model("m.json", {"request": {}}))
    camel = tf.io.http("m.json", {"requestInit": {"a": 1}, "weightPathPrefix": "w/", "fromTFHub": True})
    assert camel.load_options == tf.io.LoadOptions(request_init={"a": 1}, weight_path_prefix="w/", from_tf_hub=True)
    with pytest.raises(TypeError, match="fetch_func must be callable"):
        tf.io.http("m.json", {"fetch_func": "fetch"})
    with pytest.raises(ValueError, match="no fetch\\(\\) outside the page"):
        run_sync(tf.io.http("https://h/model.json").load())
    with pytest.raises(OSError, match="Request to https://h/none.json failed with status code 404"):
        run_sync(tf.load_graph_model("https://h/none.json", {"fetch_func": FakeServer(files)}))
    del files["https://h/weights.bin"]
    with pytest.raises(OSError, match="Request to https://h/weights.bin failed with status code 404"):
        run_sync(tf.load_graph_model("https://h/model.json", {"fetch_func": FakeServer(files)}))
    files["https://h/bad.json"] = b"not json"
    with pytest.raises(ValueError, match="Failed to parse model JSON of response from https://h/bad.json"):
        run_sync(tf.load_graph_model("https://h/bad.json", {"fetch_func": FakeServer(files)}))
    files["https://h/empty.json"] = b"{}"
    with pytest.raises(ValueError, match="contains neither model topology or manifest for weights"):
        run_sync(tf.load_graph_model("https://h/empty.json", {"fetch_func": FakeServer(files)}))


def test_save_posts_model_json_and_weights():
    """tf.io.http(url).save: one POST with the request_init and a multipart body (outside the page the body is
    the dict of parts): model.json naming ./model.weights.bin, and the weights; the saved model loads back."""
    rng = np.random.default_rng(6)
    kernel, bias = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    model_json, data = artifacts(sequential(layer("Dense", "d", units=2, batch_input_shape=[None, 3])),
                                 {"d/kernel": kernel, "d/bias": bias})  # fmt: skip
    m = run_sync(tf.load_layers_model(tf.io.from_memory(model_json, data)))
    posted = []

    async def fetch(url, init):
        posted.append((url, init))
        return FakeResponse(b"{}" if url.endswith("ok") else None)

    opts = {"fetch_func": fetch, "request_init": {"headers": {"x-key": "k"}}}
    res = run_sync(m.save(tf.io.http("https://h/ok", opts)))
    assert res["model_artifacts_info"].weight_data_bytes == len(data) and len(res["responses"]) == 1
    ((url, init),) = posted
    assert url == "https://h/ok" and init["method"] == "POST" and init["headers"] == {"x-key": "k"}
    assert sorted(init["body"]) == ["model.json", "model.weights.bin"] and init["body"]["model.weights.bin"] == data
    saved = json.loads(init["body"]["model.json"])
    assert saved["weightsManifest"][0]["paths"] == ["./model.weights.bin"]
    again = run_sync(tf.load_layers_model(tf.io.from_memory(saved, init["body"]["model.weights.bin"])))
    x = tf.tensor(rng.standard_normal((2, 3)).astype(np.float32))
    a, b = m.predict(x), again.predict(x)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    with pytest.raises(OSError, match="BrowserHTTPRequest.save\\(\\) failed due to HTTP response status 404"):
        run_sync(m.save(tf.io.http("https://h/fails", opts)))
    tf.dispose([x, a, b])
    m.dispose()
    again.dispose()
