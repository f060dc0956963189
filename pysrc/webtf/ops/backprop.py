"""Backward ops the gradients are made of (TF.js's internal conv2DBackpropFilter, ...): one kernel each.

Not re-exported (`__all__` is empty): the gradient configs in webtf.gradients import them. Inputs are
NHWC and rank 4 (rank 3 without a batch where TF.js takes it); every result is float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import kernel_names as kn
from ..backend_util import check_conv_args, compute_conv_info, compute_pool_info, parse_pair
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .cast import cast
from .conv import Pad, conv_attrs, normalize_pad, run_backprop_input, to_4d
from .op import TensorLike, convert_non_bool, op

__all__: list[str] = []


def _float(x: TensorLike, arg: str, name: str) -> Tensor:
    t = convert_non_bool(x, arg, name, "float32")
    return t if t.dtype == "float32" else cast(t, "float32")


def _rank4(t: Tensor, arg: str, name: str) -> None:
    if t.rank != 4:
        raise ValueError(
            f"Error in {name}: {arg} must be rank 4, but got rank {t.rank} with shape {fmt(t.shape)}"
        )


def _shape4(shape: Sequence[int], arg: str, name: str) -> tuple[int, ...]:
    out = tuple(int(d) for d in shape)
    if len(out) != 4 or min(out) < 0:
        raise ValueError(f"Error in {name}: {arg} must be 4 non-negative sizes, but got {list(shape)!r}")
    return out


def _check_dy(dy: Tensor, expected: tuple[int, ...], name: str, what: str) -> None:
    if dy.shape != tuple(expected):
        raise ValueError(
            f"Error in {name}: dy of shape {fmt(dy.shape)} does not match the output shape {fmt(expected)} "
            f"of the forward {what}"
        )


def _check_channels(value: int, expected: int, name: str, what: str) -> None:
    if value != expected:
        raise ValueError(f"Error in {name}: {what} ({value}) must match {expected}")


def _conv_backprop_attrs(
    strides: Any, pad: Pad, dilations: Any, dim_rounding_mode: str | None, name: str
) -> dict[str, Any]:
    attrs = conv_attrs(strides, pad, "NHWC", dilations, dim_rounding_mode, name)
    del attrs["data_format"]
    return attrs


@op
def conv2d_backprop_filter(
    x: TensorLike,
    dy: TensorLike,
    filter_shape: Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
    data_format: str = "NHWC",
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """The gradient of conv2d(x, filter) w.r.t. a filter of filter_shape, given dy (kernel Conv2DBackpropFilter)."""
    name = "conv2d_backprop_filter"
    x4, dy4 = to_4d(_float(x, "x", name), name), to_4d(_float(dy, "dy", name), name, "dy")
    shape = _shape4(filter_shape, "filter_shape", name)
    attrs = conv_attrs(strides, pad, data_format, 1, dim_rounding_mode, name)
    _check_channels(x4.shape[3], shape[2], name, "depth of x")
    _check_channels(dy4.shape[3], shape[3], name, "depth of dy")
    info = compute_conv_info(
        x4.shape, shape, attrs["strides"], 1, attrs["pad"], dim_rounding_mode, False, name
    )
    _check_dy(dy4, info.out_shape, name, "conv2d")
    attrs["filter_shape"] = shape
    return ENGINE.run_kernel(kn.Conv2DBackpropFilter, {"x": x4, "dy": dy4}, attrs)


@op
def conv2d_backprop_input(
    x_shape: Sequence[int],
    dy: TensorLike,
    filter: TensorLike,
    strides: int | Sequence[int],
    pad: Pad,
    data_format: str = "NHWC",
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """The gradient of conv2d(x, filter) w.r.t. an x of x_shape, given dy (kernel Conv2DBackpropInput)."""
    name = "conv2d_backprop_input"
    tdy, f = _float(dy, "dy", name), _float(filter, "filter", name)
    dy4 = to_4d(tdy, name, "dy")
    shape = tuple(int(d) for d in x_shape)
    shape4 = _shape4((1, *shape) if len(shape) == 3 and tdy.rank == 3 else shape, "x_shape", name)
    _rank4(f, "filter", name)
    attrs = conv_attrs(strides, pad, data_format, 1, dim_rounding_mode, name)
    _check_channels(shape4[3], f.shape[2], name, "depth of x_shape")
    _check_channels(dy4.shape[3], f.shape[3], name, "depth of dy")
    info = compute_conv_info(
        shape4, f.shape, attrs["strides"], 1, attrs["pad"], dim_rounding_mode, False, name
    )
    _check_dy(dy4, info.out_shape, name, "conv2d")
    return run_backprop_input(dy4, f, shape4, attrs, tdy)


@op
def depthwise_conv2d_native_backprop_filter(
    x: TensorLike,
    dy: TensorLike,
    filter_shape: Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
    dilations: int | Sequence[int] = 1,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """The gradient of depthwise_conv2d w.r.t. its filter (kernel DepthwiseConv2dNativeBackpropFilter)."""
    name = "depthwise_conv2d_native_backprop_filter"
    x4, dy4 = to_4d(_float(x, "x", name), name), to_4d(_float(dy, "dy", name), name, "dy")
    shape = _shape4(filter_shape, "filter_shape", name)
    attrs = _conv_backprop_attrs(strides, pad, dilations, dim_rounding_mode, name)
    _check_channels(x4.shape[3], shape[2], name, "depth of x")
    info = compute_conv_info(
        x4.shape, shape, attrs["strides"], attrs["dilations"], attrs["pad"], dim_rounding_mode, True, name
    )
    _check_dy(dy4, info.out_shape, name, "depthwise_conv2d")
    attrs["filter_shape"] = shape
    return ENGINE.run_kernel(kn.DepthwiseConv2dNativeBackpropFilter, {"x": x4, "dy": dy4}, attrs)


@op
def depthwise_conv2d_native_backprop_input(
    x_shape: Sequence[int],
    dy: TensorLike,
    filter: TensorLike,
    strides: int | Sequence[int],
    pad: Pad,
    dilations: int | Sequence[int] = 1,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """The gradient of depthwise_conv2d w.r.t. an x of x_shape (kernel DepthwiseConv2dNativeBackpropInput)."""
    name = "depthwise_conv2d_native_backprop_input"
    dy4, f = to_4d(_float(dy, "dy", name), name, "dy"), _float(filter, "filter", name)
    shape = _shape4(x_shape, "x_shape", name)
    _rank4(f, "filter", name)
    attrs = _conv_backprop_attrs(strides, pad, dilations, dim_rounding_mode, name)
    _check_channels(shape[3], f.shape[2], name, "depth of x_shape")
    info = compute_conv_info(
        shape, f.shape, attrs["strides"], attrs["dilations"], attrs["pad"], dim_rounding_mode, True, name
    )
    _check_dy(dy4, info.out_shape, name, "depthwise_conv2d")
    attrs["input_shape"] = shape
    return ENGINE.run_kernel(kn.DepthwiseConv2dNativeBackpropInput, {"dy": dy4, "filter": f}, attrs)


def _pool_grad_attrs(
    dy: Tensor, x: Tensor, filter_size: Any, strides: Any, pad: Any, dim_rounding_mode: str | None, name: str
) -> dict[str, Any]:
    _rank4(x, "input", name)
    _rank4(dy, "dy", name)
    check_conv_args(name, strides, 1, pad, dim_rounding_mode)
    attrs = {
        "filter_size": parse_pair(filter_size, name, "filter_size"),
        "strides": parse_pair(strides, name, "strides"),
        "pad": normalize_pad(pad),
        "dim_rounding_mode": dim_rounding_mode,
    }
    info = compute_pool_info(
        x.shape, attrs["filter_size"], attrs["strides"], attrs["pad"], dim_rounding_mode, 1, name
    )
    _check_dy(dy, info.out_shape, name, "pool")
    return attrs


@op
def max_pool_grad(
    dy: TensorLike,
    input: TensorLike,
    output: TensorLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Any,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """The gradient of max_pool(input) = output given dy: dy goes to each window's first maximum (MaxPoolGrad)."""
    name = "max_pool_grad"
    tdy, x, y = _float(dy, "dy", name), _float(input, "input", name), _float(output, "output", name)
    attrs = _pool_grad_attrs(tdy, x, filter_size, strides, pad, dim_rounding_mode, name)
    if y.shape != tdy.shape:
        raise ValueError(f"Error in {name}: output of shape {fmt(y.shape)} must match dy's {fmt(tdy.shape)}")
    return ENGINE.run_kernel(kn.MaxPoolGrad, {"dy": tdy, "input": x, "output": y}, attrs)


