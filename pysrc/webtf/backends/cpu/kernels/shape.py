"""cpu kernels that move elements: Reshape, ExpandDims, Transpose, Concat, Pack, Unpack, SplitV, Tile,
Reverse.

Every move is expressed as `gather_strided` (a fresh row-major output read from `src` along a list of axes,
each with a source stride or a list of source offsets) or `copy_strided` (writing into an existing buffer),
which copy whole runs with C-level strided slicing: one Python step per run, never one per element
(except when no axis gives runs of a useful length).
"""

from __future__ import annotations

from array import array
from math import prod
from typing import Any

from .... import kernel_names as kn
from ....backend_util import concat_bands, concat_shape, pack_shape, split_sizes
from ....dtypes import TYPECODE
from ....shapes import strides_of
from ...base import TensorInfo

# An axis of a move: (count, source stride) or (count, list of `count` source offsets).
Axis = tuple[int, int | list[int]]

# Rough costs (ns) that pick how to copy: a Python step per run, per element of a contiguous or strided
# slice copy, and per element read one by one through an offset table.
_RUN_NS, _CONTIGUOUS_NS, _STRIDED_NS, _ELEMENT_NS = 200.0, 0.1, 2.0, 60.0


def _cost(count: int, src_step: int, dst_step: int) -> float:
    """Estimated ns per element when copying runs of `count` elements with these steps."""
    read = _CONTIGUOUS_NS if abs(src_step) == 1 else _STRIDED_NS
    write = _CONTIGUOUS_NS if dst_step == 1 else _STRIDED_NS
    return _RUN_NS / count + read + write


def _simplify(base: int, axes: list[Axis]) -> tuple[int, list[Axis]]:
    """Drop size-1 axes and merge neighbours that read one evenly strided run."""
    out: list[Axis] = []
    for count, src in axes:
        if count == 1:
            base += src[0] if type(src) is list else 0
            continue
        if out and type(src) is int and type(out[-1][1]) is int and out[-1][1] == count * src:
            out[-1] = (out[-1][0] * count, src)
        else:
            out.append((count, src))
    return base, out


def _offsets(base: int, axes: list[Axis]) -> list[int]:
    """Source offsets of every position of `axes`, in row-major order."""
    offs = [base]
    for count, src in axes:
        if type(src) is list:
            deltas: Any = src
        elif src:
            deltas = range(0, count * src, src)
        else:
            deltas = [0] * count
        offs = [o + d for o in offs for d in deltas]
    return offs


def _run(src: array, start: int, count: int, step: int) -> array:
    stop = start + count * step
    return src[start : stop if stop >= 0 else None : step]


def gather_strided(src: array, base: int, axes: list[Axis]) -> array:
    """A row-major array over `axes`: element (i0, i1, ...) is src[base + sum(offset of i_k on axis k)]."""
    code = src.typecode
    size = prod(c for c, _ in axes)
    if size == 0:
        return array(code)
    base, axes = _simplify(base, axes)
    if axes and axes[0][1] == 0:  # the outermost axis repeats everything after it (tile)
        return gather_strided(src, base, axes[1:]) * axes[0][0]
    last = len(axes) - 1
    costs = {
        k: _cost(c, s, 1 if k == last else 2) for k, (c, s) in enumerate(axes) if type(s) is int and s != 0
    }
    j = min(costs, key=costs.__getitem__, default=-1)
    if j < 0 or costs[j] > _ELEMENT_NS:
        return array(code, map(src.__getitem__, _offsets(base, axes)))
    count, step = axes[j]
    others = axes[:j] + axes[j + 1 :]
    if j == last:  # runs are contiguous in the output: append them in order
        out = array(code)
        ext = out.extend
        span = count * step
        if step > 0:
            for s in _offsets(base, others):
                ext(src[s : s + span : step])
        else:
            for s in _offsets(base, others):
                ext(_run(src, s, count, step))
        return out
    out_strides = strides_of([c for c, _ in axes])
    ostep = out_strides[j]
    dst = _offsets(
        0, [(c, st) for k, ((c, _), st) in enumerate(zip(axes, out_strides, strict=True)) if k != j]
    )
    out = array(code, bytes(size * src.itemsize))
    ospan = count * ostep
    for o, s in zip(dst, _offsets(base, others), strict=True):
        out[o : o + ospan : ostep] = _run(src, s, count, step)
    return out


def copy_strided(dst: array, dbase: int, src: array, sbase: int, axes: list[tuple[int, int, int]]) -> None:
    """Copy src into dst along `axes` = (count, src stride, dst stride), from sbase to dbase."""
    if prod(c for c, _, _ in axes) == 0:
        return
    merged: list[tuple[int, int, int]] = []
    for c, ss, ds in axes:
        if c == 1:
            continue
        if merged and merged[-1][1] == c * ss and merged[-1][2] == c * ds:
            merged[-1] = (merged[-1][0] * c, ss, ds)
        else:
            merged.append((c, ss, ds))
    if not merged:
        dst[dbase] = src[sbase]
        return
    j = min(range(len(merged)), key=lambda k: _cost(*merged[k]))
    count, ss, ds = merged[j]
    others = merged[:j] + merged[j + 1 :]
    soffs = _offsets(sbase, [(c, s) for c, s, _ in others])
    doffs = _offsets(dbase, [(c, d) for c, _, d in others])
    sspan, dspan = count * ss, count * ds
    for d, s in zip(doffs, soffs, strict=True):
        dst[d : d + dspan : ds] = src[s : s + sspan : ss]


