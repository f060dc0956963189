"""wasm kernels for the heavy float32 work (XNNPACK): convolutions, matmuls, pooling, softmax.

Contracts: webtf.kernel_names. The binary runs float32 only, with a rank-1 bias of out_channels values and
per-channel prelu weights; other dtypes, broadcast biases and geometries XNNPACK computes differently (a
'ceil' rounding mode that adds an output row) go to the cpu kernels.
"""

from __future__ import annotations

import math
from typing import Any

from .... import kernel_names as kn
from ....backend_util import ConvInfo, conv_info_from_attrs, flipped_conv_pads, pool_info_from_attrs
from ....shapes import broadcast_shapes
from ...base import TensorInfo
from . import elementwise
from .common import Kernel, cpu, nonempty, with_fallback
from .reduce import transpose_info


def _implied_out(size: int, before: int, after: int, eff: int, stride: int) -> int:
    return (size + before + after - eff) // stride + 1 if size + before + after >= eff else 0


def xnn_geometry_ok(info: ConvInfo) -> bool:
    """True when XNNPACK, given info's explicit padding, produces exactly info's output size."""
    return info.out_height == _implied_out(
        info.in_height, info.pad_top, info.pad_bottom, info.effective_filter_height, info.stride_height
    ) and info.out_width == _implied_out(
        info.in_width, info.pad_left, info.pad_right, info.effective_filter_width, info.stride_width
    )


def per_channel(t: Any, channels: int, allow_scalar: bool) -> bool:
    """True for a float32 tensor holding one value per channel ([c], [1, .., c]), or one value in all."""
    if t is None:
        return True
    if t.dtype != "float32":
        return False
    core = t.shape
    while core and core[0] == 1:
        core = core[1:]
    return core == (channels,) or (not core and (allow_scalar or channels == 1))


def _conv_args(info: ConvInfo) -> tuple:
    # 'same' padding goes to XNNPACK as the explicit pads TF computes, never as its TENSORFLOW_SAME_PADDING
    # flag: that mode takes the total pad (out - 1) * stride + filter - in as unsigned, so when the stride
    # outgrows the filter and the total is negative (5x5 input, 3x3 filter, stride 5) it pads by ~2**31 and
    # every output is 0 (TF.js's wasm backend has the same bug). TF clamps the total at 0.
    pads = (info.pad_top, info.pad_right, info.pad_bottom, info.pad_left)
    return (info.filter_height, info.filter_width, *pads, False)


def _plain_conv(name: str, depthwise: bool) -> Kernel:
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x, f = inputs["x"], inputs["filter"]
        if x.dtype != "float32" or f.dtype != "float32":
            return fallback(backend, inputs, attrs)
        info = conv_info_from_attrs(x.shape, f.shape, attrs, depthwise)
        if not xnn_geometry_ok(info):
            return fallback(backend, inputs, attrs)
        out = backend.make_output(info.out_shape, "float32")
        if nonempty(info.out_shape):
            fh, fw, top, right, bottom, left, same = _conv_args(info)
            getattr(backend.abi, name)(
                x, info.batch, info.in_height, info.in_width, f, fh, fw, top, right, bottom, left, same,
                info.dilation_height, info.dilation_width, info.stride_height, info.stride_width,
                info.in_channels, info.out_channels, out,
            )  # fmt: skip
        return out

    kernel.__doc__ = f"{name} (NHWC, float32 natively through XNNPACK)."
    return kernel


