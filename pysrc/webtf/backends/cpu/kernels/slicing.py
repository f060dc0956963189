"""cpu kernels that select or pad: Slice, StridedSlice, PadV2, MirrorPad, GatherV2, GatherNd, OneHot."""

from __future__ import annotations

from array import array
from itertools import repeat
from math import prod
from operator import add, mul
from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    check_gather_indices,
    check_gather_nd_indices,
    flat_slice,
    gather_info,
    scalar_as,
    slice_info_from_attrs,
)
from ....dtypes import TYPECODE
from ....shapes import strides_of
from ...base import TensorInfo
from .shape import Axis, contiguous_axes, copy_strided, gather_strided


def slice_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Slice (attrs begin, size: resolved, in range) and StridedSlice (attrs as TF.js: begin, end, strides or
    None, and the five masks), both as backend_util.slice_info_from_attrs resolves them."""
    x = inputs["x"]
    info = slice_info_from_attrs(x.shape, attrs)
    if info.is_identity:  # all of x in order: its own buffer
        return TensorInfo(x.data_id, info.final_shape, x.dtype)
    base, axes = flat_slice(info, x.shape)
    return backend.output(gather_strided(backend.values(x), base, axes), info.final_shape, x.dtype)


def pad_v2(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """PadV2: x padded with constant_value."""
    x, paddings = inputs["x"], [tuple(p) for p in attrs["paddings"]]
    out_shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, paddings, strict=True))
    if out_shape == x.shape:
        return TensorInfo(x.data_id, x.shape, x.dtype)
    code = TYPECODE[x.dtype]
    out = array(code, [scalar_as(x.dtype, attrs.get("constant_value", 0))]) * prod(out_shape)
    out_strides = strides_of(out_shape)
    base = sum(lo * s for (lo, _), s in zip(paddings, out_strides, strict=True))
    axes = [(d, s, o) for (d, s), o in zip(contiguous_axes(x.shape), out_strides, strict=True)]
    copy_strided(out, base, backend.values(x), 0, axes)
    return backend.output(out, out_shape, x.dtype)


def _mirror_index(n: int, lo: int, hi: int, reflect: bool) -> list[int]:
    """Source indices along one padded axis: the edge is repeated in 'symmetric' mode, not in 'reflect'."""
    k = 1 if reflect else 0
    return [*range(lo - 1 + k, k - 1, -1), *range(n), *range(n - 1 - k, n - 1 - k - hi, -1)]


def mirror_pad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MirrorPad: x padded with its own mirror image, one pass per padded axis."""
    x, paddings = inputs["x"], [tuple(p) for p in attrs["paddings"]]
    reflect = attrs["mode"] == "reflect"
    shape = x.shape
    vals = backend.values(x)
    # One pass per padded axis: each pass copies runs along the other axes with slices.
    for axis, (lo, hi) in enumerate(paddings):
        if not lo and not hi:
            continue
        outer, n, inner = prod(shape[:axis]), shape[axis], prod(shape[axis + 1 :])
        index = _mirror_index(n, lo, hi, reflect)
        axes: list[Axis] = [(outer, n * inner), (len(index), [i * inner for i in index]), (inner, 1)]
        vals = gather_strided(vals, 0, axes)
        shape = (*shape[:axis], len(index), *shape[axis + 1 :])
    if shape == x.shape:
        return TensorInfo(x.data_id, x.shape, x.dtype)
    return backend.output(vals, shape, x.dtype)


def gather_v2(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """GatherV2: raises for an index outside [0, x.shape[axis])."""
    x, indices = inputs["x"], inputs["indices"]
    axis, batch_dims = attrs["axis"], attrs.get("batch_dims", 0)
    idx = backend.values(indices)
    out_shape, batch, outer, dim, inner, per_batch = gather_info(x.shape, indices.shape, axis, batch_dims)
    check_gather_indices(idx, dim)
    vals = backend.values(x)
    out = array(vals.typecode)
    for b in range(batch):
        chunk = [i * inner for i in idx[b * per_batch : (b + 1) * per_batch]]
        axes: list[Axis] = [(outer, dim * inner), (per_batch, chunk), (inner, 1)]
        out.extend(gather_strided(vals, b * outer * dim * inner, axes))
    return backend.output(out, out_shape, x.dtype)


def gather_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """GatherNd (indices' last dim <= rank of params): raises for an index out of range."""
    params, indices = inputs["params"], inputs["indices"]
    depth = indices.shape[-1]
    out_shape = (*indices.shape[:-1], *params.shape[depth:])
    slice_size = prod(params.shape[depth:])
    idx = backend.values(indices)
    check_gather_nd_indices(idx, params.shape, depth)
    n = prod(indices.shape[:-1])
    flat: list[int] = [0] * n
    for j, stride in enumerate(strides_of(params.shape)[:depth]):
        flat = list(map(add, flat, map(mul, idx[j::depth], repeat(stride, n))))
    out = gather_strided(backend.values(params), 0, [(n, flat), (slice_size, 1)])  # flat is in elements
    return backend.output(out, out_shape, params.dtype)


def one_hot(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """OneHot: indices outside [0, depth) give a row of off_value."""
    indices = inputs["indices"]
    depth, dtype = attrs["depth"], attrs.get("dtype", "int32")
    on, off = scalar_as(dtype, attrs.get("on_value", 1)), scalar_as(dtype, attrs.get("off_value", 0))
    idx = backend.values(indices)
    out = array(TYPECODE[dtype], [off]) * (len(idx) * depth)
    for pos in [k * depth + i for k, i in enumerate(idx) if 0 <= i < depth]:
        out[pos] = on
    return backend.output(out, (*indices.shape, depth), dtype)


KERNELS = {
    kn.Slice: slice_,
    kn.StridedSlice: slice_,
    kn.PadV2: pad_v2,
    kn.MirrorPad: mirror_pad,
    kn.GatherV2: gather_v2,
    kn.GatherNd: gather_nd,
    kn.OneHot: one_hot,
}
