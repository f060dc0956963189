"""numpy kernels that move elements: Reshape, ExpandDims, Transpose, Concat, Pack, Unpack, SplitV, Tile,
Reverse (contracts in webtf.kernel_names). Reshape and ExpandDims share the input's buffer; the others copy once."""

from __future__ import annotations

from typing import Any

import numpy as np

from ....backend_util import concat_bands, concat_shape, pack_shape, split_sizes
from ...base import TensorInfo
from ..backend import NP_DTYPE
from .common import mirror_cpu_table, share


def reshape(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """attrs: shape (fully resolved, same size as x). Shares x's buffer."""
    return share(inputs["x"], attrs["shape"])


def expand_dims(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """inputs: input; attrs: dim (in [-(rank+1), rank]). Shares the input's buffer."""
    x = inputs["input"]
    dim = attrs["dim"]
    if dim < 0:
        dim += len(x.shape) + 1
    return share(x, (*x.shape[:dim], 1, *x.shape[dim:]))


def transpose(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """attrs: perm (a permutation of range(rank)); output dim k is input dim perm[k]."""
    x, perm = inputs["x"], tuple(attrs["perm"])
    if perm == tuple(range(len(perm))):
        return share(x)
    return backend.make(np.transpose(backend.nd(x), perm).copy())


def _concat(backend: Any, tensors: list[Any], axis: int, out_shape: tuple[int, ...]) -> TensorInfo:
    parts = concat_bands(tensors, axis, out_shape)[1]
    if len(parts) == 1:  # every other input is empty: the result is this one's buffer
        return share(parts[0][0], out_shape)
    if not parts:
        return backend.make(np.zeros(out_shape, NP_DTYPE[tensors[0].dtype]))
    return backend.make(np.concatenate([backend.nd(t) for t, _ in parts], axis))


def concat(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """inputs: a list of tensors of one dtype and rank, equal except along `axis`; attrs: axis (>= 0)."""
    axis = attrs["axis"]
    return _concat(backend, list(inputs), axis, concat_shape([t.shape for t in inputs], axis))


def pack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """inputs: a list of tensors of one shape and dtype; attrs: axis (in [-(rank+1), rank]) of the new dim."""
    axis, out_shape = pack_shape(inputs[0].shape, len(inputs), attrs["axis"])
    if len(inputs) == 1:
        return share(inputs[0], out_shape)
    return backend.make(np.stack([backend.nd(t) for t in inputs], axis))


def unpack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """inputs: value; attrs: axis (>= 0). One output per index along `axis`, that dim removed."""
    x, axis = inputs["value"], attrs["axis"]
    v = np.moveaxis(backend.nd(x), axis, 0)
    return [backend.make(v[i].copy()) for i in range(v.shape[0])]


def split_v(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """attrs: num_or_size_splits (the list of sizes, summing to x.shape[axis]), axis (>= 0)."""
    x, axis = inputs["x"], attrs["axis"]
    sizes = split_sizes(x.shape[axis], attrs["num_or_size_splits"])
    v = backend.nd(x)
    cuts = np.cumsum(sizes)[:-1].tolist()
    return [backend.make(piece.copy()) for piece in np.split(v, cuts, axis)]


def tile(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """attrs: reps (one non-negative count per dim)."""
    x, reps = inputs["x"], tuple(attrs["reps"])
    if all(r == 1 for r in reps):
        return share(x)
    return backend.make(np.tile(backend.nd(x), reps))


def reverse(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """attrs: dims (the axes to reverse, >= 0)."""
    x = inputs["x"]
    dims = tuple(d for d in attrs["dims"] if x.shape[d] > 1)
    if not dims or x.size == 0:
        return share(x)
    return backend.make(np.flip(backend.nd(x), dims).copy())


KERNELS = mirror_cpu_table(globals())
