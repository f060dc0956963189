"""tf.layers: one factory per registered layer class, named in snake_case (tf.layers.dense(units=10, ...)).

The factories are made on lookup, so layer classes registered by any module get one.
"""

from __future__ import annotations

import difflib
from typing import Any

from .models.layers import api
from .models.layers.api import SymbolicTensor, input, snake_name  # noqa: A004
from .models.layers.base import LAYERS, Layer

__all__ = ["LAYERS", "Layer", "SymbolicTensor", "input", "snake_name"]


def __getattr__(name: str) -> Any:
    table = api.factories()
    class_name = table.get(name)
    if class_name is None:
        close = difflib.get_close_matches(name, list(table), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise AttributeError(f"tf.layers has no layer '{name}'{hint}")
    return api.factory(class_name)


def __dir__() -> list[str]:
    return sorted([*__all__, *api.factories()])
