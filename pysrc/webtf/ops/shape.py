"""Shape ops: reshape, transpose, expand_dims, squeeze, concat, stack, unstack, split, tile, reverse."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .. import kernel_names as kn
from ..dtypes import infer_dtype, upcast
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .cast import cast
from .checks import MAX_DIM, MAX_RANK, axes_arg, axis_arg, check_alike, check_size, int_arg, int_list
from .op import TensorLike, convert_to_tensor, op

__all__ = [
    "concat",
    "expand_dims",
    "reshape",
    "reverse",
    "split",
    "squeeze",
    "stack",
    "tile",
    "transpose",
    "unstack",
]


def convert_tensor_list(xs: Any, arg: str, op_name: str) -> list[Tensor]:
    """Tensors for a list argument; plain values take the dtype of the first tensor in the list."""
    if not isinstance(xs, (list, tuple)):
        raise TypeError(
            f"Error in {op_name}: argument '{arg}' must be a list of tensors, but got {type(xs).__name__}"
        )
    dtype = next((x.dtype for x in xs if isinstance(x, Tensor)), None)
    if dtype is None and xs:  # only plain values: one dtype that holds them all, as TF.js infers
        dtype = functools.reduce(upcast, (infer_dtype(x, op_name, arg) for x in xs))
    return [convert_to_tensor(x, f"{arg}[{i}]", op_name, dtype) for i, x in enumerate(xs)]


def resolve_shape(shape: Sequence[int], size: int, op_name: str, x_shape: Sequence[int]) -> tuple[int, ...]:
    """`shape` with its one -1 inferred from `size`; raises TF.js-like errors for impossible shapes."""
    if len(shape) > MAX_RANK:
        raise ValueError(f"Error in {op_name}: shape {fmt(shape)} has more than {MAX_RANK} dims")
    implicit, known = -1, 1
    for i, d in enumerate(shape):
        if d > MAX_DIM:
            raise ValueError(f"Error in {op_name}: shapes can not be > {MAX_DIM}. Found {d} at dim {i}")
        if d == -1:
            if implicit != -1:
                raise ValueError(
                    f"Error in {op_name}: shapes can only have 1 implicit size. "
                    f"Found -1 at dim {implicit} and dim {i}"
                )
            implicit = i
        elif d < 0:
            raise ValueError(f"Error in {op_name}: shapes can not be < 0. Found {d} at dim {i}")
        else:
            known *= d
    if implicit == -1:
        if known != size:
            raise ValueError(
                f"Error in {op_name}: Size({size}) must match the product of shape {fmt(shape)} "
                f"(x has shape {fmt(x_shape)})"
            )
        return tuple(shape)
    if known == 0:
        raise ValueError(
            f"Error in {op_name}: cannot infer the missing size in {fmt(shape)} when there are 0 elements"
        )
    if size % known:
        raise ValueError(
            f"Error in {op_name}: the implicit shape can't be a fractional number. Got {size} / {known} "
            f"(reshaping x of shape {fmt(x_shape)} to {fmt(shape)})"
        )
    out = list(shape)
    out[implicit] = size // known
    return tuple(out)


@op
def reshape(x: TensorLike, shape: Sequence[int]) -> Tensor:
    """x with a new shape of the same size; one dim may be -1 (inferred) (kernel Reshape)."""
    x = convert_to_tensor(x, "x", "reshape")
    new_shape = resolve_shape(int_list(shape, "shape", "reshape"), x.size, "reshape", x.shape)
    return ENGINE.run_kernel(kn.Reshape, {"x": x}, {"shape": new_shape})


@op
def transpose(x: TensorLike, perm: Sequence[int] | None = None) -> Tensor:
    """x with its dims permuted: output dim k is input dim perm[k]; reversed by default (kernel Transpose)."""
    x = convert_to_tensor(x, "x", "transpose")
    p = list(range(x.rank))[::-1] if perm is None else int_list(perm, "perm", "transpose")
    if len(p) != x.rank:
        raise ValueError(
            f"Error in transpose: rank of input {x.rank} must match length of perm {fmt(p)} "
            f"(x has shape {fmt(x.shape)})"
        )
    if any(not 0 <= a < x.rank for a in p):
        raise ValueError(
            f"Error in transpose: all entries in 'perm' must be between 0 and {x.rank - 1} but got {fmt(p)}"
        )
    if len(set(p)) != len(p):
        raise ValueError(f"Error in transpose: 'perm' {fmt(p)} has repeated axes")
    return ENGINE.run_kernel(kn.Transpose, {"x": x}, {"perm": tuple(p)})


@op
def expand_dims(x: TensorLike, axis: int = 0) -> Tensor:
    """x with a new dim of size 1 inserted at `axis` (in [-(rank+1), rank]) (kernel ExpandDims)."""
    x = convert_to_tensor(x, "x", "expand_dims")
    axis = int_arg(axis, "axis", "expand_dims")
    if not -(x.rank + 1) <= axis <= x.rank:
        raise ValueError(
            f"Error in expand_dims: axis {axis} must be in the interval [{-(x.rank + 1)}, {x.rank}] "
            f"for x of shape {fmt(x.shape)}"
        )
    return ENGINE.run_kernel(kn.ExpandDims, {"input": x}, {"dim": axis % (x.rank + 1)})


@op
def squeeze(x: TensorLike, axis: int | Sequence[int] | None = None) -> Tensor:
    """x without its dims of size 1 (only those in `axis` when given) (kernel Reshape)."""
    x = convert_to_tensor(x, "x", "squeeze")
    if axis is None or (isinstance(axis, (list, tuple)) and not axis):  # [] also means all, as TF.js
        new_shape = tuple(d for d in x.shape if d != 1)
    else:
        axes = axes_arg(axis, x.rank, "squeeze")
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError(
                    f"Error in squeeze: can't squeeze axis {a} since its dim '{x.shape[a]}' is not 1 "
                    f"(x has shape {fmt(x.shape)})"
                )
        new_shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return ENGINE.run_kernel(kn.Reshape, {"x": x}, {"shape": new_shape})


def _matching(tensors: list[Tensor]) -> list[Tensor]:
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = upcast(dtype, t.dtype)
    return [t if t.dtype == dtype else cast(t, dtype) for t in tensors]


@op
def concat(tensors: Sequence[TensorLike], axis: int = 0) -> Tensor:
    """The tensors joined along `axis`; shapes must match elsewhere; dtypes are upcast (kernel Concat)."""
    ts = convert_tensor_list(tensors, "tensors", "concat")
    if not ts:
        raise ValueError("Error in concat: pass at least one tensor to concat")
    rank = ts[0].rank
    if rank == 0:
        raise ValueError("Error in concat: can't concatenate scalars (use stack instead)")
    axis = axis_arg(axis, rank, "concat")
    first = ts[0].shape
    for i, t in enumerate(ts):
        if t.rank != rank:
            raise ValueError(
                f"Error in concat: rank of tensors[{i}] ({t.rank}, shape {fmt(t.shape)}) must be the same as "
                f"the rank of the rest ({rank}, shape {fmt(first)})"
            )
        for r in range(rank):
            if r != axis and t.shape[r] != first[r]:
                raise ValueError(
                    f"Error in concat: shape of tensors[{i}] ({fmt(t.shape)}) does not match the shape of "
                    f"the rest ({fmt(first)}) along the non-concatenated axis {r}"
                )
    check_size((*first[:axis], sum(t.shape[axis] for t in ts), *first[axis + 1 :]), "concat")
    return ENGINE.run_kernel(kn.Concat, _matching(ts), {"axis": axis})


@op
def stack(tensors: Sequence[TensorLike], axis: int = 0) -> Tensor:
    """Rank-R tensors of one shape and dtype stacked into one rank-(R+1) tensor along `axis` (kernel Pack)."""
    ts = convert_tensor_list(tensors, "tensors", "stack")
    if not ts:
        raise ValueError("Error in stack: pass at least one tensor to stack")
    first = ts[0]
    axis = axis_arg(axis, first.rank + 1, "stack")
    check_alike(
        ts,
        "Error in stack: all tensors passed to stack must have matching shapes, but tensors[{i}] has shape "
        "{shape} and tensors[0] has shape {first_shape}",
        "Error in stack: all tensors passed to stack must have matching dtypes, but tensors[{i}] has dtype "
        "{dtype} and tensors[0] has dtype {first_dtype}",
    )
    check_size((len(ts), *first.shape), "stack")
    return ENGINE.run_kernel(kn.Pack, ts, {"axis": axis})


@op
def unstack(x: TensorLike, axis: int = 0) -> list[Tensor]:
    """The rank-(R-1) tensors along `axis` of a rank-R tensor, as a list (kernel Unpack)."""
    x = convert_to_tensor(x, "x", "unstack")
    axis = axis_arg(axis, x.rank, "unstack")
    return ENGINE.run_kernel(kn.Unpack, {"value": x}, {"axis": axis})


@op
def split(x: TensorLike, num_or_size_splits: int | Sequence[int], axis: int = 0) -> list[Tensor]:
    """x cut along `axis` into n equal parts, or parts of the given sizes (one may be -1) (kernel SplitV)."""
    x = convert_to_tensor(x, "x", "split")
    axis = axis_arg(axis, x.rank, "split")
    dim = x.shape[axis]
    if isinstance(num_or_size_splits, (list, tuple)):
        sizes = int_list(num_or_size_splits, "num_or_size_splits", "split")
        if sizes.count(-1) > 1:
            raise ValueError(f"Error in split: there should be only one -1 in the sizes {fmt(sizes)}")
        if any(s < -1 for s in sizes):
            raise ValueError(f"Error in split: sizes {fmt(sizes)} must be non-negative (or one -1)")
        if -1 in sizes:
            sizes[sizes.index(-1)] = dim - sum(s for s in sizes if s > 0)
        if sum(sizes) != dim or any(s < 0 for s in sizes):
            raise ValueError(
                f"Error in split: the sum of sizes {fmt(num_or_size_splits)} must match the size ({dim}) of "
                f"axis {axis} of x with shape {fmt(x.shape)}"
            )
    else:
        n = int_arg(num_or_size_splits, "num_or_size_splits", "split")
        if n <= 0 or dim % n:
            raise ValueError(
                f"Error in split: number of splits ({n}) must evenly divide the size ({dim}) of axis {axis} "
                f"of x with shape {fmt(x.shape)}"
            )
        sizes = [dim // n] * n
    return ENGINE.run_kernel(kn.SplitV, {"x": x}, {"num_or_size_splits": sizes, "axis": axis})


@op
def tile(x: TensorLike, reps: Sequence[int]) -> Tensor:
    """x repeated reps[i] times along each dim i (kernel Tile)."""
    x = convert_to_tensor(x, "x", "tile")
    r = int_list(reps, "reps", "tile")
    if len(r) != x.rank:
        raise ValueError(
            f"Error in tile: rank of input {x.rank} must match length of reps {fmt(r)} "
            f"(x has shape {fmt(x.shape)})"
        )
    if any(n < 0 for n in r):
        raise ValueError(f"Error in tile: reps must be non-negative, got {fmt(r)}")
    check_size(
        tuple(d * n for d, n in zip(x.shape, r, strict=True)), "tile", f" (x {fmt(x.shape)}, reps {fmt(r)})"
    )
    return ENGINE.run_kernel(kn.Tile, {"x": x}, {"reps": tuple(r)})


@op
def reverse(x: TensorLike, axis: int | Sequence[int] | None = None) -> Tensor:
    """x with the order of elements reversed along `axis` (all dims by default) (kernel Reverse)."""
    x = convert_to_tensor(x, "x", "reverse")
    dims = axes_arg(axis, x.rank, "reverse")
    return ENGINE.run_kernel(kn.Reverse, {"x": x}, {"dims": dims})
