"""cpu kernels Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput, FusedConv2D, FusedDepthwiseConv2D (NHWC).

Conv attrs (shared by every backend): strides (sh, sw), dilations (dh, dw), pad ('same' | 'valid' | int |
((0, 0), (top, bottom), (left, right), (0, 0))), data_format 'NHWC', dim_rounding_mode (None | 'floor' |
'round' | 'ceil'); the geometry comes from webtf.backend_util.conv_info_from_attrs. The fused kernels add
activation ('linear', 'relu', 'relu6', 'elu', 'prelu', 'leakyrelu', 'sigmoid') and leakyrelu_alpha, and take
optional inputs bias and prelu_activation_weights, each broadcastable to the output.

Speed: finite float32 convs (plain and depthwise, with a per-channel bias and relu / relu6) run on packed
fixed-point big ints (packed.py); on the cpu backend their outputs stay packed until read (lazy.py). The
float path below handles int32 and non-finite inputs: the input is
zero-padded once (per batch, as lists of rows), so no per-element bounds checks remain.
conv2d is im2col per output row: each receptive field is a few contiguous row slices concatenated, dotted
(math.sumprod) with every filter column. Depthwise and pooling gather one slice per filter tap that covers a
whole output row (all channels interleaved) and reduce the taps element-wise with zip + sumprod / max.
"""

from __future__ import annotations

import operator
from array import array
from itertools import chain, cycle, product, repeat, starmap
from typing import Any

from .... import kernel_names as kn
from ....backend_util import ConvInfo, conv_info_from_attrs, conv_kernels, flipped_conv_pads
from .lazy import PackedOutput
from .matmul import dot, epilogue, to_array
from .packed import conv_packed


def padded_size(info: ConvInfo) -> tuple[int, int]:
    """(height, width) of the padded input: the stated padding, or more where a 'ceil' rounding mode pushes
    windows past it."""
    hp = max(
        info.pad_top + info.in_height + info.pad_bottom,
        (info.out_height - 1) * info.stride_height + info.effective_filter_height,
    )
    wp = max(
        info.pad_left + info.in_width + info.pad_right,
        (info.out_width - 1) * info.stride_width + info.effective_filter_width,
    )
    return hp, wp


def padded_rows(xv: Any, b: int, info: ConvInfo, fill: float = 0.0) -> list[list]:
    """Batch b of the input as rows of (width * channels) values, padded by `fill` on every side."""
    h, w, c = info.in_height, info.in_width, info.in_channels
    top, left = info.pad_top, info.pad_left
    hp, wp = padded_size(info)
    zero = [fill] * (wp * c)
    lz, rz = [fill] * (left * c), [fill] * ((wp - left - w) * c)
    row, off = w * c, b * h * w * c
    body = [lz + xv[off + i * row : off + (i + 1) * row].tolist() + rz for i in range(h)]
    return [zero] * top + body + [zero] * max(0, hp - top - h)


