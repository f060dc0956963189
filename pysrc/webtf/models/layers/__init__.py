"""Layers models (TF.js tf.LayersModel): Keras JSON topology + weights, forward pass with webtf ops."""

from __future__ import annotations

from .base import LAYERS
from .model import LayersModel, TensorSpec, load_layers_model

__all__ = ["LAYERS", "LayersModel", "TensorSpec", "load_layers_model"]
