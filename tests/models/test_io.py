"""Host tests: tf.io routing by scheme, model.json / stored-artifacts conversion, browser_files' matching of
weight files, copy_model between file:// URLs. The browser stores themselves run in tests/models/test_io_page.py."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from webtf.models.io.artifacts import ModelArtifacts, WeightSpec
from webtf.models.io.handlers import FileHandler
from webtf.models.io.model_json import (
    artifacts_from_json,
    artifacts_from_stored,
    artifacts_info,
    info_from_json,
    info_json,
    model_json_of,
    stored_json,
)

TOPOLOGY = {"class_name": "Sequential", "config": {"name": "s", "layers": []}, "keras_version": "tfjs-layers 4.22.0"}


def sample() -> ModelArtifacts:
    specs = [WeightSpec("d/kernel", (2, 3), "float32"), WeightSpec("opt/iter", (), "int32", group="optimizer")]
    data = np.arange(6, dtype=np.float32).tobytes() + np.int32(7).tobytes()
    return ModelArtifacts(
        TOPOLOGY, specs, data, "layers-model", "webtf test", None,
        user_defined_metadata={"k": [1, None]}, training_config={"loss": "mse"},
        extra={"initializerSignature": {"x": 1}},
    )  # fmt: skip


def test_model_json_and_stored_json_round_trip():
    a = sample()
    model_json = model_json_of(a, "w.bin")
    assert model_json["weightsManifest"][0]["paths"] == ["w.bin"]
    assert model_json["weightsManifest"][0]["weights"][1] == {
        "name": "opt/iter", "shape": [], "dtype": "int32", "group": "optimizer"
    }  # fmt: skip
    assert model_json["trainingConfig"] == {"loss": "mse"} and model_json["initializerSignature"] == {"x": 1}
    assert "convertedBy" not in model_json
    assert artifacts_from_json(json.loads(json.dumps(model_json)), a.weight_data, "t") == a
    stored = stored_json(a)
    assert "weightsManifest" not in stored and stored["weightSpecs"] == model_json["weightsManifest"][0]["weights"]
    assert artifacts_from_stored(json.loads(json.dumps(stored)), a.weight_data, "t") == a
    with pytest.raises(ValueError, match="no modelTopology"):
        artifacts_from_stored({"weightSpecs": []}, b"", "t")


def test_artifacts_info():
    a = sample()
    info = artifacts_info(a)
    topology_text = json.dumps(TOPOLOGY, separators=(",", ":"))
    assert info.model_topology_bytes == len(topology_text) and info.weight_data_bytes == 28
    stored = info_json(info)
    assert stored["dateSaved"].endswith("Z") and stored["modelTopologyType"] == "JSON"
    back = info_from_json(json.loads(json.dumps(stored)))
    assert back.weight_specs_bytes == info.weight_specs_bytes
    assert abs((back.date_saved - info.date_saved).total_seconds()) < 0.001


def test_routing_by_scheme(tmp_path):
    assert isinstance(tf.io.get_load_handler(str(tmp_path)), FileHandler)
    assert isinstance(tf.io.get_load_handler(f"file://{tmp_path}"), FileHandler)
    assert isinstance(tf.io.get_save_handler(str(tmp_path)), FileHandler)
    assert [type(h) for h in tf.io.get_save_handlers(f"file://{tmp_path}")] == [FileHandler]
    for url in ("indexeddb://m", "localstorage://m", "downloads://m"):
        assert tf.io.get_save_handlers(url) == []  # browser stores: none outside the page
        with pytest.raises(ValueError, match="Found no save handler .* need the browser"):
            tf.io.get_save_handler(url)
    with pytest.raises(ValueError, match="Found no load handler for URL 'indexeddb://m'"):
        run_sync(tf.load_layers_model("indexeddb://m"))
    with pytest.raises(ValueError, match="has no save"):
        tf.io.get_save_handler(tf.io.from_memory(sample()))
    handler = tf.io.from_memory(sample())
    assert tf.io.get_load_handler(handler) is handler


def test_custom_router_and_copy_model(tmp_path):
    saved: list[ModelArtifacts] = []
    tf.io.register_save_router(lambda url: tf.io.with_save_handler(saved.append) if url == "test-mem://a" else None)
    tf.io.register_load_router(lambda url: tf.io.from_memory(sample()) if url == "test-mem://a" else None)
    info = run_sync(tf.io.copy_model("test-mem://a", f"file://{tmp_path}/copy"))
    assert info.weight_data_bytes == 28
    back = run_sync(tf.io.get_load_handler(f"file://{tmp_path}/copy").load())
    assert back == sample()
    run_sync(tf.io.copy_model(f"file://{tmp_path}/copy", "test-mem://a"))
    assert saved == [sample()]
    assert run_sync(tf.io.list_models()) == {}  # no model stores outside the browser
    with pytest.raises(ValueError, match="same"):
        run_sync(tf.io.copy_model("test-mem://a", "test-mem://a"))
    with pytest.raises(ValueError, match="Cannot find a model store manager for scheme 'indexeddb'"):
        run_sync(tf.io.remove_model("indexeddb://x"))


class FakeFile:
    """What browser_files reads of a JS File: name and await arrayBuffer()."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self.data = data

    async def arrayBuffer(self) -> bytes:  # noqa: N802  (the JS method's name)
        return self.data


def files(model_json: dict[str, Any], shards: dict[str, bytes]) -> list[FakeFile]:
    return [FakeFile("model.json", json.dumps(model_json).encode())] + [FakeFile(n, d) for n, d in shards.items()]


def test_browser_files_matches_weight_files_by_base_name():
    a = sample()
    model_json = model_json_of(a, "w.bin")
    model_json["weightsManifest"] = [
        {"paths": ["./shards/one.bin"], "weights": model_json["weightsManifest"][0]["weights"][:1]},
        {"paths": ["two.bin"], "weights": model_json["weightsManifest"][0]["weights"][1:]},
    ]
    one, two = a.weight_data[:24], a.weight_data[24:]
    loaded = run_sync(tf.io.browser_files(files(model_json, {"two.bin": two, "one.bin": one})).load())
    assert loaded == a
    topology_only = run_sync(tf.io.browser_files(files(model_json, {})).load())
    assert topology_only.model_topology == TOPOLOGY and topology_only.weight_specs == []
    with pytest.raises(ValueError, match="basename 'two.bin' is not provided"):
        run_sync(tf.io.browser_files(files(model_json, {"one.bin": one})).load())
    with pytest.raises(ValueError, match=r"Mismatch in the number of files in weights manifest \(2\)"):
        run_sync(tf.io.browser_files(files(model_json, {"one.bin": one, "two.bin": two, "x.bin": b""})).load())
    with pytest.raises(ValueError, match="modelTopology field is missing"):
        run_sync(tf.io.browser_files(files({"weightsManifest": []}, {})).load())
    with pytest.raises(ValueError, match="at least one file"):
        tf.io.browser_files([])
