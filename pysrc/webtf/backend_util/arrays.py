"""Flat typed arrays that backends build on the host: constants and dtype conversions."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

from ..dtypes import TYPECODE


def filled(n: int, dtype: str, value: Any) -> array:
    """`n` copies of `value` stored as `dtype` (float32, int32 or bool)."""
    v = float(value) if dtype == "float32" else int(value)
    return array(TYPECODE[dtype], [v]) * n


def cast_values(values: Sequence[Any], from_dtype: str, dtype: str) -> array:
    """Values of `from_dtype` stored as `dtype` as typed arrays convert them: to int32 truncating toward
    zero, to bool as x != 0."""
    if dtype == "bool":
        return array("B", [v != 0 for v in values])
    if dtype == "int32":
        return array("i", map(int, values)) if from_dtype == "float32" else array("i", values)
    return array("f", values)
