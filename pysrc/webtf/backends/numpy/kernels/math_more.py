"""Vectorized kernels of issue 15's math share: FusedBatchNorm, LRN(Grad), scatter / segment / counting /
search kernels, Multinomial, MaxPoolWithArgmax and Dilation2D(+ backprops)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import kernel_names as kn
from ....backend_util import compute_conv_info, compute_pool_info
from ....backend_util.families import SCATTER_FAMILY, family_kernels
from ....shapes import broadcast_shapes
from ...base import TensorInfo
from .common import store

_NO_TAP = -9007199254740991.0


def _cycled(backend: Any, t: Any, n: int, default: float) -> Any:
    if t is None:
        return default
    flat = backend.nd(t).ravel().astype(np.float64)
    return flat[np.arange(n) % flat.size]


def fused_batch_norm(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FusedBatchNorm: parameters cycled over x."""
    x = backend.nd(inputs["x"]).astype(np.float64)
    n = x.size
    mean, var = _cycled(backend, inputs["mean"], n, 0.0), _cycled(backend, inputs["variance"], n, 1.0)
    off, scale = _cycled(backend, inputs.get("offset"), n, 0.0), _cycled(backend, inputs.get("scale"), n, 1.0)
    out = off + (x.ravel() - mean) * scale / np.sqrt(var + float(attrs.get("variance_epsilon", 0.001)))
    return backend.make(store(out.reshape(x.shape), "float32"), "float32")


def _window_sums(sq: np.ndarray, radius: int) -> np.ndarray:
    """Sums of sq over channels [c - radius, c + radius] (clipped) along the last axis."""
    c = sq.shape[-1]
    csum = np.concatenate([np.zeros((*sq.shape[:-1], 1)), np.cumsum(sq, -1)], -1)
    idx = np.arange(c)
    return csum[..., np.minimum(idx + radius + 1, c)] - csum[..., np.maximum(idx - radius, 0)]


