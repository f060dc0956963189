"""Shapes of the kernels that join and split tensors along an axis: Concat, Pack, SplitV."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import Any


def concat_shape(shapes: Sequence[Sequence[int]], axis: int) -> tuple[int, ...]:
    """The shape of tensors of `shapes` (equal but along `axis` >= 0) joined along `axis`."""
    first = shapes[0]
    return (*first[:axis], sum(s[axis] for s in shapes), *first[axis + 1 :])


def pack_shape(shape: Sequence[int], n: int, axis: int) -> tuple[int, tuple[int, ...]]:
    """(axis >= 0, output shape) of stacking `n` tensors of `shape` along a new dim `axis` (may be < 0)."""
    if axis < 0:
        axis += len(shape) + 1
    return axis, (*shape[:axis], n, *shape[axis:])


def concat_bands(
    tensors: Sequence[Any], axis: int, out_shape: Sequence[int]
) -> tuple[int, list[tuple[Any, int]]]:
    """Concat as [outer, columns] matrices side by side: (outer, [(tensor, columns)] per non-empty input)."""
    outer = prod(out_shape[:axis])
    parts = [(t, prod(t.shape[axis:])) for t in tensors]
    return outer, [(t, inner) for t, inner in parts if inner and outer]


Join = Callable[[Any, list[Any], int, tuple[int, ...]], Any]  # (backend, tensors, axis, out shape) -> output


def join_kernels(join: Join) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The Concat and Pack kernels of a backend whose join lays its tensors' [outer, inner] bands side by side
    along axis (Pack's inputs as they are: the new dim has size 1 in each, which leaves the bands alone)."""

    def concat(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        """Concat [tensors] attr axis (>= 0): the inputs joined along axis."""
        axis = attrs["axis"]
        return join(backend, list(inputs), axis, concat_shape([t.shape for t in inputs], axis))

    def pack(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        """Pack [tensors of one shape] attr axis (in [-(rank+1), rank]) of the new dim."""
        axis, out_shape = pack_shape(inputs[0].shape, len(inputs), attrs["axis"])
        return join(backend, list(inputs), axis, out_shape)

    return concat, pack


def split_sizes(dim: int, num_or_size_splits: int | Sequence[int]) -> list[int]:
    """SplitV's piece sizes: the sizes as given, or `dim` cut into that many equal parts."""
    if isinstance(num_or_size_splits, int):
        return [dim // num_or_size_splits] * num_or_size_splits
    return list(num_or_size_splits)
