"""ModelArtifacts as JSON: model.json (TF.js ModelJSON), the artifacts object browser storage keeps
(modelTopology + weightSpecs + metadata, camelCase), and the ModelArtifactsInfo a save reports."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from .artifacts import ModelArtifacts, ModelArtifactsInfo, WeightSpec
from .weights import manifest_json, parse_manifest, parse_weight_specs, weight_specs_json

# ModelArtifacts attribute -> its model.json key; other keys round-trip through ModelArtifacts.extra
_METADATA = (
    ("format", "format"),
    ("generated_by", "generatedBy"),
    ("converted_by", "convertedBy"),
    ("signature", "signature"),
    ("user_defined_metadata", "userDefinedMetadata"),
    ("model_initializer", "modelInitializer"),
    ("training_config", "trainingConfig"),
)
_PARTS = ("modelTopology", "weightsManifest", "weightSpecs", "weightData")


def metadata_json(artifacts: ModelArtifacts) -> dict[str, Any]:
    """The set metadata fields of artifacts, by their model.json keys."""
    out = {key: getattr(artifacts, attr) for attr, key in _METADATA if getattr(artifacts, attr) is not None}
    out.update(artifacts.extra)
    return out


def _artifacts(fields: dict[str, Any], specs: list[WeightSpec], weight_data: bytes) -> ModelArtifacts:
    known = {key for _, key in _METADATA}
    return ModelArtifacts(
        fields["modelTopology"],
        specs,
        weight_data,
        **{attr: fields.get(key) for attr, key in _METADATA},
        extra={k: v for k, v in fields.items() if k not in known and k not in _PARTS},
    )


def artifacts_from_json(model_json: Any, weight_data: bytes, where: str) -> ModelArtifacts:
    """ModelArtifacts from a parsed model.json and its concatenated shard bytes."""
    if not isinstance(model_json, dict) or "modelTopology" not in model_json:
        raise ValueError(f"{where}: model.json has no 'modelTopology'")
    specs, _ = parse_manifest(model_json.get("weightsManifest", []), where)
    return _artifacts(model_json, specs, weight_data)


def model_json_of(artifacts: ModelArtifacts, weights_path: str) -> dict[str, Any]:
    """The model.json dict for artifacts, with a one-shard manifest pointing at `weights_path`."""
    return {
        "modelTopology": artifacts.model_topology,
        **metadata_json(artifacts),
        "weightsManifest": manifest_json(artifacts.weight_specs, weights_path),
    }


def stored_json(artifacts: ModelArtifacts) -> dict[str, Any]:
    """The artifacts object (less weightData) as TF.js keeps it in IndexedDB."""
    return {
        "modelTopology": artifacts.model_topology,
        "weightSpecs": weight_specs_json(artifacts.weight_specs),
        **metadata_json(artifacts),
    }


def artifacts_from_stored(fields: Any, weight_data: bytes, where: str) -> ModelArtifacts:
    """ModelArtifacts from a stored artifacts object (TF.js's, or stored_json's) and its weight bytes."""
    if not isinstance(fields, dict) or fields.get("modelTopology") is None:
        raise ValueError(f"{where}: the stored model has no modelTopology")
    return _artifacts(fields, parse_weight_specs(fields.get("weightSpecs") or [], where), weight_data)


def json_text(value: Any) -> str:
    """Compact JSON, as JSON.stringify writes it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def artifacts_info(artifacts: ModelArtifacts) -> ModelArtifactsInfo:
    """Sizes of the topology and specs JSON and of the weights, dated now (as TF.js reports a save)."""
    return ModelArtifactsInfo(
        datetime.now(UTC),
        "JSON",
        len(json_text(artifacts.model_topology).encode()) if artifacts.model_topology is not None else 0,
        len(json_text(weight_specs_json(artifacts.weight_specs)).encode()),
        len(artifacts.weight_data),
    )


def info_json(info: ModelArtifactsInfo) -> dict[str, Any]:
    """ModelArtifactsInfo as TF.js stores it (dateSaved as an ISO string, as JSON.stringify writes a Date)."""
    return {
        "dateSaved": info.date_saved.astimezone(UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "modelTopologyType": info.model_topology_type,
        "modelTopologyBytes": info.model_topology_bytes,
        "weightSpecsBytes": info.weight_specs_bytes,
        "weightDataBytes": info.weight_data_bytes,
    }


def info_from_json(d: dict[str, Any]) -> ModelArtifactsInfo:
    """ModelArtifactsInfo from its stored form."""
    return ModelArtifactsInfo(
        datetime.fromisoformat(str(d["dateSaved"])),
        d.get("modelTopologyType", "JSON"),
        int(d.get("modelTopologyBytes") or 0),
        int(d.get("weightSpecsBytes") or 0),
        int(d.get("weightDataBytes") or 0),
    )
