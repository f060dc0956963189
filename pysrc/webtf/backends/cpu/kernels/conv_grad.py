"""cpu backward kernels of convolution and pooling (NHWC): Conv2DBackpropFilter,
DepthwiseConv2dNativeBackpropFilter, DepthwiseConv2dNativeBackpropInput, MaxPoolGrad and AvgPoolGrad
(Conv2DBackpropInput is in conv.py).

Attrs are the forward kernel's (conv.py, pool.py) plus filter_shape (filter gradients) or input_shape (input
gradients); the pool gradients take the forward input as `input` (and MaxPoolGrad its output as `output`).
Outputs are float32. Filter gradients are dot products of im2col columns (x at one filter tap and channel,
over every output pixel) with dy's channel columns. Input gradients go the other way: per output row and
filter tap, a row of contributions is added into a zero-padded dx (TapAcc, the transpose of TapRows.tap),
which is cropped at the end. MaxPoolGrad gives each window's dy to its first maximum (NaN never wins; a
window with no maximum above -inf gives nothing), as TF.js's cpu kernel; AvgPoolGrad divides by each
window's count of in-bounds elements, the forward kernel's divisor.
"""

from __future__ import annotations

import math
import operator
from array import array
from itertools import cycle, product, starmap
from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    ConvInfo,
    conv_info_from_attrs,
    pool_info_from_attrs,
    window_counts,
)
from ...base import TensorInfo
from .conv import TapRows, padded_rows, padded_size
from .matmul import dot, to_array

_add, _mul = operator.add, operator.mul


class TapAcc:
    """One batch's zero-padded dx as rows of (width * channels) values; add() is the transpose of
    TapRows.tap: it adds a whole output row's contributions at one filter tap."""

    def __init__(self, info: ConvInfo) -> None:
        hp, wp = padded_size(info)
        self.info = info
        self.c, self.sw, self.n = info.in_channels, info.stride_width, info.out_width
        self.rows = [[0.0] * (wp * self.c) for _ in range(hp)]

    def add(self, r: int, o: int, values: list) -> None:
        """Add values (out_width pixels, channels interleaved) at padded row r, pixels o + k * sw."""
        row, c, sw, n = self.rows[r], self.c, self.sw, self.n
        if sw == 1 or n == 1:
            part = slice(o * c, (o + n) * c)
            row[part] = map(_add, row[part], values)
        elif c == 1:
            part = slice(o, o + (n - 1) * sw + 1, sw)
            row[part] = map(_add, row[part], values)
        else:
            for ch in range(c):
                part = slice(o * c + ch, (o + (n - 1) * sw) * c + ch + 1, sw * c)
                row[part] = map(_add, row[part], values[ch::c])

    def crop(self) -> list:
        """The unpadded dx of this batch, flat."""
        info, c = self.info, self.c
        start, stop = info.pad_left * c, (info.pad_left + info.in_width) * c
        out: list = []
        for row in self.rows[info.pad_top : info.pad_top + info.in_height]:
            out.extend(row[start:stop])
        return out


def _taps(info: ConvInfo) -> list[tuple[int, int]]:
    """(row, column) offsets of every filter tap in the padded input, in filter order."""
    return [
        (r * info.dilation_height, s * info.dilation_width)
        for r in range(info.filter_height)
        for s in range(info.filter_width)
    ]


def tap_columns(xv: Any, info: ConvInfo) -> list[list]:
    """Per filter tap and input channel (filter order), x at that tap over every output pixel (b, y, x)."""
    taps = _taps(info)
    per_tap: list[list] = [[] for _ in taps]
    for b in range(info.batch):
        tr = TapRows(padded_rows(xv, b, info), info)
        for y in range(info.out_height):
            r0 = y * info.stride_height
            for col, (dr, dc) in zip(per_tap, taps, strict=True):
                col.extend(tr.tap(r0 + dr, dc))
    c = info.in_channels
    return per_tap if c == 1 else [col[ch::c] for col in per_tap for ch in range(c)]


def _channel_columns(backend: Any, dy: Any) -> list[list]:
    """dy's values per output channel, over every output pixel."""
    dyv, n = backend.values(dy), dy.shape[-1]
    return [dyv[j::n].tolist() for j in range(n)]


def _filter_grad(backend: Any, inputs: Any, attrs: dict[str, Any], depthwise: bool) -> TensorInfo:
    x, dy = inputs["x"], inputs["dy"]
    shape = tuple(int(d) for d in attrs["filter_shape"])
    info = conv_info_from_attrs(x.shape, shape, attrs, depthwise)
    cols = tap_columns(backend.values(x), info)
    dycols = _channel_columns(backend, dy)
    if depthwise:
        c, m = shape[2], shape[3]
        out = [dot(col, dycols[(i % c) * m + j]) for i, col in enumerate(cols) for j in range(m)]
    else:
        out = list(starmap(dot, product(cols, dycols)))
    return backend.output(to_array(out, "float32"), shape, "float32")


