"""numpy backward kernels of convolution and pooling (NHWC): Conv2DBackpropFilter,
DepthwiseConv2dNativeBackpropFilter, DepthwiseConv2dNativeBackpropInput, MaxPoolGrad and AvgPoolGrad
(Conv2DBackpropInput is in conv.py). Contracts in webtf.kernel_names; outputs are float32.

Filter gradients are im2col again: the windows of x (one strided view) against dy's channels, one matmul
(per tap and channel for depthwise). Input gradients are the transpose (conv.scatter_taps). MaxPoolGrad gives
each window's dy to its first maximum (nan never wins; a window with no maximum above -inf gives nothing),
as TF.js's cpu kernel; AvgPoolGrad spreads dy / count over each window, separably (rows, then columns).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import kernel_names as kn
from ....backend_util import ConvInfo, conv_info_from_attrs, pool_info_from_attrs, window_counts
from ...base import TensorInfo
from .common import F32
from .conv import padded, padded_size, scatter_taps, windows


def _filter_info(backend: Any, inputs: Any, attrs: dict[str, Any], depthwise: bool) -> tuple:
    x, dy = inputs["x"], inputs["dy"]
    shape = tuple(int(d) for d in attrs["filter_shape"])
    info = conv_info_from_attrs(x.shape, shape, attrs, depthwise)
    return shape, info, windows(padded(backend.nd(x), info), info), backend.nd(dy)


def conv2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv2DBackpropFilter {x, dy}: df of attrs filter_shape [fh, fw, in, out]."""
    shape, info, taps, dy = _filter_info(backend, inputs, attrs, False)
    fh, fw, c, o = shape
    p = info.batch * info.out_height * info.out_width
    df = taps.reshape(p, fh * fw * c).T @ dy.reshape(p, o)
    return backend.make(df.reshape(shape), "float32")


def depthwise_conv2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthwiseConv2dNativeBackpropFilter {x, dy}: df of attrs filter_shape [fh, fw, in, multiplier]."""
    shape, info, taps, dy = _filter_info(backend, inputs, attrs, True)
    fh, fw, c, m = shape
    dyr = dy.reshape(-1, c, m)
    df = np.empty(shape, np.result_type(taps, dy))
    for i in range(fh):
        for j in range(fw):
            df[i, j] = np.einsum("pc,pcm->cm", taps[:, :, :, i, j].reshape(-1, c), dyr)
    return backend.make(df, "float32")


def depthwise_conv2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthwiseConv2dNativeBackpropInput {dy, filter}: dx of attrs input_shape."""
    dy, f = backend.nd(inputs["dy"]), backend.nd(inputs["filter"])
    info = conv_info_from_attrs(tuple(int(d) for d in attrs["input_shape"]), f.shape, attrs, True)
    fh, fw, c, m = f.shape
    dyr = dy.reshape(*dy.shape[:3], c, m)
    contrib = np.einsum("byxcm,ijcm->byxijc", dyr, f)
    return backend.make(scatter_taps(contrib, info), "float32")


def _pool_info(inputs: Any, attrs: dict[str, Any]) -> ConvInfo:
    return pool_info_from_attrs(inputs["input"].shape, attrs)


def max_pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MaxPoolGrad {dy, input, output}: each window's dy added at the first maximum of input in it."""
    info = _pool_info(inputs, attrs)
    x, dy = backend.nd(inputs["input"]), backend.nd(inputs["dy"]).astype(np.float64)
    if x.dtype == F32 and np.isnan(x).any():  # nan never wins a window: as -inf, which never wins either
        x = np.where(np.isnan(x), -np.inf, x)
    taps = windows(padded(x.astype(np.float64), info, -np.inf), info)
    b, oh, ow, fh, fw, c = taps.shape
    best = taps.max(axis=(3, 4))
    first = (taps == best[:, :, :, None, None]).reshape(b, oh, ow, fh * fw, c).argmax(axis=3)
    i, j = np.divmod(first, fw)
    hp, wp = padded_size(info)
    bi, yi, xi, ci = np.indices(first.shape, sparse=True)
    rows = yi * info.stride_height + i * info.dilation_height
    cols = xi * info.stride_width + j * info.dilation_width
    at = ((bi * hp + rows) * wp + cols) * c + ci  # where in the padded dx each window's maximum is
    given = np.where(best > -np.inf, dy, 0.0)
    dx = np.bincount(at.ravel(), given.ravel(), minlength=b * hp * wp * c).reshape(b, hp, wp, c)
    top, left = info.pad_top, info.pad_left
    return backend.make(dx[:, top : top + info.in_height, left : left + info.in_width], "float32")


def avg_pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPoolGrad {dy, input}: each window's dy / (its in-bounds count) added over the window."""
    info = _pool_info(inputs, attrs)
    ch = window_counts(info.out_height, info.stride_height, info.pad_top, info.in_height, info.filter_height)
    cw = window_counts(info.out_width, info.stride_width, info.pad_left, info.in_width, info.filter_width)
    counts = np.outer(ch, cw)[:, :, None]
    # a window wholly in the padding (count 0) only reaches padding, which is cropped
    share = backend.nd(inputs["dy"]) / np.where(counts > 0, counts, np.inf)
    b, oh, ow, c = share.shape
    hp, wp = padded_size(info)
    sh, sw = info.stride_height, info.stride_width
    rows = np.zeros((b, hp, ow, c))  # spread down each window's rows, then along its columns
    for i in range(info.filter_height):
        rows[:, i : i + (oh - 1) * sh + 1 : sh] += share
    dx = np.zeros((b, hp, wp, c))
    for j in range(info.filter_width):
        dx[:, :, j : j + (ow - 1) * sw + 1 : sw] += rows
    top, left = info.pad_top, info.pad_left
    return backend.make(dx[:, top : top + info.in_height, left : left + info.in_width], "float32")


KERNELS = {
    kn.Conv2DBackpropFilter: conv2d_backprop_filter,
    kn.DepthwiseConv2dNativeBackpropFilter: depthwise_conv2d_backprop_filter,
    kn.DepthwiseConv2dNativeBackpropInput: depthwise_conv2d_backprop_input,
    kn.MaxPoolGrad: max_pool_grad,
    kn.AvgPoolGrad: avg_pool_grad,
}
