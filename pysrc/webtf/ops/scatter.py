"""Scatter, segment, counting and search ops: scatter_nd, tensor_scatter_update, unsorted_segment_sum,
bincount, dense_bincount, unique, search_sorted / lower_bound / upper_bound, bitwise_and, broadcast_args."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import fmt, size_of
from ..tensor import Tensor
from .checks import axis_arg, choice_arg, count_arg, flag_arg, output_shape
from .op import TensorLike, convert_to_tensor, op
from .shape import reshape

__all__ = [
    "scatter_nd", "tensor_scatter_update", "unsorted_segment_sum", "bincount", "dense_bincount", "unique",
    "search_sorted", "lower_bound", "upper_bound", "bitwise_and", "broadcast_args",
]  # fmt: skip


def _scatter_args(name: str, indices: TensorLike, updates: TensorLike, shape: Sequence[int]) -> tuple[Tensor, Tensor]:
    """indices (int32) and updates as tensors, through TF.js's scatter_nd_util.validateInput checks and wording."""
    indices = convert_to_tensor(indices, "indices", name, "int32")
    updates = convert_to_tensor(updates, "updates", name)
    if indices.rank < 1:
        raise ValueError(
            f"Error in {name}: expects the indices to be rank 1 or higher, but the rank was {indices.rank}."
        )
    if updates.rank < 1:
        raise ValueError(
            f"Error in {name}: expects the updates to be rank 1 or higher, but the rank was {updates.rank}."
        )
    if indices.dtype != "int32":
        raise TypeError(
            f"Error in {name}: the dtype of 'indices' should be int32, but got dtype: {indices.dtype}"
        )
    if len(shape) < 1:
        raise ValueError(
            f"Error in {name}: output rank must be greater or equal to 1, but got shape: {fmt(shape)}"
        )
    slice_dim = indices.shape[-1] if indices.rank > 1 else 1
    batch_dim = indices.rank - 1 if indices.rank > 1 else 1
    if slice_dim > len(shape):
        raise ValueError(
            f"Error in {name}: the last dimension of indices ({slice_dim}) must be <= the output rank "
            f"({len(shape)})"
        )
    expected = (*indices.shape[:batch_dim], *shape[slice_dim:])
    if tuple(updates.shape) != expected:
        raise ValueError(
            f"Error in {name}: must have updates.shape = indices.shape[:batchDim] + shape[sliceDim:], got "
            f"updates.shape: {fmt(updates.shape)}, indices.shape: {fmt(indices.shape)}, shape: {fmt(shape)}, "
            f"sliceDim: {slice_dim}, and batchDim: {batch_dim}."
        )
    return indices, updates


@op
def scatter_nd(indices: TensorLike, updates: TensorLike, shape: Sequence[int]) -> Tensor:
    """Zeros of `shape` with updates summed in at indices (kernel ScatterNd)."""
    out = output_shape(shape, "shape", "scatter_nd")
    idx, upd = _scatter_args("scatter_nd", indices, updates, out)
    return ENGINE.run_kernel(kn.ScatterNd, {"indices": idx, "updates": upd}, {"shape": out})


@op
def tensor_scatter_update(tensor: TensorLike, indices: TensorLike, updates: TensorLike) -> Tensor:
    """A copy of tensor with the slices at indices replaced by updates (kernel TensorScatterUpdate)."""
    name = "tensor_scatter_update"
    t = convert_to_tensor(tensor, "tensor", name)
    if t.rank < 1:
        raise ValueError(f"Error in {name}: tensor must be at least rank 1, but got rank {t.rank}.")
    idx, upd = _scatter_args(name, indices, updates, t.shape)
    if t.dtype != upd.dtype:
        raise TypeError(
            f"Error in {name}: tensor and updates must have the same dtype, instead they are {t.dtype} and "
            f"{upd.dtype}."
        )
    return ENGINE.run_kernel(kn.TensorScatterUpdate, {"tensor": t, "indices": idx, "updates": upd})


@op
def unsorted_segment_sum(x: TensorLike, segment_ids: TensorLike, num_segments: int) -> Tensor:
    """Sums of x's rows per segment id (ids outside [0, num_segments) are dropped) (kernel UnsortedSegmentSum)."""
    name = "unsorted_segment_sum"
    t = convert_to_tensor(x, "x", name)
    ids = convert_to_tensor(segment_ids, "segment_ids", name, "int32")
    n = count_arg(num_segments, "num_segments", name)
    if ids.dtype != "int32":
        raise TypeError(f"Error in {name}: segment_ids must be int32, but got {ids.dtype}")
    if ids.rank != 1 or t.rank < 1 or ids.shape[0] != t.shape[0]:
        raise ValueError(
            f"Error in {name}: segment_ids must be 1-D with x.shape[0] entries, but got shape {fmt(ids.shape)} "
            f"for x of shape {fmt(t.shape)}"
        )
    if t.dtype == "bool":
        raise TypeError(f"Error in {name}: x must be float32 or int32, but got bool")
    return ENGINE.run_kernel(kn.UnsortedSegmentSum, {"x": t, "segment_ids": ids}, {"num_segments": n})


