"""Mask propagation (TF.js computeMask), planned when the model is built: a mask is made from the input of the
layer that produces it (Masking, Embedding with mask_zero) by the layer that reads it (an RNN)."""

from __future__ import annotations

from typing import Any

from ...ops import binary
from ...tensor import Tensor
from .base import Layer

#: layers that carry their input's mask to their output (TF.js supportsMasking, default computeMask)
PASS_THROUGH = frozenset((
    "Dropout", "SpatialDropout1D", "Dense", "Activation", "ReLU", "PReLU", "GaussianNoise", "GaussianDropout",
    "AlphaDropout", "BatchNormalization", "LayerNormalization", "TimeDistributed",
))  # fmt: skip

#: (the layer that makes the mask, the reference of its input tensor)
MaskRef = tuple[Layer, Any]


def produces(layer: Layer) -> bool:
    """Whether the layer makes a mask from its input."""
    if layer.class_name == "Masking":
        return True
    return layer.class_name == "Embedding" and bool(layer.config.get("mask_zero", False))


def consumes(layer: Layer) -> bool:
    """Whether the layer's call reads kwargs['mask'] (the recurrent layers)."""
    return getattr(layer, "supports_masking", False) and hasattr(layer, "return_sequences")


def output_mask(layer: Layer, inputs: list[Any], in_mask: MaskRef | None) -> MaskRef | None:
    """The mask of the layer's first output, given the mask of its input; TF.js's error for a layer that
    cannot take one."""
    if produces(layer):
        return (layer, inputs[0])
    if in_mask is None:
        return None
    if consumes(layer):
        return in_mask if layer.return_sequences else None  # type: ignore[attr-defined]
    if layer.class_name in PASS_THROUGH or layer.class_name == "Masking":
        return in_mask
    raise layer.error("does not support masking, but was passed an input mask")


def make_mask(layer: Layer, x: Tensor) -> Tensor:
    """The bool mask a producing layer makes from its input."""
    if layer.class_name == "Masking":
        return layer.compute_mask(x)  # type: ignore[attr-defined]
    return binary.not_equal(x, 0)
