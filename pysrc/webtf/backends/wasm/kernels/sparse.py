"""wasm kernels on the binary's sparse exports: SparseFillEmptyRows, SparseReshape and SparseSegmentSum / Mean
(the SparseSegmentReduction export), for float32 and int32 values (contracts: cpu/kernels/sparse.py).

Each export reports bad input through a small int32 "exceptions" tensor instead of raising: when it is set,
the outputs are dropped and the cpu kernel runs to raise its (TF.js's) error for that input.
"""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ....dtypes import BYTES_PER_ELEMENT
from ...base import TensorInfo
from .common import Kernel, cpu, with_fallbacks

_NUMERIC = frozenset({"float32", "int32"})


def _failed(backend: Any, exceptions: TensorInfo, outs: list[TensorInfo], good: int) -> bool:
    """True (the outputs and the exceptions tensor disposed) when the export set exceptions[0] to other than
    `good`; else only the exceptions tensor is disposed."""
    code = backend.values(exceptions)[0]
    backend.dispose_data(exceptions.data_id)
    if code == good:
        return False
    for t in outs:
        backend.dispose_data(t.data_id)
    return True


def _head(backend: Any, t: TensorInfo, rows: int) -> TensorInfo:
    """The first `rows` rows of t (a new buffer; t is disposed), or t itself when it has just as many."""
    if rows == t.shape[0]:
        return t
    shape = (rows, *t.shape[1:])
    out = backend.make_output(shape, t.dtype)
    n = rows * (t.shape[1] if len(t.shape) > 1 else 1)
    if n:
        size = BYTES_PER_ELEMENT[t.dtype]
        backend.copy(backend.pointer(t), backend.pointer(out), (n,), (1,), (1,), size)
    backend.dispose_data(t.data_id)
    return out


def fill_empty_rows(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
    """SparseFillEmptyRows {indices, values, dense_shape, default_value}: the binary's SparseFillEmptyRows."""
    indices, values = inputs["indices"], inputs["values"]
    if values.dtype not in _NUMERIC:
        return cpu(kn.SparseFillEmptyRows)(backend, inputs, attrs)
    n, rank = indices.shape
    dense_rows = int(backend.values(inputs["dense_shape"])[0])
    out_idx = backend.make_output((n + dense_rows, rank), "int32")
    out_val = backend.make_output((n + dense_rows,), values.dtype)
    empty = backend.make_output((dense_rows,), "bool")
    reverse = backend.make_output((n,), "int32")
    outs = [out_idx, out_val, empty, reverse]
    exceptions = backend.make_output((4,), "int32")
    rows = backend.abi.SparseFillEmptyRows(
        indices, values, values.dtype, n, dense_rows, rank, inputs["default_value"], *outs, exceptions
    )
    if _failed(backend, exceptions, outs, 0):
        return cpu(kn.SparseFillEmptyRows)(backend, inputs, attrs)
    return [_head(backend, out_idx, rows), _head(backend, out_val, rows), empty, reverse]


def reshape(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
    """SparseReshape {input_indices, input_shape, new_shape}: the binary's SparseReshape."""
    indices, new_shape = inputs["input_indices"], inputs["new_shape"]
    nnz, rank = indices.shape[0], new_shape.shape[0]
    out_idx = backend.make_output((nnz, rank), "int32")
    out_shape = backend.make_output((rank,), "int32")
    exceptions = backend.make_output((4,), "int32")
    backend.abi.SparseReshape(indices, inputs["input_shape"], new_shape, nnz, out_idx, out_shape, exceptions)
    if _failed(backend, exceptions, [out_idx, out_shape], -1):
        return cpu(kn.SparseReshape)(backend, inputs, attrs)
    return [out_idx, out_shape]


def _segment(name: str, mean: bool) -> Kernel:
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        data, indices, ids = inputs["data"], inputs["indices"], inputs["segment_ids"]
        rows = data.shape[0] if data.shape else 0
        idx = backend.values(indices)
        # the export reads a row before it reports an out-of-range index: those (and no rows) take the cpu kernel
        if data.dtype not in _NUMERIC or not rows or (idx and (min(idx) < 0 or max(idx) >= rows)):
            return fallback(backend, inputs, attrs)
        segments = backend.values(ids)[-1] + 1 if len(idx) else 0
        if segments < 0:
            return fallback(backend, inputs, attrs)
        out = backend.make_output((segments, *data.shape[1:]), data.dtype)
        exceptions = backend.make_output((4,), "int32")
        backend.abi.SparseSegmentReduction(data, data.dtype, rows, indices, ids, out, exceptions, mean, 0)
        if _failed(backend, exceptions, [out], -1):
            return fallback(backend, inputs, attrs)
        return out

    kernel.__doc__ = f"{name} {{data, indices, segment_ids}}: the binary's SparseSegmentReduction."
    return kernel


KERNELS: dict[str, Kernel] = with_fallbacks(
    {
        kn.SparseFillEmptyRows: fill_empty_rows,
        kn.SparseReshape: reshape,
        kn.SparseSegmentSum: _segment(kn.SparseSegmentSum, False),
        kn.SparseSegmentMean: _segment(kn.SparseSegmentMean, True),
    }
)
