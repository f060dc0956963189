"""Ops graph models need that compose other kernels: broadcast_to, where_async, sparse_to_dense."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import fmt, strides_of
from ..tensor import Tensor
from .checks import output_shape as checked_shape
from .creation import clone
from .op import TensorLike, convert_to_tensor, op
from .shape import reshape, tile

__all__ = ["broadcast_to", "sparse_to_dense", "where_async"]


@op
def broadcast_to(x: TensorLike, shape: Sequence[int]) -> Tensor:
    """x repeated along its size-1 (or missing leading) dims to `shape` (Reshape + Tile, as TF.js does)."""
    x = convert_to_tensor(x, "x", "broadcast_to")
    target = list(checked_shape(shape, "shape", "broadcast_to"))
    if len(target) < x.rank:
        raise ValueError(
            f"Error in broadcast_to: shape {fmt(target)} has fewer dims ({len(target)}) than x has "
            f"(shape {fmt(x.shape)}, rank {x.rank})"
        )
    padded = (1,) * (len(target) - x.rank) + tuple(x.shape)
    reps = []
    for have, want in zip(padded, target, strict=True):
        if have == want:
            reps.append(1)
        elif have == 1:
            reps.append(want)
        else:
            raise ValueError(
                f"Error in broadcast_to: x with shape {fmt(x.shape)} cannot be broadcast to {fmt(target)}"
            )
    if all(r == 1 for r in reps):
        return clone(x) if padded == tuple(x.shape) else reshape(x, padded)
    src = x if padded == tuple(x.shape) else reshape(x, padded)
    return tile(src, reps)


def where_coords(shape: Sequence[int], values: Any) -> Tensor:
    """int32 [n, rank] row-major coordinates of the truthy entries of a flat `values` of `shape`."""
    flat = [i for i, v in enumerate(values) if v]
    rank = len(shape)
    if rank <= 1:
        return ENGINE.make_tensor(array("i", flat if rank else []), (len(flat), rank), "int32")
    cols = [[(i // s) % d for i in flat] for s, d in zip(strides_of(shape), shape, strict=True)]
    out = array("i", [c for row in zip(*cols, strict=True) for c in row])
    return ENGINE.make_tensor(out, (len(flat), rank), "int32")


async def where_async(condition: TensorLike) -> Tensor:
    """int32 [n, rank] coordinates of condition's true (nonzero) elements, row-major (TF.js whereAsync)."""
    cond = convert_to_tensor(condition, "condition", "where_async", "bool")
    try:
        values = await cond.data()
        return where_coords(cond.shape, values)
    finally:
        if cond is not condition:
            cond.dispose()


@op
def sparse_to_dense(
    sparse_indices: TensorLike,
    sparse_values: TensorLike,
    output_shape: Sequence[int],
    default_value: TensorLike = 0,
) -> Tensor:
    """A dense tensor of output_shape filled with default_value, sparse_values written at sparse_indices.

    A repeated index keeps its last value, as TF.js does; string values too (kernel SparseToDense).
    """
    name = "sparse_to_dense"
    idx = convert_to_tensor(sparse_indices, "sparse_indices", name, "int32")
    vals = convert_to_tensor(sparse_values, "sparse_values", name)
    shape = checked_shape(output_shape, "output_shape", name)
    default = convert_to_tensor(default_value, "default_value", name, vals.dtype)
    if idx.dtype != "int32":
        raise TypeError(f"Error in {name}: sparse_indices must be int32, but got {idx.dtype}")
    if idx.rank > 2:
        raise ValueError(
            f"Error in {name}: sparse_indices should be a scalar, vector, or matrix, but got shape "
            f"{fmt(idx.shape)}"
        )
    num_elems = idx.shape[0] if idx.rank > 0 else 1
    num_dims = idx.shape[1] if idx.rank > 1 else 1
    if len(shape) != num_dims:
        raise ValueError(
            f"Error in {name}: output_shape {fmt(shape)} has {len(shape)} elements, "
            f"but sparse_indices with shape {fmt(idx.shape)} index {num_dims} dims"
        )
    if not (vals.rank == 0 or (vals.rank == 1 and vals.size == num_elems)):
        raise ValueError(
            f"Error in {name}: sparse_values has incorrect shape {fmt(vals.shape)}, should be [] or "
            f"[{num_elems}]"
        )
    if default.dtype != vals.dtype:
        raise TypeError(
            f"Error in {name}: sparse_values.dtype ({vals.dtype}) must match default_value.dtype "
            f"({default.dtype})"
        )
    if default.rank != 0:
        raise ValueError(
            f"Error in {name}: default_value must be a scalar, but got shape {fmt(default.shape)}"
        )
    inputs = {"sparse_indices": idx, "sparse_values": vals, "default_value": default}
    return ENGINE.run_kernel(kn.SparseToDense, inputs, {"output_shape": tuple(shape)})
