"""wasm kernels that only move or convert elements: Slice, StridedSlice, Concat, Pack, Unpack, SplitV, Cast,
SpaceToBatchND and BatchToSpaceND (one copy per block position; TF.js composes these from reshape, transpose
and pad / slice kernels).

The binary has no exports for these (TF.js does them in JS), so they copy within the heap with
WasmBackend.copy: one JS call per output (or per concat input) whatever the dtype, no host round trip.
Contracts: webtf.kernel_names; a result that is all of an input shares its buffer, as on cpu.
"""

from __future__ import annotations

import math
from array import array
from itertools import product
from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    concat_bands,
    flat_slice,
    join_kernels,
    slice_info_from_attrs,
    split_sizes,
)
from ....dtypes import BYTES_PER_ELEMENT, TYPECODE
from ....shapes import strides_of
from ...base import TensorInfo
from .common import Kernel, cpu, with_fallbacks


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


concat, pack = join_kernels(_concat)


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


def _block_runs(n_in: int, n_out: int, bl: int, pos: int, before: int) -> tuple[int, int, int]:
    """Along one spatial axis at block position `pos`: (first j, count, first out index) of the j in [0, n_out)
    whose element j * bl + pos - before of the n_in inputs exists (SpaceToBatchND's direction)."""
    lo = max(0, -((pos - before) // bl))
    hi = min(n_out, (n_in - 1 - pos + before) // bl + 1)
    return lo, max(0, hi - lo), lo * bl + pos - before


def _space_batch(name: str) -> Kernel:
    """SpaceToBatchND {x} attrs block_shape, paddings, or BatchToSpaceND {x} attrs block_shape, crops."""
    fallback = cpu(name)
    to_batch = name == kn.SpaceToBatchND

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if x.dtype not in ("float32", "int32", "bool"):
            return fallback(backend, inputs, attrs)
        block = [int(b) for b in attrs["block_shape"]]
        edges = [(int(a), int(b)) for a, b in attrs["paddings" if to_batch else "crops"]]
        m, shape = len(block), x.shape
        if to_batch:
            batch, spatial = shape[0], [(shape[1 + i] + sum(edges[i])) // block[i] for i in range(m)]
            out_shape = (batch * math.prod(block), *spatial, *shape[1 + m :])
        else:
            batch = shape[0] // math.prod(block)
            spatial = [shape[1 + i] * block[i] - sum(edges[i]) for i in range(m)]
            out_shape = (batch, *spatial, *shape[1 + m :])
        size = BYTES_PER_ELEMENT[x.dtype]
        if to_batch and any(a or b for a, b in edges):  # padding stays 0
            out = backend.output(
                array(TYPECODE[x.dtype], bytes(size * math.prod(out_shape))), out_shape, x.dtype
            )
        else:
            out = backend.make_output(out_shape, x.dtype)
        if 0 in out_shape or 0 in shape:
            return out
        sx, so = strides_of(shape), strides_of(out_shape)
        # the batch-major tensor's element strides (its batch axis, then spatial axes) and the other's
        big, small = (so, sx) if to_batch else (sx, so)
        n_small = [shape[1 + i] for i in range(m)] if to_batch else spatial
        n_big = spatial if to_batch else [shape[1 + i] for i in range(m)]
        rest = math.prod(shape[1 + m :])
        px, po = backend.pointer(x), backend.pointer(out)
        for flat, pos in enumerate(product(*(range(b) for b in block))):
            runs = [_block_runs(n_small[i], n_big[i], block[i], pos[i], edges[i][0]) for i in range(m)]
            if any(count == 0 for _, count, _ in runs):
                continue
            big_off = flat * batch * big[0] + sum(lo * big[1 + i] for i, (lo, _, _) in enumerate(runs))
            small_off = sum(first * small[1 + i] for i, (_, _, first) in enumerate(runs))
            counts = (batch, *(count for _, count, _ in runs), rest)
            big_strides = (big[0], *big[1 : 1 + m], 1)
            small_strides = (small[0], *(small[1 + i] * block[i] for i in range(m)), 1)
            if to_batch:
                backend.copy(
                    px + small_off * size, po + big_off * size, counts, small_strides, big_strides, size
                )
            else:
                backend.copy(
                    px + big_off * size, po + small_off * size, counts, big_strides, small_strides, size
                )
        return out

    kernel.__doc__ = f"{name}: one heap copy per block position."
    return kernel


KERNELS: dict[str, Kernel] = with_fallbacks(
    {
        kn.Slice: slice_,
        kn.StridedSlice: slice_,
        kn.Concat: concat,
        kn.Pack: pack,
        kn.Unpack: unpack,
        kn.SplitV: split_v,
        kn.Cast: cast,
        kn.SpaceToBatchND: _space_batch(kn.SpaceToBatchND),
        kn.BatchToSpaceND: _space_batch(kn.BatchToSpaceND),
    }
)
