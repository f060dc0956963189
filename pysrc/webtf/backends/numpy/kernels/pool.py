"""numpy kernels MaxPool and AvgPool (NHWC), contracts in webtf.kernel_names: padding never takes part (MaxPool pads
with the dtype's lowest value, AvgPool divides each window's sum by its count of in-bounds elements)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ....backend_util import ConvInfo, is_identity_pool, pool_info_from_attrs, window_counts
from ...base import TensorInfo
from .common import F32, mirror_cpu_table, share, store
from .conv import padded


def _reduce_windows(xp: np.ndarray, info: ConvInfo, ufunc: np.ufunc, dtype: Any = None) -> np.ndarray:
    """`ufunc` over every window of the padded input, separably: along each row's windows, then down the
    columns of those results (fh + fw taps per output instead of fh * fw)."""
    b, hp, _, c = xp.shape
    s0, s1, s2, s3 = xp.strides
    fh, fw, oh, ow = info.filter_height, info.filter_width, info.out_height, info.out_width
    rows = as_strided(xp, (b, hp, ow, fw, c), (s0, s1, info.stride_width * s2, info.dilation_width * s2, s3))
    r = ufunc.reduce(rows, axis=3, dtype=dtype)
    t0, t1, t2, t3 = r.strides
    cols = as_strided(r, (b, oh, fh, ow, c), (t0, info.stride_height * t1, info.dilation_height * t1, t2, t3))
    return ufunc.reduce(cols, axis=2)


def _max(x: np.ndarray, info: ConvInfo) -> np.ndarray:
    lowest = -np.inf if x.dtype == F32 else np.iinfo(np.int32).min if x.dtype == np.int32 else False
    return _reduce_windows(padded(x, info, lowest), info, np.maximum)


def _avg(x: np.ndarray, info: ConvInfo) -> np.ndarray:
    xp = padded(x, info, 0)
    sums = _reduce_windows(xp, info, np.add, np.float32 if x.dtype == F32 else np.float64)
    ch = window_counts(info.out_height, info.stride_height, info.pad_top, info.in_height, info.filter_height)
    cw = window_counts(info.out_width, info.stride_width, info.pad_left, info.in_width, info.filter_width)
    counts = np.outer(ch, cw)[:, :, None]
    return sums / np.where(counts > 0, counts, np.nan).astype(sums.dtype)


def _run(backend: Any, inputs: Any, attrs: dict[str, Any], is_max: bool) -> TensorInfo:
    x = inputs["x"]
    info = pool_info_from_attrs(x.shape, attrs)
    if is_identity_pool(info):
        return share(x)
    out = (_max if is_max else _avg)(backend.nd(x), info)
    return backend.make(store(out, x.dtype), x.dtype)


def max_pool(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MaxPool: the maximum of each window of x [b, h, w, c]."""
    return _run(backend, inputs, attrs, True)


def avg_pool(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPool: the mean of each window's in-bounds elements of x [b, h, w, c]."""
    return _run(backend, inputs, attrs, False)


KERNELS = mirror_cpu_table(globals())
