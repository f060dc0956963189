"""Browser storage handlers with TF.js's layouts, so TF.js and webtf in one page read each other's models.

- `indexeddb://path`: database 'tensorflowjs' (version 1), object stores 'models_store' ({modelPath,
  modelArtifacts, modelArtifactsInfo}) and 'model_info_store' ({modelPath, modelArtifactsInfo}), keyed by
  modelPath; modelArtifacts is TF.js's object (camelCase fields, weightSpecs, weightData as an ArrayBuffer).
- `localstorage://path`: keys 'tensorflowjs_models/<path>/info|model_topology|weight_specs|weight_data|
  model_metadata', JSON strings except weight_data, which is base64.
- `downloads://prefix`: saves <prefix>.json and <prefix>.weights.bin through anchor clicks on object URLs.
- `browser_files([json_file, *weight_files])`: loads from File objects (an <input type=file>).
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

from ...backends import js as bridge
from .artifacts import ModelArtifacts, ModelArtifactsInfo
from .management import register_manager
from .model_json import (
    artifacts_from_json,
    artifacts_from_stored,
    artifacts_info,
    info_from_json,
    info_json,
    json_text,
    metadata_json,
    model_json_of,
    stored_json,
)
from .router import register_load_router, register_save_router, scheme_router
from .weights import parse_manifest, weight_specs_json

# IndexedDB requests wrapped in promises, one call per operation. Transactions span both stores (TF.js
# uses one per store); completion listeners are attached before any await so none is missed.
_HELPER_JS = r"""(() => {
  const DB = "tensorflowjs", MODELS = "models_store", INFO = "model_info_store";
  const request = (r) => new Promise((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });
  const open = () => {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => {
      for (const store of [MODELS, INFO]) r.result.createObjectStore(store, { keyPath: "modelPath" });
    };
    return request(r);
  };
  async function withStores(mode, fn) {
    const db = await open();
    try {
      const tx = db.transaction([MODELS, INFO], mode);
      const done = new Promise((ok, fail) => {
        tx.oncomplete = () => ok();
        tx.onerror = tx.onabort = () => fail(tx.error);
      });
      const out = await fn(tx.objectStore(MODELS), tx.objectStore(INFO));
      await done;
      return out;
    } finally {
      db.close();
    }
  }
  const bytes = (data) => {
    if (data == null) return new Uint8Array(0);
    if (Array.isArray(data)) {
      const out = new Uint8Array(data.reduce((n, b) => n + b.byteLength, 0));
      let at = 0;
      for (const b of data) { out.set(new Uint8Array(b), at); at += b.byteLength; }
      return out;
    }
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return new Uint8Array(data);
  };
  const info = (text) => { const i = JSON.parse(text); i.dateSaved = new Date(i.dateSaved); return i; };
  return {
    save: (path, artifacts, weights, infoText) => withStores("readwrite", (models, infos) => {
      const modelArtifacts = JSON.parse(artifacts);
      modelArtifacts.weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength);
      const modelArtifactsInfo = info(infoText);
      infos.put({ modelPath: path, modelArtifactsInfo });
      models.put({ modelPath: path, modelArtifacts, modelArtifactsInfo });
    }),
    load: (path) => withStores("readonly", async (models) => {
      const record = await request(models.get(path));
      if (record == null) return undefined;  // None in Python (null would be a JsNull)
      const { weightData, ...rest } = record.modelArtifacts;
      return { artifacts: JSON.stringify(rest), weights: bytes(weightData) };
    }),
    list: () => withStores("readonly", async (models, infos) => {
      const out = {};
      for (const item of await request(infos.getAll())) out[item.modelPath] = item.modelArtifactsInfo;
      return JSON.stringify(out);
    }),
    remove: (path) => withStores("readwrite", async (models, infos) => {
      const item = await request(infos.get(path));
      if (item == null) return undefined;
      infos.delete(path);
      models.delete(path);
      return JSON.stringify(item.modelArtifactsInfo);
    }),
    download: async (name, data, type) => {
      const url = URL.createObjectURL(new Blob([data], { type }));
      const a = document.createElement("a");
      a.download = name;
      a.href = url;
      await new Promise((ok) => setTimeout(ok));
      a.dispatchEvent(new MouseEvent("click"));
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    },
  };
})()"""

_helper: list[Any] = []


def _js_helper() -> Any:
    if not bridge.available():
        raise OSError("Browser model storage needs the browser (IndexedDB, localStorage, downloads)")
    if not _helper:
        _helper.append(bridge.js.eval(_HELPER_JS))
    return _helper[0]


def _check_path(path: str, store: str) -> str:
    if not path:
        raise ValueError(f"For {store}, the model path must not be empty")
    return path


class IndexedDBHandler:
    """Saves to / loads from IndexedDB (indexeddb://path), in TF.js's database and stores."""

    def __init__(self, path: str) -> None:
        self.path = _check_path(path.removeprefix("indexeddb://"), "IndexedDB")

    async def save(self, artifacts: ModelArtifacts) -> dict[str, Any]:
        """Store the artifacts under the path (replacing a model saved there)."""
        info = artifacts_info(artifacts)
        await _js_helper().save(
            self.path,
            json_text(stored_json(artifacts)),
            bridge.uint8_array(artifacts.weight_data),
            json_text(info_json(info)),
        )
        return {"model_artifacts_info": info}

    async def load(self) -> ModelArtifacts:
        """The artifacts stored under the path."""
        record = await _js_helper().load(self.path)
        if record is None:
            raise OSError(f"Cannot find model with path '{self.path}' in IndexedDB")
        fields = json.loads(record.artifacts)
        return artifacts_from_stored(fields, record.weights.to_bytes(), f"indexeddb://{self.path}")


class IndexedDBManager:
    """Lists and removes the models in IndexedDB."""

    async def list_models(self) -> dict[str, ModelArtifactsInfo]:
        """Every stored model's info by path."""
        listed = json.loads(await _js_helper().list())
        return {path: info_from_json(info) for path, info in listed.items()}

    async def remove_model(self, path: str) -> ModelArtifactsInfo:
        """Delete a model; returns its info."""
        path = path.removeprefix("indexeddb://")
        removed = await _js_helper().remove(path)
        if removed is None:
            raise OSError(f"Cannot find model with path '{path}' in IndexedDB")
        return info_from_json(json.loads(removed))


_LS_PREFIX = "tensorflowjs_models/"
_LS_PARTS = ("info", "model_topology", "weight_specs", "weight_data", "model_metadata")


def _local_storage() -> Any:
    if not bridge.available() or not hasattr(bridge.js, "localStorage"):
        raise OSError("This environment has no localStorage")
    return bridge.js.localStorage


def _ls_keys(path: str) -> dict[str, str]:
    return {part: f"{_LS_PREFIX}{path}/{part}" for part in _LS_PARTS}


def _ls_get(ls: Any, key: str) -> str | None:
    """localStorage.getItem(key), None when absent (JS null reaches Python as a JsNull, not None)."""
    value = ls.getItem(key)
    return value if isinstance(value, str) else None


class LocalStorageHandler:
    """Saves to / loads from localStorage (localstorage://path), in TF.js's keys."""

    def __init__(self, path: str) -> None:
        self.path = _check_path(path.removeprefix("localstorage://"), "local storage")
        self.keys = _ls_keys(self.path)

    async def save(self, artifacts: ModelArtifacts) -> dict[str, Any]:
        """Store the artifacts under the path; on failure (quota) nothing of the model is left behind."""
        ls = _local_storage()
        info = artifacts_info(artifacts)
        values = {
            "info": json_text(info_json(info)),
            "model_topology": json_text(artifacts.model_topology),
            "weight_specs": json_text(weight_specs_json(artifacts.weight_specs)),
            "weight_data": base64.b64encode(artifacts.weight_data).decode("ascii"),
            "model_metadata": json_text(metadata_json(artifacts)),
        }
        try:
            for part, text in values.items():
                ls.setItem(self.keys[part], text)
        except Exception as e:
            for key in self.keys.values():
                ls.removeItem(key)
            raise OSError(
                f"Failed to save model '{self.path}' to local storage (the size quota may be exceeded: "
                f"modelTopologyBytes={info.model_topology_bytes}, weightSpecsBytes={info.weight_specs_bytes}, "
                f"weightDataBytes={info.weight_data_bytes}): {e}"
            ) from None
        return {"model_artifacts_info": info}

    async def load(self) -> ModelArtifacts:
        """The artifacts stored under the path."""
        ls = _local_storage()
        info = _ls_get(ls, self.keys["info"])
        if info is None:
            raise OSError(f"In local storage, there is no model with name '{self.path}'")
        if json.loads(info).get("modelTopologyType") != "JSON":
            raise ValueError("Local storage holds only models with a JSON topology")
        fields: dict[str, Any] = {}
        for part, key, what in (
            ("model_topology", "modelTopology", "the topology"),
            ("weight_specs", "weightSpecs", "the weight specs"),
        ):
            text = _ls_get(ls, self.keys[part])
            if text is None:
                raise OSError(f"In local storage, {what} of model '{self.path}' are missing")
            fields[key] = json.loads(text)
        metadata = _ls_get(ls, self.keys["model_metadata"])
        if metadata is not None:
            fields.update({k: v for k, v in json.loads(metadata).items() if v is not None})
        data = _ls_get(ls, self.keys["weight_data"])
        if data is None:
            raise OSError(f"In local storage, the binary weight values of model '{self.path}' are missing")
        return artifacts_from_stored(fields, base64.b64decode(data), f"localstorage://{self.path}")


class LocalStorageManager:
    """Lists and removes the models in localStorage."""

    async def list_models(self) -> dict[str, ModelArtifactsInfo]:
        """Every stored model's info by path."""
        ls = _local_storage()
        out = {}
        for i in range(ls.length):
            key = ls.key(i)
            if key.startswith(_LS_PREFIX) and key.endswith("/info"):
                out[key[len(_LS_PREFIX) : -len("/info")]] = info_from_json(json.loads(_ls_get(ls, key)))
        return out

    async def remove_model(self, path: str) -> ModelArtifactsInfo:
        """Delete a model's keys; returns its info."""
        ls = _local_storage()
        keys = _ls_keys(path.removeprefix("localstorage://"))
        info = _ls_get(ls, keys["info"])
        if info is None:
            raise OSError(f"Cannot find model at path '{path}' in local storage")
        for key in keys.values():
            ls.removeItem(key)
        return info_from_json(json.loads(info))


class DownloadsHandler:
    """Saves <prefix>.json and <prefix>.weights.bin as browser downloads (downloads://prefix)."""

    def __init__(self, prefix: str = "model") -> None:
        prefix = prefix.removeprefix("downloads://") or "model"
        self.json_name = prefix + ".json"
        self.weights_name = prefix + ".weights.bin"

    async def save(self, artifacts: ModelArtifacts) -> dict[str, Any]:
        """Trigger the two downloads (model.json names the weights file './<prefix>.weights.bin')."""
        helper = _js_helper()
        model_json = json_text(model_json_of(artifacts, "./" + self.weights_name))
        await helper.download(self.json_name, model_json, "application/json")
        await helper.download(
            self.weights_name, bridge.uint8_array(artifacts.weight_data), "application/octet-stream"
        )
        return {"model_artifacts_info": artifacts_info(artifacts)}


async def _file_bytes(file: Any) -> bytes:
    data = await file.arrayBuffer()
    return data.to_bytes() if hasattr(data, "to_bytes") else bytes(data)


class BrowserFilesHandler:
    """Loads a model from File objects: model.json first, then its weight files (matched by base name)."""

    def __init__(self, files: Any) -> None:
        self.files = list(files) if files is not None else []
        if not self.files:
            raise ValueError("browser_files: pass at least one file (model.json, then its weight files)")

    async def load(self) -> ModelArtifacts:
        """Read model.json and the weight files its manifest names."""
        json_file, weight_files = self.files[0], self.files[1:]
        name = str(json_file.name)
        try:
            model_json = json.loads((await _file_bytes(json_file)).decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"Failed to parse file {name}: {e}") from None
        if not isinstance(model_json, dict) or model_json.get("modelTopology") is None:
            raise ValueError(f"modelTopology field is missing from file {name}")
        if "weightsManifest" not in model_json:
            raise ValueError(f"weightsManifest field is missing from file {name}")
        if not weight_files:  # topology only, as TF.js loads it
            return artifacts_from_json({**model_json, "weightsManifest": []}, b"", name)
        _, paths = parse_manifest(model_json["weightsManifest"], name)
        by_name = {os.path.basename(str(f.name)): f for f in weight_files}
        wanted = [os.path.basename(p) for p in paths]
        for base in wanted:
            if wanted.count(base) > 1:
                raise ValueError(f"Duplicate file basename found in weights manifest: '{base}'")
            if base not in by_name:
                raise ValueError(f"Weight file with basename '{base}' is not provided")
        if len(wanted) != len(weight_files):
            raise ValueError(
                f"Mismatch in the number of files in weights manifest ({len(wanted)}) and the number of weight "
                f"files provided ({len(weight_files)})"
            )
        data = b"".join([await _file_bytes(by_name[base]) for base in wanted])
        return artifacts_from_json(model_json, data, name)


def browser_files(files: Any) -> BrowserFilesHandler:
    """A load handler for File objects from an <input type=file>: [model.json, *weight files]."""
    return BrowserFilesHandler(files)


def browser_downloads(file_name_prefix: str = "model") -> DownloadsHandler:
    """A save handler that downloads <prefix>.json and <prefix>.weights.bin."""
    return DownloadsHandler(file_name_prefix)


for _router in (
    scheme_router("indexeddb://", IndexedDBHandler),
    scheme_router("localstorage://", LocalStorageHandler),
):
    register_load_router(_router)
    register_save_router(_router)
register_save_router(scheme_router("downloads://", DownloadsHandler))
if bridge.available():
    register_manager("localstorage", LocalStorageManager())
    register_manager("indexeddb", IndexedDBManager())
