"""Data types: names, storage typecodes, sizes, inference from Python values and upcasting."""

from __future__ import annotations

from typing import Any, Literal

DType = Literal["float32", "int32", "bool"]

DTYPES: tuple[str, ...] = ("float32", "int32", "bool")
#: array.array typecode used to store each dtype in flat buffers.
TYPECODE: dict[str, str] = {"float32": "f", "int32": "i", "bool": "B"}
BYTES_PER_ELEMENT: dict[str, int] = {"float32": 4, "int32": 4, "bool": 1}
_RANK = {"bool": 0, "int32": 1, "float32": 2}


def check_dtype(dtype: str, op: str = "tensor") -> str:
    """Return `dtype` if it is supported, else raise a TypeError naming the op."""
    if dtype not in TYPECODE:
        raise TypeError(f"Error in {op}: unsupported dtype '{dtype}'; expected one of {', '.join(DTYPES)}")
    return dtype


def upcast(a: str, b: str) -> str:
    """The dtype that holds values of both `a` and `b` (bool < int32 < float32)."""
    return a if _RANK[a] >= _RANK[b] else b


def infer_dtype(value: Any) -> str:
    """Infer a dtype from a (nested) Python value: bools -> bool, ints -> int32, else float32."""
    while isinstance(value, (list, tuple)):
        if not value:
            return "float32"
        value = value[0]
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int32"
    if hasattr(value, "dtype"):  # numpy scalars/arrays on the host
        kind = getattr(value.dtype, "kind", "f")
        return "bool" if kind == "b" else "int32" if kind in "iu" else "float32"
    return "float32"


def is_float(dtype: str) -> bool:
    """True for floating-point dtypes."""
    return dtype == "float32"
