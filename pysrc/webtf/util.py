"""tf.util: TF.js's utility functions that mean something in Python (shapes, strides, shuffling, checks)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from .dtypes import BYTES_PER_ELEMENT, DTYPES
from .dtypes import infer_dtype as _infer_dtype
from .shapes import normalize_axes, size_of, strides_of

__all__ = [
    "arrays_equal", "arrays_equal_with_null", "assert_", "assert_non_negative_integer_dimensions",
    "assert_non_null", "assert_shapes_match", "bytes_per_element", "compute_strides", "create_shuffled_indices",
    "dist_squared", "flatten", "has_encoding_loss", "index_to_loc", "infer_dtype", "infer_from_implicit_shape",
    "is_scalar_shape", "is_valid_dtype", "loc_to_index", "nearest_divisor", "nearest_larger_even",
    "parse_axis_param", "rand_uniform", "shuffle", "shuffle_combo", "size_from_shape", "size_to_squarish_shape",
    "squeeze_shape", "to_nested_array",
]  # fmt: skip


def arrays_equal(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Same length and equal elements."""
    return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))


def arrays_equal_with_null(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """arrays_equal where None (or -1) in either matches anything."""
    return len(a) == len(b) and all(
        x in (None, -1) or y in (None, -1) or x == y for x, y in zip(a, b, strict=True)
    )


def assert_(expr: bool, msg: str | Callable[[], str]) -> None:
    """Raise ValueError(msg) (msg may be a callable) when expr is false (TF.js util.assert)."""
    if not expr:
        raise ValueError(msg() if callable(msg) else msg)


def assert_shapes_match(a: Sequence[int], b: Sequence[int], error_prefix: str = "") -> None:
    """Raise unless shapes a and b are equal."""
    assert_(arrays_equal(a, b), lambda: f"{error_prefix} Shapes {list(a)} and {list(b)} must match".strip())


def assert_non_null(a: Any) -> None:
    """Raise when a is None."""
    assert_(a is not None, "The input to the tensor constructor must be a non-null value.")


def assert_non_negative_integer_dimensions(shape: Sequence[Any]) -> None:
    """Raise unless every dim is a non-negative integer."""
    for d in shape:
        assert_(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0,
            lambda d=d: f"Tensor must have a shape comprised of positive integers but got shape [{shape}].",
        )


def bytes_per_element(dtype: str) -> int:
    """Bytes one element of dtype takes."""
    if dtype not in BYTES_PER_ELEMENT:
        raise ValueError(f"Unknown dtype {dtype}")
    return BYTES_PER_ELEMENT[dtype]


def compute_strides(shape: Sequence[int]) -> list[int]:
    """Row-major element strides of every dim but the last (TF.js's convention)."""
    return list(strides_of(shape)[:-1]) if len(shape) >= 2 else []


def size_from_shape(shape: Sequence[int]) -> int:
    """The number of elements of a shape (1 for a scalar)."""
    return size_of(shape)


def is_scalar_shape(shape: Sequence[int]) -> bool:
    """True for the scalar shape []."""
    return len(shape) == 0


def is_valid_dtype(dtype: str) -> bool:
    """True for a dtype webtf tensors can have."""
    return dtype in DTYPES


def has_encoding_loss(old_type: str, new_type: str) -> bool:
    """True when casting old_type values to new_type may lose information."""
    order = {"bool": 0, "int32": 1, "float32": 2}
    return order.get(new_type, 3) < order.get(old_type, 3)


def loc_to_index(locs: Sequence[int], rank: int, strides: Sequence[int]) -> int:
    """Flat index of coordinates given compute_strides' strides."""
    if rank == 0:
        return 0
    if rank == 1:
        return locs[0]
    return sum(locs[i] * strides[i] for i in range(len(locs) - 1)) + locs[-1]


def index_to_loc(index: int, rank: int, strides: Sequence[int]) -> list[int]:
    """Coordinates of a flat index given compute_strides' strides."""
    if rank == 0:
        return []
    if rank == 1:
        return [index]
    locs = []
    for s in strides:
        locs.append(index // s)
        index -= locs[-1] * s
    return [*locs, index]


def infer_dtype(values: Any) -> str:
    """The dtype a tensor made from values gets."""
    return _infer_dtype(values)


def infer_from_implicit_shape(shape: Sequence[int], size: int) -> list[int]:
    """shape with its one -1 replaced so that it holds size elements."""
    known, implicit = 1, -1
    for i, d in enumerate(shape):
        if d >= 0:
            known *= d
        elif d == -1:
            assert_(
                implicit == -1,
                f"Shapes can only have 1 implicit size. Found -1 at dim {implicit} and dim {i}",
            )
            implicit = i
        else:
            raise ValueError(f"Shapes can not be < 0. Found {d} at dim {i}")
    if implicit == -1:
        assert_(size <= 0 or size == known, f"Size({size}) must match the product of shape {list(shape)}")
        return list(shape)
    assert_(known != 0, f"Cannot infer the missing size in [{shape}] when there are 0 elements")
    assert_(size % known == 0, f"The implicit shape can't be a fractional number. Got {size} / {known}")
    return [size // known if i == implicit else d for i, d in enumerate(shape)]


def nearest_divisor(size: int, start: int) -> int:
    """The smallest divisor of size that is at least start (size itself at worst)."""
    for d in range(start, size):
        if size % d == 0:
            return d
    return size


def nearest_larger_even(value: int) -> int:
    """value, or value + 1 when it is odd."""
    return value if value % 2 == 0 else value + 1


def parse_axis_param(axis: int | Sequence[int] | None, shape: Sequence[int]) -> list[int]:
    """Axes as non-negative ints (None: every axis)."""
    if axis is None:
        return list(range(len(shape)))
    return list(
        normalize_axes([axis] if isinstance(axis, int) else list(axis), len(shape), "parse_axis_param")
    )


def rand_uniform(a: float, b: float) -> float:
    """A uniform random number in [a, b)."""
    return a + random.random() * (b - a)


def dist_squared(a: Sequence[float], b: Sequence[float]) -> float:
    """The squared euclidean distance between two equal-length sequences."""
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))


def shuffle(array: list[Any]) -> None:
    """Shuffle a list in place."""
    random.shuffle(array)


def shuffle_combo(array: list[Any], array2: list[Any]) -> None:
    """Shuffle two equal-length lists in place with the same permutation."""
    if len(array) != len(array2):
        raise ValueError(
            f"Array sizes must match to be shuffled together First array length was {len(array)}Second array "
            f"length was {len(array2)}"
        )
    order = list(range(len(array)))
    random.shuffle(order)
    array[:], array2[:] = [array[i] for i in order], [array2[i] for i in order]


def create_shuffled_indices(n: int) -> list[int]:
    """0 .. n - 1 in random order."""
    order = list(range(n))
    random.shuffle(order)
    return order


def flatten(arr: Any, result: list[Any] | None = None, skip_typed_array: bool = False) -> list[Any]:
    """The leaves of nested lists / tuples, in order."""
    out = [] if result is None else result
    if isinstance(arr, (list, tuple)):
        for v in arr:
            flatten(v, out, skip_typed_array)
    else:
        out.append(arr)
    return out


def size_to_squarish_shape(size: int) -> list[int]:
    """[rows, cols] holding at least size elements, as square as possible."""
    width = math.ceil(math.sqrt(size))
    return [width, math.ceil(size / width)]


def squeeze_shape(shape: Sequence[int], axis: Sequence[int] | None = None) -> dict[str, list[int]]:
    """{'new_shape', 'kept_dims'}: shape without its size-1 dims (only those in axis when given)."""
    axes = None if axis is None else {a % len(shape) for a in axis}
    new_shape, kept = [], []
    for i, d in enumerate(shape):
        if d == 1 and (axes is None or i in axes):
            continue
        if axes is not None and i in axes and d != 1:
            raise ValueError(f"Can't squeeze axis {i} since its dim '{d}' is not 1")
        new_shape.append(d)
        kept.append(i)
    return {"new_shape": new_shape, "kept_dims": kept}


def to_nested_array(shape: Sequence[int], values: Sequence[Any]) -> Any:
    """Flat values as nested lists of shape."""
    if len(shape) == 0:
        return values[0]
    if size_of(shape) == 0:
        return []

    def build(offset: int, dims: Sequence[int]) -> Any:
        if len(dims) == 1:
            return list(values[offset : offset + dims[0]])
        step = size_of(dims[1:])
        return [build(offset + i * step, dims[1:]) for i in range(dims[0])]

    return build(0, shape)
