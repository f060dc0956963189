"""Weights: decode a manifest's bytes into tensors (dequantizing), and encode tensors back for saving."""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...dtypes import TYPECODE
from ...engine import ENGINE
from ...shapes import fmt, size_of
from ...tensor import Tensor
from .artifacts import Quantization, WeightSpec

_STORED_BYTES = {"float32": 4, "int32": 4, "bool": 1, "uint8": 1, "uint16": 2, "float16": 2, "complex64": 8}
#: a string weight stores each value as its byte length (uint32, little-endian) and then its bytes, as TF.js
_STRING_LENGTH_BYTES = 4


_QUANTIZED = ("uint8", "uint16", "float16")


def _bad(where: str, what: str) -> ValueError:
    return ValueError(f"{where}: weightsManifest {what}")


def _parse_spec(w: Any, where: str, at: str) -> WeightSpec:
    """One manifest entry, checked: a name, a shape of non-negative integers, a dtype and a valid quantization."""
    if not isinstance(w, dict):
        raise _bad(where, f"entry {at} must be an object, but is {type(w).__name__}")
    name = w.get("name")
    if not isinstance(name, str) or not name:
        raise _bad(where, f"entry {at} has no name")
    shape = w.get("shape")
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
        raise _bad(where, f"weight '{name}' must have a shape that is a list of integers, but has {shape!r}")
    if any(d < 0 for d in shape):
        raise _bad(where, f"weight '{name}' has shape {fmt(shape)}: dims must not be negative")
    dtype = w.get("dtype")
    if not isinstance(dtype, str):
        raise _bad(where, f"weight '{name}' has no dtype")
    q = w.get("quantization")
    quant = None
    if q:
        if not isinstance(q, dict) or q.get("dtype") not in _QUANTIZED:
            raise ValueError(
                f"Weight '{name}' has unknown quantization {q!r}; supported quantization dtypes are "
                f"{', '.join(_QUANTIZED)}"
            )
        if q["dtype"] == "float16" and dtype != "float32":
            raise ValueError(
                f"Weight '{name}' is quantized with float16, which only holds float32, not {dtype}"
            )
        if q["dtype"] != "float16" and not all(isinstance(q.get(k), (int, float)) for k in ("scale", "min")):
            raise ValueError(
                f"Weight '{name}' is quantized with {q['dtype']} but has no numeric scale and min"
            )
        quant = Quantization(
            q["dtype"], float(q.get("scale", 1.0)), float(q.get("min", 0.0)), q.get("original_dtype", dtype)
        )
    return WeightSpec(name, tuple(shape), dtype, quant, w.get("group"))


def parse_manifest(manifest: Any, where: str) -> tuple[list[WeightSpec], list[str]]:
    """Weight specs and shard paths (in order) from a model.json weightsManifest; a ValueError naming the
    entry for anything malformed."""
    if not isinstance(manifest, list):
        raise ValueError(f"{where}: weightsManifest must be a list of groups")
    specs: list[WeightSpec] = []
    paths: list[str] = []
    for g, group in enumerate(manifest):
        if not isinstance(group, dict):
            raise _bad(where, f"group {g} must be an object, but is {type(group).__name__}")
        group_paths, weights = group.get("paths", []), group.get("weights", [])
        if not isinstance(group_paths, list) or not all(isinstance(p, str) for p in group_paths):
            raise _bad(
                where, f"group {g} must have 'paths' that is a list of strings, but has {group_paths!r}"
            )
        if not isinstance(weights, list):
            raise _bad(
                where, f"group {g} must have 'weights' that is a list, but has {type(weights).__name__}"
            )
        paths.extend(group_paths)
        specs.extend(_parse_spec(w, where, f"{g}.{i}") for i, w in enumerate(weights))
    return specs, paths


def parse_weight_specs(entries: Any, where: str) -> list[WeightSpec]:
    """WeightSpecs from a list of TF.js weight entries ({name, shape, dtype, quantization?, group?})."""
    if not isinstance(entries, list):
        raise ValueError(f"{where}: weight specs must be a list of {{name, shape, dtype}} entries")
    return [_parse_spec(w, where, str(i)) for i, w in enumerate(entries)]


def weight_specs_json(specs: Iterable[WeightSpec]) -> list[dict[str, Any]]:
    """TF.js weight entries for specs (the `weights` of a manifest group, or stored weightSpecs)."""
    out = []
    for s in specs:
        entry: dict[str, Any] = {"name": s.name, "shape": list(s.shape), "dtype": s.dtype}
        if s.group is not None:
            entry["group"] = s.group
        if s.quantization:
            q = s.quantization
            entry["quantization"] = {
                "dtype": q.dtype,
                "scale": q.scale,
                "min": q.min,
                "original_dtype": q.original_dtype,
            }
        out.append(entry)
    return out