def _fused_conv(name: str, depthwise: bool) -> Kernel:
    fallback = cpu(name)
    plain = _plain_conv(kn.DepthwiseConv2dNative if depthwise else kn.Conv2D, depthwise)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x, f = inputs["x"], inputs["filter"]
        bias, prelu = inputs.get("bias"), inputs.get("prelu_activation_weights")
        activation = attrs.get("activation") or "linear"
        if x.dtype != "float32" or f.dtype != "float32" or activation not in backend.abi_activations:
            return fallback(backend, inputs, attrs)
        info = conv_info_from_attrs(x.shape, f.shape, attrs, depthwise)
        c = info.out_channels
        if not xnn_geometry_ok(info):
            return fallback(backend, inputs, attrs)
        if not per_channel(bias, c, False) or (
            activation == "prelu" and (prelu is None or not per_channel(prelu, c, True))
        ):
            conv = plain(backend, {"x": x, "filter": f}, attrs)
            return epilogue(backend, conv, bias, prelu, activation, attrs.get("leakyrelu_alpha", 0.2))
        out = backend.make_output(info.out_shape, "float32")
        if nonempty(info.out_shape):
            fh, fw, top, right, bottom, left, same = _conv_args(info)
            getattr(backend.abi, name)(
                x, info.batch, info.in_height, info.in_width, f, fh, fw, bias, top, right, bottom, left,
                same, info.dilation_height, info.dilation_width, info.stride_height, info.stride_width,
                info.in_channels, c, activation, prelu if activation == "prelu" else None,
                attrs.get("leakyrelu_alpha", 0.2), out,
            )  # fmt: skip
        return out

    kernel.__doc__ = f"{name}: conv + bias + activation (float32 natively through XNNPACK)."
    return kernel


