"""Weights: decode a manifest's bytes into tensors (dequantizing), and encode tensors back for saving."""

from __future__ import annotations

import struct
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

from ...dtypes import TYPECODE
from ...engine import ENGINE
from ...shapes import fmt, size_of
from ...tensor import Tensor
from .artifacts import Quantization, WeightSpec

_STORED_BYTES = {"float32": 4, "int32": 4, "bool": 1, "uint8": 1, "uint16": 2, "float16": 2}


def parse_manifest(manifest: Any, where: str) -> tuple[list[WeightSpec], list[str]]:
    """Weight specs and shard paths (in order) from a model.json weightsManifest."""
    if not isinstance(manifest, list):
        raise ValueError(f"{where}: weightsManifest must be a list of groups")
    specs: list[WeightSpec] = []
    paths: list[str] = []
    for group in manifest:
        paths.extend(group.get("paths", []))
        specs.extend(parse_weight_specs(group.get("weights", []), where))
    return specs, paths


def parse_weight_specs(entries: Any, where: str) -> list[WeightSpec]:
    """WeightSpecs from a list of TF.js weight entries ({name, shape, dtype, quantization?, group?})."""
    if not isinstance(entries, list):
        raise ValueError(f"{where}: weight specs must be a list of {{name, shape, dtype}} entries")
    specs = []
    for w in entries:
        q = w.get("quantization")
        quant = None
        if q:
            quant = Quantization(
                q["dtype"],
                float(q.get("scale", 1.0)),
                float(q.get("min", 0.0)),
                q.get("original_dtype", w["dtype"]),
            )
        shape = tuple(int(d) for d in w["shape"])
        specs.append(WeightSpec(w["name"], shape, w["dtype"], quant, w.get("group")))
    return specs


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


def _values(spec: WeightSpec, raw: bytes) -> array:
    n = size_of(spec.shape)
    q = spec.quantization
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
            nbytes = stored_bytes(spec)
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
        chunks.append(t.data_sync().tobytes())
    return specs, b"".join(chunks)


def manifest_json(specs: Iterable[WeightSpec], path: str) -> list[dict[str, Any]]:
    """A one-shard weightsManifest for `specs`."""
    return [{"paths": [path], "weights": weight_specs_json(specs)}]
