"""wasm kernels that only move or convert elements: Slice, StridedSlice, Concat, Pack, Unpack, SplitV, Cast.

The binary has no exports for these (TF.js does them in JS), so they copy within the heap with
WasmBackend.copy: one JS call per output (or per concat input) whatever the dtype, no host round trip.
Contracts: webtf.kernel_names; a result that is all of an input shares its buffer, as on cpu.
"""

from __future__ import annotations

import math
from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    concat_bands,
    concat_shape,
    flat_slice,
    pack_shape,
    slice_info_from_attrs,
    split_sizes,
)
from ....dtypes import BYTES_PER_ELEMENT
from ....shapes import strides_of
from ...base import TensorInfo
from .common import Kernel, with_fallback


def _take(backend: Any, x: Any, base: int, counts: tuple, src_strides: tuple, out_shape: tuple) -> TensorInfo:
    """A new buffer of `out_shape` holding x's elements at base + i . src_strides over `counts`."""
    out = backend.make_output(out_shape, x.dtype)
    if 0 not in counts:
        size = BYTES_PER_ELEMENT[x.dtype]
        src = backend.pointer(x) + base * size
        backend.copy(src, backend.pointer(out), counts, src_strides, strides_of(counts), size)
    return out


def slice_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Slice {x} attrs begin, size and StridedSlice {x} attrs begin, end, strides, the five masks."""
    x = inputs["x"]
    info = slice_info_from_attrs(x.shape, attrs)
    if info.is_identity:
        return TensorInfo(x.data_id, info.final_shape, x.dtype)
    base, axes = flat_slice(info, x.shape)
    return _take(backend, x, base, info.sizes, tuple(step for _, step in axes), info.final_shape)


def _concat(backend: Any, tensors: list[Any], axis: int, out_shape: tuple[int, ...]) -> TensorInfo:
    outer, parts = concat_bands(tensors, axis, out_shape)
    total = math.prod(out_shape[axis:])
    dtype = tensors[0].dtype
    if len(parts) == 1:  # every other input is empty: the result is this one's buffer
        return TensorInfo(parts[0][0].data_id, out_shape, dtype)
    out = backend.make_output(out_shape, dtype)
    size = BYTES_PER_ELEMENT[dtype]
    dst, col = backend.pointer(out), 0
    for t, inner in parts:  # each input fills a band of columns of the [outer, total] result
        backend.copy(backend.pointer(t), dst + col * size, (outer, inner), (inner, 1), (total, 1), size)
        col += inner
    return out


def concat(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Concat: one heap copy per input."""
    axis = attrs["axis"]
    return _concat(backend, list(inputs), axis, concat_shape([t.shape for t in inputs], axis))


def pack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Pack [tensors of one shape] attr axis of the new dim."""
    axis, out_shape = pack_shape(inputs[0].shape, len(inputs), attrs["axis"])
    return _concat(backend, list(inputs), axis, out_shape)


def unpack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """Unpack: one heap copy per output."""
    x, axis = inputs["value"], attrs["axis"]
    strides = strides_of(x.shape)
    counts = x.shape[:axis] + x.shape[axis + 1 :]
    rest = strides[:axis] + strides[axis + 1 :]
    return [_take(backend, x, i * strides[axis], counts, rest, counts) for i in range(x.shape[axis])]


def split_v(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """SplitV {x} attrs num_or_size_splits (sizes summing to x.shape[axis], or a count), axis (>= 0)."""
    x, axis = inputs["x"], attrs["axis"]
    sizes = split_sizes(x.shape[axis], attrs["num_or_size_splits"])
    strides = strides_of(x.shape)
    outs, start = [], 0
    for n in sizes:
        shape = (*x.shape[:axis], n, *x.shape[axis + 1 :])
        outs.append(_take(backend, x, start * strides[axis], shape, strides, shape))
        start += n
    return outs


def cast(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Cast: converted within the heap (backend.cast)."""
    x, dtype = inputs["x"], attrs["dtype"]
    if dtype == x.dtype:
        return TensorInfo(x.data_id, x.shape, x.dtype)
    return backend.cast(x, dtype)


KERNELS: dict[str, Kernel] = {
    name: with_fallback(name, fn)
    for name, fn in {
        kn.Slice: slice_,
        kn.StridedSlice: slice_,
        kn.Concat: concat,
        kn.Pack: pack,
        kn.Unpack: unpack,
        kn.SplitV: split_v,
        kn.Cast: cast,
    }.items()
}
