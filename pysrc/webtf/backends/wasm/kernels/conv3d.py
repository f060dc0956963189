"""wasm kernels of the 3-D convs and pools (contracts: the cpu kernels in cpu/kernels/conv3d.py), on the
binary's exports for float32: Conv3D, AvgPool3D, AvgPool3DGrad (whose export divides by the full window, so
dy is first scaled where a window is clipped), Conv3DBackpropFilterV2 with strides 1, and with strides 1
Conv3DBackpropInputV2 as the Conv3D export of dy with the filter flipped (channels swapped).

MaxPool3D / MaxPool3DGrad start each window's maximum at FLT_MIN (the smallest positive float), so their
exports run only when x's minimum is above it (checked natively), else the cpu kernels do. The binary's other
3-D exports are wrong, so the rest run the cpu kernels: Conv3DBackpropInputV2 bounds the output depths of
each dx element by filter_depth / stride alone (its height and width add the window's corner), so most of
dx's depths come out 0 (hence Conv3D above, and the cpu kernel for strides above 1); Conv3DBackpropFilterV2's
first and last output positions per tap (a C++ truncating DivCeil, a DivFloor for a ceiling) are off when a
stride is above 1.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from typing import Any

from .... import kernel_names as kn
from ....backend_util import Conv3DInfo, conv3d_info_from_attrs, window_counts
from ...base import TensorInfo
from . import elementwise
from .common import Kernel, cpu, min_sum_above_flt_min, nonempty, with_fallbacks


def _conv_geometry(info: Conv3DInfo) -> tuple[int, ...]:
    """The conv exports' geometry arguments, batch to pad_left."""
    return (
        info.batch, *info.in_size, info.in_channels, *info.out_size, info.out_channels, *info.strides,
        *info.dilations, *info.filter_size, *info.pad_before,
    )  # fmt: skip


def _pool_geometry(info: Conv3DInfo) -> tuple[int, ...]:
    """The pool exports' geometry arguments, batch to pad_left."""
    eff = ((f - 1) * d + 1 for f, d in zip(info.filter_size, info.dilations, strict=True))
    return (
        info.batch, info.in_channels, *info.in_size, *info.out_size, *info.strides, *info.dilations, *eff,
        *info.pad_before,
    )  # fmt: skip


def _native(name: str, run: Callable[[Any, dict[str, Any], dict[str, Any]], TensorInfo]) -> Kernel:
    """run(backend, inputs, attrs) when every input is float32, the cpu kernel otherwise."""
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        if any(t.dtype != "float32" for t in inputs.values()):
            return fallback(backend, inputs, attrs)
        return run(backend, inputs, attrs)

    kernel.__doc__ = run.__doc__
    return kernel


def _output(
    backend: Any, shape: tuple[int, ...], call: Callable[[TensorInfo], None], *inputs: Any
) -> TensorInfo:
    """A float32 output of `shape` filled by call(out); zeros when an input is empty (the export never runs)."""
    if not all(nonempty(t.shape) for t in inputs):
        return backend.output(array("f", bytes(4 * math.prod(shape))), shape, "float32")
    out = backend.make_output(shape, "float32")
    if nonempty(shape):
        call(out)
    return out


def _conv3d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3D {x, filter}: the binary's Conv3D."""
    x, f = inputs["x"], inputs["filter"]
    info = conv3d_info_from_attrs(x.shape, f.shape, attrs)
    geo = _conv_geometry(info)
    return _output(backend, info.out_shape, lambda out: backend.abi.Conv3D(x, f, out, *geo), x, f)


def _conv3d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3DBackpropFilterV2 {x, dy}: the binary's Conv3DBackpropFilterV2 with strides 1, else the cpu's."""
    x, dy = inputs["x"], inputs["dy"]
    shape = tuple(int(d) for d in attrs["filter_shape"])
    info = conv3d_info_from_attrs(x.shape, shape, attrs)
    if info.strides != (1, 1, 1):
        return cpu(kn.Conv3DBackpropFilterV2)(backend, inputs, attrs)
    geo = _conv_geometry(info)
    return _output(backend, shape, lambda out: backend.abi.Conv3DBackpropFilterV2(x, dy, out, *geo), x, dy)


def _conv3d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3DBackpropInputV2 {dy, filter}: with strides 1, the Conv3D export of dy with the filter flipped on
    every spatial axis and its channels swapped (padding fd - 1 - pad_front, ...); else the cpu kernel."""
    dy, f = inputs["dy"], inputs["filter"]
    info = conv3d_info_from_attrs(tuple(int(d) for d in attrs["input_shape"]), f.shape, attrs)
    if info.strides != (1, 1, 1):
        return cpu(kn.Conv3DBackpropInputV2)(backend, inputs, attrs)
    fd, fh, fw, ci, co = f.shape
    fv, block = backend.values(f), ci * co
    flipped = array("f")
    for t in range(fd * fh * fw - 1, -1, -1):  # tap (a, b, c) takes the filter's (fd-1-a, fh-1-b, fw-1-c)
        taps = fv[t * block : (t + 1) * block]
        for j in range(co):
            flipped.extend(taps[j::co])
    g = backend.output(flipped, (fd, fh, fw, co, ci), "float32")
    pads = (w - 1 - p for w, p in zip(info.filter_size, info.pad_before, strict=True))
    geo = (info.batch, *info.out_size, co, *info.in_size, ci, 1, 1, 1, 1, 1, 1, *info.filter_size, *pads)
    try:
        return _output(backend, info.in_shape, lambda out: backend.abi.Conv3D(dy, g, out, *geo), dy, f)
    finally:
        backend.dispose_data(g.data_id)


