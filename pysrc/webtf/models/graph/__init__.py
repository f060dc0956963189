"""Graph models (TF.js converter format): parse, check, execute."""

from __future__ import annotations

from .model import GraphModel, load_graph_model, load_graph_model_sync

__all__ = ["GraphModel", "load_graph_model", "load_graph_model_sync"]
