"""GLSL kernels of the 3-D convs and pools (NDHWC; contracts: the cpu kernels in cpu/kernels/conv3d.py):
Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 (shaders/Conv3D.glsl), MaxPool3D, AvgPool3D and
their gradients (shaders/Pool3D.glsl). Each output element gathers over its own window: nothing scatters."""

from __future__ import annotations

from functools import partial
from typing import Any

from .... import kernel_names as kn
from ....backend_util import Conv3DInfo, conv3d_info_from_attrs, pool3d_kernels
from ...base import TensorInfo


def _conv_ints(info: Conv3DInfo) -> tuple[int, ...]:
    return (
        *info.in_size, info.in_channels, *info.out_size, info.out_channels, *info.filter_size, *info.strides,
        *info.dilations, *info.pad_before,
    )  # fmt: skip


def _conv(backend: Any, variant: str, samplers: tuple[str, ...], inputs: tuple, info: Conv3DInfo, shape: tuple,
          extra: tuple[int, ...] = ()) -> TensorInfo:  # fmt: skip
    ints = (*_conv_ints(info), *extra)
    key = ("Conv3D", variant)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Conv3D", samplers, len(ints), 0, [variant] if variant else []
    )
    return backend.run(prog, inputs, shape, "float32", ints)


def conv3d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3D: each output sums its window."""
    x, f = inputs["x"], inputs["filter"]
    info = conv3d_info_from_attrs(x.shape, f.shape, attrs)
    return _conv(backend, "", ("X", "F"), (x, f), info, info.out_shape)


def conv3d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3DBackpropInputV2: each dx element gathers dy over the windows holding it."""
    dy, f = inputs["dy"], inputs["filter"]
    info = conv3d_info_from_attrs(tuple(int(d) for d in attrs["input_shape"]), f.shape, attrs)
    return _conv(backend, "DX", ("DY", "F"), (dy, f), info, info.in_shape)


def conv3d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3DBackpropFilterV2: each filter element sums x under its tap times dy."""
    x, dy = inputs["x"], inputs["dy"]
    shape = tuple(int(d) for d in attrs["filter_shape"])
    info = conv3d_info_from_attrs(x.shape, shape, attrs)
    return _conv(backend, "DW", ("X", "DY"), (x, dy), info, shape, (info.batch,))


def _pool(backend: Any, inputs: Any, attrs: dict[str, Any], is_max: bool, grad: bool = False) -> TensorInfo:
    """MaxPool3D / AvgPool3D over {x}, or with grad their gradients over {dy, input}: shaders/Pool3D.glsl."""
    x = inputs["input"] if grad else inputs["x"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    ints = (
        *info.in_size,
        info.in_channels,
        *info.out_size,
        *info.filter_size,
        *info.strides,
        *info.pad_before,
    )
    defines = ["MAX" if is_max else "AVG"] + (["GRAD"] if grad else [])
    int_out = x.dtype == "int32" and is_max and not grad
    key = ("Pool3D", is_max, grad, int_out)
    samplers = ("X", "DY") if grad else ("X",)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Pool3D", samplers, len(ints), 0, defines, int_output=int_out
    )
    tensors = (x, inputs["dy"]) if grad else (x,)
    shape, dtype = (x.shape, "float32") if grad else (info.out_shape, x.dtype if is_max else "float32")
    return backend.run(prog, tensors, shape, dtype, ints)


KERNELS = {
    kn.Conv3D: conv3d,
    kn.Conv3DBackpropInputV2: conv3d_backprop_input,
    kn.Conv3DBackpropFilterV2: conv3d_backprop_filter,
    **pool3d_kernels(_pool, partial(_pool, grad=True)),
}