@op
def avg_pool_grad(
    dy: TensorLike,
    input: TensorLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Any,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """The gradient of avg_pool(input) given dy: each window's dy spread over its in-bounds elements (AvgPoolGrad)."""
    name = "avg_pool_grad"
    tdy, x = _float(dy, "dy", name), _float(input, "input", name)
    attrs = _pool_grad_attrs(tdy, x, filter_size, strides, pad, dim_rounding_mode, name)
    return ENGINE.run_kernel(kn.AvgPoolGrad, {"dy": tdy, "input": x}, attrs)


def _resize_grad(
    kernel: str, name: str, images: TensorLike, dy: TensorLike, align: bool, half: bool
) -> Tensor:
    x = convert_non_bool(images, "images", name)
    tdy = _float(dy, "dy", name)
    _rank4(x, "images", name)
    _rank4(tdy, "dy", name)
    if (tdy.shape[0], tdy.shape[3]) != (x.shape[0], x.shape[3]):
        raise ValueError(
            f"Error in {name}: dy of shape {fmt(tdy.shape)} must have the batch and channels of images "
            f"{fmt(x.shape)}"
        )
    attrs = {"align_corners": bool(align), "half_pixel_centers": bool(half)}
    return ENGINE.run_kernel(kernel, {"images": x, "dy": tdy}, attrs)


@op
def resize_bilinear_grad(
    images: TensorLike, dy: TensorLike, align_corners: bool = False, half_pixel_centers: bool = False
) -> Tensor:
    """The gradient of resize_bilinear(images) given dy, of images' shape (kernel ResizeBilinearGrad)."""
    return _resize_grad(
        kn.ResizeBilinearGrad, "resize_bilinear_grad", images, dy, align_corners, half_pixel_centers
    )


@op
def resize_nearest_neighbor_grad(
    images: TensorLike, dy: TensorLike, align_corners: bool = False, half_pixel_centers: bool = False
) -> Tensor:
    """The gradient of resize_nearest_neighbor(images) given dy (kernel ResizeNearestNeighborGrad)."""
    return _resize_grad(
        kn.ResizeNearestNeighborGrad, "resize_nearest_neighbor_grad", images, dy, align_corners,
        half_pixel_centers,
    )  # fmt: skip


@op
def elu_grad(dy: TensorLike, y: TensorLike) -> Tensor:
    """The gradient of y = elu(x) given dy: dy where y >= 0, dy * (y + 1) below (kernel EluGrad)."""
    name = "elu_grad"
    tdy, ty = _float(dy, "dy", name), _float(y, "y", name)
    if tdy.shape != ty.shape:
        raise ValueError(f"Error in {name}: dy of shape {fmt(tdy.shape)} must match y's {fmt(ty.shape)}")
    return ENGINE.run_kernel(kn.EluGrad, {"dy": tdy, "y": ty}, {})
