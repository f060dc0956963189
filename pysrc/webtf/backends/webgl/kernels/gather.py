"""GLSL kernels that move elements: Transpose, Slice, StridedSlice, Reverse, Tile, PadV2, MirrorPad,
DepthToSpace, SpaceToBatchND, BatchToSpaceND, Unpack, SplitV (all one strided-gather program,
shaders/Gather.glsl), Concat and Pack (shaders/Concat.glsl), GatherV2, GatherNd, OneHot."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    check_gather_indices,
    check_gather_nd_indices,
    concat_bands,
    concat_shape,
    gather_info,
    pack_shape,
    scalar_as,
    slice_info_from_attrs,
    split_sizes,
)
from ....backend_util.elements import takes_complex
from ....shapes import strides_of
from ...base import TensorInfo
from .elementwise import _View

NONE, TILE, PAD, REFLECT, SYMMETRIC = 0, 1, 2, 3, 4
MAX_RANK = 8  # shaders/Gather.glsl MAX_RANK
MAX_CONCAT = 8  # samplers of shaders/Concat.glsl

# An output dim: (size, source dim, coefficient). A source dim: (offset, size, stride, mode).
OutDim = tuple[int, int, int]
SrcDim = tuple[int, int, int, int]


def _vec_ok(out_dims: list[OutDim], src_dims: list[SrcDim]) -> bool:
    """True when every 4 consecutive outputs read 4 consecutive source elements starting at a multiple of 4."""
    size, s_last, coef = out_dims[-1]
    offset, n, stride, mode = src_dims[s_last]
    if size % 4 or coef != 1 or stride != 1 or offset % 4 or mode in (REFLECT, SYMMETRIC):
        return False
    if mode in (TILE, PAD) and n % 4:
        return False
    if any(c % 4 for _, s, c in out_dims[:-1] if s == s_last):
        return False
    return all(st % 4 == 0 for k, (_, _, st, _) in enumerate(src_dims) if k != s_last)


def gather(
    backend: Any,
    x: Any,
    out_shape: tuple[int, ...],
    out_dims: list[OutDim],
    src_dims: list[SrcDim],
    constant: float = 0.0,
) -> TensorInfo:
    """out[i] = x[source(i)] through the strided map of shaders/Gather.glsl (see its header)."""
    out_dims = [d for d in out_dims if d[0] != 1]
    if not out_dims:
        out_dims = [(1, 0, 0)]
    if len(out_dims) > MAX_RANK or len(src_dims) > MAX_RANK:
        raise ValueError(f"webgl gather: rank above {MAX_RANK} is not supported")
    boundary = any(s[3] != NONE for s in src_dims)
    vec = _vec_ok(out_dims, src_dims)
    row4 = not vec and not boundary and out_dims[-1][0] % 4 == 0
    base = _diagonal_base(out_dims, src_dims) if boundary else None
    tail: list[int] = []
    if base is not None:  # Gather.glsl's DIAG: output dim d reads source dim d
        src_dims = [src_dims[s] for _, s, _ in out_dims]
        out_dims = [(n, d, 1) for d, (n, _, _) in enumerate(out_dims)]
        tail = [base]
    key = ("Gather", len(out_dims), len(src_dims), boundary, vec, row4, base is not None, x.dtype == "int32")
    prog = backend.programs.get(key)
    if prog is None:
        on = (("BOUNDARY", boundary), ("VEC", vec), ("ROW4", row4), (f"DIAG {len(out_dims)}", base is not None))
        ni = 2 + 3 * len(out_dims) + 4 * len(src_dims) + len(tail)
        prog = backend.programs.build(key, "Gather", ("X",), ni, 1, [d for d, o in on if o],
                                      int_output=x.dtype == "int32")  # fmt: skip
    ints = [len(out_dims), len(src_dims)]
    for d in out_dims:
        ints.extend(d)
    for s in src_dims:
        ints.extend(s)
    ints += tail
    return backend.run(prog, (x,), tuple(out_shape), x.dtype, ints, (float(constant),))


def _diagonal_base(out_dims: list[OutDim], src_dims: list[SrcDim]) -> int | None:
    """For Gather.glsl's DIAG map: the source offset of the dims no output dim reads, when every output dim
    reads a source dim of its own with coefficient 1 and those other dims' offsets are in range; else None."""
    read = [s for _, s, _ in out_dims]
    if any(c != 1 for _, _, c in out_dims) or len(set(read)) != len(read):
        return None
    base = 0
    for k, (offset, n, stride, _) in enumerate(src_dims):
        if k not in read:
            if not 0 <= offset < n:
                return None
            base += offset * stride
    return base


