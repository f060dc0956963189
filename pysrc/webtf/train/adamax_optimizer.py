"""Adamax (tfjs-core adamax_optimizer.ts): Adam with an exponentially weighted infinity norm (u) in place of
v, and a learning rate decayed as lr / (1 + decay * (t - 1)). Slots: `<name>/m`, `<name>/v`."""

from __future__ import annotations

from .optimizer import Optimizer


class AdamaxOptimizer(Optimizer):
    """Adamax; epsilon None takes the backend's epsilon() (1e-7 for float32) when made. Unlike TF.js's,
    get_weights/set_weights work (iter, then the m and v slots)."""

    class_name = "Adamax"
    kernel = "ApplyAdaMax"
    slot_suffixes = ("m", "v")

    learning_rate: float
    beta1: float
    beta2: float
    epsilon: float
    decay: float

    def __init__(
        self,
        learning_rate: float,
        beta1: float,
        beta2: float,
        epsilon: float | None = None,
        decay: float = 0.0,
    ) -> None:
        super().__init__()
        self.set_numbers(learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon, decay=decay)

    def scalars(self) -> dict[str, float]:
        t = self.iterations + 1
        rate = self.learning_rate / ((self.iterations * self.decay + 1.0) * (1.0 - self.beta1**t))
        return {"rate": rate, "beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}


def adamax(
    learning_rate: float = 0.002,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float | None = None,
    decay: float = 0.0,
) -> AdamaxOptimizer:
    """tf.train.adamax(learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=None, decay=0.0)."""
    return AdamaxOptimizer(learning_rate, beta1, beta2, epsilon, decay)
