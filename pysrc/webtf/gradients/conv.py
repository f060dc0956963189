"""Gradients of the convolutions: Conv2D, Conv2DBackpropInput (conv2d_transpose), DepthwiseConv2dNative,
FusedConv2D and FusedDepthwiseConv2D (bias and activation too), made of the backward ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ops import backprop, fused
from ..ops.conv import conv2d
from ..tensor import Tensor
from .activation import fused_dy, reduce_to_shape
from .registry import GradConfig, register_gradient

Thunks = dict[str, Callable[[], Tensor]]


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
        # saved: x, filter, [bias], [prelu weights] (absent ones may be None or left out), then the output
        x, f, *extra, y = saved
        extra = [t for t in extra if t is not None]
        activation = attrs.get("activation") or "linear"
        prelu = extra.pop() if activation == "prelu" and extra else None
        bias = extra[0] if extra else None

        def pre_activation() -> Tensor:
            return forward(
                x, f, attrs["strides"], attrs["pad"], "NHWC", attrs.get("dilations") or 1,
                attrs.get("dim_rounding_mode"), bias=bias,
            )  # fmt: skip

        dz, dprelu = fused_dy(dy, y, attrs, pre_activation, prelu)
        thunks = _conv_thunks(dz, x, f, attrs, depthwise)
        if bias is not None:
            thunks["bias"] = lambda: reduce_to_shape(dz, bias.shape)
        if dprelu is not None:
            thunks["prelu_activation_weights"] = lambda: dprelu
        return thunks

    return grad


for _config in (
    GradConfig(kernel_name="Conv2D", grad_func=_conv2d_grad, inputs_to_save=("x", "filter")),
    GradConfig(
        kernel_name="DepthwiseConv2dNative", grad_func=_depthwise_grad, inputs_to_save=("x", "filter")
    ),
    GradConfig(
        kernel_name="Conv2DBackpropInput",
        grad_func=_conv2d_backprop_input_grad,
        inputs_to_save=("dy", "filter"),
    ),
    GradConfig(
        kernel_name="FusedConv2D",
        grad_func=_fused_grad(False),
        inputs_to_save=("x", "filter", "bias", "prelu_activation_weights"),
        outputs_to_save=(True,),
    ),
    GradConfig(
        kernel_name="FusedDepthwiseConv2D",
        grad_func=_fused_grad(True),
        inputs_to_save=("x", "filter", "bias", "prelu_activation_weights"),
        outputs_to_save=(True,),
    ),
):
    register_gradient(_config)
