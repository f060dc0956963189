"""Keras activations (TF.js tf.layers activation identifiers) as functions of a tensor."""

from __future__ import annotations

import math
from collections.abc import Callable

from ...ops import binary, unary
from ...ops.softmax import log_softmax, softmax
from ...tensor import Tensor

Activation = Callable[[Tensor], Tensor]


def _linear(x: Tensor) -> Tensor:
    return x


def _relu6(x: Tensor) -> Tensor:
    return unary.relu6(x)


def _hard_sigmoid(x: Tensor) -> Tensor:
    return unary.clip_by_value(binary.add(binary.mul(x, 0.2), 0.5), 0.0, 1.0)


def _softsign(x: Tensor) -> Tensor:
    return binary.div(x, binary.add(unary.abs(x), 1.0))


def _swish(x: Tensor) -> Tensor:
    return binary.mul(unary.sigmoid(x), x)


def _mish(x: Tensor) -> Tensor:
    return binary.mul(x, unary.tanh(unary.softplus(x)))


def _gelu(x: Tensor) -> Tensor:
    return binary.mul(binary.mul(x, 0.5), binary.add(unary.erf(binary.mul(x, 1 / math.sqrt(2))), 1.0))


def _gelu_new(x: Tensor) -> Tensor:
    cube = binary.mul(binary.mul(x, x), x)
    inner = binary.mul(binary.add(x, binary.mul(cube, 0.044715)), math.sqrt(2 / math.pi))
    return binary.mul(binary.mul(x, 0.5), binary.add(unary.tanh(inner), 1.0))


# keys are normalized: lower case without underscores (Keras writes hard_sigmoid, TF.js hardSigmoid)
ACTIVATIONS: dict[str, Activation] = {
    "linear": _linear,
    "relu": unary.relu,
    "relu6": _relu6,
    "elu": unary.elu,
    "selu": unary.selu,
    "sigmoid": unary.sigmoid,
    "hardsigmoid": _hard_sigmoid,
    "tanh": unary.tanh,
    "softmax": lambda x: softmax(x, -1),
    "logsoftmax": lambda x: log_softmax(x, -1),
    "softplus": unary.softplus,
    "softsign": _softsign,
    "swish": _swish,
    "silu": _swish,
    "mish": _mish,
    "gelu": _gelu,
    "gelunew": _gelu_new,
}
# activations the fused conv / matmul kernels apply themselves (same math as the separate op)
FUSED = {"linear": "linear", "relu": "relu", "relu6": "relu6", "elu": "elu", "sigmoid": "sigmoid"}


def normalize(name: str) -> str:
    """The registry key of an activation name."""
    return name.replace("_", "").lower()


def lookup(name: str) -> Activation | None:
    """The activation function called `name`, or None when unknown."""
    return ACTIVATIONS.get(normalize(name))
