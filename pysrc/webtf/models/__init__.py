"""Models: graph models (converter format), layers models (imported on first use); io for loading and saving."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from . import io
from .graph import GraphModel, load_graph_model, load_graph_model_sync

__all__ = [
    "GraphModel",
    "LayersModel",
    "io",
    "load_graph_model",
    "load_layers_model",
    "load_graph_model_sync",
]


def __getattr__(name: str) -> Any:
    """LayersModel and load_layers_model: the layers package is imported when first asked for (see webtf._LAZY)."""
    if name in ("LayersModel", "load_layers_model"):
        return getattr(import_module(".layers", __name__), name)
    raise AttributeError(f"module 'webtf.models' has no attribute '{name}'")
