"""Shapes and index checks of the gather kernels: GatherV2 and GatherNd."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import NamedTuple

from ..shapes import fmt


class GatherInfo(NamedTuple):
    """GatherV2 over x viewed as [batch, outer, dim, inner] with `per_batch` indices per batch."""

    out_shape: tuple[int, ...]
    batch: int
    outer: int
    dim: int
    inner: int
    per_batch: int


def gather_info(
    x_shape: Sequence[int], indices_shape: Sequence[int], axis: int, batch_dims: int
) -> GatherInfo:
    """The GatherInfo of gathering x along `axis` (>= 0) with `batch_dims` leading batch dims."""
    batch = prod(x_shape[:batch_dims])
    return GatherInfo(
        (*x_shape[:axis], *indices_shape[batch_dims:], *x_shape[axis + 1 :]),
        batch,
        prod(x_shape[batch_dims:axis]),
        x_shape[axis],
        prod(x_shape[axis + 1 :]),
        prod(indices_shape) // batch if batch else 0,
    )


def _in_range(indices: Sequence[int], dim: int) -> bool:
    return not len(indices) or (min(indices) >= 0 and max(indices) < dim)


def check_gather_indices(indices: Sequence[int], dim: int) -> None:
    """Raise TF.js's error for an index outside [0, dim)."""
    if not _in_range(indices, dim):
        bad = next(i for i in indices if not 0 <= i < dim)
        raise ValueError(f"Error in gather: the index value {bad} is not in [0, {dim - 1}]")


def check_gather_nd_indices(indices: Sequence[int], params_shape: Sequence[int], depth: int) -> None:
    """Raise TF.js's error for the first row of `depth` flat indices that does not index into params."""
    dims = params_shape[:depth]
    if all(_in_range(indices[j::depth], d) for j, d in enumerate(dims)):  # the fast check, column by column
        return
    for k in range(len(indices) // depth):
        row = indices[k * depth : (k + 1) * depth]
        if any(not 0 <= i < d for i, d in zip(row, dims, strict=True)):
            raise ValueError(
                f"Error in gather_nd: invalid indices: {fmt(row)} does not index into {fmt(params_shape)}"
            )
