"""Stochastic gradient descent (tfjs-core sgd_optimizer.ts): value -= learning_rate * gradient."""

from __future__ import annotations

from .optimizer import Optimizer


class SGDOptimizer(Optimizer):
    """Plain gradient descent; no slots."""

    class_name = "SGD"
    kernel = "ApplyGradientDescent"

    learning_rate: float

    def __init__(self, learning_rate: float) -> None:
        super().__init__()
        self.set_learning_rate(learning_rate)

    def set_learning_rate(self, learning_rate: float) -> None:
        """Use `learning_rate` from the next step on."""
        self.set_numbers(learning_rate=learning_rate)

    def scalars(self) -> dict[str, float]:
        return {"lr": self.learning_rate}


def sgd(learning_rate: float) -> SGDOptimizer:
    """tf.train.sgd(learning_rate)."""
    return SGDOptimizer(learning_rate)