def _window_counts(info: Conv3DInfo) -> list[list[int]]:
    """Per spatial axis, how many taps of each output position's window fall inside the input."""
    return [
        window_counts(out, stride, before, n, window)
        for n, out, window, stride, before in zip(
            info.in_size, info.out_size, info.filter_size, info.strides, info.pad_before, strict=True
        )
    ]


def _avg_pool3d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPool3D: the binary's AvgPool3D (the mean of each window's in-bounds elements)."""
    x = inputs["x"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    geo = _pool_geometry(info)
    return _output(backend, info.out_shape, lambda out: backend.abi.AvgPool3D(x, out, *geo), x)


def _avg_pool3d_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPool3DGrad {dy, input}: the binary's AvgPool3DGrad on dy scaled by window size / in-bounds count
    where a window is clipped."""
    x, dy = inputs["input"], inputs["dy"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    counts = _window_counts(info)
    full = math.prod(info.filter_size)
    factors = [
        full / (a * b * c) if a * b * c > 0 else 0.0 for a in counts[0] for b in counts[1] for c in counts[2]
    ]
    g, scale = dy, None
    if any(v != 1.0 for v in factors) and nonempty(dy.shape):
        scale = backend.output(array("f", factors), (1, *info.out_size, 1), "float32")
        g = elementwise.KERNELS[kn.Multiply](backend, {"a": dy, "b": scale}, {})
    geo = (*_pool_geometry(info), *info.filter_size)
    out = _output(backend, x.shape, lambda out: backend.abi.AvgPool3DGrad(g, out, *geo), x, dy)
    if scale is not None:
        for t in (scale, g):
            backend.dispose_data(t.data_id)
    return out


def _max_pool3d(name: str) -> Kernel:
    """MaxPool3D {x} (each window's maximum) or MaxPool3DGrad {dy, input, output} (dy to each window's last
    maximum): the binary's export where x's minimum is above FLT_MIN, else the cpu kernel."""
    fallback = cpu(name)
    grad = name == kn.MaxPool3DGrad

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["input"] if grad else inputs["x"]
        tensors = (x, inputs["dy"]) if grad else (x,)
        info = conv3d_info_from_attrs(x.shape, None, attrs)
        if (
            any(t.dtype != "float32" for t in tensors)
            or not nonempty(x.shape)
            or not nonempty(info.out_shape)
        ):
            return fallback(backend, inputs, attrs)
        # a window wholly in the padding has no maximum (-inf; no gradient), where the export gives FLT_MIN
        if min(sum(_window_counts(info), [])) <= 0 or not min_sum_above_flt_min(backend, x):
            return fallback(backend, inputs, attrs)
        geo = _pool_geometry(info)
        out = backend.make_output(x.shape if grad else info.out_shape, "float32")
        if grad:
            backend.abi.MaxPool3DGrad(x, inputs["dy"], out, *geo)
        else:
            backend.abi.MaxPool3D(x, out, *geo)
        return out

    kernel.__doc__ = _max_pool3d.__doc__
    return kernel


KERNELS: dict[str, Kernel] = with_fallbacks(
    {
        kn.Conv3D: _native(kn.Conv3D, _conv3d),
        kn.Conv3DBackpropInputV2: _native(kn.Conv3DBackpropInputV2, _conv3d_backprop_input),
        kn.Conv3DBackpropFilterV2: _native(kn.Conv3DBackpropFilterV2, _conv3d_backprop_filter),
        kn.AvgPool3D: _native(kn.AvgPool3D, _avg_pool3d),
        kn.AvgPool3DGrad: _native(kn.AvgPool3DGrad, _avg_pool3d_grad),
        kn.MaxPool3D: _max_pool3d(kn.MaxPool3D),
        kn.MaxPool3DGrad: _max_pool3d(kn.MaxPool3DGrad),
    }
)
