"""cpu kernels MaxPool and AvgPool (NHWC).

Inputs and attrs: webtf.kernel_names. Padding never takes part: MaxPool pads with -inf, AvgPool divides each
window's sum by its count of in-bounds elements (as TF.js).
"""

from __future__ import annotations

import math
import operator
from itertools import chain, repeat
from typing import Any

from ....backend_util import ConvInfo, is_identity_pool, pool_info_from_attrs, pool_kernels, window_counts
from ...base import TensorInfo
from .conv import TapRows, padded_rows
from .matmul import to_array


def _global_pool(xv: Any, info: ConvInfo, is_max: bool) -> list:
    """A window covering the whole unpadded input: per batch and channel, the max / mean of one strided slice
    (the same values in the same order as the windowed path below)."""
    c = info.in_channels
    size, count = info.in_height * info.in_width * c, info.in_height * info.in_width
    out: list = []
    for b in range(info.batch):
        planes = [xv[b * size + ch : (b + 1) * size : c] for ch in range(c)]
        out.extend(map(max, planes) if is_max else (sum(v) / count for v in planes))
    return out


def _pool(backend: Any, x: Any, info: ConvInfo, is_max: bool) -> list:
    xv = backend.values(x)
    fh, fw, c = info.filter_height, info.filter_width, info.in_channels
    if (fh, fw, info.out_height, info.out_width) == (info.in_height, info.in_width, 1, 1) and not (
        info.pad_top or info.pad_left
    ):
        return _global_pool(xv, info, is_max)
    single = fh * fw == 1
    out: list = []
    if not is_max:
        ch = window_counts(info.out_height, info.stride_height, info.pad_top, info.in_height, fh)
        cw = window_counts(info.out_width, info.stride_width, info.pad_left, info.in_width, fw)
        cw_rep = list(chain.from_iterable(map(repeat, cw, repeat(c))))
        divisors: dict[int, list] = {}
    for b in range(info.batch):
        tr = TapRows(padded_rows(xv, b, info, -math.inf if is_max else 0.0), info)
        for y in range(info.out_height):
            r0 = y * info.stride_height
            cols = [tr.tap(r0 + i, j) for i in range(fh) for j in range(fw)]
            if is_max:
                out.extend(cols[0] if single else map(max, *cols))
                continue
            div = divisors.get(ch[y])
            if div is None:
                div = divisors[ch[y]] = [ch[y] * v if ch[y] * v > 0 else math.nan for v in cw_rep]
            out.extend(map(operator.truediv, cols[0] if single else map(sum, zip(*cols, strict=False)), div))
    return out


def _run(backend: Any, inputs: Any, attrs: dict[str, Any], is_max: bool) -> Any:
    """MaxPool (the maximum of each window of x [b, h, w, c]) or AvgPool (the mean of its in-bounds elements)."""
    x = inputs["x"]
    info = pool_info_from_attrs(x.shape, attrs)
    if is_identity_pool(info):
        return TensorInfo(x.data_id, x.shape, x.dtype)
    return backend.output(to_array(_pool(backend, x, info, is_max), x.dtype), info.out_shape, x.dtype)


KERNELS = pool_kernels(_run)