def lrn(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LRN over the channels of NHWC x."""
    x = backend.nd(inputs["x"]).astype(np.float64)
    norm = float(attrs["bias"]) + float(attrs["alpha"]) * _window_sums(x * x, int(attrs["depth_radius"]))
    return backend.make(store(x * norm ** -float(attrs["beta"]), "float32"), "float32")


def lrn_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LRNGrad: d LRN / d x applied to dy."""
    x, y, dy = (backend.nd(inputs[k]).astype(np.float64) for k in ("x", "y", "dy"))
    radius, alpha, beta = int(attrs["depth_radius"]), float(attrs["alpha"]), float(attrs["beta"])
    norm = alpha * _window_sums(x * x, radius) + float(attrs["bias"])
    # out[k] = sum over i whose window holds k of -2 alpha beta x[k] y[i] dy[i] / norm[i], plus norm^-beta dy
    term = y * dy / norm
    out = -2 * alpha * beta * x * _window_sums(term, radius) + norm**-beta * dy
    return backend.make(store(out, "float32"), "float32")


def _slice_offsets(backend: Any, indices: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, int]:
    idx = backend.nd(indices).astype(np.int64)
    depth = idx.shape[-1] if idx.ndim > 1 else 1
    idx = idx.reshape(-1, depth)
    dims = np.array(shape[:depth])
    bad = (idx < 0) | (idx >= dims)
    if bad.any():
        row = idx[bad.any(1)][0]
        raise ValueError(f"Invalid indices: {row.tolist()} does not index into {list(shape)}")
    strides = np.array([int(np.prod(shape[d + 1 : depth])) for d in range(depth)], np.int64)
    return idx @ strides, int(np.prod(shape[depth:]))


def scatter_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ScatterNd: np.add.at of the update slices."""
    shape = tuple(attrs["shape"])
    rows, size = _slice_offsets(backend, inputs["indices"], shape)
    upd = backend.nd(inputs["updates"])
    wide = np.float64 if upd.dtype == np.float32 else np.int64
    out = np.zeros((int(np.prod(shape)) // max(size, 1) if size else 0, size), wide)
    np.add.at(out, rows, upd.reshape(len(rows), size).astype(wide))
    return backend.make(store(out.reshape(shape), inputs["updates"].dtype), inputs["updates"].dtype)


def tensor_scatter_update(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """TensorScatterUpdate: the indexed slices replaced, the last update winning."""
    t = inputs["tensor"]
    rows, size = _slice_offsets(backend, inputs["indices"], t.shape)
    out = backend.nd(t).reshape(-1, size).copy() if size else backend.nd(t).copy()
    upd = backend.nd(inputs["updates"]).reshape(len(rows), size)
    for r, u in zip(rows, upd, strict=True):
        out[r] = u
    return backend.make(out.reshape(t.shape), t.dtype)


def unsorted_segment_sum(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """UnsortedSegmentSum: np.add.at over the ids in range."""
    x = backend.nd(inputs["x"])
    ids = backend.nd(inputs["segment_ids"]).astype(np.int64)
    n = int(attrs["num_segments"])
    wide = np.float64 if x.dtype == np.float32 else np.int64
    out = np.zeros((n, *x.shape[1:]), wide)
    ok = (ids >= 0) & (ids < n)
    np.add.at(out, ids[ok], x[ok].astype(wide))
    return backend.make(store(out, inputs["x"].dtype), inputs["x"].dtype)


def _bincount_row(xs: np.ndarray, ws: np.ndarray | None, size: int, binary: bool) -> np.ndarray:
    if (xs < 0).any():
        raise ValueError("Input x must be non-negative!")
    keep = xs < size
    if binary:
        out = np.zeros(size)
        out[xs[keep]] = 1
        return out
    return np.bincount(xs[keep], None if ws is None else ws[keep].astype(np.float64), minlength=size)[:size]


def bincount(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Bincount of a 1-D x (weights' dtype)."""
    w = inputs["weights"]
    ws = backend.nd(w).ravel()
    out = _bincount_row(
        backend.nd(inputs["x"]).astype(np.int64), ws if ws.size else None, int(attrs["size"]), False
    )
    return backend.make(store(out, w.dtype), w.dtype)


def dense_bincount(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DenseBincount of a 1-D x or each row of a 2-D x."""
    w = inputs["weights"]
    xs = backend.nd(inputs["x"]).astype(np.int64)
    ws = backend.nd(w).reshape(xs.shape) if w.shape and backend.nd(w).size else None
    size, binary = int(attrs["size"]), bool(attrs.get("binary_output"))
    if xs.ndim == 1:  # TF.js counts a 1-D x whatever binary_output says
        out = _bincount_row(xs, ws, size, False)
    else:
        out = np.stack(
            [_bincount_row(r, None if ws is None else ws[i], size, binary) for i, r in enumerate(xs)]
        )
    return backend.make(store(out, w.dtype), w.dtype)


def unique(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """Unique along axis, in first-seen order."""
    x = inputs["x"]
    axis = int(attrs["axis"])
    arr = np.moveaxis(backend.nd(x), axis, 0)
    keys = arr.reshape(arr.shape[0], -1)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    values = np.moveaxis(arr[np.sort(first)], 0, axis)
    return [backend.make(np.ascontiguousarray(values), x.dtype), backend.make(rank[inverse.ravel()], "int32")]


def search_sorted(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """SearchSorted per row."""
    seq, vals = backend.nd(inputs["sorted_sequence"]), backend.nd(inputs["values"])
    side = attrs.get("side", "left")
    out = (
        np.stack([np.searchsorted(s, v, side) for s, v in zip(seq, vals, strict=True)]) if len(seq) else vals
    )
    return backend.make(out.reshape(vals.shape), "int32")


def bitwise_and(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BitwiseAnd of int32 tensors."""
    return backend.make(np.bitwise_and(backend.nd(inputs["a"]), backend.nd(inputs["b"])), "int32")


def broadcast_args(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BroadcastArgs of two shape vectors."""
    s0, s1 = (tuple(int(v) for v in backend.nd(inputs[k])) for k in ("s0", "s1"))
    return backend.make(np.array(broadcast_shapes(s0, s1, "broadcast_args"), np.int32), "int32")


def multinomial(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Multinomial: inverse-CDF draws per row (softmax first unless normalized)."""
    logits = backend.nd(inputs["logits"]).astype(np.float64)
    probs = logits if attrs.get("normalized") else np.exp(logits - logits.max(1, keepdims=True))
    cdf = np.cumsum(probs, 1)
    rng = np.random.default_rng(attrs.get("seed"))
    draws = rng.random((logits.shape[0], int(attrs["num_samples"]))) * cdf[:, -1:]
    out = np.stack([np.searchsorted(c, d, "right") for c, d in zip(cdf, draws, strict=True)])
    return backend.make(np.minimum(out, logits.shape[1] - 1).astype(np.int32), "int32")


def _taps(x: np.ndarray, info: Any, fill: float) -> Any:
    """Yield (ky, kx, window values [b, oh, ow, c] with `fill` off the input, flat input index or -1)."""
    b, h, w, c = x.shape
    fh, fw, sh, sw, dh, dw, top, left = info.window
    ys = np.arange(info.out_height) * sh - top
    xs = np.arange(info.out_width) * sw - left
    flat = np.arange(x.size).reshape(x.shape)
    for ky in range(fh):
        for kx in range(fw):
            yy, xx = ys + ky * dh, xs + kx * dw
            ok = ((yy >= 0) & (yy < h))[:, None] & ((xx >= 0) & (xx < w))[None, :]
            yc, xc = np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)
            vals = np.where(ok[None, :, :, None], x[:, yc][:, :, xc], fill)
            where = np.where(ok[None, :, :, None], flat[:, yc][:, :, xc], -1)
            yield ky, kx, vals, where


def max_pool_with_argmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """MaxPoolWithArgmax: the first maximum of each window and its flat index."""
    xin = inputs["x"]
    x = backend.nd(xin).astype(np.float64)
    info = compute_pool_info(xin.shape, attrs["filter_size"], attrs["strides"], attrs["pad"])
    best = np.full(info.out_shape, -np.inf)
    arg = np.full(info.out_shape, -1, np.int64)
    for _, _, vals, where in _taps(x, info, -np.inf):
        take = (where >= 0) & ((vals > best) | (arg < 0))
        best, arg = np.where(take, vals, best), np.where(take, where, arg)
    if not attrs.get("include_batch_in_index"):
        arg = np.where(arg >= 0, arg % (x.size // x.shape[0]), arg)
    return [backend.make(store(best, "float32"), "float32"), backend.make(arg.astype(np.int32), "int32")]


def _dilation(backend: Any, inputs: Any, attrs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(best value, winning flat x index, winning flat filter index) per output of Dilation2D."""
    xin, fin = inputs["x"], inputs["filter"]
    x, f = backend.nd(xin).astype(np.float64), backend.nd(fin).astype(np.float64)
    fh, fw, c = f.shape
    info = compute_conv_info(
        xin.shape, (fh, fw, c, c), attrs["strides"], attrs.get("dilations", 1), attrs["pad"]
    )
    best = np.full(info.out_shape, _NO_TAP)
    at_x = np.full(info.out_shape, -1, np.int64)
    at_f = np.full(info.out_shape, -1, np.int64)
    chan = np.arange(c)
    for ky, kx, vals, where in _taps(x, info, -np.inf):
        cand = vals + f[ky, kx]
        take = (where >= 0) & (cand > best)
        best = np.where(take, cand, best)
        at_x = np.where(take, where, at_x)
        at_f = np.where(take, (ky * fw + kx) * c + chan, at_f)
    return best, at_x, at_f


def dilation2d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Dilation2D: max of x + filter over each window."""
    best, _, _ = _dilation(backend, inputs, attrs)
    return backend.make(store(best, "float32"), "float32")


def _routed(backend: Any, inputs: Any, attrs: dict[str, Any], target: Any, which: int) -> TensorInfo:
    won = _dilation(backend, inputs, attrs)[which]
    dy = backend.nd(inputs["dy"]).astype(np.float64)
    out = np.zeros(int(np.prod(target.shape)))
    ok = won >= 0
    np.add.at(out, won[ok], dy[ok])
    return backend.make(store(out.reshape(target.shape), "float32"), "float32")


def dilation2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Dilation2DBackpropInput: dy routed to each window's winning x."""
    return _routed(backend, inputs, attrs, inputs["x"], 1)


def dilation2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Dilation2DBackpropFilter: dy routed to each window's winning filter tap."""
    return _routed(backend, inputs, attrs, inputs["filter"], 2)


KERNELS: dict[str, Any] = {
    kn.FusedBatchNorm: fused_batch_norm,
    kn.LRN: lrn,
    kn.LRNGrad: lrn_grad,
    **family_kernels(SCATTER_FAMILY, globals()),
    kn.Multinomial: multinomial,
    kn.MaxPoolWithArgmax: max_pool_with_argmax,
    kn.Dilation2D: dilation2d,
    kn.Dilation2DBackpropInput: dilation2d_backprop_input,
    kn.Dilation2DBackpropFilter: dilation2d_backprop_filter,
}
