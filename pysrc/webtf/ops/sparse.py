"""tf.sparse (sparse_fill_empty_rows, sparse_reshape, sparse_segment_mean / sum) and the ragged ops
(ragged_gather, ragged_range, ragged_tensor_to_tensor)."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import choice_arg, int_arg
from .op import TensorLike, convert_list, convert_to_tensor, op

__all__ = ["sparse", "ragged_gather", "ragged_range", "ragged_tensor_to_tensor"]

_PARTITIONS = ("FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_SPLITS")


def _int32(x: TensorLike, arg: str, op_name: str) -> Tensor:
    t = convert_to_tensor(x, arg, op_name, "int32")
    if t.dtype != "int32":
        raise TypeError(f"Error in {op_name}: argument '{arg}' must be int32, but got {t.dtype}")
    return t


def _rank(t: Tensor, rank: int, what: str, op_name: str) -> None:
    if t.rank != rank:
        kind = {0: "a scalar", 1: "Tensor1D", 2: "Tensor2D"}[rank]
        raise ValueError(f"Error in {op_name}: {what} should be {kind} but received shape {fmt(t.shape)}")


@op
def sparse_fill_empty_rows(
    indices: TensorLike, values: TensorLike, dense_shape: TensorLike, default_value: TensorLike
) -> dict[str, Tensor]:
    """Give each empty row of a sparse tensor one entry (row, 0, ...) = default_value: {output_indices,
    output_values, empty_row_indicator, reverse_index_map} (kernel SparseFillEmptyRows)."""
    name = "sparse_fill_empty_rows"
    idx = _int32(indices, "indices", name)
    vals = convert_to_tensor(values, "values", name)
    shape = _int32(dense_shape, "dense_shape", name)
    default = convert_to_tensor(default_value, "default_value", name, vals.dtype)
    _rank(idx, 2, "Indices", name)
    _rank(vals, 1, "Values", name)
    _rank(shape, 1, "Dense shape", name)
    _rank(default, 0, "Default value", name)
    if default.dtype != vals.dtype:
        default = default.cast(vals.dtype)
    out = ENGINE.run_kernel(
        kn.SparseFillEmptyRows,
        {"indices": idx, "values": vals, "dense_shape": shape, "default_value": default},
    )
    return dict(
        zip(("output_indices", "output_values", "empty_row_indicator", "reverse_index_map"), out, strict=True)
    )


@op
def sparse_reshape(
    input_indices: TensorLike, input_shape: TensorLike, new_shape: TensorLike
) -> dict[str, Tensor]:
    """Re-address a sparse tensor's indices for a new dense shape (one -1 inferred): {output_indices,
    output_shape} (kernel SparseReshape)."""
    name = "sparse_reshape"
    idx = _int32(input_indices, "input_indices", name)
    shape = _int32(input_shape, "input_shape", name)
    new = _int32(new_shape, "new_shape", name)
    _rank(idx, 2, "Input indices", name)
    _rank(shape, 1, "Input shape", name)
    _rank(new, 1, "New shape", name)
    if idx.shape[1] != shape.size:
        raise ValueError(
            f"Error in {name}: input_indices of shape {fmt(idx.shape)} must have {shape.size} columns, the rank "
            f"of input_shape"
        )
    out = ENGINE.run_kernel(kn.SparseReshape, {"input_indices": idx, "input_shape": shape, "new_shape": new})
    return {"output_indices": out[0], "output_shape": out[1]}


def _segment_op(kernel: str, name: str, doc: str):  # noqa: ANN202
    def segment(data: TensorLike, indices: TensorLike, segment_ids: TensorLike) -> Tensor:
        x = convert_to_tensor(data, "data", name)
        idx = _int32(indices, "indices", name)
        ids = _int32(segment_ids, "segment_ids", name)
        if x.rank < 1:
            raise ValueError(f"Error in {name}: Data should be at least 1 dimensional but received scalar")
        _rank(idx, 1, "Indices", name)
        _rank(ids, 1, "Segment ids", name)
        if idx.size != ids.size:
            raise ValueError(
                f"Error in {name}: indices and segment_ids must have one size, got {fmt(idx.shape)} and "
                f"{fmt(ids.shape)}"
            )
        if x.dtype not in ("float32", "int32"):
            raise TypeError(f"Error in {name}: argument 'data' must be float32 or int32, but got {x.dtype}")
        return ENGINE.run_kernel(kernel, {"data": x, "indices": idx, "segment_ids": ids})

    segment.__name__ = segment.__qualname__ = name
    segment.__doc__ = doc
    return op(segment)


sparse_segment_sum = _segment_op(
    kn.SparseSegmentSum,
    "sparse_segment_sum",
    "Rows data[indices] summed per sorted segment id (kernel SparseSegmentSum).",
)
sparse_segment_mean = _segment_op(
    kn.SparseSegmentMean,
    "sparse_segment_mean",
    "Rows data[indices] averaged per sorted segment id (kernel SparseSegmentMean).",
)


@op
def ragged_range(starts: TensorLike, limits: TensorLike, deltas: TensorLike) -> dict[str, Tensor]:
    """Rows range(starts[i], limits[i], deltas[i]) as a ragged tensor (scalars broadcast): {rt_nested_splits,
    rt_dense_values} (kernel RaggedRange)."""
    name = "ragged_range"
    s = convert_to_tensor(starts, "starts", name)
    lim = convert_to_tensor(limits, "limits", name, s.dtype)
    d = convert_to_tensor(deltas, "deltas", name, s.dtype)
    for t, arg in ((s, "starts"), (lim, "limits"), (d, "deltas")):
        if t.rank > 1:
            raise ValueError(
                f"Error in {name}: {arg} must be a scalar or vector, but got shape {fmt(t.shape)}"
            )
        if t.dtype != s.dtype or t.dtype not in ("float32", "int32"):
            raise TypeError(
                f"Error in {name}: argument '{arg}' must be float32 or int32 like starts, got {t.dtype}"
            )
    out = ENGINE.run_kernel(kn.RaggedRange, {"starts": s, "limits": lim, "deltas": d})
    return {"rt_nested_splits": out[0], "rt_dense_values": out[1]}


@op
def ragged_gather(
    params_nested_splits: Sequence[TensorLike],
    params_dense_values: TensorLike,
    indices: TensorLike,
    output_ragged_rank: int,
) -> dict[str, Tensor | list[Tensor]]:
    """Rows `indices` of a ragged tensor given by its nested row splits and dense values:
    {output_nested_splits, output_dense_values} (kernel RaggedGather)."""
    name = "ragged_gather"
    splits = [
        _int32(t, f"params_nested_splits[{i}]", name)
        for i, t in enumerate(convert_list(params_nested_splits, "params_nested_splits", name))
    ]
    if not splits:
        raise ValueError(f"Error in {name}: params_nested_splits must hold at least one row-splits tensor")
    for i, t in enumerate(splits):
        _rank(t, 1, f"params_nested_splits[{i}]", name)
    values = convert_to_tensor(params_dense_values, "params_dense_values", name)
    idx = _int32(indices, "indices", name)
    rank = int_arg(output_ragged_rank, "output_ragged_rank", name)
    if values.rank < 1:
        raise ValueError(f"Error in {name}: params_dense_values must have rank >= 1, got a scalar")
    if rank != idx.rank + len(splits) - 1:
        raise ValueError(
            f"Error in {name}: output_ragged_rank must be {idx.rank + len(splits) - 1} (indices rank {idx.rank} + "
            f"{len(splits)} nested splits - 1), but got {rank}"
        )
    out = ENGINE.run_kernel(
        kn.RaggedGather,
        {"params_nested_splits": splits, "params_dense_values": values, "indices": idx},
        {"output_ragged_rank": rank},
    )
    return {"output_nested_splits": list(out[:-1]), "output_dense_values": out[-1]}


@op
def ragged_tensor_to_tensor(
    shape: TensorLike,
    values: TensorLike,
    default_value: TensorLike,
    row_partition_tensors: Sequence[TensorLike],
    row_partition_types: Sequence[str],
) -> Tensor:
    """A ragged tensor (values and row partitions: ROW_SPLITS, or FIRST_DIM_SIZE then VALUE_ROWIDS) as a dense
    tensor of `shape` (-1 entries: computed), padded with default_value (kernel RaggedTensorToTensor)."""
    name = "ragged_tensor_to_tensor"
    dims = _int32(shape, "shape", name)
    vals = convert_to_tensor(values, "values", name)
    default = convert_to_tensor(default_value, "default_value", name, vals.dtype)
    parts = [
        _int32(t, f"row_partition_tensors[{i}]", name)
        for i, t in enumerate(convert_list(row_partition_tensors, "row_partition_tensors", name))
    ]
    if not isinstance(row_partition_types, (list, tuple)):
        raise TypeError(
            f"Error in {name}: row_partition_types must be a list of str, but got {type(row_partition_types).__name__}"
        )
    kinds = tuple(choice_arg(k, _PARTITIONS, "row_partition_types", name) for k in row_partition_types)
    if len(kinds) != len(parts) or not kinds:
        raise ValueError(
            f"Error in {name}: row_partition_types ({len(kinds)}) must name each of the {len(parts)} row partition "
            f"tensors (at least one)"
        )
    if vals.rank < 1:
        raise ValueError(f"Error in {name}: values must have rank >= 1, got a scalar")
    if (
        default.size not in (1, max(1, vals.size // max(vals.shape[0], 1)))
        and default.shape != vals.shape[1:]
    ):
        raise ValueError(
            f"Error in {name}: default_value of shape {fmt(default.shape)} must be a scalar or have shape "
            f"{fmt(vals.shape[1:])}"
        )
    if default.dtype != vals.dtype:
        default = default.cast(vals.dtype)
    inputs = {"shape": dims, "values": vals, "default_value": default, "row_partition_tensors": parts}
    return ENGINE.run_kernel(kn.RaggedTensorToTensor, inputs, {"row_partition_types": kinds})


#: tf.sparse, as TF.js's namespace
sparse = SimpleNamespace(
    sparse_fill_empty_rows=sparse_fill_empty_rows,
    sparse_reshape=sparse_reshape,
    sparse_segment_mean=sparse_segment_mean,
    sparse_segment_sum=sparse_segment_sum,
)
