"""Load/save handlers (TF.js IOHandler): HTTP from the page origin, local files, memory, callbacks; and
the choice of a handler for a URL (routers by scheme, then HTTP in the page or files elsewhere)."""

from __future__ import annotations

import inspect
import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from ...backends import js as bridge
from . import browser  # noqa: F401  (registers the indexeddb://, localstorage:// and downloads:// routers)
from .artifacts import ModelArtifacts
from .io_utils import is_http_scheme
from .load_options import Fetcher, LoadOptions, as_load_options, tf_hub_url
from .model_json import artifacts_from_json, artifacts_info, json_text, model_json_of
from .router import (
    get_load_handlers,
    get_save_handlers,
    only_handler,
    register_load_router,
    register_save_router,
    scheme_router,
)
from .weights import parse_manifest


class IOHandler(Protocol):
    """Anything with async load() -> ModelArtifacts (and optionally async save(artifacts) -> dict)."""

    async def load(self) -> ModelArtifacts: ...


def parse_json(text: str | bytes, where: str) -> dict[str, Any]:
    """A parsed model.json, or ValueError naming where it came from."""
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
    """Loads model.json and its shards over HTTP (TF.js HTTPRequest): the page's fetch() or the load options'
    fetch_func, shard URLs from the model URL (or weight_path_prefix / weight_url_converter); saves by POST."""

    def __init__(self, url: str, load_options: Mapping[str, Any] | LoadOptions | None = None) -> None:
        self.url = url
        self.load_options = as_load_options(load_options, "tf.io.http")

    async def load(self) -> ModelArtifacts:
        """Fetch model.json and every shard it names."""
        fetcher = Fetcher(self.load_options, "tf.io.http")
        model_json = await fetcher.model_json(self.url)
        if not isinstance(model_json, dict):
            raise ValueError(f"{self.url}: model.json must hold a JSON object, but holds {type(model_json).__name__}")
        if model_json.get("modelTopology") is None and model_json.get("weightsManifest") is None:
            raise ValueError(
                f"The JSON from HTTP path {self.url} contains neither model topology or manifest for weights."
            )
        _, paths = parse_manifest(model_json.get("weightsManifest", []), self.url)
        shards = await fetcher.shards(await fetcher.shard_urls(self.url, paths))
        return artifacts_from_json(model_json, b"".join(shards), self.url)

    async def save(self, artifacts: ModelArtifacts) -> dict[str, Any]:
        """POST model.json (naming './model.weights.bin') and model.weights.bin as multipart form data."""
        if isinstance(artifacts.model_topology, (bytes, bytearray, memoryview)):
            raise ValueError(
                "BrowserHTTPRequest.save() does not support saving model topology in binary formats yet."
            )
        model_json = json_text(model_json_of(artifacts, "./model.weights.bin")).encode()
        files = {
            "model.json": (model_json, "application/json"),
            "model.weights.bin": (bytes(artifacts.weight_data), "application/octet-stream"),
        }
        resp = await Fetcher(self.load_options, "tf.io.http").post(self.url, files)
        return {"model_artifacts_info": artifacts_info(artifacts), "responses": [resp]}


class FileHandler:
    """Loads from / saves to the local file system (CPython, or Pyodide's virtual FS)."""

    def __init__(self, path: str) -> None:
        self.path = path.removeprefix("file://")

    async def load(self) -> ModelArtifacts:
        """Read model.json and every shard it names."""
        path = self.path if self.path.endswith(".json") else os.path.join(self.path, "model.json")
        try:
            with open(path, "rb") as f:
                model_json = parse_json(f.read(), path)
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
            "model_artifacts_info": artifacts_info(artifacts),
            "model_json_path": os.path.join(self.path, "model.json"),
            "weight_bytes": len(artifacts.weight_data),
        }


class MemoryHandler:
    """Loads artifacts held in memory (tf.io.from_memory)."""

    def __init__(self, artifacts: ModelArtifacts) -> None:
        self.artifacts = artifacts

    async def load(self) -> ModelArtifacts:
        """Return the held artifacts."""
        return self.artifacts

    def load_sync(self) -> ModelArtifacts:
        """Return the held artifacts (TF.js's IOHandlerSync load)."""
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
        return result if isinstance(result, dict) else {"model_artifacts_info": artifacts_info(artifacts)}

    def save_sync(self, artifacts: ModelArtifacts) -> dict[str, Any]:
        """Hand the artifacts to a synchronous callback (TF.js's IOHandlerSync save)."""
        result = self.fn(artifacts)
        if isinstance(result, Awaitable):
            if inspect.iscoroutine(result):
                result.close()
            raise TypeError("with_save_handler_sync: the save handler returned an awaitable; use with_save_handler")
        return result if isinstance(result, dict) else {"model_artifacts_info": artifacts_info(artifacts)}