def _bincount_args(
    name: str, x: TensorLike, weights: TensorLike, size: int, max_rank: int
) -> tuple[Tensor, Tensor, int]:
    tx = convert_to_tensor(x, "x", name, "int32")
    tw = convert_to_tensor(weights, "weights", name)
    if tx.dtype != "int32":
        raise TypeError(f"Error in {name}: input dtype must be int32, but got {tx.dtype}")
    if tx.rank > max_rank or (max_rank == 1 and tx.rank != 1):
        need = "1-D" if max_rank == 1 else "at most rank 2"
        raise ValueError(f"Error in {name}: input must be {need}, but got rank {tx.rank}.")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError(f"Error in {name}: size must be non-negative, but got {size}.")
    if tw.size not in (tx.size, 0):
        raise ValueError(
            f"Error in {name}: weights must have the same size as input or 0-length, but got input shape: "
            f"{fmt(tx.shape)}, weights shape: {fmt(tw.shape)}."
        )
    return tx, tw, size


@op
def bincount(x: TensorLike, weights: TensorLike, size: int) -> Tensor:
    """Counts (or summed weights) of each value of a 1-D int32 x below size (kernel Bincount)."""
    tx, tw, n = _bincount_args("bincount", x, weights, size, 1)
    return ENGINE.run_kernel(kn.Bincount, {"x": tx, "weights": tw}, {"size": n})


@op
def dense_bincount(x: TensorLike, weights: TensorLike, size: int, binary_output: bool = False) -> Tensor:
    """bincount of a 1-D x, or of each row of a 2-D x where binary_output marks presence (a 1-D x is counted
    whatever binary_output says, as in TF.js) (kernel DenseBincount)."""
    tx, tw, n = _bincount_args("dense_bincount", x, weights, size, 2)
    flag = flag_arg(binary_output, "binary_output", "dense_bincount")
    return ENGINE.run_kernel(kn.DenseBincount, {"x": tx, "weights": tw}, {"size": n, "binary_output": flag})


@op
def unique(x: TensorLike, axis: int = 0) -> dict[str, Tensor]:
    """{'values', 'indices'}: the unique slices of x along axis in first-seen order (kernel Unique)."""
    t = convert_to_tensor(x, "x", "unique")
    if t.rank == 0:
        raise ValueError("Error in unique: the input tensor must be at least 1D")
    ax = axis_arg(axis, t.rank, "unique")
    values, indices = ENGINE.run_kernel(kn.Unique, {"x": t}, {"axis": ax})
    return {"values": values, "indices": indices}


@op
def search_sorted(sorted_sequence: TensorLike, values: TensorLike, side: str = "left") -> Tensor:
    """int32 insertion points of values in each row of sorted_sequence (kernel SearchSorted)."""
    return _search_sorted(sorted_sequence, values, side, "search_sorted")


@op
def lower_bound(sorted_sequence: TensorLike, values: TensorLike) -> Tensor:
    """search_sorted with side 'left'."""
    return _search_sorted(sorted_sequence, values, "left", "lower_bound")


@op
def upper_bound(sorted_sequence: TensorLike, values: TensorLike) -> Tensor:
    """search_sorted with side 'right'."""
    return _search_sorted(sorted_sequence, values, "right", "upper_bound")


def _search_sorted(sorted_sequence: TensorLike, values: TensorLike, side: Any, name: str) -> Tensor:
    seq = convert_to_tensor(sorted_sequence, "sorted_sequence", name)
    vals = convert_to_tensor(values, "values", name, seq.dtype)
    where = choice_arg(side, ("left", "right"), "side", name)
    if seq.rank < 1 or vals.rank < 1:
        raise ValueError(f"Error in {name}: sorted input argument must be at least 2-dimensional")
    if seq.shape[:-1] != vals.shape[:-1]:
        raise ValueError(
            f"Error in {name}: leading dimension of 'sorted_sequence' and 'values' must match, but got shapes "
            f"{fmt(seq.shape)} and {fmt(vals.shape)}."
        )
    if vals.dtype != seq.dtype:
        raise TypeError(
            f"Error in {name}: values ({vals.dtype}) must have sorted_sequence's dtype ({seq.dtype})"
        )
    rows = size_of(seq.shape[:-1])
    seq2 = reshape(seq, [rows, seq.shape[-1]])
    vals2 = reshape(vals, [rows, vals.shape[-1]])
    out = ENGINE.run_kernel(kn.SearchSorted, {"sorted_sequence": seq2, "values": vals2}, {"side": where})
    return reshape(out, vals.shape)


@op
def bitwise_and(x: TensorLike, y: TensorLike) -> Tensor:
    """x & y of two int32 tensors of one shape (kernel BitwiseAnd)."""
    a, b = convert_to_tensor(x, "x", "bitwise_and"), convert_to_tensor(y, "y", "bitwise_and")
    if a.shape != b.shape:
        raise ValueError(
            f"Error in bitwise_and: tensors must have the same shape. x: {fmt(a.shape)}, y: {fmt(b.shape)}"
        )
    if a.dtype != "int32" or b.dtype != "int32":
        raise TypeError(
            f"Error in bitwise_and: only supports 'int32' values in tensor, found type of x: {a.dtype} and "
            f"type of y: {b.dtype}"
        )
    return ENGINE.run_kernel(kn.BitwiseAnd, {"a": a, "b": b})


@op
def broadcast_args(s0: TensorLike, s1: TensorLike) -> Tensor:
    """The broadcast of two int32 shape vectors (kernel BroadcastArgs)."""
    a = convert_to_tensor(s0, "s0", "broadcast_args", "int32")
    b = convert_to_tensor(s1, "s1", "broadcast_args", "int32")
    for which, t in (("first", a), ("second", b)):
        if t.rank != 1:
            raise ValueError(
                f"Error in broadcast_args: {which} input must be a vector (rank=1). Has rank {t.rank}"
            )
    return ENGINE.run_kernel(kn.BroadcastArgs, {"s0": a, "s1": b})
