"""numpy kernels MaxPool and AvgPool (NHWC), attrs as the cpu kernels: padding never takes part (MaxPool pads
with the dtype's lowest value, AvgPool divides each window's sum by its count of in-bounds elements)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ....backend_util import ConvInfo, is_identity_pool, pool_info_from_attrs
from ...base import TensorInfo
from .common import F32, share, store
from .conv import padded, windows


def _in_bounds(n_in: int, pad: int, n_out: int, stride: int, window: int, n_padded: int) -> np.ndarray:
    """How many taps of each output position's window fall inside the unpadded axis."""
    mask = np.zeros(n_padded)
    mask[pad : pad + n_in] = 1
    return sliding_window_view(mask, window)[: (n_out - 1) * stride + 1 : stride].sum(axis=-1)


def _max(x: np.ndarray, info: ConvInfo) -> np.ndarray:
    lowest = -np.inf if x.dtype == F32 else np.iinfo(np.int32).min if x.dtype == np.int32 else False
    taps = windows(padded(x, info, lowest), info)
    acc = taps[:, :, :, 0, 0].copy()
    for i in range(info.filter_height):
        for j in range(info.filter_width):
            if i or j:
                np.maximum(acc, taps[:, :, :, i, j], out=acc)
    return acc


def _avg(x: np.ndarray, info: ConvInfo) -> np.ndarray:
    xp = padded(x, info, 0)
    taps = windows(xp, info)
    acc = taps[:, :, :, 0, 0].astype(np.float32 if x.dtype == F32 else np.float64)
    for i in range(info.filter_height):
        for j in range(info.filter_width):
            if i or j:
                acc += taps[:, :, :, i, j]
    rows = _in_bounds(
        info.in_height, info.pad_top, info.out_height, info.stride_height, info.filter_height, xp.shape[1]
    )
    cols = _in_bounds(
        info.in_width, info.pad_left, info.out_width, info.stride_width, info.filter_width, xp.shape[2]
    )
    counts = np.outer(rows, cols)[:, :, None]
    return acc / np.where(counts > 0, counts, np.nan).astype(acc.dtype)


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


KERNELS = {"MaxPool": max_pool, "AvgPool": avg_pool}
