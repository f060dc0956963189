"""Flat typed arrays that backends build on the host: constants and dtype conversions."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from ..dtypes import TYPECODE


def filled(n: int, dtype: str, value: Any) -> array:
    """`n` copies of `value` stored as `dtype` (float32, int32 or bool)."""
    v = float(value) if dtype == "float32" else int(value)
    return array(TYPECODE[dtype], [v]) * n


Filler = Callable[[Any, tuple[int, ...], str, Any], Any]  # (backend, shape, dtype, value) -> a filled output
Kernel = Callable[[Any, Any, dict[str, Any]], Any]


def fill_kernels(fill_value: Filler) -> tuple[Kernel, Kernel, Kernel]:
    """The Fill (attrs shape, dtype, value), ZerosLike and OnesLike ({x}) kernels of a backend's fill_value."""

    def fill(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        return fill_value(backend, tuple(attrs["shape"]), attrs["dtype"], attrs["value"])

    def like(value: int) -> Kernel:
        def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
            x = inputs["x"]
            return fill_value(backend, x.shape, x.dtype, value)

        return kernel

    return fill, like(0), like(1)


def cast_values(values: Sequence[Any], from_dtype: str, dtype: str) -> array:
    """Values of `from_dtype` stored as `dtype` as typed arrays convert them: to int32 truncating toward
    zero, to bool as x != 0."""
    if dtype == "bool":
        return array("B", [v != 0 for v in values])
    if dtype == "int32":
        return array("i", map(int, values)) if from_dtype == "float32" else array("i", values)
    return array("f", values)
