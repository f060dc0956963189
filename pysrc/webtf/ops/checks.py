"""Argument checks every op shares (TF.js's util asserts): integers, numbers, shapes, axes, dtypes and the size
of outputs. Each raises a TypeError (wrong kind of value) or ValueError (wrong value) naming the op and the
argument; none loops over tensor elements, so a check costs a few comparisons per call.

Output sizes: an op that can make a tensor larger than its inputs (creation, broadcasting, mat_mul, conv,
padding, tiling, gathering, resizing) checks the shape it computed with `check_size` before any kernel runs,
against the active backend's `max_elements` (webtf.backends.base.MAX_ELEMENTS on the host, the texture limit
on webgl, the heap on wasm).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from math import prod
from typing import Any

from ..dtypes import DTYPES
from ..engine import ENGINE
from ..shapes import broadcast_shapes, fmt, normalize_axes, normalize_axis

#: the most dims a tensor may have (numpy's limit): deeper nested lists are almost surely a mistake
MAX_RANK = 64
#: the largest dim: shapes reach the wasm binary and the shaders as int32
MAX_DIM = 2**31 - 1


def is_int(value: Any) -> bool:
    """An integer that is not a bool (numpy integers included)."""
    return not isinstance(value, bool) and hasattr(value, "__index__")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def int_arg(value: Any, arg: str, op: str, minimum: int | None = None) -> int:
    """`value` as a Python int (bools, floats and strings refused), at least `minimum` when given."""
    if not is_int(value):
        raise TypeError(f"Error in {op}: argument '{arg}' must be an integer, but got {_show(value)}")
    out = operator.index(value)
    if minimum is not None and out < minimum:
        raise ValueError(f"Error in {op}: argument '{arg}' must be >= {minimum}, but got {out}")
    return out


def int_list(value: Any, arg: str, op: str) -> list[int]:
    """A list of Python ints from a sequence of integers."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"Error in {op}: argument '{arg}' must be a list of integers, but got {_show(value)}")
    out = list(value)
    if not all(map(is_int, out)):
        raise TypeError(f"Error in {op}: argument '{arg}' must contain only integers, but got {_show(out)}")
    return [operator.index(v) for v in out]


def number_arg(value: Any, arg: str, op: str, finite: bool = False) -> int | float:
    """A real number (an int stays an int; a one-element tensor gives its value); bools, strings, None and
    larger tensors are refused, and NaN and +-inf too when `finite`."""
    if isinstance(value, (bool, str, bytes)) or value is None or not hasattr(value, "__float__"):
        raise TypeError(f"Error in {op}: argument '{arg}' must be a number, but got {_show(value)}")
    if getattr(value, "size", 1) != 1:
        raise TypeError(
            f"Error in {op}: argument '{arg}' must be a number, but got a tensor of shape {fmt(value.shape)}"
        )
    out = operator.index(value) if hasattr(value, "__index__") else float(value)
    if finite and not math.isfinite(out):
        raise ValueError(f"Error in {op}: argument '{arg}' must be a finite number, but got {out}")
    return out


def flag_arg(value: Any, arg: str, op: str) -> bool:
    """A bool flag: True / False (or 0 / 1, None as False); anything else is refused."""
    if value is None or isinstance(value, bool) or (is_int(value) and value in (0, 1)):
        return bool(value)
    if type(value).__name__ in ("bool", "bool_"):  # numpy bools
        return bool(value)
    raise TypeError(f"Error in {op}: argument '{arg}' must be a bool, but got {_show(value)}")


