"""A graph run's kept intermediate tensors (TF.js's KEEP_INTERMEDIATE_TENSORS flag, for debugging models)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from ...environment import ENV
from ...ops.creation import clone
from ...tensor import Tensor

FLAG = "KEEP_INTERMEDIATE_TENSORS"


def keep_flag() -> bool:
    """The flag's value; a flag that is not a bool warns and reads as False, as in TF.js."""
    try:
        return ENV.get_bool(FLAG)
    except TypeError as e:
        warnings.warn(str(e), stacklevel=3)
        return False


class Intermediates:
    """Clones of a run's tensors by node name (weights, the sync path's inputs, every node it ran), each
    kept out of tidy scopes; they share their originals' data, so they add tensors but no bytes."""

    def __init__(self) -> None:
        self.tensors: dict[str, list[Tensor | None]] = {}

    def add(self, name: str, outs: Iterable[Tensor | None]) -> None:
        """Keep clones of one node's outputs (a dead output stays None)."""
        kept: list[Tensor | None] = []
        for t in outs:
            c = None if t is None else clone(t)
            if c is not None:
                c.kept = True
            kept.append(c)
        self.tensors[name] = kept

    def dispose(self) -> None:
        """Free every kept clone not disposed yet."""
        for outs in self.tensors.values():
            for t in outs:
                if t is not None and not t.is_disposed:
                    t.dispose()
        self.tensors = {}
