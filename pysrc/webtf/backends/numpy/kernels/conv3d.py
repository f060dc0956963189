"""numpy kernels of the 3-D convs and pools (NDHWC): Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2,
MaxPool3D, AvgPool3D, MaxPool3DGrad and AvgPool3DGrad (contracts: the cpu kernels in cpu/kernels/conv3d.py).

Each gathers the windows through backend_util.window_taps (one index per output position and tap, the
padding pointing at an extra fill position) into [b, positions, taps, c], then a matmul (convs), a reduction
(pools) or np.add.at back onto the input positions (input gradients).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ....backend_util import Conv3DInfo, conv3d_info_from_attrs, window_taps
from ...base import TensorInfo
from .common import as_float, mirror_cpu_table, store


def _index(info: Conv3DInfo) -> tuple[np.ndarray, np.ndarray]:
    """(index [positions, taps] into the input positions plus one fill position at the end, in-bounds mask)."""
    taps = np.array(window_taps(info), dtype=np.int64).reshape(-1, int(np.prod(info.filter_size)))
    inside = taps >= 0
    return np.where(inside, taps, int(np.prod(info.in_size))), inside


def _gather(x: np.ndarray, info: Conv3DInfo, fill: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(windows [b, positions, taps, c] with `fill` in the padding, index, in-bounds mask)."""
    b, c = info.batch, info.in_channels
    flat = x.reshape(b, -1, c)
    padded = np.concatenate([flat, np.full((b, 1, c), fill, flat.dtype)], axis=1)
    idx, inside = _index(info)
    return padded[:, idx], idx, inside


def _scatter(parts: np.ndarray, idx: np.ndarray, info: Conv3DInfo) -> np.ndarray:
    """The transpose of _gather: parts [b, positions, taps, c] added onto the input positions."""
    b, c = info.batch, info.in_channels
    acc = np.zeros((b, int(np.prod(info.in_size)) + 1, c), np.float64)
    np.add.at(acc, (slice(None), idx), parts)
    return acc[:, :-1].reshape(info.in_shape)


def conv3d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3D {x, filter}: im2col windows times the filter as a matrix."""
    x, f = inputs["x"], inputs["filter"]
    info = conv3d_info_from_attrs(x.shape, f.shape, attrs)
    wins, _, _ = _gather(as_float(backend.nd(x)), info, 0.0)
    b, p, t, c = wins.shape
    out = wins.reshape(b * p, t * c) @ as_float(backend.nd(f)).reshape(t * c, -1)
    return backend.make(store(out.reshape(info.out_shape), "float32"), "float32")


def conv3d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3DBackpropInputV2 {dy, filter}: dy times the filter's transpose, scattered over the windows."""
    dy, f = inputs["dy"], inputs["filter"]
    info = conv3d_info_from_attrs(tuple(int(d) for d in attrs["input_shape"]), f.shape, attrs)
    idx, _ = _index(info)
    fm = backend.nd(f).astype(np.float64).reshape(-1, info.out_channels)
    parts = backend.nd(dy).astype(np.float64).reshape(info.batch, idx.shape[0], -1) @ fm.T
    dx = _scatter(parts.reshape(info.batch, *idx.shape, info.in_channels), idx, info)
    return backend.make(store(dx, "float32"), "float32")


def conv3d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv3DBackpropFilterV2 {x, dy}: the im2col windows' transpose times dy."""
    x, dy = inputs["x"], inputs["dy"]
    shape = tuple(int(d) for d in attrs["filter_shape"])
    info = conv3d_info_from_attrs(x.shape, shape, attrs)
    wins, _, _ = _gather(backend.nd(x).astype(np.float64), info, 0.0)
    b, p, t, c = wins.shape
    df = wins.reshape(b * p, t * c).T @ backend.nd(dy).astype(np.float64).reshape(b * p, -1)
    return backend.make(store(df.reshape(shape), "float32"), "float32")


def _masked_windows(backend: Any, x: Any, info: Conv3DInfo) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(float64 windows, index, mask of the taps that may win a max: in bounds and not nan)."""
    wins, idx, inside = _gather(backend.nd(x).astype(np.float64), info, np.nan)
    return wins, idx, inside[None, :, :, None] & ~np.isnan(wins)


def max_pool3d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MaxPool3D: the maximum of each window's in-bounds, non-nan elements (-inf if none)."""
    x = inputs["x"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    wins, _, ok = _masked_windows(backend, x, info)
    out = np.where(ok, wins, -np.inf).max(axis=2, initial=-np.inf)
    if x.dtype != "float32":
        out = np.where(np.isinf(out), np.iinfo(np.int32).min, out)
    return backend.make(store(out.reshape(info.out_shape), x.dtype), x.dtype)


def avg_pool3d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPool3D: each window's sum over its in-bounds count (0 for a window wholly in the padding)."""
    x = inputs["x"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    wins, _, inside = _gather(backend.nd(x).astype(np.float64), info, 0.0)
    out = wins.sum(axis=2) / np.maximum(inside.sum(axis=1), 1)[None, :, None]
    return backend.make(store(out.reshape(info.out_shape), "float32"), "float32")


def max_pool3d_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MaxPool3DGrad {dy, input, output}: each window's dy to its last maximum."""
    x, dy = inputs["input"], inputs["dy"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    wins, idx, ok = _masked_windows(backend, x, info)
    vals = np.where(ok, wins, -np.inf)
    hit = ok & (vals == vals.max(axis=2, keepdims=True, initial=-np.inf))
    last = hit.shape[2] - 1 - np.argmax(hit[:, :, ::-1], axis=2)  # [b, positions, c]
    one = (np.arange(hit.shape[2])[None, None, :, None] == last[:, :, None]) & hit
    g = backend.nd(dy).astype(np.float64).reshape(info.batch, -1, 1, info.in_channels)
    return backend.make(store(_scatter(one * g, idx, info), "float32"), "float32")


def avg_pool3d_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPool3DGrad {dy, input}: each window's dy / its in-bounds count over those elements."""
    x, dy = inputs["input"], inputs["dy"]
    info = conv3d_info_from_attrs(x.shape, None, attrs)
    idx, inside = _index(info)
    share = inside / np.maximum(inside.sum(axis=1, keepdims=True), 1)  # [positions, taps]
    g = backend.nd(dy).astype(np.float64).reshape(info.batch, -1, 1, info.in_channels)
    return backend.make(store(_scatter(g * share[None, :, :, None], idx, info), "float32"), "float32")


KERNELS = mirror_cpu_table(globals())
