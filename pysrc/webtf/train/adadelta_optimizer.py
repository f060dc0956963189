"""Adadelta (tfjs-core adadelta_optimizer.ts): steps scaled by the ratio of decaying RMS of past updates and
of past gradients. As in TF.js, a step uses the gradient accumulator from before it (TensorFlow's uses the
updated one). Slots: `<name>/accum_grad`, `<name>/accum_var`."""

from __future__ import annotations

from .optimizer import Optimizer


class AdadeltaOptimizer(Optimizer):
    """Adadelta; epsilon None takes the backend's epsilon() (1e-7 for float32) when made."""

    class_name = "Adadelta"
    kernel = "ApplyAdadelta"
    slot_suffixes = ("accum_grad", "accum_var")

    learning_rate: float
    rho: float
    epsilon: float

    def __init__(self, learning_rate: float, rho: float, epsilon: float | None = None) -> None:
        super().__init__()
        self.set_numbers(learning_rate=learning_rate, rho=rho, epsilon=epsilon)

    def scalars(self) -> dict[str, float]:
        return {"lr": self.learning_rate, "rho": self.rho, "epsilon": self.epsilon}


def adadelta(
    learning_rate: float = 0.001, rho: float = 0.95, epsilon: float | None = None
) -> AdadeltaOptimizer:
    """tf.train.adadelta(learning_rate=0.001, rho=0.95, epsilon=None)."""
    return AdadeltaOptimizer(learning_rate, rho, epsilon)