def stored_bytes(spec: WeightSpec) -> int:
    """How many bytes a weight takes in the shards."""
    kind = spec.quantization.dtype if spec.quantization else spec.dtype
    if kind not in _STORED_BYTES:
        raise ValueError(f"Weight '{spec.name}' has unsupported dtype '{kind}'")
    return _STORED_BYTES[kind] * size_of(spec.shape)


def weight_nbytes(spec: WeightSpec, read: Callable[[int, int], bytes], offset: int) -> int:
    """How many bytes the weight starting at `offset` takes: its dtype's size, or for a string weight the
    lengths read(start, end) gives for each of its values."""
    if spec.dtype != "string" or spec.quantization:
        return stored_bytes(spec)
    at = offset
    for _ in range(size_of(spec.shape)):
        head = read(at, at + _STRING_LENGTH_BYTES)
        if len(head) < _STRING_LENGTH_BYTES:
            raise ValueError(f"Weight '{spec.name}' (string, shape {fmt(spec.shape)}) is cut short in the shards")
        at += _STRING_LENGTH_BYTES + int.from_bytes(head, "little")
    return at - offset


def _strings(spec: WeightSpec, raw: bytes) -> list[str]:
    out, at = [], 0
    for _ in range(size_of(spec.shape)):
        n = int.from_bytes(raw[at : at + _STRING_LENGTH_BYTES], "little")
        at += _STRING_LENGTH_BYTES
        try:
            out.append(raw[at : at + n].decode())
        except UnicodeDecodeError:
            raise ValueError(f"Weight '{spec.name}' holds string bytes that are not UTF-8") from None
        at += n
    return out


def _values(spec: WeightSpec, raw: bytes) -> array | list[str]:
    n = size_of(spec.shape)
    q = spec.quantization
    if q is None and spec.dtype == "string":
        return _strings(spec, raw)
    if q is None:
        if spec.dtype not in TYPECODE:
            raise ValueError(f"Weight '{spec.name}' has unsupported dtype '{spec.dtype}'")
        out = array(TYPECODE[spec.dtype])
        out.frombytes(raw)
        return out
    if q.dtype == "float16":
        vals: Any = struct.unpack(f"<{n}e", raw)
    else:
        codes = array("B" if q.dtype == "uint8" else "H")
        codes.frombytes(raw)
        scale, lo = q.scale, q.min
        vals = [c * scale + lo for c in codes]
    if spec.dtype == "int32":
        return array("i", [round(v) for v in vals])
    return array("f", vals)


def decode_weights(specs: Iterable[WeightSpec], data: bytes) -> dict[str, Tensor]:
    """Tensors for each spec, read in order from the concatenated shard bytes; frees them all on error."""
    out: dict[str, Tensor] = {}
    offset = 0
    try:
        for spec in specs:
            nbytes = weight_nbytes(spec, lambda a, b: data[a:b], offset)
            if offset + nbytes > len(data):
                raise ValueError(
                    f"Weight '{spec.name}' (shape {fmt(spec.shape)}) needs bytes {offset}..{offset + nbytes} but the "
                    f"weight shards hold only {len(data)} bytes (truncated or missing shard?)"
                )
            values = _values(spec, data[offset : offset + nbytes])
            offset += nbytes
            out[spec.name] = ENGINE.make_tensor(values, spec.shape, spec.dtype)
        if offset != len(data):
            raise ValueError(f"The weight shards hold {len(data)} bytes but the manifest describes {offset}")
    except Exception:
        for t in out.values():
            t.dispose()
        raise
    return out


def encode_weights(tensors: Mapping[str, Tensor]) -> tuple[list[WeightSpec], bytes]:
    """Specs and concatenated bytes for named tensors (unquantized), as model.save writes them."""
    specs, chunks = [], []
    for name, t in tensors.items():
        specs.append(WeightSpec(name, tuple(t.shape), t.dtype))
        if t.dtype == "string":
            chunks += [len(b).to_bytes(_STRING_LENGTH_BYTES, "little") + b for b in map(str.encode, t.data_sync())]
        else:
            chunks.append(t.data_sync().tobytes())
    return specs, b"".join(chunks)


def manifest_json(specs: Iterable[WeightSpec], path: str) -> list[dict[str, Any]]:
    """A one-shard weightsManifest for `specs`."""
    return [{"paths": [path], "weights": weight_specs_json(specs)}]
