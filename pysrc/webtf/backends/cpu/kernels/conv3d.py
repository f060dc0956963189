"""cpu kernels of the 3-D convs and pools (NDHWC): Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2,
MaxPool3D, AvgPool3D and their gradients MaxPool3DGrad, AvgPool3DGrad.

Every kernel walks backend_util.window_taps: per output position, the input position under each filter tap
(-1 in the padding). Convs dot gathered patches with filter columns (im2col); the input gradients scatter
each position's contributions back. Padding never takes part in a pool: MaxPool3D ignores it and nan (an
empty window gives -inf), AvgPool3D divides by the count of in-bounds elements; MaxPool3DGrad gives each
window's dy to its last maximum, as TF.js's cpu kernel.
"""

from __future__ import annotations

import math
from itertools import chain, product, starmap
from typing import Any

from .... import kernel_names as kn
from ....backend_util import Conv3DInfo, conv3d_info_from_attrs, pool3d_kernels, window_taps
from ...base import TensorInfo
from .matmul import dot, to_array


def _pixels(values: Any, info: Conv3DInfo, b: int) -> list[list]:
    """Batch b's input as one list of channel values per spatial position."""
    c, n = info.in_channels, math.prod(info.in_size)
    off = b * n * c
    return [values[off + i * c : off + (i + 1) * c].tolist() for i in range(n)]


def _patches(values: Any, info: Conv3DInfo, taps: list[list[int]]) -> list[list]:
    """The im2col rows: per batch and output position, the input values under the window (0 in padding)."""
    zero = [0.0] * info.in_channels
    out: list[list] = []
    for b in range(info.batch):
        pix = _pixels(values, info, b)
        for window in taps:
            row: list = []
            for i in window:
                row.extend(zero if i < 0 else pix[i])
            out.append(row)
    return out


def conv3d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3D {x, filter}: every window's patch dotted with each output channel's filter column."""
    x, f = inputs["x"], inputs["filter"]
    info = conv3d_info_from_attrs(x.shape, f.shape, attrs)
    fv, o = backend.values(f), info.out_channels
    cols = [fv[j::o].tolist() for j in range(o)]
    rows = _patches(backend.values(x), info, window_taps(info))
    out = list(starmap(dot, product(rows, cols)))
    return backend.output(to_array(out, "float32"), info.out_shape, "float32")


def conv3d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3DBackpropInputV2 {dy, filter}: each dx element gathers, over the (output position, tap) pairs
    whose window puts that tap on it, dy's pixels dotted with the tap's filter row for its channel (one dot
    per element, over all the pairs at once)."""
    dy, f = inputs["dy"], inputs["filter"]
    shape = tuple(int(d) for d in attrs["input_shape"])
    info = conv3d_info_from_attrs(shape, f.shape, attrs)
    fv, o, c = backend.values(f), info.out_channels, info.in_channels
    wrows = [fv[i : i + o].tolist() for i in range(0, len(fv), o)]  # per (tap, in channel): its out weights
    dyv, taps = backend.values(dy), window_taps(info)
    n, p = math.prod(info.in_size), len(taps)
    pairs: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for pos, window in enumerate(taps):
        for t, i in enumerate(window):
            if i >= 0:
                pairs[i].append((pos, t))
    out = [0.0] * (info.batch * n * c)
    by_taps: dict[tuple[int, ...], list[list]] = {}  # the filter columns of a tap sequence (shared inside)
    for i, hits in enumerate(pairs):
        if not hits:
            continue
        key = tuple(t for _, t in hits)
        wcols = by_taps.get(key)
        if wcols is None:
            wcols = by_taps[key] = [
                list(chain.from_iterable(wrows[t * c + ch] for t in key)) for ch in range(c)
            ]
        for b in range(info.batch):
            g = list(chain.from_iterable(dyv[(b * p + pos) * o : (b * p + pos + 1) * o] for pos, _ in hits))
            base = (b * n + i) * c
            out[base : base + c] = [dot(g, w) for w in wcols]
    return backend.output(to_array(out, "float32"), shape, "float32")