def from_memory(model_json: dict[str, Any] | ModelArtifacts, weight_data: bytes = b"") -> MemoryHandler:
    """A handler for a model held in memory: a parsed model.json + its weight bytes, or ModelArtifacts."""
    if isinstance(model_json, ModelArtifacts):
        return MemoryHandler(model_json)
    return MemoryHandler(artifacts_from_json(model_json, weight_data, "from_memory"))


def from_memory_sync(model_json: dict[str, Any] | ModelArtifacts, weight_data: bytes = b"") -> MemoryHandler:
    """from_memory for synchronous loading: the handler's load_sync() returns the artifacts."""
    return from_memory(model_json, weight_data)


def with_save_handler(fn: Callable[[ModelArtifacts], Any]) -> CallbackSaveHandler:
    """A save handler that passes the artifacts to `fn`."""
    return CallbackSaveHandler(fn)


def with_save_handler_sync(fn: Callable[[ModelArtifacts], Any]) -> CallbackSaveHandler:
    """A save handler whose save_sync(artifacts) passes them to the synchronous `fn`."""
    if not callable(fn):
        raise TypeError(f"with_save_handler_sync: save_handler must be callable, got {type(fn).__name__}")
    return CallbackSaveHandler(fn)


def http(path: str, load_options: Mapping[str, Any] | LoadOptions | None = None) -> HttpHandler:
    """A handler that loads model.json and its shards from `path` over HTTP, steered by `load_options`."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"tf.io.http: path must be a non-empty URL string, got {path!r}")
    return HttpHandler(path, load_options)


def browser_http_request(path: str, load_options: Mapping[str, Any] | LoadOptions | None = None) -> HttpHandler:
    """Deprecated name of tf.io.http."""
    return http(path, load_options)


register_load_router(scheme_router("file://", FileHandler, browser_only=False))
register_save_router(scheme_router("file://", FileHandler, browser_only=False))
for _scheme in ("http://", "https://"):
    register_load_router(scheme_router(_scheme, lambda rest, s=_scheme: HttpHandler(s + rest)))
    register_save_router(scheme_router(_scheme, lambda rest, s=_scheme: HttpHandler(s + rest)))

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def get_load_handler(url_or_handler: Any, load_options: Mapping[str, Any] | LoadOptions | None = None) -> Any:
    """The handler for a URL (by its scheme; else fetched in the page or with the options' fetch_func, a file
    elsewhere), or the handler itself. HTTP handlers get `load_options` (TF.js's loadGraphModel options)."""
    opts = as_load_options(load_options, "load model")
    if not isinstance(url_or_handler, str):
        if not hasattr(url_or_handler, "load") and not hasattr(url_or_handler, "save"):
            raise TypeError(
                f"Expected a model URL, a path or an IOHandler, got {type(url_or_handler).__name__}"
            )
        return url_or_handler
    url = tf_hub_url(url_or_handler) if opts.from_tf_hub else url_or_handler
    handlers = get_load_handlers(url)
    http_url = is_http_scheme(url) or not _SCHEME.match(url)
    if not handlers and http_url and (bridge.available() or opts.fetch_func is not None):
        return HttpHandler(url, opts)
    if handlers or _SCHEME.match(url):
        handler = only_handler(handlers, url, "load")
        return HttpHandler(url, opts) if type(handler) is HttpHandler else handler
    return FileHandler(url)


def get_save_handler(url_or_handler: Any) -> Any:
    """The save handler for a URL (by its scheme; a plain path is a directory), or the handler itself."""
    if not isinstance(url_or_handler, str):
        if not hasattr(url_or_handler, "save"):
            raise ValueError(
                f"{type(url_or_handler).__name__} has no save(); use a URL such as 'indexeddb://name' or a save "
                "handler such as tf.io.with_save_handler"
            )
        return url_or_handler
    handlers = get_save_handlers(url_or_handler)
    if handlers or _SCHEME.match(url_or_handler):
        return only_handler(handlers, url_or_handler, "save")
    return FileHandler(url_or_handler)
