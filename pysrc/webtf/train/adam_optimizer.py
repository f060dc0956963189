"""Adam (tfjs-core adam_optimizer.ts): decaying means of the gradient (m) and its square (v), bias-corrected
by 1 - beta ** t at step t. Slots: `<name>/m`, `<name>/v`."""

from __future__ import annotations

from .optimizer import Optimizer


class AdamOptimizer(Optimizer):
    """Adam; epsilon None takes the backend's epsilon() (1e-7 for float32) when made."""

    class_name = "Adam"
    kernel = "ApplyAdam"
    slot_suffixes = ("m", "v")

    learning_rate: float
    beta1: float
    beta2: float
    epsilon: float

    def __init__(
        self, learning_rate: float, beta1: float, beta2: float, epsilon: float | None = None
    ) -> None:
        super().__init__()
        self.set_numbers(learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon)

    def scalars(self) -> dict[str, float]:
        t = self.iterations + 1
        return {
            "lr": self.learning_rate,
            "beta1": self.beta1,
            "beta2": self.beta2,
            "epsilon": self.epsilon,
            "correction1": 1.0 - self.beta1**t,
            "correction2": 1.0 - self.beta2**t,
        }


def adam(
    learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, epsilon: float | None = None
) -> AdamOptimizer:
    """tf.train.adam(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=None)."""
    return AdamOptimizer(learning_rate, beta1, beta2, epsilon)
