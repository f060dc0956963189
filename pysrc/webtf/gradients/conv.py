"""Gradients of the convolutions: Conv2D, Conv2DBackpropInput (conv2d_transpose), DepthwiseConv2dNative,
FusedConv2D and FusedDepthwiseConv2D (bias and activation too), made of the backward ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import kernel_names as kn
from ..ops import backprop, fused
from ..ops.conv import conv2d
from ..tensor import Tensor
from .registry import GradConfig, register_gradient
from .util import Thunks, activation_grads, unbroadcast


def _no_dilation(attrs: dict[str, Any], kernel: str) -> None:
    dilations = attrs.get("dilations") or (1, 1)
    if tuple(dilations) != (1, 1):
        raise ValueError(
            f"Error in gradient of {kernel}: dilation rates greater than 1 are not yet supported in gradients. "
            f"Got dilations {list(dilations)}"
        )


def _conv_thunks(dy: Tensor, x: Tensor, f: Tensor, attrs: dict[str, Any], depthwise: bool) -> Thunks:
    strides, pad, mode = attrs["strides"], attrs["pad"], attrs.get("dim_rounding_mode")
    if depthwise:
        dil = attrs.get("dilations") or 1
        return {
            "x": lambda: backprop.depthwise_conv2d_native_backprop_input(
                x.shape, dy, f, strides, pad, dil, mode
            ),
            "filter": lambda: backprop.depthwise_conv2d_native_backprop_filter(
                x, dy, f.shape, strides, pad, dil, mode
            ),
        }
    _no_dilation(attrs, "Conv2D")
    return {
        "x": lambda: backprop.conv2d_backprop_input(x.shape, dy, f, strides, pad, "NHWC", mode),
        "filter": lambda: backprop.conv2d_backprop_filter(x, dy, f.shape, strides, pad, "NHWC", mode),
    }


def _conv2d_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, f = saved
    return _conv_thunks(dy, x, f, attrs, False)


def _depthwise_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, f = saved
    return _conv_thunks(dy, x, f, attrs, True)


def _conv2d_backprop_input_grad(ddx: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    dy, f = saved
    strides, pad, mode = attrs["strides"], attrs["pad"], attrs.get("dim_rounding_mode")
    return {
        "dy": lambda: conv2d(ddx, f, strides, pad, "NHWC", 1, mode),
        "filter": lambda: backprop.conv2d_backprop_filter(ddx, dy, f.shape, strides, pad, "NHWC", mode),
    }


def _fused_grad(depthwise: bool) -> Callable[[Tensor, list[Any], dict[str, Any]], Thunks]:
    forward = fused.depthwise_conv2d if depthwise else fused.conv2d

    def grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
        x, f, bias, prelu_weights, y = saved

        def pre_activation() -> Tensor:
            return forward(
                x, f, attrs["strides"], attrs["pad"], "NHWC", attrs.get("dilations") or 1,
                attrs.get("dim_rounding_mode"), bias=bias,
            )  # fmt: skip

        dz, dprelu = activation_grads(dy, attrs, pre_activation, y, prelu_weights)
        thunks = _conv_thunks(dz, x, f, attrs, depthwise)
        if bias is not None:
            thunks["bias"] = lambda: unbroadcast(dz, bias.shape)
        if dprelu is not None:
            thunks["prelu_activation_weights"] = lambda: dprelu
        return thunks

    return grad


for _config in (
    GradConfig(kernel_name=kn.Conv2D, grad_func=_conv2d_grad, inputs_to_save=("x", "filter")),
    GradConfig(
        kernel_name=kn.DepthwiseConv2dNative, grad_func=_depthwise_grad, inputs_to_save=("x", "filter")
    ),
    GradConfig(
        kernel_name=kn.Conv2DBackpropInput,
        grad_func=_conv2d_backprop_input_grad,
        inputs_to_save=("dy", "filter"),
    ),
    GradConfig(
        kernel_name=kn.FusedConv2D,
        grad_func=_fused_grad(False),
        inputs_to_save=("x", "filter", "bias", "prelu_activation_weights"),
        outputs_to_save=(True,),
    ),
    GradConfig(
        kernel_name=kn.FusedDepthwiseConv2D,
        grad_func=_fused_grad(True),
        inputs_to_save=("x", "filter", "bias", "prelu_activation_weights"),
        outputs_to_save=(True,),
    ),
):
    register_gradient(_config)