class TapRows:
    """Per padded row, the slices that give one filter tap's values for a whole output row.

    For tap column offset o (pixels), `tap(r, o)` holds r's values at pixels o, o+sw, o+2sw, ... (out_width of
    them, all channels interleaved): a plain slice when sw == 1, else a slice of a stride phase of the row.
    """

    def __init__(self, rows: list[list], info: ConvInfo) -> None:
        self.rows, self.c, self.sw, self.n = rows, info.in_channels, info.stride_width, info.out_width
        self._phases: dict[tuple[int, int], list] = {}

    def _phase_row(self, r: int, p: int) -> list:
        """Row r's pixels p, p + sw, p + 2 sw, ... (channels interleaved), made on first use: only the phases
        some filter tap reads are built, however large the stride."""
        ph = self._phases.get((r, p))
        if ph is None:
            row, c, sw = self.rows[r], self.c, self.sw
            if c == 1:
                ph = row[p::sw]
            else:
                ph = [0.0] * (-(-(len(row) // c - p) // sw) * c)
                for ch in range(c):
                    ph[ch::c] = row[p * c + ch :: sw * c]
            self._phases[(r, p)] = ph
        return ph

    def tap(self, r: int, o: int) -> list:
        """Values at padded row r, pixels o + k * sw for k < out_width, channels interleaved."""
        c, n = self.c, self.n
        if self.sw == 1:
            return self.rows[r][o * c : (o + n) * c]
        q, p = divmod(o, self.sw)
        return self._phase_row(r, p)[q * c : (q + n) * c]


def conv2d_values(backend: Any, x: Any, f: Any, info: ConvInfo) -> list:
    """Conv2D output values (NHWC, flat) as Python numbers."""
    xv, fv = backend.values(x), backend.values(f)
    c, o = info.in_channels, info.out_channels
    fh, fw, sh, sw, dh, dw = (
        info.filter_height, info.filter_width, info.stride_height, info.stride_width,
        info.dilation_height, info.dilation_width,
    )  # fmt: skip
    cols = [fv[j::o].tolist() for j in range(o)]  # filter columns, in (row, col, channel) patch order
    out: list = []
    if (
        (fh, fw, sh, sw, info.pad_top, info.pad_left) == (1, 1, 1, 1, 0, 0)
        and c
        and (info.out_shape[1:3] == info.in_shape[1:3])
    ):
        pixels = [xv[i : i + c].tolist() for i in range(0, len(xv), c)]  # pointwise conv: a plain matmul
        out.extend(starmap(dot, product(pixels, cols)))
        return out
    # Each patch is the concatenation, per filter row, of contiguous segments of the padded row.
    if dw == 1:
        segments = [[slice(k * sw * c, (k * sw + fw) * c) for k in range(info.out_width)]]
    elif c == 1:
        segments = [[slice(k * sw, k * sw + info.effective_filter_width, dw) for k in range(info.out_width)]]
    else:
        segments = [
            [slice((k * sw + j * dw) * c, (k * sw + j * dw + 1) * c) for k in range(info.out_width)]
            for j in range(fw)
        ]
    add = operator.add
    for b in range(info.batch):
        rows = padded_rows(xv, b, info)
        for y in range(info.out_height):
            patches: Any = None
            for i in range(fh):
                get = rows[y * sh + i * dh].__getitem__
                for seg in segments:
                    patches = (
                        list(map(get, seg)) if patches is None else list(map(add, patches, map(get, seg)))
                    )
            out.extend(starmap(dot, product(patches, cols)))
    return out


def depthwise_values(backend: Any, x: Any, f: Any, info: ConvInfo) -> list:
    """DepthwiseConv2dNative output values (NHWC, channel c * multiplier + m) as Python numbers."""
    xv, fv = backend.values(x), backend.values(f)
    c, fh, fw = info.in_channels, info.filter_height, info.filter_width
    mult = info.out_channels // c if c else 0
    taps = fh * fw
    # weights[c * mult + m] = that output channel's filter over all taps, in tap order
    weights = [fv[ch * mult + m :: c * mult].tolist() for ch in range(c) for m in range(mult)]
    out: list = []
    for b in range(info.batch):
        tr = TapRows(padded_rows(xv, b, info), info)
        for y in range(info.out_height):
            r0 = y * info.stride_height
            cols = [
                tr.tap(r0 + i * info.dilation_height, j * info.dilation_width)
                for i in range(fh)
                for j in range(fw)
            ]
            fields: Any = zip(*cols, strict=False) if taps > 1 else zip(cols[0])
            if mult != 1:
                fields = chain.from_iterable(map(repeat, fields, repeat(mult)))
            out.extend(map(dot, fields, cycle(weights)))
    return out


def _channel_bias(backend: Any, bias: Any, channels: int) -> list | None:
    """A bias that broadcasts along the output channels only, as one value per channel; else None."""
    if bias is None or any(d != 1 for d in bias.shape[:-1]):
        return None
    values = backend.values(bias).tolist()
    if len(values) == 1:
        return values * channels
    return values if len(values) == channels else None


def _conv(backend: Any, inputs: Any, attrs: dict[str, Any], depthwise: bool, fused: bool) -> Any:
    x, f = inputs["x"], inputs["filter"]
    info = conv_info_from_attrs(x.shape, f.shape, attrs, depthwise)
    bias = inputs.get("bias") if fused else None
    prelu = inputs.get("prelu_activation_weights") if fused else None
    activation = (attrs.get("activation") or "linear") if fused else "linear"
    alpha = attrs.get("leakyrelu_alpha", 0.2)
    if x.dtype == "float32":
        channel_bias = _channel_bias(backend, bias, info.out_channels)
        late = activation == "prelu" or (bias is not None and channel_bias is None)
        lazy = getattr(backend, "packed_outputs", False)  # the cpu backend keeps PackedOutputs as buffers
        xv = backend.data.get(x.data_id) if lazy else None
        if not isinstance(xv, PackedOutput) or not xv.fits(x.shape) or xv.max_exponent() is None:
            xv = backend.values(x)
        out = conv_packed(
            xv, backend.values(f), info, depthwise, channel_bias, "linear" if late else activation, alpha
        )
        if out is not None:
            if late:
                values = epilogue(
                    backend,
                    out.materialize().tolist(),
                    info.out_shape,
                    None if channel_bias else bias,
                    prelu,
                    activation,
                    alpha,
                )
                return backend.output(to_array(values, "float32"), info.out_shape, "float32")
            return backend.output(out if lazy else out.materialize(), info.out_shape, "float32")
    values = (depthwise_values if depthwise else conv2d_values)(backend, x, f, info)
    if fused:
        values = epilogue(backend, values, info.out_shape, bias, prelu, activation, alpha)
    return backend.output(to_array(values, x.dtype), info.out_shape, x.dtype)


def conv2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
    """Conv2DBackpropInput (dilation 1): each dy pixel's contribution (one dot per filter row) is
    scatter-added, a filter row at a time, into a padded dx."""
    dy, f = inputs["dy"], inputs["filter"]
    info = conv_info_from_attrs(tuple(attrs["input_shape"]), f.shape, attrs)
    if (info.stride_height, info.stride_width) == (1, 1) and dy.dtype == "float32":
        out = _backprop_input_as_conv(backend, dy, f, info)
        if out is not None:
            return out
    sh, sw = info.stride_height, info.stride_width
    if (
        dy.dtype == "float32"
        and (sh, sw, 0, 0) == (info.filter_height, info.filter_width, info.pad_top, info.pad_left)
        and (info.in_height, info.in_width) == (info.out_height * sh, info.out_width * sw)
    ):
        return _backprop_input_pointwise(backend, dy, f, info)
    dyv, fv = backend.values(dy), backend.values(f)
    fh, fw, c, o = f.shape
    oh, ow = dy.shape[1], dy.shape[2]
    h, w = info.in_height, info.in_width
    top, left = info.pad_top, info.pad_left
    hp = max((oh - 1) * sh + fh, top + h)
    wp = max((ow - 1) * sw + fw, left + w)
    wrows = [
        fv[i : i + o].tolist() for i in range(0, len(fv), o)
    ]  # per (fr, fc, in channel): its out weights
    seg = fw * c
    add = operator.add
    out: list = []
    for b in range(info.batch):
        acc = [[0.0] * (wp * c) for _ in range(hp)]
        for yr in range(oh):
            off = (b * oh + yr) * ow * o
            pixels = [dyv[off + k * o : off + (k + 1) * o].tolist() for k in range(ow)]
            contrib = list(starmap(dot, product(pixels, wrows)))
            size = len(wrows)
            for k in range(ow):
                base, start = k * size, k * sw * c
                for i in range(fh):
                    row = acc[yr * sh + i]
                    part = contrib[base + i * seg : base + (i + 1) * seg]
                    row[start : start + seg] = map(add, row[start : start + seg], part)
        for r in range(top, top + h):
            out.extend(acc[r][left * c : (left + w) * c])
    return backend.output(to_array(out, "float32"), info.in_shape, "float32")


def _backprop_input_pointwise(backend: Any, dy: Any, f: Any, info: ConvInfo) -> Any:
    """A Conv2DBackpropInput whose stride is its filter size, without padding (each dx pixel takes one dy
    pixel): a 1x1 conv of dy to (filter row, filter column, channel) channels (the packed fast path), each
    then spread to its pixels."""
    fh, fw, c, o = f.shape
    fv, k = backend.values(f), fh * fw * c
    g = array("f")
    for j in range(o):
        g.extend(fv[j::o])
    gt = backend.output(g, (1, 1, o, k), "float32")
    attrs = {"strides": (1, 1), "pad": "valid", "dilations": (1, 1)}
    y = _conv(backend, {"x": dy, "filter": gt}, attrs, False, False)
    try:
        yv = backend.values(y)
    finally:
        backend.dispose_data(gt.data_id)
    oh, ow, w = info.out_height, info.out_width, info.in_width
    dx = array("f", bytes(4 * info.batch * info.in_height * w * c))
    for r in range(info.batch * oh):  # dy row r feeds dx rows r * fh + i
        src = r * ow * k
        for i in range(fh):
            dst = (r * fh + i) * w * c
            for t in range(fw * c):  # filter column t // c, channel t % c
                jj, ch = divmod(t, c)
                dx[dst + jj * c + ch : dst + w * c : fw * c] = yv[src + (i * fw + jj) * c + ch : src + ow * k : k]
    backend.dispose_data(y.data_id)
    return backend.output(dx, info.in_shape, "float32")


def _backprop_input_as_conv(backend: Any, dy: Any, f: Any, info: ConvInfo) -> Any:
    """A stride-1 Conv2DBackpropInput as the Conv2D of dy with the filter flipped spatially and its channels
    swapped (the packed fast path), or None when that needs negative padding."""
    pads = flipped_conv_pads(info)
    if pads is None:
        return None
    fh, fw, c, o = f.shape
    fv, block = backend.values(f), c * o
    flipped = array("f")
    for t in range(fh * fw - 1, -1, -1):  # tap (r, s) takes the filter's tap (fh - 1 - r, fw - 1 - s)
        taps = fv[t * block : (t + 1) * block]
        for j in range(o):
            flipped.extend(taps[j::o])
    g = backend.output(flipped, (fh, fw, o, c), "float32")
    top, bottom, left, right = pads
    attrs = {"strides": (1, 1), "pad": ((0, 0), (top, bottom), (left, right), (0, 0)), "dilations": (1, 1)}
    try:
        return _conv(backend, {"x": dy, "filter": g}, attrs, False, False)
    finally:
        backend.dispose_data(g.data_id)


KERNELS = {**conv_kernels(_conv), kn.Conv2DBackpropInput: conv2d_backprop_input}
