"""TF.js's fused activations (the fused kernels' attr `activation`) and their dispatch, shared by the
backends: each passes its own element-wise functions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: the fused activations TF.js kernels accept (attr `activation`); None means "linear".
ACTIVATIONS = ("linear", "relu", "relu6", "elu", "prelu", "leakyrelu", "sigmoid")


def apply_fused_activation(
    x: Any,
    activation: str | None,
    fns: Mapping[str, Callable[..., Any]],
    prelu_weights: Any = None,
    leakyrelu_alpha: float = 0.2,
) -> Any:
    """x after the fused `activation` (None and 'linear': x itself), by the backend's `fns`: 'relu', 'relu6',
    'elu' and 'sigmoid' take x; 'leakyrelu' takes (x, alpha) and 'prelu' (x, prelu_weights)."""
    if activation is None or activation == "linear":
        return x
    if activation == "leakyrelu":
        return fns["leakyrelu"](x, leakyrelu_alpha)
    if activation == "prelu":
        if prelu_weights is None:
            raise ValueError("activation 'prelu' needs prelu weights")
        return fns["prelu"](x, prelu_weights)
    fn = fns.get(activation)
    if fn is None:
        raise ValueError(f"Unknown fused activation '{activation}'; expected one of {', '.join(ACTIVATIONS)}")
    return fn(x)
