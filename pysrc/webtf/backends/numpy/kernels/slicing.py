"""numpy kernels that select or pad: Slice, StridedSlice, PadV2, MirrorPad, GatherV2, GatherNd, OneHot (the
contracts in webtf.kernel_names, the cpu kernels' errors; index checks raise backend_util's TF.js messages)."""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from ....backend_util import (
    check_gather_indices,
    check_gather_nd_indices,
    gather_info,
    slice_info_from_attrs,
)
from ...base import TensorInfo
from ..backend import NP_DTYPE
from .common import mirror_cpu_table, share, store


def slice_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Slice (attrs begin, size) and StridedSlice (begin, end, strides, the five masks), as
    backend_util.slice_info_from_attrs resolves them."""
    x = inputs["x"]
    info = slice_info_from_attrs(x.shape, attrs)
    if info.is_identity:  # all of x in order: its own buffer
        return share(x, info.final_shape)
    index = []
    for begin, size, step in zip(info.begin, info.sizes, info.strides, strict=True):
        stop = begin + size * step  # -1 after a reversed run down to index 0 means "through the start"
        index.append(slice(begin, stop if stop >= 0 else None, step) if size else slice(0, 0))
    return backend.make(backend.nd(x)[tuple(index)].reshape(info.final_shape).copy())


def pad_v2(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """attrs: paddings ([before, after] per dim, non-negative), constant_value."""
    x, paddings = inputs["x"], [tuple(p) for p in attrs["paddings"]]
    out_shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, paddings, strict=True))
    if out_shape == x.shape:
        return share(x)
    fill = store(np.asarray(attrs.get("constant_value", 0)), x.dtype)
    out = np.full(out_shape, fill, NP_DTYPE[x.dtype])
    out[tuple(slice(lo, lo + d) for d, (lo, _) in zip(x.shape, paddings, strict=True))] = backend.nd(x)
    return backend.make(out)


def mirror_pad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """attrs: paddings ([before, after] per dim, at most dim - 1 for 'reflect', dim for 'symmetric'), mode."""
    x, paddings = inputs["x"], [tuple(p) for p in attrs["paddings"]]
    if not any(lo or hi for lo, hi in paddings):
        return share(x)
    mode = "reflect" if attrs["mode"] == "reflect" else "symmetric"  # numpy's modes are TF's
    return backend.make(np.pad(backend.nd(x), paddings, mode=mode))


def gather_v2(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """inputs: x, indices (int32); attrs: axis (>= 0), batch_dims (>= 0, <= axis). Raises for an index
    outside [0, x.shape[axis])."""
    x, indices = inputs["x"], inputs["indices"]
    info = gather_info(x.shape, indices.shape, attrs["axis"], attrs.get("batch_dims", 0))
    idx = backend.nd(indices).reshape(info.batch, info.per_batch)
    if idx.size and (idx.min() < 0 or idx.max() >= info.dim):
        check_gather_indices(idx.ravel().tolist(), info.dim)
    v = backend.nd(x).reshape(info.batch, info.outer, info.dim, info.inner)
    batch = np.arange(info.batch)[:, None, None]
    out = v[batch, np.arange(info.outer)[None, :, None], idx[:, None, :]]  # [batch, outer, per_batch, inner]
    return backend.make(out.reshape(info.out_shape))


def gather_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """inputs: params, indices (int32, last dim <= rank of params). Raises for an index out of range."""
    params, indices = inputs["params"], inputs["indices"]
    depth = indices.shape[-1]
    idx = backend.nd(indices).reshape(prod(indices.shape[:-1]), depth)
    dims = params.shape[:depth]
    if idx.size and ((idx < 0).any() or (idx >= np.asarray(dims, np.int64)).any()):
        check_gather_nd_indices(idx.ravel().tolist(), params.shape, depth)
    flat = np.ravel_multi_index(tuple(idx.T), dims) if depth else np.zeros(len(idx), np.intp)
    rows = backend.nd(params).reshape(prod(dims), prod(params.shape[depth:]))
    return backend.make(rows[flat].reshape(*indices.shape[:-1], *params.shape[depth:]))


def one_hot(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """inputs: indices (int32); attrs: depth, on_value, off_value, dtype. Indices outside [0, depth) give a
    row of off_value."""
    indices = inputs["indices"]
    depth, dtype = attrs["depth"], attrs.get("dtype", "int32")
    on, off = (store(np.asarray(attrs.get(k, d)), dtype) for k, d in (("on_value", 1), ("off_value", 0)))
    idx = backend.nd(indices)
    hot = idx[..., None] == np.arange(depth)
    return backend.make(np.where(hot, on, off).astype(NP_DTYPE[dtype]))


KERNELS = mirror_cpu_table(globals())
