"""numpy kernels Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput, FusedConv2D, FusedDepthwiseConv2D (NHWC).

Contracts in webtf.kernel_names (geometry from webtf.backend_util.conv_info_from_attrs; the fused kernels add
activation, leakyrelu_alpha and the optional inputs bias and prelu_activation_weights).
Conv2D is im2col: a strided view of the padded input holds every receptive field, copied once into a
[pixels, fh * fw * in] matrix and multiplied by the filter (BLAS sgemm for float32; a 1x1 conv is the
matmul alone). Depthwise conv and pooling (pool.py) add up (or take the max of) one strided view per tap.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .... import kernel_names as kn
from ....backend_util import ConvInfo, conv_info_from_attrs, conv_kernels
from ...base import TensorInfo
from .activation import epilogue
from .common import store
from .matmul import optional


def padded_size(info: ConvInfo) -> tuple[int, int]:
    """(height, width) of the padded input: the stated padding, or more where a 'ceil' rounding mode's last
    window reaches past it."""
    return (
        max(
            info.pad_top + info.in_height + info.pad_bottom,
            (info.out_height - 1) * info.stride_height + info.effective_filter_height,
        ),
        max(
            info.pad_left + info.in_width + info.pad_right,
            (info.out_width - 1) * info.stride_width + info.effective_filter_width,
        ),
    )


def padded(x: np.ndarray, info: ConvInfo, fill: Any = 0) -> np.ndarray:
    """x [b, h, w, c] padded by `fill` to cover every window."""
    b, h, w, c = x.shape
    top, left = info.pad_top, info.pad_left
    hp, wp = padded_size(info)
    if (hp, wp, top, left) == (h, w, 0, 0):
        return x
    out = np.full((b, hp, wp, c), fill, x.dtype)
    out[:, top : top + h, left : left + w] = x
    return out


def scatter_taps(contrib: np.ndarray, info: ConvInfo) -> np.ndarray:
    """The transpose of windows(): dx [b, h, w, c] from per-tap contributions [b, oh, ow, fh, fw, c], each
    added where that tap read the padded input (one strided slice per tap), then cropped."""
    b, oh, ow, fh, fw, c = contrib.shape
    sh, sw, dh, dw = info.stride_height, info.stride_width, info.dilation_height, info.dilation_width
    dx = np.zeros((b, *padded_size(info), c), contrib.dtype)
    for i in range(fh):
        for j in range(fw):
            dx[:, i * dh : i * dh + (oh - 1) * sh + 1 : sh, j * dw : j * dw + (ow - 1) * sw + 1 : sw] += (
                contrib[:, :, :, i, j]
            )
    top, left = info.pad_top, info.pad_left
    return dx[:, top : top + info.in_height, left : left + info.in_width]


def windows(xp: np.ndarray, info: ConvInfo) -> np.ndarray:
    """A read-only view [b, out_h, out_w, fh, fw, c] of the padded input: every tap of every window."""
    s0, s1, s2, s3 = xp.strides
    sh, sw, dh, dw = info.stride_height, info.stride_width, info.dilation_height, info.dilation_width
    shape = (xp.shape[0], info.out_height, info.out_width, info.filter_height, info.filter_width, xp.shape[3])
    return as_strided(xp, shape, (s0, sh * s1, sw * s2, dh * s1, dw * s2, s3), writeable=False)


def _conv2d(x: np.ndarray, f: np.ndarray, info: ConvInfo) -> np.ndarray:
    fh, fw, c, o = f.shape
    b, oh, ow = info.out_shape[:3]
    if (fh, fw, info.stride_height, info.stride_width, info.pad_top, info.pad_left) == (
        1,
        1,
        1,
        1,
        0,
        0,
    ) and ((oh, ow) == x.shape[1:3]):  # pointwise: a plain matmul
        return (x.reshape(b * oh * ow, c) @ f.reshape(c, o)).reshape(info.out_shape)
    cols = windows(padded(x, info), info).reshape(b * oh * ow, fh * fw * c)
    return (cols @ f.reshape(fh * fw * c, o)).reshape(info.out_shape)


def _depthwise(x: np.ndarray, f: np.ndarray, info: ConvInfo) -> np.ndarray:
    fh, fw, c, mult = f.shape
    taps = windows(padded(x, info), info)[..., None]  # [b, oh, ow, fh, fw, c, 1] against f[i, j]: [c, mult]
    acc = taps[:, :, :, 0, 0] * f[0, 0]
    tmp = np.empty_like(acc)
    for i in range(fh):
        for j in range(fw):
            if i or j:
                np.multiply(taps[:, :, :, i, j], f[i, j], out=tmp)
                acc += tmp
    return acc.reshape(info.out_shape)


def _conv(backend: Any, inputs: Any, attrs: dict[str, Any], depthwise: bool, fused: bool) -> TensorInfo:
    x, f = inputs["x"], inputs["filter"]
    info = conv_info_from_attrs(x.shape, f.shape, attrs, depthwise)
    out = (_depthwise if depthwise else _conv2d)(backend.nd(x), backend.nd(f), info)
    if fused:
        out = epilogue(
            out,
            optional(backend, inputs, "bias"),
            optional(backend, inputs, "prelu_activation_weights"),
            attrs.get("activation"),
            attrs.get("leakyrelu_alpha", 0.2),
        )
    return backend.make(store(out, x.dtype), x.dtype)


def conv2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv2DBackpropInput {dy, filter}: dx of attrs input_shape (float32): every dy pixel times the filter
    (one matmul) gives its contribution at each tap, added back where that tap read."""
    dy, f = backend.nd(inputs["dy"]), backend.nd(inputs["filter"])
    info = conv_info_from_attrs(tuple(attrs["input_shape"]), f.shape, attrs)
    fh, fw, c, o = f.shape
    b, oh, ow, _ = dy.shape
    contrib = (dy.reshape(b * oh * ow, o) @ f.reshape(fh * fw * c, o).T).reshape(b, oh, ow, fh, fw, c)
    return backend.make(scatter_taps(contrib, info), "float32")


KERNELS = {**conv_kernels(_conv), kn.Conv2DBackpropInput: conv2d_backprop_input}