def choice_arg(value: Any, choices: Sequence[str], arg: str, op: str) -> str:
    """One of the strings `choices` (compared as a string: a tensor here is refused, never compared)."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"
        raise ValueError(f"Error in {op}: {arg} must be {listed}, but was {_show(value)}")
    return value


def _dim(d: Any) -> int:
    if not is_int(d):
        raise TypeError
    return operator.index(d)


def shape_arg(value: Any, arg: str, op: str) -> tuple[int, ...]:
    """A shape: a sequence of non-negative integers, at most MAX_RANK of them, each at most MAX_DIM."""
    try:
        if isinstance(value, (str, bytes)):
            raise TypeError
        items = list(value)
    except TypeError:
        raise TypeError(
            f"Error in {op}: argument '{arg}' must be a list of integers, but got {_show(value)}"
        ) from None
    try:
        shape = tuple(map(_dim, items))
    except TypeError:
        raise TypeError(
            f"Error in {op}: argument '{arg}' must contain only integers, but got {_show(items)}"
        ) from None
    if len(shape) > MAX_RANK:
        raise ValueError(
            f"Error in {op}: argument '{arg}' has {len(shape)} dims; at most {MAX_RANK} are allowed"
        )
    for i, d in enumerate(shape):
        if not 0 <= d <= MAX_DIM:
            raise ValueError(
                f"Error in {op}: argument '{arg}' must hold dims in [0, {MAX_DIM}], but {arg}[{i}] is {d} "
                f"(shape {fmt(shape)})"
            )
    return shape


def count_arg(value: Any, arg: str, op: str) -> int:
    """A count (a number of elements, rows, ...): an integer in [0, MAX_DIM]."""
    try:
        n = _dim(value)
    except TypeError:
        raise TypeError(
            f"Error in {op}: argument '{arg}' must be an integer, but got {_show(value)}"
        ) from None
    if not 0 <= n <= MAX_DIM:
        raise ValueError(f"Error in {op}: argument '{arg}' must be in [0, {MAX_DIM}], but got {n}")
    return n


def check_alike(ts: Sequence[Any], shape_msg: str, dtype_msg: str) -> None:
    """ValueError(shape_msg) / TypeError(dtype_msg) at the first tensors[i] whose shape / dtype differs from
    tensors[0]'s; the messages are formatted with i, shape, first_shape, dtype and first_dtype."""
    first = ts[0]
    for i, t in enumerate(ts):
        if t.shape != first.shape:
            raise ValueError(shape_msg.format(i=i, shape=fmt(t.shape), first_shape=fmt(first.shape)))
        if t.dtype != first.dtype:
            raise TypeError(dtype_msg.format(i=i, dtype=t.dtype, first_dtype=first.dtype))


def check_size(shape: Sequence[int], op: str, detail: str = "") -> None:
    """Raise a ValueError naming the op and the shape when an output of `shape` holds more elements than the
    active backend allows (`detail`, e.g. the input shapes, is added to the message)."""
    backend = ENGINE.backend
    n = prod(shape)
    if not n and shape and max(shape) > MAX_DIM:  # empty, but a dim no int32 holds
        raise ValueError(
            f"Error in {op}: the output of shape {fmt(shape)}{detail} has a dim larger than {MAX_DIM}"
        )
    if n > backend.max_elements:
        raise ValueError(
            f"Error in {op}: the output of shape {fmt(shape)}{detail} would hold {n} elements, more than the "
            f"{backend.max_elements} a tensor may hold on the {ENGINE.backend_name} backend"
        )


def broadcast_output(a: Sequence[int], b: Sequence[int], op: str) -> tuple[int, ...]:
    """The broadcast shape of a and b, checked like any output (errors name the op and both shapes)."""
    out = broadcast_shapes(a, b, op)
    if out != a and out != b:  # only then can it outgrow both inputs
        check_size(out, op, f" (broadcasting {fmt(a)} and {fmt(b)})")
    return out


def output_shape(value: Any, arg: str, op: str) -> tuple[int, ...]:
    """shape_arg for an argument that is the shape of the op's output, with its size checked."""
    shape = shape_arg(value, arg, op)
    check_size(shape, op)
    return shape


def dtype_arg(dtype: Any, op: str, allowed: Iterable[str] = DTYPES) -> str:
    """`dtype` when it is one of `allowed`, else a TypeError listing them."""
    allowed = tuple(allowed)
    if not isinstance(dtype, str) or dtype not in allowed:
        raise TypeError(
            f"Error in {op}: unsupported dtype {_show(dtype)}; expected one of {', '.join(allowed)}"
        )
    return dtype


def axis_arg(value: Any, rank: int, op: str, arg: str = "axis") -> int:
    """One axis in [-rank, rank) as a non-negative int."""
    if not is_int(value):
        raise TypeError(f"Error in {op}: argument '{arg}' must be an integer, but got {_show(value)}")
    return normalize_axis(operator.index(value), rank, op, arg)


def axes_arg(value: Any, rank: int, op: str, arg: str = "axis") -> tuple[int, ...]:
    """None (all axes), an int or a list of ints, as sorted unique non-negative axes."""
    if value is None:
        return normalize_axes(None, rank, op, arg)
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not all(map(is_int, items)):
        raise TypeError(
            f"Error in {op}: argument '{arg}' must be an int, a list of ints or None, but got {_show(value)}"
        )
    return normalize_axes([operator.index(a) for a in items], rank, op, arg)
