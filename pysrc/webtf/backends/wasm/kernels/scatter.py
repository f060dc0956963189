"""wasm kernels on the binary's scatter, counting and search exports: ScatterNd, TensorScatterUpdate,
SparseToDense, Bincount, DenseBincount, SearchSorted and Diag (float32, int32 and bool where the export has
them; contracts: the cpu kernels in cpu/kernels/scatter.py, sparse.py and linalg.py).

The scatter exports write where the indices say without a bounds check, so the indices are checked first on
the host (min and max per index column); out-of-range indices take the cpu kernel, which raises its error.
The bincount exports only warn on a negative value, which makes the call fail and the cpu kernel raise.
"""

from __future__ import annotations

import math
from typing import Any

from .... import kernel_names as kn
from ....shapes import strides_of
from ...base import TensorInfo
from .common import Kernel, cpu, nonempty, with_fallbacks

_SCATTER_DTYPES = frozenset({"float32", "int32", "bool"})
_NUMERIC = frozenset({"float32", "int32"})


def _in_bounds(backend: Any, indices: Any, depth: int, shape: tuple[int, ...]) -> bool:
    """True when every row of `depth` index coordinates lies inside `shape` (one host read of the indices)."""
    values = backend.values(indices)
    for j in range(depth):
        column = values[j::depth]
        if column and (min(column) < 0 or max(column) >= shape[j]):
            return False
    return True


def _scatter_args(indices: Any, shape: tuple[int, ...]) -> tuple[int, int, int, tuple[int, ...]]:
    """(slice rank, number of updates, slice size, the slice strides) of scattering at `indices` into `shape`."""
    depth = indices.shape[-1] if len(indices.shape) > 1 else 1
    slice_size = math.prod(shape[depth:])
    return depth, math.prod(indices.shape) // max(depth, 1), slice_size, strides_of(shape[:depth])


def _scatter(name: str) -> Kernel:
    """ScatterNd {indices, updates} attr shape, or TensorScatterUpdate {tensor, indices, updates}."""
    fallback = cpu(name)
    update = name == kn.TensorScatterUpdate

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        indices, updates = inputs["indices"], inputs["updates"]
        shape = inputs["tensor"].shape if update else tuple(int(d) for d in attrs["shape"])
        depth, n, size, strides = _scatter_args(indices, shape)
        if updates.dtype not in _SCATTER_DTYPES or not _in_bounds(backend, indices, depth, shape):
            return fallback(backend, inputs, attrs)
        out = backend.make_output(shape, updates.dtype)
        if nonempty(shape):
            args = (indices, updates, updates.dtype, depth, n, size, strides, math.prod(shape), out)
            if update:
                backend.abi.TensorScatterUpdate(*args, inputs["tensor"])
            else:
                backend.abi.ScatterNd(*args)
        return out

    kernel.__doc__ = f"{name}: the binary's {name} (indices checked on the host first)."
    return kernel


def sparse_to_dense(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """SparseToDense {sparse_indices, sparse_values, default_value}: the binary's SparseToDense."""
    indices, values, default = inputs["sparse_indices"], inputs["sparse_values"], inputs["default_value"]
    shape = tuple(int(d) for d in attrs["output_shape"])
    depth, n, size, strides = _scatter_args(indices, shape)
    if values.dtype not in _SCATTER_DTYPES or not _in_bounds(backend, indices, depth, shape):
        return cpu(kn.SparseToDense)(backend, inputs, attrs)
    out = backend.make_output(shape, values.dtype)
    if nonempty(shape):
        rank = 0 if math.prod(values.shape) == 1 else len(values.shape)  # one value goes to every index
        backend.abi.SparseToDense(
            indices, values, rank, default, values.dtype, depth, n, size, strides, math.prod(shape), out
        )
    return out


def bincount(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Bincount {x, weights} attr size: the binary's Bincount (weights float32 / int32 or empty)."""
    x, w = inputs["x"], inputs["weights"]
    size = int(attrs["size"])
    if w.dtype not in _NUMERIC:
        return cpu(kn.Bincount)(backend, inputs, attrs)
    out = backend.make_output((size,), w.dtype)
    if size:
        backend.abi.Bincount(x, size, nonempty(w.shape), w, w.dtype, out)
    return out


def dense_bincount(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DenseBincount {x, weights} attrs size, binary_output: the binary's DenseBincount (1-D or 2-D x)."""
    x, w = inputs["x"], inputs["weights"]
    size = int(attrs["size"])
    if w.dtype not in _NUMERIC:
        return cpu(kn.DenseBincount)(backend, inputs, attrs)
    shape = (size,) if len(x.shape) == 1 else (x.shape[0], size)
    # a 1-D x is counted whatever binary_output says (TF.js's cpu kernel; its wasm export would honor it)
    binary = bool(attrs.get("binary_output")) and len(x.shape) == 2
    out = backend.make_output(shape, w.dtype)
    if nonempty(shape):
        backend.abi.DenseBincount(x, x.shape, size, nonempty(w.shape), w, w.dtype, binary, out)
    return out


def search_sorted(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """SearchSorted {sorted_sequence, values} attr side: the binary's SearchSorted (float32 / int32)."""
    seq, values = inputs["sorted_sequence"], inputs["values"]
    if seq.dtype not in _NUMERIC or values.dtype != seq.dtype:
        return cpu(kn.SearchSorted)(backend, inputs, attrs)
    out = backend.make_output(values.shape, "int32")
    if nonempty(values.shape):
        left = attrs.get("side", "left") == "left"
        backend.abi.SearchSorted(
            seq, values, seq.shape[0], seq.shape[1], values.shape[1], seq.dtype, left, out
        )
    return out


def diag(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Diag {x}: the binary's Diag (x on the diagonal of a [*x.shape, *x.shape] tensor of zeros)."""
    x = inputs["x"]
    if x.dtype not in _SCATTER_DTYPES:
        return cpu(kn.Diag)(backend, inputs, attrs)
    out = backend.make_output((*x.shape, *x.shape), x.dtype)
    if nonempty(x.shape):
        backend.abi.Diag(x, x.dtype, math.prod(x.shape), out)
    return out


KERNELS: dict[str, Kernel] = with_fallbacks(
    {
        kn.ScatterNd: _scatter(kn.ScatterNd),
        kn.TensorScatterUpdate: _scatter(kn.TensorScatterUpdate),
        kn.SparseToDense: sparse_to_dense,
        kn.Bincount: bincount,
        kn.DenseBincount: dense_bincount,
        kn.SearchSorted: search_sorted,
        kn.Diag: diag,
    }
)
