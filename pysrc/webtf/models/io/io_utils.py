"""tf.io helpers (TF.js io_utils.ts, composite_array_buffer.ts, weights_loader.ts): joining weight buffers,
model.json -> ModelArtifacts, weight specs of a manifest, and loading / streaming weights into tensors."""

from __future__ import annotations

import inspect
import re
from bisect import bisect_right
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ...backends import js as bridge
from ...tensor import Tensor
from .artifacts import ModelArtifacts, ModelArtifactsInfo, WeightSpec
from .model_json import _artifacts, artifacts_info
from .weights import decode_weights, parse_manifest, weight_nbytes

_HTTP = re.compile(r"^https?://")
Buffers = bytes | bytearray | memoryview | Iterable[bytes | bytearray | memoryview] | None


class CompositeArrayBuffer:
    """Several byte buffers read as one: byte_length, and slice(start, end) across their boundaries."""

    def __init__(self, buffers: Buffers = None) -> None:
        if buffers is None:
            buffers = []
        elif isinstance(buffers, (bytes, bytearray, memoryview)):
            buffers = [buffers]
        self.shards: list[bytes] = []
        for i, b in enumerate(buffers):
            if not isinstance(b, (bytes, bytearray, memoryview)):
                raise TypeError(
                    f"CompositeArrayBuffer: buffers[{i}] must be bytes, bytearray or memoryview, "
                    f"got {type(b).__name__}"
                )
            self.shards.append(bytes(b))
        self.starts = [0]
        for s in self.shards:
            self.starts.append(self.starts[-1] + len(s))
        self.byte_length = self.starts[-1]

    @staticmethod
    def join(buffers: Buffers = None) -> bytes:
        """The buffers concatenated into one bytes object."""
        return CompositeArrayBuffer(buffers).slice()

    def slice(self, start: int = 0, end: int | None = None) -> bytes:
        """Bytes [start, end) of the whole, clamped to it (negative indices count from the end)."""
        start, end, _ = slice(start, end).indices(self.byte_length)
        if end <= start:
            return b""
        first = bisect_right(self.starts, start) - 1
        out = []
        for i in range(first, len(self.shards)):
            lo = self.starts[i]
            if lo >= end:
                break
            out.append(self.shards[i][max(start - lo, 0) : end - lo])
        return b"".join(out)


def concatenate_array_buffers(buffers: Buffers) -> bytes:
    """The buffers concatenated into one (deprecated in TF.js for CompositeArrayBuffer.join)."""
    return CompositeArrayBuffer.join(buffers)


def get_weight_specs(weights_manifest: Any) -> list[WeightSpec]:
    """The weight specs of every group of a model.json weightsManifest, in order."""
    return parse_manifest(weights_manifest, "get_weight_specs(weights_manifest)")[0]


def get_model_artifacts_for_json_sync(
    model_json: dict[str, Any], weight_specs: list[WeightSpec] | None = None, weight_data: Buffers = None
) -> ModelArtifacts:
    """ModelArtifacts from a parsed model.json and, when it has a weightsManifest, its specs and weight bytes."""
    where = "get_model_artifacts_for_json_sync"
    if not isinstance(model_json, dict):
        raise TypeError(f"{where}: model_json must be a dict (a parsed model.json), got {type(model_json).__name__}")
    specs: list[WeightSpec] = []
    data = b""
    if model_json.get("weightsManifest") is not None:
        if weight_specs is None:
            raise ValueError(f"{where}: model_json has weightsManifest but weight_specs is None")
        if weight_data is None:
            raise ValueError(f"{where}: model_json has weightsManifest but weight_data is None")
        specs, data = list(weight_specs), CompositeArrayBuffer.join(weight_data)
    return _artifacts({"modelTopology": None, **model_json}, specs, data)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def get_model_artifacts_for_json(
    model_json: dict[str, Any], load_weights: Callable[[Any], Any]
) -> ModelArtifacts:
    """ModelArtifacts from a parsed model.json; load_weights(manifest) -> (specs, weight bytes), sync or async."""
    specs = data = None
    if isinstance(model_json, dict) and model_json.get("weightsManifest") is not None:
        specs, data = await _maybe_await(load_weights(model_json["weightsManifest"]))
    return get_model_artifacts_for_json_sync(model_json, specs, data)


def get_model_artifacts_info_for_json(model_artifacts: ModelArtifacts) -> ModelArtifactsInfo:
    """Sizes of the artifacts' JSON topology, weight specs and weight bytes, dated now."""
    if isinstance(model_artifacts.model_topology, (bytes, bytearray, memoryview)):
        raise ValueError("get_model_artifacts_info_for_json: expected a JSON model topology, received bytes")
    return artifacts_info(model_artifacts)


def is_http_scheme(url: str) -> bool:
    """Whether url starts with http:// or https://."""
    return isinstance(url, str) and _HTTP.match(url) is not None


