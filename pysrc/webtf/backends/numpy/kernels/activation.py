"""Activations on ndarrays, shared by the unary kernels and the fused kernels' epilogue (bias, activation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ....backend_util import apply_fused_activation


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)); exp overflows to inf, giving 0, as in float32 JS."""
    return 1 / (1 + np.exp(-x))


def elu(x: np.ndarray) -> np.ndarray:
    """x for x >= 0, exp(x) - 1 below (nan stays nan)."""
    return np.where(x >= 0, x, np.expm1(x))


def relu(x: np.ndarray) -> np.ndarray:
    """max(x, 0), nan kept."""
    return np.maximum(x, x.dtype.type(0))


def relu6(x: np.ndarray) -> np.ndarray:
    """min(max(x, 0), 6), nan kept."""
    return np.minimum(np.maximum(x, x.dtype.type(0)), x.dtype.type(6))


def leaky_relu(x: np.ndarray, alpha: float) -> np.ndarray:
    """x where x >= 0, alpha * x below."""
    return np.where(x < 0, x * x.dtype.type(alpha), x)


def prelu(x: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """x where x >= 0, alpha * x below, alpha broadcast against x."""
    return np.where(x < 0, x * alpha, x)


# the epilogue's own fresh result may be updated in place
_EPILOGUE_FNS: dict[str, Callable[..., np.ndarray]] = {
    "relu": lambda x: np.maximum(x, x.dtype.type(0), out=x),
    "relu6": lambda x: np.minimum(np.maximum(x, x.dtype.type(0), out=x), x.dtype.type(6), out=x),
    "elu": elu,
    "sigmoid": sigmoid,
    "leakyrelu": leaky_relu,
    "prelu": prelu,
}


def epilogue(
    x: np.ndarray, bias: Any, prelu_weights: Any, activation: str | None, leakyrelu_alpha: float
) -> np.ndarray:
    """The fused kernels' tail on their own fresh result `x` (updated in place where the dtypes allow): plus a
    bias broadcast to it, then the fused activation. The caller stores the result as the output dtype."""
    if bias is not None:
        if np.result_type(x, bias) == x.dtype:
            x += bias
        else:
            x = x + bias
    return apply_fused_activation(x, activation, _EPILOGUE_FNS, prelu_weights, leakyrelu_alpha)
