"""Data types: names, storage typecodes, sizes, inference from Python values and upcasting."""

from __future__ import annotations

from typing import Any, Literal

DType = Literal["float32", "int32", "bool", "complex64", "string"]

#: the numeric dtypes (one array.array element per tensor element)
DTYPES: tuple[str, ...] = ("float32", "int32", "bool")
#: array.array typecode used to store each dtype in flat buffers; complex64 stores re, im interleaved (2 floats
#: per element, as TF.js's dataSync returns it); string buffers are Python lists of str (no typecode).
TYPECODE: dict[str, str] = {"float32": "f", "int32": "i", "bool": "B", "complex64": "f"}
BYTES_PER_ELEMENT: dict[str, int] = {"float32": 4, "int32": 4, "bool": 1, "complex64": 8}
#: every dtype a tensor may have
ALL_DTYPES: tuple[str, ...] = (*DTYPES, "complex64", "string")
_RANK = {"bool": 0, "int32": 1, "float32": 2, "complex64": 3}


def check_dtype(dtype: str, op: str = "tensor") -> str:
    """Return `dtype` if it is supported, else raise a TypeError naming the op."""
    if not isinstance(dtype, str) or dtype not in TYPECODE:
        raise TypeError(f"Error in {op}: unsupported dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
    return dtype


def upcast(a: str, b: str) -> str:
    """The dtype that holds values of both `a` and `b` (bool < int32 < float32 < complex64), as TF.js's
    upcastType; string mixes with nothing else."""
    if a == b:
        return a
    if a == "string" or b == "string":
        raise TypeError(f"Can not upcast {a} with {b}")
    return a if _RANK[a] >= _RANK[b] else b


#: the dtype a leaf value of each type infers (None: not a number or bool); filled as types are seen
_LEAF_DTYPES: dict[type, str | None] = {bool: "bool", int: "int32", float: "float32"}


def leaf_dtype(t: type) -> str | None:
    """The dtype a value of type `t` inside a nested list infers: bool, int32, float32, or None (not a number)."""
    d = _LEAF_DTYPES.get(t, "")
    if d == "":
        if t.__module__ == "numpy" and t.__name__ != "ndarray":  # numpy scalars: by their dtype's kind
            kind = t(0).dtype.kind
            d = "bool" if kind == "b" else "int32" if kind in "iu" else "float32" if kind == "f" else None
        elif issubclass(t, bool):
            d = "bool"
        elif hasattr(t, "__index__") and not hasattr(t, "dtype"):
            d = "int32"
        elif hasattr(t, "__float__"):
            d = "float32"
        else:
            d = None
        _LEAF_DTYPES[t] = d
    return d


def leaf_types(value: list | tuple) -> set[type]:
    """The types of the non-list values anywhere in a nested list (one C-level pass per sub-list)."""
    found: set[type] = set()
    stack = [value]
    while stack:
        items = stack.pop()
        types = set(map(type, items))
        nested = [t for t in types if issubclass(t, (list, tuple))]
        if nested:
            types.difference_update(nested)
            stack.extend(v for v in items if isinstance(v, (list, tuple)))
        found |= types
    return found


def dtype_of_types(types: set[type], op: str = "tensor", arg: str = "values") -> str:
    """The dtype that holds values of all these types (bool < int32 < float32; float32 when empty); a
    TypeError naming the op and argument for strings, None and other non-numbers."""
    kinds = {leaf_dtype(t) for t in types}
    if None in kinds:
        bad = sorted(t.__name__ for t in types if leaf_dtype(t) is None)
        raise TypeError(
            f"Error in {op}: argument '{arg}' must hold numbers or bools, but holds {', '.join(bad)}"
        )
    return "float32" if "float32" in kinds or not kinds else "int32" if "int32" in kinds else "bool"


def infer_dtype(value: Any, op: str = "tensor", arg: str = "values") -> str:
    """The dtype of a Python value: over a whole nested list, any float makes float32, else any int int32,
    else bool (empty lists are float32); numpy values by their dtype's kind."""
    if isinstance(value, (list, tuple)):
        return dtype_of_types(leaf_types(value), op, arg)
    dtype = getattr(value, "dtype", None)
    if dtype is not None and not isinstance(value, type):  # numpy arrays on the host, tensors
        if isinstance(dtype, str):
            return dtype if dtype in TYPECODE else "float32"
        kind = getattr(dtype, "kind", "f")
        return "bool" if kind == "b" else "int32" if kind in "iu" else "float32"
    dtype = leaf_dtype(type(value))
    if dtype is None:
        raise TypeError(
            f"Error in {op}: argument '{arg}' must be a Tensor or a TensorLike, but got {type(value).__name__}"
        )
    return dtype


def is_float(dtype: str) -> bool:
    """True for floating-point dtypes."""
    return dtype == "float32"
