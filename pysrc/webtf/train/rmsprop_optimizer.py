"""RMSProp (tfjs-core rmsprop_optimizer.ts): a decaying mean of squared gradients scales each step, with
momentum; `centered` also subtracts the square of a decaying mean gradient. Slots: `<name>/rms`,
`<name>/momentum` and, centered, `<name>/mg`."""

from __future__ import annotations

from .optimizer import Optimizer


class RMSPropOptimizer(Optimizer):
    """RMSProp; epsilon None takes the backend's epsilon() (1e-7 for float32) when made."""

    class_name = "RMSProp"

    learning_rate: float
    decay: float
    momentum: float
    epsilon: float

    def __init__(
        self,
        learning_rate: float,
        decay: float = 0.9,
        momentum: float = 0.0,
        epsilon: float | None = None,
        centered: bool = False,
    ) -> None:
        super().__init__()
        if learning_rate is None:
            raise ValueError("learningRate for RMSPropOptimizer must be defined.")
        self.set_numbers(learning_rate=learning_rate, decay=decay, momentum=momentum, epsilon=epsilon)
        self.centered = bool(centered)
        self.kernel = "ApplyCenteredRMSProp" if self.centered else "ApplyRMSProp"
        self.slot_suffixes = ("rms", "momentum", "mg") if self.centered else ("rms", "momentum")

    def scalars(self) -> dict[str, float]:
        return {
            "lr": self.learning_rate,
            "decay": self.decay,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
        }


def rmsprop(
    learning_rate: float,
    decay: float = 0.9,
    momentum: float = 0.0,
    epsilon: float | None = None,
    centered: bool = False,
) -> RMSPropOptimizer:
    """tf.train.rmsprop(learning_rate, decay=0.9, momentum=0.0, epsilon=None, centered=False)."""
    return RMSPropOptimizer(learning_rate, decay, momentum, epsilon, centered)
