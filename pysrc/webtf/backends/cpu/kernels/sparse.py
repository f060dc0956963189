"""cpu kernels of sparse and ragged tensors: SparseFillEmptyRows, SparseReshape, SparseSegmentSum / Mean,
RaggedRange, RaggedGather, RaggedTensorToTensor (the math in backend_util.sparse; the numpy backend registers
these same kernels)."""

from __future__ import annotations

from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util.sparse import (
    fill_empty_rows,
    ragged_gather,
    ragged_range,
    ragged_to_dense,
    scatter_dense,
    segment_reduce,
    sparse_reshape,
)
from ....dtypes import TYPECODE
from ....shapes import size_of
from ...base import TensorInfo


def _typed(values: Any, dtype: str) -> Any:
    """Values for a buffer of `dtype` (a list for strings, an array.array else)."""
    if dtype == "string":
        return list(values)
    if dtype == "int32":
        return array("i", [int(v) for v in values])
    return array(TYPECODE[dtype], values)


def fill_empty_rows_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    idx, vals = inputs["indices"], inputs["values"]
    rank = idx.shape[1]
    default = backend.values(inputs["default_value"])[0]
    dense_rows = backend.values(inputs["dense_shape"])[0]
    out_idx, out_val, empty, reverse = fill_empty_rows(
        backend.values(idx), rank, backend.values(vals), dense_rows, default, backend.max_elements
    )
    return [
        backend.output(array("i", out_idx), (len(out_val), rank), "int32"),
        backend.output(_typed(out_val, vals.dtype), (len(out_val),), vals.dtype),
        backend.output(array("B", empty), (len(empty),), "bool"),
        backend.output(array("i", reverse), (len(reverse),), "int32"),
    ]


def reshape_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    idx = inputs["input_indices"]
    out, shape = sparse_reshape(
        backend.values(idx),
        list(backend.values(inputs["input_shape"])),
        list(backend.values(inputs["new_shape"])),
    )
    return [
        backend.output(array("i", out), (idx.shape[0], len(shape)), "int32"),
        backend.output(array("i", shape), (len(shape),), "int32"),
    ]


def _segment(mean: bool, op: str) -> Any:
    def segment(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        data = inputs["data"]
        out, shape = segment_reduce(
            backend.values(data),
            data.shape,
            backend.values(inputs["indices"]),
            backend.values(inputs["segment_ids"]),
            mean,
            op,
            backend.max_elements,
        )
        return backend.output(_typed(out, data.dtype), tuple(shape), data.dtype)

    return segment


def range_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    ts = [inputs["starts"], inputs["limits"], inputs["deltas"]]
    sizes = [t.shape[0] if t.shape else None for t in ts]
    splits, values = ragged_range(*(backend.values(t) for t in ts), sizes, backend.max_elements)
    dtype = ts[0].dtype
    return [
        backend.output(array("i", splits), (len(splits),), "int32"),
        backend.output(_typed(values, dtype), (len(values),), dtype),
    ]


def gather_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    dense, indices = inputs["params_dense_values"], inputs["indices"]
    splits = [list(backend.values(t)) for t in inputs["params_nested_splits"]]
    out_splits, take = ragged_gather(splits, backend.values(indices), indices.shape)
    row = size_of(dense.shape[1:])
    values = backend.values(dense)
    picked: list[Any] = []
    for r in take:
        picked.extend(values[r * row : (r + 1) * row])
    return [
        *(backend.output(array("i", s), (len(s),), "int32") for s in out_splits),
        backend.output(_typed(picked, dense.dtype), (len(take), *dense.shape[1:]), dense.dtype),
    ]


def to_tensor_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    vals, shape_t, default_t = inputs["values"], inputs["shape"], inputs["default_value"]
    kinds = attrs["row_partition_types"]
    parts = [
        (k, list(backend.values(t))) for k, t in zip(kinds, inputs["row_partition_tensors"], strict=True)
    ]
    shape = list(backend.values(shape_t)) if shape_t.shape else []  # a scalar shape has rank 0, as TF.js
    dims, pairs = ragged_to_dense(shape, vals.shape, parts, backend.max_elements)
    row = size_of(vals.shape[1:])
    out_row = size_of(dims[len(dims) - len(vals.shape) + 1 :])
    default = list(backend.values(default_t))
    out = (default * (out_row // len(default))) * size_of(dims[: len(dims) - len(vals.shape) + 1])
    values = backend.values(vals)
    inner = dims[len(dims) - len(vals.shape) + 1 :]
    keep = [min(a, b) for a, b in zip(vals.shape[1:], inner, strict=True)]
    for flat, r in pairs:
        if keep == list(vals.shape[1:]) and keep == inner:
            out[flat * out_row : (flat + 1) * out_row] = values[r * row : (r + 1) * row]
        else:  # values rows cropped or padded to the requested inner dims
            for k in range(size_of(keep)):
                src = dst = 0
                rem = k
                for d in reversed(range(len(keep))):
                    c = rem % keep[d]
                    rem //= keep[d]
                    src += c * size_of(vals.shape[1 + d + 1 :])
                    dst += c * size_of(inner[d + 1 :])
                out[flat * out_row + dst] = values[r * row + src]
    return backend.output(_typed(out, vals.dtype), tuple(dims), vals.dtype)


def to_dense(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    idx, vals = inputs["sparse_indices"], inputs["sparse_values"]
    shape = attrs["output_shape"]
    out = scatter_dense(
        backend.values(idx),
        idx.shape[0] if idx.shape else 1,
        backend.values(vals),
        backend.values(inputs["default_value"])[0],
        shape,
        backend.max_elements,
    )
    return backend.output(_typed(out, vals.dtype), tuple(shape), vals.dtype)


KERNELS = {
    kn.SparseFillEmptyRows: fill_empty_rows_,
    kn.SparseReshape: reshape_,
    kn.SparseSegmentSum: _segment(False, "sparse_segment_sum"),
    kn.SparseSegmentMean: _segment(True, "sparse_segment_mean"),
    kn.RaggedRange: range_,
    kn.RaggedGather: gather_,
    kn.RaggedTensorToTensor: to_tensor_,
    kn.SparseToDense: to_dense,
}