async def _fetch_all(urls: list[str]) -> list[bytes]:
    """Each URL's bytes: fetched in the page, read from files elsewhere."""
    if bridge.available():
        return [await bridge.fetch_bytes(u, "weight shard") for u in urls]
    out = []
    for u in urls:
        try:
            with open(u.removeprefix("file://"), "rb") as f:
                out.append(f.read())
        except FileNotFoundError:
            raise OSError(f"Failed to load weight shard {u}: file not found") from None
    return out


def weights_loader_factory(
    fetch_weights: Callable[[list[str]], Any],
) -> Callable[..., Awaitable[dict[str, Tensor]]]:
    """A loader(manifest, file_path_prefix='', weight_names=None) -> {name: tensor} that reads each needed
    group's shards with fetch_weights(urls) -> [bytes] (sync or async)."""

    async def load(
        manifest: Any, file_path_prefix: str = "", weight_names: list[str] | None = None
    ) -> dict[str, Tensor]:
        where = "load_weights(manifest)"
        parse_manifest(manifest, where)  # checks every group and entry
        groups = [parse_manifest([g], where) for g in manifest]
        every = [s.name for specs, _ in groups for s in specs]
        if weight_names is not None:
            missing = [n for n in weight_names if n not in every]
            if missing:
                raise ValueError(
                    f"Could not find weights in manifest with names: {', '.join(missing)}. "
                    f"Manifest JSON has weights with names: {', '.join(every)}."
                )
        wanted = [
            (specs, paths)
            for specs, paths in groups
            if weight_names is None or any(s.name in weight_names for s in specs)
        ]
        urls = [file_path_prefix + p for _, paths in wanted for p in paths]
        buffers = list(await _maybe_await(fetch_weights(urls)))
        if len(buffers) != len(urls):
            raise ValueError(f"{where}: fetch_weights returned {len(buffers)} buffers for {len(urls)} URLs")
        out: dict[str, Tensor] = {}
        try:
            at = 0
            for specs, paths in wanted:
                data = CompositeArrayBuffer(buffers[at : at + len(paths)])
                at += len(paths)
                offset = 0
                for s in specs:
                    n = weight_nbytes(s, data.slice, offset)
                    if weight_names is None or s.name in weight_names:
                        out.update(decode_weights([s], data.slice(offset, offset + n)))
                    offset += n
        except Exception:
            for t in out.values():
                t.dispose()
            raise
        return out

    return load


async def load_weights(
    manifest: Any, file_path_prefix: str = "", weight_names: list[str] | None = None
) -> dict[str, Tensor]:
    """The manifest's weights (or those named) as tensors, their shards fetched in the page (files elsewhere)."""
    return await weights_loader_factory(_fetch_all)(manifest, file_path_prefix, weight_names)


async def _chunks(stream: Any) -> Any:
    """Bytes chunks of an async iterable, an iterable, or a JS ReadableStream."""
    if hasattr(stream, "getReader"):
        reader = stream.getReader()
        while True:
            step = await reader.read()
            if step.done:
                return
            yield step.value.to_bytes()
    elif hasattr(stream, "__aiter__"):
        async for chunk in stream:
            yield bytes(chunk)
    else:
        for chunk in stream:
            yield bytes(chunk)


async def decode_weights_stream(weight_stream: Any, specs: list[WeightSpec]) -> dict[str, Tensor]:
    """Tensors for each spec, read in order from a stream of byte chunks (each made once its bytes arrive)."""
    out: dict[str, Tensor] = {}
    chunks = _chunks(weight_stream)
    buf = bytearray()
    try:
        async def need(spec: WeightSpec, n: int) -> None:
            while len(buf) < n:
                chunk = await anext(chunks, None)
                if chunk is None:
                    raise ValueError(
                        f"decode_weights_stream: the stream ended but weight '{spec.name}' still expects "
                        f"{n - len(buf)} bytes"
                    )
                buf.extend(chunk)

        def read(a: int, b: int) -> bytes:
            return bytes(buf[a:b])

        for spec in specs:
            while True:  # a string weight's size shows as its length prefixes arrive
                try:
                    n = weight_nbytes(spec, read, 0)
                    break
                except ValueError:
                    if spec.dtype != "string":
                        raise
                    await need(spec, len(buf) + 1)
            await need(spec, n)
            out.update(decode_weights([spec], bytes(buf[:n])))
            del buf[:n]
    except Exception:
        for t in out.values():
            t.dispose()
        raise
    return out


__all__ = [
    "CompositeArrayBuffer",
    "concatenate_array_buffers",
    "decode_weights_stream",
    "get_model_artifacts_for_json",
    "get_model_artifacts_for_json_sync",
    "get_model_artifacts_info_for_json",
    "get_weight_specs",
    "is_http_scheme",
    "load_weights",
    "weights_loader_factory",
]
