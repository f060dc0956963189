"""Adagrad (tfjs-core adagrad_optimizer.ts): steps scaled by the root of the sum of squared gradients
(plus the backend's epsilon() at each step). Slot: `<name>/accumulator`, starting at
initial_accumulator_value."""

from __future__ import annotations

from ..engine import ENGINE
from .optimizer import Optimizer


class AdagradOptimizer(Optimizer):
    """Adagrad."""

    class_name = "Adagrad"
    kernel = "ApplyAdagrad"
    slot_suffixes = ("accumulator",)

    learning_rate: float
    initial_accumulator_value: float

    def __init__(self, learning_rate: float, initial_accumulator_value: float = 0.1) -> None:
        super().__init__()
        self.set_numbers(learning_rate=learning_rate, initial_accumulator_value=initial_accumulator_value)
        self.slot_initial_value = self.initial_accumulator_value

    def scalars(self) -> dict[str, float]:
        return {"lr": self.learning_rate, "epsilon": ENGINE.backend.epsilon()}


def adagrad(learning_rate: float, initial_accumulator_value: float = 0.1) -> AdagradOptimizer:
    """tf.train.adagrad(learning_rate, initial_accumulator_value=0.1)."""
    return AdagradOptimizer(learning_rate, initial_accumulator_value)
