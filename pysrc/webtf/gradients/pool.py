"""Gradients of MaxPool (kernel MaxPoolGrad) and AvgPool (kernel AvgPoolGrad)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import kernel_names as kn
from ..ops import backprop
from ..tensor import Tensor
from .registry import GradConfig, register_gradient


def _max_pool_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> dict[str, Callable[[], Tensor]]:
    x, y = saved
    return {
        "x": lambda: backprop.max_pool_grad(
            dy, x, y, attrs["filter_size"], attrs["strides"], attrs["pad"], attrs.get("dim_rounding_mode")
        )
    }


def _avg_pool_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> dict[str, Callable[[], Tensor]]:
    (x,) = saved
    return {
        "x": lambda: backprop.avg_pool_grad(
            dy, x, attrs["filter_size"], attrs["strides"], attrs["pad"], attrs.get("dim_rounding_mode")
        )
    }


register_gradient(
    GradConfig(
        kernel_name=kn.MaxPool, grad_func=_max_pool_grad, inputs_to_save=("x",), outputs_to_save=(True,)
    )
)
register_gradient(GradConfig(kernel_name=kn.AvgPool, grad_func=_avg_pool_grad, inputs_to_save=("x",)))
