"""The base of the functions of one weight that layers apply: regularizers and constraints."""

from __future__ import annotations

from ...engine import ENGINE
from ...tensor import Tensor


class WeightFunction:
    """__call__(weight) runs apply(weight) in a tidy scope, which frees the intermediates of its ops."""

    def __call__(self, x: Tensor) -> Tensor:
        return ENGINE.tidy(lambda: self.apply(x))

    def apply(self, x: Tensor) -> Tensor:
        """The result, computed with ops (intermediates are freed by __call__)."""
        raise NotImplementedError