def conv3d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3DBackpropFilterV2 {x, dy}: per (tap, in channel) column of patches, its dot with dy's channels."""
    x, dy = inputs["x"], inputs["dy"]
    shape = tuple(int(d) for d in attrs["filter_shape"])
    info = conv3d_info_from_attrs(x.shape, shape, attrs)
    rows = _patches(backend.values(x), info, window_taps(info))
    cols = (
        [list(col) for col in zip(*rows, strict=True)] if rows else [[] for _ in range(math.prod(shape[:4]))]
    )
    dyv, o = backend.values(dy), shape[4]
    dycols = [dyv[j::o].tolist() for j in range(o)]
    out = list(starmap(dot, product(cols, dycols)))
    return backend.output(to_array(out, "float32"), shape, "float32")


def _pool_windows(backend: Any, x: Any, info: Conv3DInfo) -> list[list[list]]:
    """Per batch and output position, per channel, the in-bounds window values (nan left in)."""
    c, taps = info.in_channels, window_taps(info)
    xv = backend.values(x)
    out = []
    for b in range(info.batch):
        pix = _pixels(xv, info, b)
        for window in taps:
            inside = [pix[i] for i in window if i >= 0]
            out.append([[p[ch] for p in inside] for ch in range(c)])
    return out


def _max(values: list) -> float:
    """The maximum ignoring nan; -inf when nothing is left."""
    return max((v for v in values if v == v), default=-math.inf)


def _pool(backend: Any, inputs: Any, attrs: dict[str, Any], is_max: bool) -> TensorInfo:
    """MaxPool3D (the maximum of each window's in-bounds elements, nan never wins) or AvgPool3D (their mean,
    float32)."""
    x = inputs["x"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    windows = _pool_windows(backend, x, info)
    if not is_max:
        out = [sum(vals) / max(1, len(vals)) for window in windows for vals in window]
        return backend.output(to_array(out, "float32"), info.out_shape, "float32")
    out = [_max(vals) for window in windows for vals in window]
    if x.dtype != "float32":
        out = [int(v) if v != -math.inf else -(2**31) for v in out]
    return backend.output(to_array(out, x.dtype), info.out_shape, x.dtype)


def _pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any], is_max: bool) -> TensorInfo:
    """MaxPool3DGrad {dy, input, output} (each window's dy to its last maximum) or AvgPool3DGrad {dy, input}
    (each window's dy / its in-bounds count, over those elements)."""
    x, dy = inputs["input"], inputs["dy"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    c, taps = info.in_channels, window_taps(info)
    xv, dyv = backend.values(x), backend.values(dy)
    n = math.prod(info.in_size)
    out: list = []
    for b in range(info.batch):
        pix = _pixels(xv, info, b) if is_max else []
        acc = [[0.0] * c for _ in range(n)]
        for p, window in enumerate(taps):
            off = (b * len(taps) + p) * c
            grads = dyv[off : off + c].tolist()
            inside = [i for i in window if i >= 0]
            for ch in range(c):
                if is_max:
                    best, at = -math.inf, -1
                    for i in inside:
                        v = pix[i][ch]
                        if v >= best:
                            best, at = v, i
                    if at >= 0:
                        acc[at][ch] += grads[ch]
                elif inside:
                    share = grads[ch] / len(inside)
                    for i in inside:
                        acc[i][ch] += share
        for row in acc:
            out.extend(row)
    return backend.output(to_array(out, "float32"), x.shape, "float32")


KERNELS = {
    kn.Conv3D: conv3d,
    kn.Conv3DBackpropInputV2: conv3d_backprop_input,
    kn.Conv3DBackpropFilterV2: conv3d_backprop_filter,
    **pool3d_kernels(_pool, _pool_grad),
}
