"""Models: graph models (converter format), later layers models; io for loading and saving."""

from __future__ import annotations

from . import io
from .graph import GraphModel, load_graph_model, load_graph_model_sync
from .layers import LayersModel, load_layers_model

__all__ = ["GraphModel", "LayersModel", "io", "load_graph_model", "load_layers_model", "load_graph_model_sync"]
