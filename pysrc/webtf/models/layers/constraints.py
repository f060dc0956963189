"""tf.constraints: projections applied to a weight after each optimizer step."""

from __future__ import annotations

from typing import Any

from ...ops import binary, reduce, unary
from ...tensor import Tensor
from .initializers import from_identifier
from .weight_function import WeightFunction

EPSILON = 1e-7  # TF.js's backend epsilon() in float32


def _norms(x: Tensor, axis: Any) -> Tensor:
    return unary.sqrt(reduce.sum(unary.square(x), axis, True))


class Constraint(WeightFunction):
    """__call__(weight) -> the projected weight (a new tensor)."""


class MaxNorm(Constraint):
    """Scale down the slices along `axis` whose L2 norm exceeds max_value."""

    def __init__(self, max_value: float = 2.0, axis: int | list[int] = 0) -> None:
        self.max_value, self.axis = float(max_value), axis

    def apply(self, x: Tensor) -> Tensor:
        norms = _norms(x, self.axis)
        desired = unary.clip_by_value(norms, 0.0, self.max_value)
        return binary.mul(x, binary.div(desired, binary.add(norms, EPSILON)))


class UnitNorm(Constraint):
    """Slices along `axis` scaled to unit L2 norm."""

    def __init__(self, axis: int | list[int] = 0) -> None:
        self.axis = axis

    def apply(self, x: Tensor) -> Tensor:
        return binary.div(x, binary.add(_norms(x, self.axis), EPSILON))


class NonNeg(Constraint):
    """Negative values set to zero."""

    def apply(self, x: Tensor) -> Tensor:
        return unary.relu(x)


class MinMaxNorm(Constraint):
    """Norms along `axis` moved (at `rate`) into [min_value, max_value]."""

    def __init__(
        self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: int | list[int] = 0
    ) -> None:
        self.min_value, self.max_value, self.rate, self.axis = (
            float(min_value),
            float(max_value),
            float(rate),
            axis,
        )

    def apply(self, x: Tensor) -> Tensor:
        norms = _norms(x, self.axis)
        clipped = unary.clip_by_value(norms, self.min_value, self.max_value)
        desired = binary.add(binary.mul(clipped, self.rate), binary.mul(norms, 1.0 - self.rate))
        return binary.mul(x, binary.div(desired, binary.add(norms, EPSILON)))


CONSTRAINTS = {"max_norm": MaxNorm, "unit_norm": UnitNorm, "non_neg": NonNeg, "min_max_norm": MinMaxNorm}


def max_norm(max_value: float = 2.0, axis: int | list[int] = 0) -> MaxNorm:
    """tf.constraints.maxNorm."""
    return MaxNorm(max_value, axis)


def unit_norm(axis: int | list[int] = 0) -> UnitNorm:
    """tf.constraints.unitNorm."""
    return UnitNorm(axis)


def non_neg() -> NonNeg:
    """tf.constraints.nonNeg."""
    return NonNeg()


def min_max_norm(
    min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: int | list[int] = 0
) -> MinMaxNorm:
    """tf.constraints.minMaxNorm."""
    return MinMaxNorm(min_value, max_value, rate, axis)


def get(identifier: Any) -> Constraint | None:
    """A constraint from None, a name ('max_norm', 'maxNorm', 'nonNeg'), a Keras {class_name, config} entry or
    a Constraint."""
    if identifier is None or isinstance(identifier, Constraint):
        return identifier
    return from_identifier(identifier, CONSTRAINTS, "constraint")
