"""Momentum (tfjs-core momentum_optimizer.ts): accum = momentum * accum + gradient; value -= lr * accum, or
with use_nesterov value -= lr * (gradient + momentum * accum). Slot: `<name>/momentum`."""

from __future__ import annotations

from .sgd_optimizer import SGDOptimizer


class MomentumOptimizer(SGDOptimizer):
    """Gradient descent with momentum (optionally Nesterov's)."""

    class_name = "Momentum"
    slot_suffixes = ("momentum",)

    momentum: float

    def __init__(self, learning_rate: float, momentum: float, use_nesterov: bool = False) -> None:
        super().__init__(learning_rate)
        self.set_momentum(momentum)
        self.use_nesterov = bool(use_nesterov)
        self.kernel = "ApplyNesterovMomentum" if self.use_nesterov else "ApplyMomentum"

    def set_momentum(self, momentum: float) -> None:
        """Use `momentum` from the next step on."""
        self.set_numbers(momentum=momentum)

    def scalars(self) -> dict[str, float]:
        return {"lr": self.learning_rate, "momentum": self.momentum}


def momentum(learning_rate: float, momentum: float, use_nesterov: bool = False) -> MomentumOptimizer:
    """tf.train.momentum(learning_rate, momentum, use_nesterov=False)."""
    return MomentumOptimizer(learning_rate, momentum, use_nesterov)
