"""GLSL kernels Conv2D, FusedConv2D, DepthwiseConv2dNative, FusedDepthwiseConv2D, Conv2DBackpropInput,
MaxPool and AvgPool (NHWC). Each output loops over its own window (shaders/Conv2D.glsl, ...); a pointwise
Conv2D (1x1 filter, stride 1, no padding) is the product [pixels, in] x [in, out] (MatMulRows4.glsl), and
other float32 convs with out channels % 4 == 0 (depthwise: multiplier 1, channels % 4 == 0) run four pixels
per fragment (Conv2DX4.glsl, DepthwiseConv2dX4.glsl)."""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    ConvInfo,
    conv_info_from_attrs,
    conv_kernels,
    is_identity_pool,
    pool_info_from_attrs,
    pool_kernels,
)
from ...base import TensorInfo
from . import rows4
from .elementwise import _View
from .fused import Epilogue
from .gather import pad_v2, slice_
from .matmul import matmul_rows4, rows4_fits


def _geometry(info: ConvInfo) -> tuple[int, ...]:
    return (
        info.in_height, info.in_width, info.in_channels, info.out_height, info.out_width, info.out_channels,
        *info.window,
    )  # fmt: skip


def _conv(backend: Any, inputs: Any, attrs: dict[str, Any], depthwise: bool, fused: bool) -> TensorInfo:
    x, f = inputs["x"], inputs["filter"]
    info = conv_info_from_attrs(x.shape, f.shape, attrs, depthwise)
    epi = Epilogue(inputs if fused else {}, attrs if fused else {}, info.out_shape)
    int_out = x.dtype == "int32"
    ci, co = info.in_channels, info.out_channels
    pixels = info.out_shape[0] * info.out_height * info.out_width
    if not depthwise and info.window[:4] == (1, 1, 1, 1) and info.window[6:8] == (0, 0) and \
            (info.out_height, info.out_width) == (info.in_height, info.in_width) and \
            rows4_fits(backend, pixels, ci, co, x.dtype):  # fmt: skip
        a, b = _View(x.data_id, (pixels, ci), x.dtype), _View(f.data_id, (ci, co), f.dtype)
        return epi.finish(backend, matmul_rows4(backend, a, b, pixels, ci, co, epi, info.out_shape))
    kernel = "DepthwiseConv2dNative" if depthwise else "Conv2D"
    if (f.shape[3] == 1 and ci % 4 == 0 if depthwise else co % 4 == 0) and info.out_width >= 4 and \
            rows4.fits(backend, x.dtype):  # fmt: skip
        return epi.finish(backend, _conv_x4(backend, x, f, info, epi, depthwise))
    if depthwise:
        mult = f.shape[3]
        vec = mult == 1 and info.in_channels % 4 == 0
        defines = ["VEC"] if vec else []
        ints = (*_geometry(info), mult, *epi.ints)
    else:
        vec = info.out_channels % 4 == 0
        defines = [d for d, on in (("VEC", vec), ("CI4", info.in_channels % 4 == 0)) if on]
        ints = (*_geometry(info), *epi.ints)
    key = (kernel, tuple(defines), epi.key, int_out)
    prog = backend.programs.get(key)
    if prog is None:
        prog = backend.programs.build(key, kernel, ("X", "F", *epi.samplers), len(ints), 1,
                                      defines + epi.defines, int_output=int_out)  # fmt: skip
    out = backend.run(prog, (x, f, *epi.inputs), info.out_shape, x.dtype, ints, epi.floats)
    return epi.finish(backend, out)


def _conv_x4(backend: Any, x: Any, f: Any, info: ConvInfo, epi: Epilogue, depthwise: bool) -> TensorInfo:
    """Four output pixels per fragment: shaders/DepthwiseConv2dX4.glsl (multiplier 1, channels % 4 == 0) or
    shaders/Conv2DX4.glsl (out channels % 4 == 0)."""
    if depthwise:
        kernel, ints = "DepthwiseConv2dX4", (*_geometry(info), 1, *epi.ints)
        on = info.window[3] == 1 and info.window[5] == 1  # SLIDE: stride and dilation 1 along x
    else:
        kernel, ints = "Conv2DX4", (*_geometry(info), *epi.ints)
        on = info.in_channels % 4 == 0
    define = "SLIDE" if depthwise else "CI4"
    key = (kernel, on, epi.key)
    prog = backend.programs.get(key) or backend.programs.build(
        key, kernel, ("X", "F", *epi.samplers), len(ints), 1, ["MRT4", *([define] if on else []), *epi.defines]
    )
    b, oh, ow, co = info.out_shape
    return rows4.run4(backend, prog, (x, f, *epi.inputs), ints, epi.floats, co, ow, b * oh * ow, info.out_shape)


