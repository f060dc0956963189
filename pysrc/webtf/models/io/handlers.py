"""Load/save handlers (TF.js IOHandler): HTTP from the page origin, local files, memory, callbacks."""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ...backends import js as bridge
from .artifacts import ModelArtifacts
from .weights import manifest_json, parse_manifest


class IOHandler(Protocol):
    """Anything with async load() -> ModelArtifacts (and optionally async save(artifacts) -> dict)."""

    async def load(self) -> ModelArtifacts: ...


def artifacts_from_json(model_json: Any, weight_data: bytes, where: str) -> ModelArtifacts:
    """ModelArtifacts from a parsed model.json and its concatenated shard bytes."""
    if not isinstance(model_json, dict) or "modelTopology" not in model_json:
        raise ValueError(f"{where}: model.json has no 'modelTopology'")
    specs, _ = parse_manifest(model_json.get("weightsManifest", []), where)
    return ModelArtifacts(
        model_json["modelTopology"],
        specs,
        weight_data,
        model_json.get("format"),
        model_json.get("generatedBy"),
        model_json.get("convertedBy"),
        model_json.get("signature"),
        model_json.get("userDefinedMetadata"),
        model_json.get("modelInitializer"),
        model_json.get("trainingConfig"),
    )


def _parse(text: str | bytes, where: str) -> dict[str, Any]:
    try:
        model_json = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError(f"{where}: model.json is not valid JSON ({e})") from None
    if not isinstance(model_json, dict):
        raise ValueError(
            f"{where}: model.json must hold a JSON object, but holds a {type(model_json).__name__}"
        )
    return model_json


class HttpHandler:
    """Loads model.json and its shards with fetch() (inside the page), resolving paths against the model URL."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def _fetch(self, url: str, what: str) -> bytes:
        try:
            resp = await bridge.js.fetch(url)
        except Exception as e:
            raise OSError(f"Failed to fetch {what} {url}: {e}") from None
        if not resp.ok:
            raise OSError(f"Failed to fetch {what} {url}: HTTP {resp.status}")
        return (await resp.arrayBuffer()).to_bytes()

    async def load(self) -> ModelArtifacts:
        """Fetch model.json and every shard it names."""
        base = str(bridge.js.URL.new(self.url, bridge.js.location.href).href)
        model_json = _parse(await self._fetch(base, "model"), base)
        _, paths = parse_manifest(model_json.get("weightsManifest", []), base)
        shards = [await self._fetch(str(bridge.js.URL.new(p, base).href), "weight shard") for p in paths]
        return artifacts_from_json(model_json, b"".join(shards), base)


class FileHandler:
    """Loads from / saves to the local file system (CPython, or Pyodide's virtual FS)."""

    def __init__(self, path: str) -> None:
        self.path = path.removeprefix("file://")

    async def load(self) -> ModelArtifacts:
        """Read model.json and every shard it names."""
        path = self.path if self.path.endswith(".json") else os.path.join(self.path, "model.json")
        try:
            with open(path, "rb") as f:
                model_json = _parse(f.read(), path)
        except FileNotFoundError:
            raise OSError(f"Failed to load model {path}: file not found") from None
        _, paths = parse_manifest(model_json.get("weightsManifest", []), path)
        shards = []
        for p in paths:
            shard = os.path.join(os.path.dirname(path), p)
            try:
                with open(shard, "rb") as f:
                    shards.append(f.read())
            except FileNotFoundError:
                raise OSError(f"Failed to load weight shard {shard}: file not found") from None
        return artifacts_from_json(model_json, b"".join(shards), path)

    async def save(self, artifacts: ModelArtifacts) -> dict[str, Any]:
        """Write model.json and weights.bin into the directory `path`."""
        os.makedirs(self.path, exist_ok=True)
        with open(os.path.join(self.path, "weights.bin"), "wb") as f:
            f.write(artifacts.weight_data)
        with open(os.path.join(self.path, "model.json"), "w") as f:
            json.dump(model_json_of(artifacts, "weights.bin"), f)
        return {
            "model_json_path": os.path.join(self.path, "model.json"),
            "weight_bytes": len(artifacts.weight_data),
        }


def model_json_of(artifacts: ModelArtifacts, weights_path: str) -> dict[str, Any]:
    """The model.json dict for artifacts, with a one-shard manifest pointing at `weights_path`."""
    out: dict[str, Any] = {"modelTopology": artifacts.model_topology}
    for key, value in (
        ("format", artifacts.format),
        ("generatedBy", artifacts.generated_by),
        ("convertedBy", artifacts.converted_by),
        ("trainingConfig", artifacts.training_config),
        ("signature", artifacts.signature),
        ("userDefinedMetadata", artifacts.user_defined_metadata),
    ):
        if value is not None:
            out[key] = value
    out["weightsManifest"] = manifest_json(artifacts.weight_specs, weights_path)
    return out


class MemoryHandler:
    """Loads artifacts held in memory (tf.io.from_memory)."""

    def __init__(self, artifacts: ModelArtifacts) -> None:
        self.artifacts = artifacts

    async def load(self) -> ModelArtifacts:
        """Return the held artifacts."""
        return self.artifacts


class CallbackSaveHandler:
    """Saves by calling fn(artifacts) (tf.io.with_save_handler)."""

    def __init__(self, fn: Callable[[ModelArtifacts], Any]) -> None:
        self.fn = fn

    async def save(self, artifacts: ModelArtifacts) -> dict[str, Any]:
        """Hand the artifacts to the callback."""
        result = self.fn(artifacts)
        if isinstance(result, Awaitable):
            result = await result
        return result if isinstance(result, dict) else {}


def from_memory(model_json: dict[str, Any] | ModelArtifacts, weight_data: bytes = b"") -> MemoryHandler:
    """A handler for a model held in memory: a parsed model.json + its weight bytes, or ModelArtifacts."""
    if isinstance(model_json, ModelArtifacts):
        return MemoryHandler(model_json)
    return MemoryHandler(artifacts_from_json(model_json, weight_data, "from_memory"))


def with_save_handler(fn: Callable[[ModelArtifacts], Any]) -> CallbackSaveHandler:
    """A save handler that passes the artifacts to `fn`."""
    return CallbackSaveHandler(fn)


def get_load_handler(url_or_handler: Any) -> Any:
    """The handler for a URL/path string (HTTP inside the page, files elsewhere), or the handler itself."""
    if not isinstance(url_or_handler, str):
        if not hasattr(url_or_handler, "load") and not hasattr(url_or_handler, "save"):
            raise TypeError(
                f"Expected a model URL, a path or an IOHandler, got {type(url_or_handler).__name__}"
            )
        return url_or_handler
    if url_or_handler.startswith("file://") or not bridge.available():
        return FileHandler(url_or_handler)
    return HttpHandler(url_or_handler)
