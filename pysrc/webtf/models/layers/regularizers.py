"""tf.regularizers: penalties on a weight that training adds to the loss."""

from __future__ import annotations

from typing import Any

from ...ops import binary, reduce, unary
from ...tensor import Tensor
from .initializers import snake
from .weight_function import WeightFunction


class Regularizer(WeightFunction):
    """A penalty: __call__(weight) -> scalar tensor."""


class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x^2)."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1, self.l2 = float(l1), float(l2)

    def apply(self, x: Tensor) -> Tensor:
        terms = []
        if self.l1:
            terms.append(binary.mul(reduce.sum(unary.abs(x)), self.l1))
        if self.l2:
            terms.append(binary.mul(reduce.sum(unary.square(x)), self.l2))
        if not terms:
            return reduce.sum(binary.mul(x, 0.0))
        return terms[0] if len(terms) == 1 else binary.add(terms[0], terms[1])

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}


def l1(l1: float = 0.01) -> L1L2:  # noqa: E741
    """L1 penalty (TF.js default 0.01)."""
    return L1L2(l1=l1)


def l2(l2: float = 0.01) -> L1L2:
    """L2 penalty (TF.js default 0.01)."""
    return L1L2(l2=l2)


def l1l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:
    """L1 plus L2 penalty (TF.js defaults 0.01 each)."""
    return L1L2(l1, l2)


def get(identifier: Any) -> Regularizer | None:
    """A regularizer from None, a name ('l1', 'l2', 'l1l2'), a Keras {class_name, config} entry or a
    Regularizer."""
    if identifier is None or isinstance(identifier, Regularizer):
        return identifier
    config: dict[str, Any] = {}
    if isinstance(identifier, dict):
        config = {snake(k): v for k, v in (identifier.get("config") or {}).items()}
        identifier = identifier.get("class_name")
    key = snake(str(identifier)).replace("_", "")
    made = {"l1": l1, "l2": l2, "l1l2": l1l2}.get(key)
    if made is None:
        raise ValueError(f"Unknown regularizer '{identifier}' (known: l1, l2, l1l2)")
    if key == "l1l2" and isinstance(identifier, str) and identifier == "L1L2":
        return L1L2(**config)
    return made(**config)
