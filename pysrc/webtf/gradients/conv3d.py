"""Gradients of the 3-D kernels: Conv3D, Conv3DBackpropInputV2 (conv3d_transpose), MaxPool3D and AvgPool3D,
made of the backward ops in ops/conv3d.py (conv1d goes through Conv2D's)."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as kn
from ..ops.conv3d import (
    avg_pool3d_grad,
    conv3d,
    conv3d_backprop_filter,
    conv3d_backprop_input,
    max_pool3d_grad,
)
from ..tensor import Tensor
from .registry import GradConfig, register_gradient
from .util import Thunks


def _conv3d_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, f = saved
    if tuple(attrs.get("dilations") or (1, 1, 1)) != (1, 1, 1):
        raise ValueError(
            "Error in gradient of Conv3D: dilation rates greater than 1 are not yet supported in gradients. "
            f"Got dilations {list(attrs['dilations'])}"
        )
    strides, pad = attrs["strides"], attrs["pad"]
    return {
        "x": lambda: conv3d_backprop_input(x.shape, dy, f, strides, pad),
        "filter": lambda: conv3d_backprop_filter(x, dy, f.shape, strides, pad),
    }


def _conv3d_backprop_input_grad(ddx: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    dy, f = saved
    strides, pad = attrs["strides"], attrs["pad"]
    return {
        "dy": lambda: conv3d(ddx, f, strides, pad),
        "filter": lambda: conv3d_backprop_filter(ddx, dy, f.shape, strides, pad),
    }


def _pool_args(attrs: dict[str, Any]) -> tuple[Any, ...]:
    return attrs["filter_size"], attrs["strides"], attrs["pad"], attrs.get("dim_rounding_mode")


def _max_pool3d_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, y = saved
    return {"x": lambda: max_pool3d_grad(dy, x, y, *_pool_args(attrs))}


def _avg_pool3d_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    return {"x": lambda: avg_pool3d_grad(dy, x, *_pool_args(attrs))}


for _config in (
    GradConfig(kernel_name=kn.Conv3D, grad_func=_conv3d_grad, inputs_to_save=("x", "filter")),
    GradConfig(
        kernel_name=kn.Conv3DBackpropInputV2,
        grad_func=_conv3d_backprop_input_grad,
        inputs_to_save=("dy", "filter"),
    ),
    GradConfig(
        kernel_name=kn.MaxPool3D, grad_func=_max_pool3d_grad, inputs_to_save=("x",), outputs_to_save=(True,)
    ),
    GradConfig(kernel_name=kn.AvgPool3D, grad_func=_avg_pool3d_grad, inputs_to_save=("x",)),
):
    register_gradient(_config)
