"""strided_slice arithmetic shared by the op and every backend: masks, ellipsis, new axes, clamping.

`slice_info(shape, begin, end, strides, masks...)` turns the sparse spec of tf.strided_slice (one entry per
index expression, as in `x[1:3, ..., tf.newaxis, -1]`) into a dense spec with one entry per input dim:
canonical `begin`, `end` and `strides` after masks, negative indices and clamping, the number of elements
taken in each input dim (`sizes`), and the `final_shape` once shrunk dims are dropped and new axes added.
Semantics are TensorFlow's (and TF.js's port of them): out-of-range bounds are clamped, except for shrunk
(single-index) dims, which must be in range.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add, mul
from typing import Any, NamedTuple

from ..shapes import fmt, strides_of


class SliceInfo(NamedTuple):
    """The dense strided slice: element (i0, i1, ...) of the result is x[begin[d] + i_d * strides[d], ...]."""

    begin: tuple[int, ...]
    end: tuple[int, ...]
    strides: tuple[int, ...]
    sizes: tuple[int, ...]  # elements taken per input dim (the shape before shrinking and new axes)
    final_shape: tuple[int, ...]
    is_identity: bool  # the slice takes all of x in order (only the shape may change)


_NEW_AXIS = -2
_SHRINK = -1


def _bit(mask: int, i: int) -> bool:
    return bool((mask >> i) & 1)


def _count(interval: int, stride: int) -> int:
    """How many of begin, begin + stride, ... lie in a half-open interval of signed length `interval`."""
    if interval == 0 or (interval < 0) != (stride < 0):
        return 0
    q, r = divmod(abs(interval), abs(stride))
    return q + (1 if r else 0)


def slice_info(
    shape: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    op: str = "strided_slice",
) -> SliceInfo:
    """The dense slice for x.shape = `shape`; raises ValueError (naming `op`) for an invalid spec."""
    rank = len(shape)
    begin, end = [int(b) for b in begin], [int(e) for e in end]
    strides = [1] * len(begin) if strides is None else [int(s) for s in strides]
    if not len(begin) == len(end) == len(strides):
        raise ValueError(
            f"Error in {op}: begin, end and strides must have the same length, "
            f"got {len(begin)}, {len(end)} and {len(strides)}"
        )
    if ellipsis_mask & (ellipsis_mask - 1):
        raise ValueError(
            f"Error in {op}: multiple ellipses in slice is not allowed (ellipsis_mask={ellipsis_mask})"
        )

    # Sparse -> dense. Without an ellipsis, one is implied after the last entry.
    n = len(begin)
    has_ellipsis = any(_bit(ellipsis_mask, i) for i in range(n))
    entries = n if has_ellipsis else n + 1
    ellipsis_bits = ellipsis_mask if has_ellipsis else ellipsis_mask | (1 << n)
    d_begin, d_end, d_strides = [0] * rank, [0] * rank, [1] * rank
    d_begin_mask = d_end_mask = d_shrink = 0
    gather: list[int] = []  # per output dim of the final shape: a dense dim, or _NEW_AXIS
    full = 0
    for i in range(entries):
        if _bit(ellipsis_bits, i):
            real_after = sum(1 for j in range(i + 1, n) if not _bit(new_axis_mask, j))
            stop = max(full, rank - real_after)
            for d in range(full, stop):
                d_begin_mask |= 1 << d
                d_end_mask |= 1 << d
                gather.append(d)
            full = stop
        elif _bit(new_axis_mask, i):
            gather.append(_NEW_AXIS)
        else:
            if full == rank:
                raise ValueError(
                    f"Error in {op}: index out of range using input dim {full}; x has only {rank} dims "
                    f"(shape {fmt(shape)})"
                )
            d_begin[full], d_end[full], d_strides[full] = begin[i], end[i], strides[i]
            if _bit(begin_mask, i):
                d_begin_mask |= 1 << full
            if _bit(end_mask, i):
                d_end_mask |= 1 << full
            if _bit(shrink_axis_mask, i):
                d_shrink |= 1 << full
                gather.append(_SHRINK)
            else:
                gather.append(full)
            full += 1

    # Canonical bounds per dense dim.
    sizes = []
    identity = True
    for d in range(rank):
        dim, stride = int(shape[d]), d_strides[d]
        if stride == 0:
            raise ValueError(f"Error in {op}: strides[{d}] must be non-zero")
        if _bit(d_shrink, d):
            if stride < 0:
                raise ValueError(
                    f"Error in {op}: only stride 1 allowed on non-range indexing "
                    f"(dimension {d} is shrunk with stride {stride})"
                )
            index = d_begin[d] + dim if d_begin[d] < 0 else d_begin[d]
            if not 0 <= index < dim:
                raise ValueError(
                    f"Error in {op}: slice index {d_begin[d]} of dimension {d} out of bounds "
                    f"for x of shape {fmt(shape)}"
                )
            d_begin[d], d_end[d], d_strides[d] = index, index + 1, 1
        else:
            lo, hi = (0, dim) if stride > 0 else (-1, dim - 1)
            for bounds, mask, first in ((d_begin, d_begin_mask, True), (d_end, d_end_mask, False)):
                if _bit(mask, d):
                    bounds[d] = lo if (stride > 0) == first else hi
                else:
                    v = bounds[d] + dim if bounds[d] < 0 else bounds[d]
                    bounds[d] = lo if v < lo else hi if v > hi else v
        size = _count(d_end[d] - d_begin[d], d_strides[d])
        sizes.append(size)
        identity = identity and d_strides[d] == 1 and d_begin[d] == 0 and size == dim

    final = tuple(1 if g == _NEW_AXIS else sizes[g] for g in gather if g != _SHRINK)
    return SliceInfo(tuple(d_begin), tuple(d_end), tuple(d_strides), tuple(sizes), final, identity)


def slice_info_from_attrs(shape: Sequence[int], attrs: dict[str, Any]) -> SliceInfo:
    """The SliceInfo of a Slice kernel's attrs (begin, size: resolved, in range) or a StridedSlice kernel's
    (begin, end, strides and the five masks)."""
    if "size" in attrs:
        return slice_info_from_size(shape, attrs["begin"], attrs["size"])
    return slice_info(
        shape,
        attrs["begin"],
        attrs["end"],
        attrs.get("strides"),
        attrs.get("begin_mask", 0),
        attrs.get("end_mask", 0),
        attrs.get("ellipsis_mask", 0),
        attrs.get("new_axis_mask", 0),
        attrs.get("shrink_axis_mask", 0),
    )


def slice_info_from_size(shape: Sequence[int], begin: Sequence[int], size: Sequence[int]) -> SliceInfo:
    """The SliceInfo of a Slice kernel: `size` elements from `begin` in each dim (both resolved, in range)."""
    begin, size = tuple(begin), tuple(size)
    return SliceInfo(begin, tuple(map(add, begin, size)), (1,) * len(size), size, size, size == tuple(shape))


def flat_slice(info: SliceInfo, shape: Sequence[int]) -> tuple[int, list[tuple[int, int]]]:
    """The slice in a row-major buffer of `shape`: (offset of its first element, [(count, step)] per dim)."""
    strides = strides_of(shape)
    return sum(map(mul, info.begin, strides)), list(
        zip(info.sizes, map(mul, info.strides, strides), strict=True)
    )