def _src(
    shape: Sequence[int], modes: Sequence[int] | None = None, offsets: Sequence[int] | None = None
) -> list:
    strides = strides_of(shape)
    return [
        (offsets[k] if offsets else 0, n, strides[k], modes[k] if modes else NONE)
        for k, n in enumerate(shape)
    ]


def _share(x: Any, shape: tuple[int, ...]) -> TensorInfo:
    return TensorInfo(x.data_id, tuple(shape), x.dtype)


# ---- kernels ------------------------------------------------------------------------------------
def transpose(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Transpose: output dim k is input dim perm[k]; one strided gather."""
    x, perm = inputs["x"], tuple(attrs["perm"])
    out_shape = tuple(x.shape[p] for p in perm)
    if [p for p in perm if x.shape[p] != 1] == sorted(p for p in perm if x.shape[p] != 1):
        return _share(x, out_shape)  # only size-1 dims move: the same flat order
    return gather(backend, x, out_shape, [(x.shape[p], p, 1) for p in perm], _src(x.shape))


def slice_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Slice (attrs begin, size) and StridedSlice (attrs begin, end, strides, the five masks)."""
    x = inputs["x"]
    info = slice_info_from_attrs(x.shape, attrs)
    if info.is_identity:
        return _share(x, info.final_shape)
    out_dims = [(n, d, st) for d, (n, st) in enumerate(zip(info.sizes, info.strides, strict=True))]
    return gather(backend, x, info.final_shape, out_dims, _src(x.shape, offsets=info.begin))


def reverse(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Reverse: one strided gather."""
    x = inputs["x"]
    dims = {d for d in attrs["dims"] if x.shape[d] > 1}
    if not dims or x.size == 0:
        return _share(x, x.shape)
    out_dims = [(n, d, -1 if d in dims else 1) for d, n in enumerate(x.shape)]
    offsets = [n - 1 if d in dims else 0 for d, n in enumerate(x.shape)]
    return gather(backend, x, x.shape, out_dims, _src(x.shape, offsets=offsets))


def tile(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Tile: one strided gather."""
    x, reps = inputs["x"], tuple(attrs["reps"])
    out_shape = tuple(d * r for d, r in zip(x.shape, reps, strict=True))
    if all(r == 1 for r in reps):
        return _share(x, out_shape)
    modes = [TILE if r != 1 else NONE for r in reps]
    return gather(backend, x, out_shape, [(n, d, 1) for d, n in enumerate(out_shape)], _src(x.shape, modes))


def pad_v2(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """PadV2: one strided gather."""
    x, paddings = inputs["x"], [tuple(p) for p in attrs["paddings"]]
    out_shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, paddings, strict=True))
    if out_shape == x.shape:
        return _share(x, x.shape)
    value = float(scalar_as(x.dtype, attrs.get("constant_value", 0)))
    modes = [PAD if lo or hi else NONE for lo, hi in paddings]
    src = _src(x.shape, modes, [-lo for lo, _ in paddings])
    return gather(backend, x, out_shape, [(n, d, 1) for d, n in enumerate(out_shape)], src, value)


def mirror_pad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MirrorPad: one strided gather."""
    x, paddings = inputs["x"], [tuple(p) for p in attrs["paddings"]]
    out_shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, paddings, strict=True))
    if out_shape == x.shape:
        return _share(x, x.shape)
    mode = REFLECT if attrs["mode"] == "reflect" else SYMMETRIC
    src = _src(x.shape, [mode if lo or hi else NONE for lo, hi in paddings], [-lo for lo, _ in paddings])
    return gather(backend, x, out_shape, [(n, d, 1) for d, n in enumerate(out_shape)], src)


def depth_to_space(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthToSpace: one strided gather."""
    x = inputs["x"]
    bs = attrs["block_size"]
    if attrs["data_format"] == "NHWC":
        b, h, w, c = x.shape
        cout = c // (bs * bs)
        out_dims = [(b, 0, 1), (h, 1, 1), (bs, 3, bs * cout), (w, 2, 1), (bs, 3, cout), (cout, 3, 1)]
        shape = (b, h * bs, w * bs, cout)
    else:
        b, c, h, w = x.shape
        cout = c // (bs * bs)
        out_dims = [(b, 0, 1), (cout, 1, 1), (h, 2, 1), (bs, 1, bs * cout), (w, 3, 1), (bs, 1, cout)]
        shape = (b, cout, h * bs, w * bs)
    return gather(backend, x, shape, out_dims, _src(x.shape))


def space_to_batch_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """SpaceToBatchND: one strided gather."""
    x = inputs["x"]
    block, pads = list(attrs["block_shape"]), [tuple(p) for p in attrs["paddings"]]
    m, shape = len(block), x.shape
    out_spatial = [(shape[1 + i] + pads[i][0] + pads[i][1]) // block[i] for i in range(m)]
    out_shape = (shape[0] * prod(block), *out_spatial, *shape[1 + m :])
    out_dims = [(bl, 1 + i, 1) for i, bl in enumerate(block)] + [(shape[0], 0, 1)]
    out_dims += [(n, 1 + i, block[i]) for i, n in enumerate(out_spatial)]
    out_dims += [(n, 1 + m + k, 1) for k, n in enumerate(shape[1 + m :])]
    modes = [NONE] + [PAD if sum(p) else NONE for p in pads] + [NONE] * (len(shape) - 1 - m)
    offsets = [0] + [-p[0] for p in pads] + [0] * (len(shape) - 1 - m)
    return gather(backend, x, out_shape, out_dims, _src(shape, modes, offsets))


def batch_to_space_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BatchToSpaceND: interleaves, then crops (a second gather) if needed."""
    x = inputs["x"]
    block, crops = list(attrs["block_shape"]), [tuple(c) for c in attrs["crops"]]
    m, shape = len(block), x.shape
    out_batch = shape[0] // prod(block)
    block_strides = strides_of(block)
    full = (out_batch, *[shape[1 + i] * block[i] for i in range(m)], *shape[1 + m :])
    out_dims = [(out_batch, 0, 1)]
    for i in range(m):
        out_dims += [(shape[1 + i], 1 + i, 1), (block[i], 0, block_strides[i] * out_batch)]
    out_dims += [(n, 1 + m + k, 1) for k, n in enumerate(shape[1 + m :])]
    inter = gather(backend, x, full, out_dims, _src(shape))
    if not any(a or b for a, b in crops):
        return inter
    size = (out_batch, *[full[1 + i] - crops[i][0] - crops[i][1] for i in range(m)], *shape[1 + m :])
    begin = (0, *[c[0] for c in crops], *[0] * (len(shape) - 1 - m))
    view = _View(inter.data_id, full, x.dtype)
    out = gather(backend, view, size, [(n, d, 1) for d, n in enumerate(size)], _src(full, offsets=begin))
    backend.temp(inter)
    return out


def unpack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """Unpack: one strided gather per output."""
    x, axis = inputs["value"], attrs["axis"]
    out_shape = x.shape[:axis] + x.shape[axis + 1 :]
    out_dims = [(n, d, 1) for d, n in enumerate(x.shape) if d != axis]
    offsets = [0] * len(x.shape)
    outs = []
    for i in range(x.shape[axis]):
        offsets[axis] = i
        outs.append(gather(backend, x, out_shape, out_dims, _src(x.shape, offsets=offsets)))
    return outs


def split_v(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """SplitV: attrs num_or_size_splits (sizes, or a count of equal parts), axis."""
    x, axis = inputs["x"], attrs["axis"]
    sizes = split_sizes(x.shape[axis], attrs["num_or_size_splits"])
    outs, start = [], 0
    for size in sizes:
        shape = (*x.shape[:axis], size, *x.shape[axis + 1 :])
        offsets = [start if d == axis else 0 for d in range(len(x.shape))]
        outs.append(
            gather(
                backend, x, shape, [(n, d, 1) for d, n in enumerate(shape)], _src(x.shape, offsets=offsets)
            )
        )
        start += size
    return outs


def _concat(backend: Any, tensors: list[Any], axis: int, out_shape: tuple[int, ...]) -> TensorInfo:
    dtype = tensors[0].dtype
    outer, parts = concat_bands(tensors, axis, out_shape)
    if len(parts) == 1:
        return TensorInfo(parts[0][0].data_id, out_shape, dtype)
    if not parts:
        return backend.run(None, (), out_shape, dtype)  # empty
    total = sum(inner for _, inner in parts)
    if len(parts) > MAX_CONCAT:  # concatenate groups, then the groups
        groups = []
        for k in range(0, len(parts), MAX_CONCAT):
            chunk = parts[k : k + MAX_CONCAT]
            inner = sum(i for _, i in chunk)
            groups.append(
                _View(_concat_run(backend, chunk, outer, inner, dtype).data_id, (outer, inner), dtype)
            )
        out = _concat(backend, groups, 1, (outer, total))
        for g in groups:
            backend.temp(g)
        return TensorInfo(out.data_id, out_shape, dtype)
    info = _concat_run(backend, parts, outer, total, dtype)
    return TensorInfo(info.data_id, out_shape, dtype)


def _concat_run(backend: Any, parts: list[tuple[Any, int]], outer: int, total: int, dtype: str) -> TensorInfo:
    n = len(parts)
    vec = all(inner % 4 == 0 for _, inner in parts)
    key = ("Concat", n, vec, dtype == "int32")
    prog = backend.programs.get(key)
    if prog is None:
        holes = {"PARTS": " ".join(f"PART({k}, X{k})" for k in range(n))}
        prog = backend.programs.build(
            key, "Concat", [f"X{k}" for k in range(n)], 1 + 2 * n, 0, ["VEC"] if vec else [], holes,
            int_output=dtype == "int32",
        )  # fmt: skip
    ints, col = [total], 0
    for _, inner in parts:
        ints += [inner, col]
        col += inner
    return backend.run(prog, [t for t, _ in parts], (outer, total), dtype, ints)


@takes_complex
def concat(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Concat: shaders/Concat.glsl; complex64 tensors as float32 ones with a trailing (re, im) dim."""
    axis = attrs["axis"]
    shape = concat_shape([t.shape for t in inputs], axis)
    if inputs[0].dtype != "complex64":
        return _concat(backend, list(inputs), axis, shape)
    axis %= len(shape)
    pairs = [_View(t.data_id, (*t.shape, 2), "float32") for t in inputs]
    out = _concat(backend, pairs, axis, (*shape, 2))
    return TensorInfo(out.data_id, shape, "complex64")


def pack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Pack: shaders/Concat.glsl."""
    shape = inputs[0].shape
    axis, out_shape = pack_shape(shape, len(inputs), attrs["axis"])
    views = [_View(t.data_id, (*shape[:axis], 1, *shape[axis:]), t.dtype) for t in inputs]
    return _concat(backend, views, axis, out_shape)


def gather_v2(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """GatherV2: indices are checked when they are on the host."""
    x, indices = inputs["x"], inputs["indices"]
    axis, batch_dims = attrs["axis"], attrs.get("batch_dims", 0)
    out_shape, _, outer, dim, inner, per = gather_info(x.shape, indices.shape, axis, batch_dims)
    host = backend.host_values(indices)
    if host is not None:
        check_gather_indices(host, dim)
    vec = inner % 4 == 0
    key = ("GatherV2", vec, x.dtype == "int32")
    prog = backend.programs.get(key) or backend.programs.build(
        key, "GatherV2", ("X", "I"), 4, 0, ["VEC"] if vec else [], int_output=x.dtype == "int32"
    )
    return backend.run(prog, (x, indices), out_shape, x.dtype, (outer, dim, inner, per))


def gather_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """GatherNd: params, indices (last dim = depth). Indices are checked when they are on the host."""
    params, indices = inputs["params"], inputs["indices"]
    depth = indices.shape[-1]
    dims = params.shape[:depth]
    out_shape = (*indices.shape[:-1], *params.shape[depth:])
    host = backend.host_values(indices)
    if host is not None:
        check_gather_nd_indices(host, params.shape, depth)
    key = ("GatherNd", depth, params.dtype == "int32")
    prog = backend.programs.get(key) or backend.programs.build(
        key, "GatherNd", ("X", "I"), 2 + 2 * depth, int_output=params.dtype == "int32"
    )
    slice_size = prod(params.shape[depth:])
    ints = [depth, slice_size, *strides_of(dims), *dims]
    return backend.run(prog, (params, indices), out_shape, params.dtype, ints)


def one_hot(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """OneHot: shaders/OneHot.glsl."""
    indices = inputs["indices"]
    depth, dtype = attrs["depth"], attrs.get("dtype", "int32")

    def value(v: Any) -> float:
        return float(bool(v)) if dtype == "bool" else float(int(v)) if dtype == "int32" else float(v)

    key = ("OneHot", dtype == "int32")
    prog = backend.programs.get(key) or backend.programs.build(
        key, "OneHot", ("I",), 1, 2, int_output=dtype == "int32"
    )
    floats = (value(attrs.get("on_value", 1)), value(attrs.get("off_value", 0)))
    return backend.run(prog, (indices,), (*indices.shape, depth), dtype, (depth,), floats)


KERNELS = {
    kn.Transpose: transpose,
    kn.Slice: slice_,
    kn.StridedSlice: slice_,
    kn.Reverse: reverse,
    kn.Tile: tile,
    kn.PadV2: pad_v2,
    kn.MirrorPad: mirror_pad,
    kn.DepthToSpace: depth_to_space,
    kn.SpaceToBatchND: space_to_batch_nd,
    kn.BatchToSpaceND: batch_to_space_nd,
    kn.Unpack: unpack,
    kn.SplitV: split_v,
    kn.Concat: concat,
    kn.Pack: pack,
    kn.GatherV2: gather_v2,
    kn.GatherNd: gather_nd,
    kn.OneHot: one_hot,
}