def _conv_out4(backend: Any, inputs: Any, attrs: dict[str, Any], depthwise: bool, fused: bool) -> TensorInfo:
    """Conv2D with out channels % 4 != 0 (e.g. a model's heads): the filter (and per-channel bias and prelu
    weights) padded with zero channels to a multiple of 4 so the 4-channels-per-fragment program runs, then
    the real channels sliced out. Other cases (depthwise included) go straight to _conv."""
    if depthwise:
        return _conv(backend, inputs, attrs, True, fused)
    f = inputs["filter"]
    co = f.shape[3]
    extra = inputs if fused else {}
    tails = [extra.get(k) for k in ("bias", "prelu_activation_weights")]
    if (
        co % 4 == 0
        or inputs["x"].dtype != "float32"
        or any(t is not None and t.size not in (1, co) for t in tails)
    ):
        return _conv(backend, inputs, attrs, False, fused)
    co4 = co + (-co) % 4
    temps: list[TensorInfo] = []

    def pad_last(t: Any) -> _View:
        pads = [[0, 0]] * (len(t.shape) - 1) + [[0, co4 - t.shape[-1]]]
        info = pad_v2(backend, {"x": t}, {"paddings": pads, "constant_value": 0})
        temps.append(info)
        return _View(info.data_id, info.shape, t.dtype)

    padded = dict(inputs)
    padded["filter"] = pad_last(f)
    for k in ("bias", "prelu_activation_weights"):
        t = extra.get(k)
        if t is not None and t.size == co:
            padded[k] = pad_last(_View(t.data_id, (co,), t.dtype))
    out = _conv(backend, padded, attrs, False, fused)
    temps.append(out)
    b, oh, ow, _ = out.shape
    res = slice_(
        backend,
        {"x": _View(out.data_id, out.shape, out.dtype)},
        {"begin": (0, 0, 0, 0), "size": (b, oh, ow, co)},
    )
    for t in temps:
        backend.temp(t)
    return res


def conv2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv2DBackpropInput: shaders/Conv2DBackpropInput.glsl."""
    dy, f = inputs["dy"], inputs["filter"]
    info = conv_info_from_attrs(tuple(attrs["input_shape"]), f.shape, attrs)
    fh, fw, ci, co = f.shape
    co4 = co % 4 == 0
    key = ("Conv2DBackpropInput", co4)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Conv2DBackpropInput", ("DY", "F"), 12, 0, ["CO4"] if co4 else []
    )
    ints = (
        info.in_height, info.in_width, ci, dy.shape[1], dy.shape[2], co, fh, fw,
        info.stride_height, info.stride_width, info.pad_top, info.pad_left,
    )  # fmt: skip
    return backend.run(prog, (dy, f), info.in_shape, "float32", ints)


def _pool(backend: Any, inputs: Any, attrs: dict[str, Any], is_max: bool) -> TensorInfo:
    """MaxPool / AvgPool (the mean of each window's in-bounds elements): shaders/Pool.glsl."""
    x = inputs["x"]
    info = pool_info_from_attrs(x.shape, attrs)
    if is_identity_pool(info):
        return TensorInfo(x.data_id, x.shape, x.dtype)
    vec = info.in_channels % 4 == 0
    int_out = x.dtype == "int32"
    key = ("Pool", is_max, vec, int_out)
    defines = ["MAX" if is_max else "AVG"] + (["VEC"] if vec else [])
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Pool", ("X",), 13, 0, defines, int_output=int_out
    )
    ints = (info.in_height, info.in_width, info.in_channels, info.out_height, info.out_width, *info.window)
    return backend.run(prog, (x,), info.out_shape, x.dtype, ints)


KERNELS = {
    **conv_kernels(_conv_out4),
    kn.Conv2DBackpropInput: conv2d_backprop_input,
    **pool_kernels(_pool),
}
