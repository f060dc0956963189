"""Model IO (TF.js tf.io): artifacts, weight (de)serialization, and load/save handlers."""

from __future__ import annotations

from .artifacts import ModelArtifacts, WeightSpec
from .handlers import IOHandler, from_memory, get_load_handler, with_save_handler
from .weights import decode_weights, encode_weights

__all__ = [
    "IOHandler",
    "ModelArtifacts",
    "WeightSpec",
    "decode_weights",
    "encode_weights",
    "from_memory",
    "get_load_handler",
    "with_save_handler",
]
