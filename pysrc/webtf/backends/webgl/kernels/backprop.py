"""GLSL backward kernels: Conv2DBackpropFilter and DepthwiseConv2dNativeBackpropFilter
(shaders/ConvBackpropFilter.glsl), DepthwiseConv2dNativeBackpropInput, MaxPoolGrad and AvgPoolGrad
(PoolGrad.glsl), ResizeBilinearGrad and ResizeNearestNeighborGrad (ResizeGrad.glsl), EluGrad (Binary.glsl).

Contracts: the cpu kernels (backends/cpu/kernels/conv_grad.py, image_grad.py, unary.py). Each output element
gathers what the forward spread from it, so nothing is scattered; a filter gradient is first summed in parts
(over blocks of output rows) and the parts then reduced, so that many fragments share the long sum.
"""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    ConvInfo,
    conv_info_from_attrs,
    pool_info_from_attrs,
    resize_ratio,
)
from ...base import TensorInfo
from .common import size_of
from .elementwise import _View, binary, fill_value
from .reduce import reduce

#: about how many partial sums a filter gradient is split into, in all (at most one per output row)
_FILTER_GRAD_PARTS = 16384



def _geometry(info: ConvInfo, channels: int) -> tuple[int, ...]:
    """h, w, ci, oh, ow, channels, fh, fw, sh, sw, dh, dw, pt, pl."""
    return (
        info.in_height, info.in_width, info.in_channels, info.out_height, info.out_width, channels,
        info.filter_height, info.filter_width, info.stride_height, info.stride_width,
        info.dilation_height, info.dilation_width, info.pad_top, info.pad_left,
    )  # fmt: skip


def _filter_grad(backend: Any, inputs: Any, attrs: dict[str, Any], depthwise: bool) -> TensorInfo:
    x, dy = inputs["x"], inputs["dy"]
    shape = tuple(int(d) for d in attrs["filter_shape"])
    info = conv_info_from_attrs(tuple(x.shape), tuple(shape), attrs, depthwise)
    fsize, rows = size_of(shape), info.batch * info.out_height
    if fsize == 0 or rows == 0 or info.out_width == 0:
        return fill_value(backend, shape, "float32", 0)
    per = -(-rows // max(1, min(rows, -(-_FILTER_GRAD_PARTS // fsize))))
    parts = -(-rows // per)
    vec = shape[3] % 4 == 0
    defines = [d for d, on in (("VEC", vec), ("DEPTHWISE", depthwise)) if on]
    key = ("ConvBackpropFilter", vec, depthwise)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "ConvBackpropFilter", ("X", "DY"), 16, 0, defines
    )
    ints = (*_geometry(info, shape[3]), per, rows)
    partial = backend.run(prog, (x, dy), (parts, *shape), "float32", ints)
    if parts == 1:
        return TensorInfo(partial.data_id, shape, "float32")
    out = reduce(
        backend, _View(partial.data_id, (parts, fsize), "float32"), (0,), "SUM", "float32", shape, 0.0
    )
    backend.temp(partial)
    return out


def conv2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv2DBackpropFilter {x, dy}: df of attrs filter_shape."""
    return _filter_grad(backend, inputs, attrs, False)


def depthwise_conv2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthwiseConv2dNativeBackpropFilter {x, dy}: df [fh, fw, in, multiplier] of attrs filter_shape."""
    return _filter_grad(backend, inputs, attrs, True)


def depthwise_conv2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthwiseConv2dNativeBackpropInput {dy, filter}: dx of attrs input_shape."""
    dy, f = inputs["dy"], inputs["filter"]
    in_shape = tuple(int(d) for d in attrs["input_shape"])
    info = conv_info_from_attrs(tuple(in_shape), tuple(f.shape), attrs, True)
    m = f.shape[3]
    vec = m == 1 and info.in_channels % 4 == 0
    key = ("DepthwiseConv2dNativeBackpropInput", vec)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "DepthwiseConv2dNativeBackpropInput", ("DY", "F"), 14, 0, ["VEC"] if vec else []
    )
    return backend.run(prog, (dy, f), in_shape, "float32", _geometry(info, m))


def _pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any], is_max: bool) -> TensorInfo:
    x, dy = inputs["input"], inputs["dy"]
    info = pool_info_from_attrs(x.shape, attrs)
    vec = info.in_channels % 4 == 0
    key = ("PoolGrad", is_max, vec)
    prog = backend.programs.get(key) or backend.programs.build(
        key,
        "PoolGrad",
        ("DY", "X") if is_max else ("DY",),
        11,
        0,
        ["MAX" if is_max else "AVG"] + (["VEC"] if vec else []),
    )
    ints = (
        info.in_height, info.in_width, info.in_channels, info.out_height, info.out_width,
        info.filter_height, info.filter_width, info.stride_height, info.stride_width, info.pad_top, info.pad_left,
    )  # fmt: skip
    return backend.run(prog, (dy, x) if is_max else (dy,), x.shape, "float32", ints)


def max_pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MaxPoolGrad {dy, input, output}: each window's dy to its first maximum of input."""
    return _pool_grad(backend, inputs, attrs, True)


def avg_pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPoolGrad {dy, input}: each window's dy / its in-bounds count, over the window."""
    return _pool_grad(backend, inputs, attrs, False)


def _resize_grad(backend: Any, inputs: Any, attrs: dict[str, Any], bilinear: bool) -> TensorInfo:
    images, dy = inputs["images"], inputs["dy"]
    _, h, w, c = images.shape
    nh, nw = dy.shape[1], dy.shape[2]
    align, half = bool(attrs["align_corners"]), bool(attrs["half_pixel_centers"])
    vec = c % 4 == 0
    key = ("ResizeGrad", bilinear, vec)
    defines = [d for d, on in (("BILINEAR", bilinear), ("VEC", vec)) if on]
    prog = backend.programs.get(key) or backend.programs.build(key, "ResizeGrad", ("DY",), 11, 0, defines)
    ints = (h, w, c, nh, nw, int(half), int(align), *resize_ratio(h, nh, align), *resize_ratio(w, nw, align))
    return backend.run(prog, (dy,), images.shape, "float32", ints)


def resize_bilinear_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeBilinearGrad {images, dy}: dx of images' shape."""
    return _resize_grad(backend, inputs, attrs, True)


def resize_nearest_neighbor_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeNearestNeighborGrad {images, dy}: dx of images' shape."""
    return _resize_grad(backend, inputs, attrs, False)


def elu_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """EluGrad {dy, y}: dy where y >= 0, dy * (y + 1) below."""
    return binary(backend, inputs["dy"], inputs["y"], "EluGrad", "float32")


KERNELS = {
    kn.Conv2DBackpropFilter: conv2d_backprop_filter,
    kn.DepthwiseConv2dNativeBackpropFilter: depthwise_conv2d_backprop_filter,
    kn.DepthwiseConv2dNativeBackpropInput: depthwise_conv2d_backprop_input,
    kn.MaxPoolGrad: max_pool_grad,
    kn.AvgPoolGrad: avg_pool_grad,
    kn.ResizeBilinearGrad: resize_bilinear_grad,
    kn.ResizeNearestNeighborGrad: resize_nearest_neighbor_grad,
    kn.EluGrad: elu_grad,
}
