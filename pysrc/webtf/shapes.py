"""Shape arithmetic shared by ops and kernels: sizes, strides, axes and broadcasting."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import prod

Shape = tuple[int, ...]


def size_of(shape: Sequence[int]) -> int:
    """Number of elements in a tensor of `shape`."""
    return prod(shape)


def strides_of(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major element strides of `shape`."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return tuple(strides)


def fmt(shape: Sequence[int]) -> str:
    """Format a shape the way TF.js error messages do: [2,3]."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def broadcast_shapes(a: Sequence[int], b: Sequence[int], op: str = "broadcast") -> Shape:
    """NumPy-style broadcast of two shapes; raises ValueError naming the op and shapes."""
    if tuple(a) == tuple(b):
        return tuple(a)
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        da = a[len(a) - n + i] if len(a) - n + i >= 0 else 1
        db = b[len(b) - n + i] if len(b) - n + i >= 0 else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise ValueError(
                f"Error in {op}: operands could not be broadcast together with shapes {fmt(a)} and {fmt(b)}"
            )
    return tuple(out)


def normalize_axis(axis: int, rank: int, op: str, arg: str = "axis") -> int:
    """Map a possibly negative axis into [0, rank); raise ValueError when out of range."""
    if not -rank <= axis < rank:
        raise ValueError(f"Error in {op}: {arg} {axis} is out of range for a tensor of rank {rank}")
    return axis % rank


def normalize_axes(
    axis: int | Iterable[int] | None, rank: int, op: str, arg: str = "axis"
) -> tuple[int, ...]:
    """Normalize an axis spec (None = all axes) to a sorted tuple of unique non-negative axes."""
    if axis is None:
        return tuple(range(rank))
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = sorted({normalize_axis(a, rank, op, arg) for a in axes})
    if len(out) != len(axes):
        raise ValueError(f"Error in {op}: {arg} {list(axes)} has repeated axes")
    return tuple(out)
