"""What a model file holds once loaded: topology, weight specs and the concatenated weight bytes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Quantization:
    """How a weight is quantized in the file: uint8/uint16 with scale and min, or float16."""

    dtype: str
    scale: float = 1.0
    min: float = 0.0
    original_dtype: str = "float32"


@dataclass(frozen=True)
class WeightSpec:
    """One entry of a weights manifest: name, shape, dtype, optional quantization, group ('optimizer')."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    quantization: Quantization | None = None
    group: str | None = None


@dataclass
class ModelArtifacts:
    """TF.js ModelArtifacts: model.json's fields plus the weight bytes of all shards, in manifest order."""

    model_topology: Any
    weight_specs: list[WeightSpec] = field(default_factory=list)
    weight_data: bytes = b""
    format: str | None = None
    generated_by: str | None = None
    converted_by: str | None = None
    signature: dict[str, Any] | None = None
    user_defined_metadata: dict[str, Any] | None = None
    model_initializer: Any = None
    training_config: Any = None
    extra: dict[str, Any] = field(default_factory=dict)  # other model.json fields (initializerSignature)


@dataclass(frozen=True)
class ModelArtifactsInfo:
    """What a save reports and list_models lists (TF.js ModelArtifactsInfo)."""

    date_saved: datetime
    model_topology_type: str = "JSON"
    model_topology_bytes: int = 0
    weight_specs_bytes: int = 0
    weight_data_bytes: int = 0
