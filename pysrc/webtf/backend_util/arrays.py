"""Flat typed arrays that backends build on the host: constants and dtype conversions."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from .. import kernel_names as kn
from ..dtypes import TYPECODE


def scalar_as(dtype: str, value: Any) -> float | int:
    """A Python number as a tensor of `dtype` stores it (bool as 0 / 1)."""
    return float(value) if dtype == "float32" else int(value) if dtype == "int32" else 1 if value else 0


def filled(n: int, dtype: str, value: Any) -> array:
    """`n` copies of `value` stored as `dtype` (float32, int32 or bool)."""
    return array(TYPECODE[dtype], [scalar_as(dtype, value)]) * n


def to_int32(v: float) -> int:
    """A float as an Int32Array stores it (JavaScript's ToInt32): truncated toward zero, wrapped modulo 2**32,
    NaN and +-inf as 0."""
    if v - v != 0:  # NaN or +-inf
        return 0
    return (int(v) + 2**31) % 2**32 - 2**31


Filler = Callable[[Any, tuple[int, ...], str, Any], Any]  # (backend, shape, dtype, value) -> a filled output
Kernel = Callable[[Any, Any, dict[str, Any]], Any]


def fill_kernels(fill_value: Filler) -> dict[str, Kernel]:
    """The Fill (attrs shape, dtype, value), ZerosLike and OnesLike ({x}) kernels of a backend's fill_value."""

    def fill(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        return fill_value(backend, tuple(attrs["shape"]), attrs["dtype"], attrs["value"])

    def like(value: int) -> Kernel:
        def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
            x = inputs["x"]
            return fill_value(backend, x.shape, x.dtype, value)

        kernel.__name__ = kernel.__qualname__ = ("zeros_like", "ones_like")[value]
        return kernel

    return {kn.Fill: fill, kn.ZerosLike: like(0), kn.OnesLike: like(1)}


def cast_values(values: Sequence[Any], from_dtype: str, dtype: str) -> array:
    """Values of `from_dtype` stored as `dtype` as typed arrays convert them (TF.js's cast on every backend):
    to int32 truncating toward zero (NaN and +-inf give 0, values past int32 wrap around), to bool as x != 0."""
    if dtype == "bool":
        return array("B", [v != 0 for v in values])
    if dtype == "int32":
        if from_dtype != "float32":
            return array("i", values)
        try:
            return array("i", map(int, values))
        except (ValueError, OverflowError):  # NaN, +-inf or out of range: the per-value path
            return array("i", map(to_int32, values))
    return array("f", values)