def conv2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv2DBackpropInput: float32 natively."""
    dy, f = inputs["dy"], inputs["filter"]
    if dy.dtype != "float32" or f.dtype != "float32":
        return cpu(kn.Conv2DBackpropInput)(backend, inputs, attrs)
    in_shape = tuple(int(d) for d in attrs["input_shape"])
    info = conv_info_from_attrs(in_shape, f.shape, attrs)
    if (info.out_height, info.out_width) != tuple(dy.shape[1:3]):
        return cpu(kn.Conv2DBackpropInput)(backend, inputs, attrs)
    if (info.stride_height, info.stride_width) == (1, 1) and nonempty(in_shape) and nonempty(dy.shape):
        out = _backprop_input_as_conv(backend, dy, f, info)
        if out is not None:
            return out
    out = backend.make_output(in_shape, "float32")
    if nonempty(in_shape) and nonempty(dy.shape):
        b, h, w, c = in_shape
        oh, ow, oc = dy.shape[1], dy.shape[2], dy.shape[3]
        fh, fw = info.filter_height, info.filter_width
        backend.abi.Conv2DBackpropInput(
            dy, f, b, fh, fw, h, w, c, oh, ow, oc, info.stride_height, info.stride_width,
            fh - 1 - info.pad_top, fw - 1 - info.pad_left, fw * c * oc, c * oc, oc,
            h * w * c, w * c, c, 1, oh * ow * oc, ow * oc, oc, 1, out,
        )  # fmt: skip
    elif nonempty(in_shape):
        out = backend.output(_zeros(in_shape), in_shape, "float32")
    return out


def _backprop_input_as_conv(backend: Any, dy: Any, f: Any, info: ConvInfo) -> TensorInfo | None:
    """A stride-1 Conv2DBackpropInput as XNNPACK's Conv2D of dy with the filter flipped spatially and its
    channels swapped (far faster than the binary's scalar loop), or None when the padding that needs is
    negative."""
    pads = flipped_conv_pads(info)
    if pads is None:
        return None
    top, bottom, left, right = pads
    fh, fw, ci, co = f.shape
    flipped, temps = f, []
    axes = tuple(a for a in (0, 1) if f.shape[a] > 1)
    if axes:
        flipped = backend.make_output(f.shape, "float32")
        backend.abi.Reverse(f, axes, f.shape, flipped)
        temps.append(flipped)
    g, made = transpose_info(backend, flipped, (0, 1, 3, 2))
    if made:
        temps.append(g)
    out = backend.make_output(info.in_shape, "float32")
    backend.abi.Conv2D(
        dy, info.batch, info.out_height, info.out_width, g, fh, fw, top, right, bottom, left, False, 1, 1, 1, 1,
        co, ci, out,
    )  # fmt: skip
    for t in temps:
        backend.dispose_data(t.data_id)
    return out


def _zeros(shape: tuple[int, ...]) -> Any:
    from array import array

    return array("f", bytes(4 * math.prod(shape)))


def _matmul_shapes(a: Any, b: Any, ta: bool, tb: bool) -> tuple | None:
    """(a 3-D shape, b 3-D shape, output shape) for the binary, or None when its batching cannot do it."""
    sa, sb = a.shape, b.shape
    batch_a, batch_b = sa[:-2], sb[:-2]
    na, nb = math.prod(batch_a), math.prod(batch_b)
    if batch_a != batch_b and na != 1 and nb != 1:
        return None  # general broadcasting of batch dims: the cpu kernel does it
    batch = broadcast_shapes(batch_a, batch_b, "mat_mul")
    m = sa[-1] if ta else sa[-2]
    n = sb[-2] if tb else sb[-1]
    return (na, sa[-2], sa[-1]), (nb, sb[-2], sb[-1]), (*batch, m, n)


def batch_mat_mul(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BatchMatMul: float32 natively (batch dims equal, or one is 1)."""
    a, b = inputs["a"], inputs["b"]
    ta, tb = bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b"))
    shapes = None if a.dtype != "float32" or b.dtype != "float32" else _matmul_shapes(a, b, ta, tb)
    if shapes is None:
        return cpu(kn.BatchMatMul)(backend, inputs, attrs)
    a3, b3, out_shape = shapes
    if not nonempty(out_shape):
        return backend.make_output(out_shape, "float32")
    if a3[1] * a3[2] == 0 or b3[1] * b3[2] == 0:  # k == 0: zeros
        return backend.output(_zeros(out_shape), out_shape, "float32")
    temps = []
    if (ta or tb) and a3[0] == 1 and b3[0] == 1:
        # the binary multiplies a transposed operand in a plain loop (x^T @ dy of a dense layer: ~15x slower
        # than its XNNPACK path), so one native Transpose makes both operands plain first
        if ta:
            a, a3, ta = _swap_last(backend, a, temps), (1, a3[2], a3[1]), False
        if tb:
            b, b3, tb = _swap_last(backend, b, temps), (1, b3[2], b3[1]), False
    out = backend.make_output(out_shape, "float32")
    try:
        backend.abi.BatchMatMul(a, a3, b, b3, ta, tb, out)
    finally:
        for t in temps:
            backend.dispose_data(t.data_id)
    return out


def _swap_last(backend: Any, x: Any, temps: list) -> Any:
    """x with its last two dims swapped (a new buffer, added to temps, unless that is a relabeling)."""
    rank = len(x.shape)
    info, made = transpose_info(backend, x, (*range(rank - 2), rank - 1, rank - 2))
    if made:
        temps.append(info)
    return info


#: fused activations the binary's XNNPACK matmul path applies (the others go through epilogue())
XNN_MATMUL_ACTIVATIONS = frozenset({"linear", "relu", "relu6", "prelu"})
_ACTIVATION_KERNELS = {"relu": kn.Relu, "relu6": kn.Relu6, "elu": kn.Elu, "sigmoid": kn.Sigmoid}


def epilogue(backend: Any, t: TensorInfo, bias: Any, prelu: Any, activation: str, alpha: float) -> TensorInfo:
    """Bias add and fused activation as separate (native where possible) kernels; t is consumed."""
    steps: list[tuple[str, dict, dict]] = []
    if bias is not None:
        steps.append((kn.Add, {"b": bias}, {}))
    if activation in _ACTIVATION_KERNELS:
        steps.append((_ACTIVATION_KERNELS[activation], {}, {}))
    elif activation == "leakyrelu":
        steps.append((kn.LeakyRelu, {}, {"alpha": alpha}))
    elif activation == "prelu":
        steps.append((kn.Prelu, {"alpha": prelu}, {}))
    for name, extra, attrs in steps:
        key = "a" if name == kn.Add else "x"
        try:
            nxt = elementwise.KERNELS[name](backend, {key: t, **extra}, attrs)
        finally:
            backend.dispose_data(t.data_id)
        t = nxt
    return t


def fused_mat_mul(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """_FusedMatMul: BatchMatMul + bias + activation; one XNNPACK call when b is a single matrix, the bias
    one value per column and no transposes, else a native BatchMatMul followed by epilogue()."""
    a, b = inputs["a"], inputs["b"]
    bias, prelu = inputs.get("bias"), inputs.get("prelu_activation_weights")
    activation = attrs.get("activation") or "linear"
    ta, tb = bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b"))
    alpha = attrs.get("leakyrelu_alpha", 0.2)
    shapes = None
    if a.dtype == "float32" and b.dtype == "float32" and activation in backend.abi_activations:
        shapes = _matmul_shapes(a, b, ta, tb)
    if shapes is None or not nonempty(shapes[2]) or 0 in shapes[0] or 0 in shapes[1]:
        return cpu(kn._FusedMatMul)(backend, inputs, attrs)
    a3, b3, out_shape = shapes
    n = out_shape[-1]
    if (
        not ta
        and not tb
        and b3[0] == 1
        and activation in XNN_MATMUL_ACTIVATIONS
        and per_channel(bias, n, False)
        and (activation != "prelu" or (prelu is not None and per_channel(prelu, n, True)))
    ):
        out = backend.make_output(out_shape, "float32")
        backend.abi._FusedMatMul(
            a, (1, a3[0] * a3[1], a3[2]), b, b3, False, False, activation, bias,
            prelu if activation == "prelu" else None, alpha, out,
        )  # fmt: skip
        return out
    product = batch_mat_mul(backend, {"a": a, "b": b}, attrs)
    return epilogue(backend, product, bias, prelu, activation, alpha)


def _pool(name: str) -> Kernel:
    fallback = cpu(name)
    is_max = name == kn.MaxPool

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if x.dtype != "float32":
            return fallback(backend, inputs, attrs)
        info = pool_info_from_attrs(x.shape, attrs)
        if info.filter_height * info.filter_width == 1 or not xnn_geometry_ok(info):
            return fallback(backend, inputs, attrs)
        pads = (info.pad_top, info.pad_right, info.pad_bottom, info.pad_left)
        out = backend.make_output(info.out_shape, "float32")
        if nonempty(info.out_shape):
            fh, fw = info.filter_height, info.filter_width
            if is_max:
                backend.abi.MaxPool(
                    x, info.batch, info.in_height, info.in_width, fh, fw, *pads, 1, 1,
                    info.stride_height, info.stride_width, info.in_channels, info.out_channels, out,
                )  # fmt: skip
            else:
                backend.abi.AvgPool(
                    x, info.batch, info.in_height, info.in_width, fh, fw, *pads,
                    info.stride_height, info.stride_width, info.in_channels, out,
                )  # fmt: skip
        return out

    kernel.__doc__ = f"{name} (NHWC, float32 natively through XNNPACK)."
    return kernel


def softmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Softmax: float32 natively."""
    x = inputs["logits"]
    rank = len(x.shape)
    if x.dtype != "float32" or rank == 0 or attrs.get("dim", rank - 1) % rank != rank - 1:
        return cpu(kn.Softmax)(backend, inputs, attrs)
    out = backend.make_output(x.shape, "float32")
    if nonempty(x.shape):
        channels = x.shape[-1]
        backend.abi.Softmax(x, out, channels, math.prod(x.shape) // channels)
    return out


KERNELS: dict[str, Kernel] = {
    kn.Conv2D: with_fallback(kn.Conv2D, _plain_conv(kn.Conv2D, False)),
    kn.DepthwiseConv2dNative: with_fallback(
        kn.DepthwiseConv2dNative, _plain_conv(kn.DepthwiseConv2dNative, True)
    ),
    kn.FusedConv2D: with_fallback(kn.FusedConv2D, _fused_conv(kn.FusedConv2D, False)),
    kn.FusedDepthwiseConv2D: with_fallback(
        kn.FusedDepthwiseConv2D, _fused_conv(kn.FusedDepthwiseConv2D, True)
    ),
    kn.Conv2DBackpropInput: with_fallback(kn.Conv2DBackpropInput, conv2d_backprop_input),
    kn.BatchMatMul: with_fallback(kn.BatchMatMul, batch_mat_mul),
    kn._FusedMatMul: with_fallback(kn._FusedMatMul, fused_mat_mul),
    kn.MaxPool: with_fallback(kn.MaxPool, _pool(kn.MaxPool)),
    kn.AvgPool: with_fallback(kn.AvgPool, _pool(kn.AvgPool)),
    kn.Softmax: with_fallback(kn.Softmax, softmax),
}
