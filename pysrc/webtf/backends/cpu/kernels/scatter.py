"""Scatter, segment, counting and search kernels on flat host arrays."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from ....backend_util.families import SCATTER_FAMILY, family_kernels
from ....shapes import broadcast_shapes, size_of, strides_of
from ...base import TensorInfo
from .broadcast import to_typed


def _slices(backend: Any, indices: Any, shape: tuple[int, ...]) -> tuple[list[int], int]:
    """(flat offset of each indexed slice of `shape`, slice size); raises on an out-of-range index."""
    idx = backend.values(indices)
    depth = indices.shape[-1] if len(indices.shape) > 1 else 1
    strides = strides_of(shape)
    slice_size = size_of(shape[depth:])
    offsets = []
    for n in range(len(idx) // depth if depth else 0):
        coords = idx[n * depth : (n + 1) * depth]
        if any(not 0 <= c < d for c, d in zip(coords, shape, strict=False)):
            raise ValueError(f"Invalid indices: {list(coords)} does not index into {list(shape)}")
        offsets.append(sum(c * s for c, s in zip(coords, strides, strict=False)))
    return offsets, slice_size


def scatter_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ScatterNd: updates summed into zeros of attr shape at indices."""
    updates = inputs["updates"]
    shape = tuple(attrs["shape"])
    offsets, size = _slices(backend, inputs["indices"], shape)
    upd = backend.values(updates)
    out = [0] * size_of(shape)
    for n, base in enumerate(offsets):
        for k in range(size):
            out[base + k] += upd[n * size + k]
    return backend.output(to_typed(out, updates.dtype), shape, updates.dtype)


def tensor_scatter_update(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """TensorScatterUpdate: a copy of tensor with the indexed slices replaced (the last update wins)."""
    t = inputs["tensor"]
    offsets, size = _slices(backend, inputs["indices"], t.shape)
    out = list(backend.values(t))
    upd = backend.values(inputs["updates"])
    for n, base in enumerate(offsets):
        out[base : base + size] = upd[n * size : (n + 1) * size]
    return backend.output(to_typed(out, t.dtype), t.shape, t.dtype)


def unsorted_segment_sum(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """UnsortedSegmentSum: rows of x summed per segment id; ids outside [0, num_segments) dropped."""
    x = inputs["x"]
    n = int(attrs["num_segments"])
    row = size_of(x.shape[1:])
    vals = backend.values(x)
    out = [0] * (n * row)
    for r, seg in enumerate(backend.values(inputs["segment_ids"])):
        if 0 <= seg < n:
            base = seg * row
            for k in range(row):
                out[base + k] += vals[r * row + k]
    return backend.output(to_typed(out, x.dtype), (n, *x.shape[1:]), x.dtype)


def _counts(xs: Any, ws: Any, size: int, binary: bool, dtype: str) -> list[Any]:
    out = [0] * size
    for i, v in enumerate(xs):
        if v < 0:
            raise ValueError("Input x must be non-negative!")
        if v < size:
            out[v] = 1 if binary else out[v] + (ws[i] if ws else 1)
    return out


def bincount(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Bincount: counts of each value < size of a 1-D x, or the sums of its weights; weights' dtype."""
    w = inputs["weights"]
    size = int(attrs["size"])
    out = _counts(backend.values(inputs["x"]), backend.values(w), size, False, w.dtype)
    return backend.output(to_typed(out, w.dtype), (size,), w.dtype)


def dense_bincount(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DenseBincount: Bincount of a 1-D x or of each row of a 2-D x; binary_output gives 1 where present."""
    x, w = inputs["x"], inputs["weights"]
    size, binary = int(attrs["size"]), bool(attrs.get("binary_output"))
    xs, ws = backend.values(x), backend.values(w)
    if len(x.shape) == 1:  # TF.js counts a 1-D x whatever binary_output says
        out, shape = _counts(xs, ws, size, False, w.dtype), (size,)
    else:
        cols = x.shape[1]
        out = []
        for r in range(x.shape[0]):
            out += _counts(
                xs[r * cols : (r + 1) * cols],
                ws[r * cols : (r + 1) * cols] if ws else ws,
                size,
                binary,
                w.dtype,
            )
        shape = (x.shape[0], size)
    return backend.output(to_typed(out, w.dtype), shape, w.dtype)


def unique(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """Unique: [the distinct slices along axis in first-seen order, int32 index of each slice's value]."""
    x = inputs["x"]
    axis = int(attrs["axis"])
    vals = backend.values(x)
    outer, n, inner = size_of(x.shape[:axis]), x.shape[axis], size_of(x.shape[axis + 1 :])
    keys: dict[tuple, int] = {}
    indices = []
    for i in range(n):
        key = tuple(vals[(o * n + i) * inner + k] for o in range(outer) for k in range(inner))
        if len(key) == 1 and key[0] != key[0]:
            key = ("nan",)
        indices.append(keys.setdefault(key, len(keys)))
    firsts = [indices.index(u) for u in range(len(keys))]
    out = [vals[(o * n + i) * inner + k] for o in range(outer) for i in firsts for k in range(inner)]
    shape = (*x.shape[:axis], len(keys), *x.shape[axis + 1 :])
    return [
        backend.output(to_typed(out, x.dtype), shape, x.dtype),
        backend.output(to_typed(indices, "int32"), (n,), "int32"),
    ]


def search_sorted(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """SearchSorted: per row, the first index whose value is >= ('left') or > ('right') each value."""
    seq, vals = inputs["sorted_sequence"], inputs["values"]
    find = bisect_left if attrs.get("side", "left") == "left" else bisect_right
    s, v = backend.values(seq), backend.values(vals)
    m, k = seq.shape[1], vals.shape[1]
    out = [find(s, v[r * k + j], r * m, r * m + m) - r * m for r in range(vals.shape[0]) for j in range(k)]
    return backend.output(to_typed(out, "int32"), vals.shape, "int32")


def bitwise_and(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BitwiseAnd: a & b of two int32 tensors of one shape."""
    a, b = inputs["a"], inputs["b"]
    out = [p & q for p, q in zip(backend.values(a), backend.values(b), strict=True)]
    return backend.output(to_typed(out, "int32"), a.shape, "int32")


def broadcast_args(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BroadcastArgs: the broadcast shape of two int32 shape vectors."""
    s0, s1 = (tuple(backend.values(inputs[k])) for k in ("s0", "s1"))
    shape = broadcast_shapes(s0, s1, "broadcast_args")
    return backend.output(to_typed(list(shape), "int32"), (len(shape),), "int32")


KERNELS: dict[str, Any] = family_kernels(SCATTER_FAMILY, globals())