def conv2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv2DBackpropFilter {x, dy}: df [fh, fw, in, out] of attrs filter_shape for a conv2d with output grad dy."""
    return _filter_grad(backend, inputs, attrs, False)


def depthwise_conv2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthwiseConv2dNativeBackpropFilter {x, dy}: df [fh, fw, in, multiplier] of attrs filter_shape."""
    return _filter_grad(backend, inputs, attrs, True)


def depthwise_conv2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthwiseConv2dNativeBackpropInput {dy, filter}: dx of attrs input_shape."""
    dy, f = inputs["dy"], inputs["filter"]
    in_shape = tuple(int(d) for d in attrs["input_shape"])
    info = conv_info_from_attrs(in_shape, f.shape, attrs, True)
    c, m = f.shape[2], f.shape[3]
    fv, dyv = backend.values(f), backend.values(dy)
    taps = _taps(info)
    # per tap and multiplier index: the weights of every channel, in channel order
    weights = [[fv[t * c * m + j : (t + 1) * c * m : m].tolist() for j in range(m)] for t in range(len(taps))]
    row_len = info.out_width * c * m
    out: list = []
    for b in range(info.batch):
        acc = TapAcc(info)
        for y in range(info.out_height):
            off = (b * info.out_height + y) * row_len
            row = dyv[off : off + row_len].tolist()
            parts = [row[j::m] for j in range(m)] if m > 1 else [row]
            for (dr, dc), w in zip(taps, weights, strict=True):
                vals = list(map(_mul, parts[0], cycle(w[0])))
                for j in range(1, m):
                    vals = list(map(_add, vals, map(_mul, parts[j], cycle(w[j]))))
                acc.add(y * info.stride_height + dr, dc, vals)
        out.extend(acc.crop())
    return backend.output(to_array(out, "float32"), in_shape, "float32")



def max_pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MaxPoolGrad {dy, input, output}: each window's dy added at the first maximum of input in it."""
    x, dy = inputs["input"], inputs["dy"]
    info = pool_info_from_attrs(x.shape, attrs)
    xv, dyv = backend.values(x), backend.values(dy)
    if math.isnan(sum(xv)):  # NaN never wins a window: as -inf, which never wins either
        xv = array("f", [-math.inf if v != v else v for v in xv])
    taps = _taps(info)
    row_len = info.out_width * info.in_channels
    eq, ninf = operator.eq, -math.inf
    out: list = []
    for b in range(info.batch):
        tr = TapRows(padded_rows(xv, b, info, ninf), info)
        acc = TapAcc(info)
        for y in range(info.out_height):
            r0 = y * info.stride_height
            cols = [tr.tap(r0 + dr, dc) for dr, dc in taps]
            best = list(map(max, *cols)) if len(cols) > 1 else cols[0]
            if ninf in best:  # an all -inf window has no maximum
                best = [v if v > ninf else math.nan for v in best]
            off = (b * info.out_height + y) * row_len
            free = dyv[off : off + row_len].tolist()  # dy not yet given to an earlier tap
            for k, (col, (dr, dc)) in enumerate(zip(cols, taps, strict=True)):
                hit = list(map(eq, col, best))
                if not any(hit):
                    continue
                acc.add(r0 + dr, dc, [d if h else 0.0 for d, h in zip(free, hit, strict=True)])
                if k + 1 < len(cols):
                    free = [0.0 if h else d for d, h in zip(free, hit, strict=True)]
        out.extend(acc.crop())
    return backend.output(to_array(out, "float32"), x.shape, "float32")


def avg_pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPoolGrad {dy, input}: each window's dy / (its in-bounds count) added over the window."""
    x, dy = inputs["input"], inputs["dy"]
    info = pool_info_from_attrs(x.shape, attrs)
    dyv, c = backend.values(dy), info.in_channels
    ch = window_counts(info.out_height, info.stride_height, info.pad_top, info.in_height, info.filter_height)
    cw = window_counts(info.out_width, info.stride_width, info.pad_left, info.in_width, info.filter_width)
    # a window wholly in the padding (count 0) only reaches padding, which is cropped
    divisors = [[a * n if a * n > 0 else math.inf for n in cw for _ in range(c)] for a in ch]
    taps = _taps(info)
    row_len = info.out_width * c
    out: list = []
    for b in range(info.batch):
        acc = TapAcc(info)
        for y, div in enumerate(divisors):
            off = (b * info.out_height + y) * row_len
            vals = list(map(operator.truediv, dyv[off : off + row_len], div))
            for dr, dc in taps:
                acc.add(y * info.stride_height + dr, dc, vals)
        out.extend(acc.crop())
    return backend.output(to_array(out, "float32"), x.shape, "float32")


KERNELS = {
    kn.Conv2DBackpropFilter: conv2d_backprop_filter,
    kn.DepthwiseConv2dNativeBackpropFilter: depthwise_conv2d_backprop_filter,
    kn.DepthwiseConv2dNativeBackpropInput: depthwise_conv2d_backprop_input,
    kn.MaxPoolGrad: max_pool_grad,
    kn.AvgPoolGrad: avg_pool_grad,
}