def contiguous_axes(shape: tuple[int, ...]) -> list[Axis]:
    """The axes reading a row-major tensor of `shape` in order."""
    return list(zip(shape, strides_of(shape), strict=True))


# ---- kernels ------------------------------------------------------------------------------------


def reshape(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Reshape: shares x's buffer."""
    x = inputs["x"]
    return TensorInfo(x.data_id, tuple(attrs["shape"]), x.dtype)


def expand_dims(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ExpandDims (dim may be negative): shares the input's buffer."""
    x = inputs["input"]
    dim = attrs["dim"]
    if dim < 0:
        dim += len(x.shape) + 1
    return TensorInfo(x.data_id, (*x.shape[:dim], 1, *x.shape[dim:]), x.dtype)


def transpose(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Transpose: output dim k is input dim perm[k]."""
    x, perm = inputs["x"], tuple(attrs["perm"])
    out_shape = tuple(x.shape[p] for p in perm)
    if perm == tuple(range(len(perm))):
        return TensorInfo(x.data_id, out_shape, x.dtype)
    strides = strides_of(x.shape)
    out = gather_strided(backend.values(x), 0, [(x.shape[p], strides[p]) for p in perm])
    return backend.output(out, out_shape, x.dtype)


def _concat(backend: Any, tensors: list[Any], axis: int, out_shape: tuple[int, ...]) -> TensorInfo:
    dtype = tensors[0].dtype
    outer, parts = concat_bands(tensors, axis, out_shape)
    total = prod(out_shape[axis:])
    if len(parts) == 1:  # every other input is empty: the result is this one's buffer
        return TensorInfo(parts[0][0].data_id, out_shape, dtype)
    out = array(TYPECODE[dtype])
    if outer == 1:
        for t, _ in parts:
            out.extend(backend.values(t))
    elif parts:
        out = array(out.typecode, bytes(outer * total * out.itemsize))
        col = 0
        for t, inner in parts:  # each input fills a band of columns of the [outer, total] result
            copy_strided(out, col, backend.values(t), 0, [(outer, inner, total), (inner, 1, 1)])
            col += inner
    return backend.output(out, out_shape, dtype)


def concat(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Concat: the inputs joined along `axis`."""
    axis = attrs["axis"]
    return _concat(backend, list(inputs), axis, concat_shape([t.shape for t in inputs], axis))


def pack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """inputs: a list of tensors of one shape and dtype; attrs: axis (in [-(rank+1), rank]) of the new dim."""
    axis, out_shape = pack_shape(inputs[0].shape, len(inputs), attrs["axis"])
    return _concat(backend, list(inputs), axis, out_shape)


def unpack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """Unpack: one output per index along `axis`, that dim removed."""
    x, axis = inputs["value"], attrs["axis"]
    vals = backend.values(x)
    axes = contiguous_axes(x.shape)
    stride = axes[axis][1]
    rest = axes[:axis] + axes[axis + 1 :]
    out_shape = x.shape[:axis] + x.shape[axis + 1 :]
    return [
        backend.output(gather_strided(vals, i * stride, rest), out_shape, x.dtype)
        for i in range(x.shape[axis])
    ]


def split_v(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """attrs: num_or_size_splits (the list of sizes, summing to x.shape[axis]), axis (>= 0)."""
    x, axis = inputs["x"], attrs["axis"]
    sizes = split_sizes(x.shape[axis], attrs["num_or_size_splits"])
    vals = backend.values(x)
    axes = contiguous_axes(x.shape)
    stride = axes[axis][1]
    outs, start = [], 0
    for size in sizes:
        piece = list(axes)
        piece[axis] = (size, stride)
        shape = (*x.shape[:axis], size, *x.shape[axis + 1 :])
        outs.append(backend.output(gather_strided(vals, start * stride, piece), shape, x.dtype))
        start += size
    return outs


def tile(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Tile: x repeated reps[d] times along each dim d."""
    x, reps = inputs["x"], tuple(attrs["reps"])
    out_shape = tuple(d * r for d, r in zip(x.shape, reps, strict=True))
    if all(r == 1 for r in reps):
        return TensorInfo(x.data_id, out_shape, x.dtype)
    axes: list[Axis] = []
    for (d, s), r in zip(contiguous_axes(x.shape), reps, strict=True):
        axes += [(r, 0), (d, s)]  # output index r_i * d + k reads source index k
    return backend.output(gather_strided(backend.values(x), 0, axes), out_shape, x.dtype)


def reverse(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Reverse: x reversed along each axis in `dims`."""
    x = inputs["x"]
    dims = {d for d in attrs["dims"] if x.shape[d] > 1}
    if not dims or x.size == 0:
        return TensorInfo(x.data_id, x.shape, x.dtype)
    vals = backend.values(x)
    if len(dims) == sum(1 for d in x.shape if d > 1):  # every non-trivial axis reversed: the flat reversal
        return backend.output(vals[::-1], x.shape, x.dtype)
    base, axes = 0, []
    for k, (d, s) in enumerate(contiguous_axes(x.shape)):
        if k in dims:
            base += (d - 1) * s
            axes.append((d, -s))
        else:
            axes.append((d, s))
    return backend.output(gather_strided(vals, base, axes), x.shape, x.dtype)


KERNELS = {
    kn.Reshape: reshape,
    kn.ExpandDims: expand_dims,
    kn.Transpose: transpose,
    kn.Concat: concat,
    kn.Pack: pack,
    kn.Unpack: unpack,
    kn.SplitV: split_v,
    kn.Tile: tile,
    kn.Reverse: reverse,
}
