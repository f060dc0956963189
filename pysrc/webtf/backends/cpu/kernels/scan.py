"""cpu scan kernels: Cumsum and Cumprod (inputs and attrs: webtf.kernel_names).

The input is viewed as [outer, n, inner] around `axis`; whichever loop is shorter runs in Python: one
itertools.accumulate per (outer, inner) line taken with a strided slice, one map() over an inner-long row per
(outer, step), or, for many short last-axis rows, one map() per strided column.
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from .... import kernel_names as kn
from ....shapes import normalize_axis, size_of
from ...base import TensorInfo
from .reduce import to_int32


def _scan(
    values: array, shape: tuple[int, ...], axis: int, fn: Callable, ident: int, exclusive: bool, reverse: bool
) -> list[Any]:
    n, inner = shape[axis], size_of(shape[axis + 1 :])
    block = n * inner
    total = len(values)
    out: list[Any] = [0] * total
    if not total:
        return out
    if inner == 1 and n * n < total:  # many short rows: one map per strided column
        cols = range(n - 1, -1, -1) if reverse else range(n)
        acc: Any = [ident] * (total // n)
        for j in cols:
            if exclusive:
                out[j::n] = acc
                acc = list(map(fn, acc, values[j::n]))
            else:
                acc = list(map(fn, acc, values[j::n]))
                out[j::n] = acc
        return out
    if inner <= n:  # one accumulate per line
        for base in range(0, total, block):
            for start in range(base, base + inner):
                line = values[start : start + block : inner]
                if reverse:
                    line = line[::-1]
                acc = list(accumulate(line, fn, initial=ident))
                acc = acc[:-1] if exclusive else acc[1:]
                out[start : start + block : inner] = acc[::-1] if reverse else acc
        return out
    steps = range(n - 1, -1, -1) if reverse else range(n)  # one map per step along the axis
    for base in range(0, total, block):
        acc = [ident] * inner
        for r in steps:
            lo = base + r * inner
            row = values[lo : lo + inner]
            if exclusive:
                out[lo : lo + inner] = acc
                acc = list(map(fn, acc, row))
            else:
                acc = list(map(fn, acc, row))
                out[lo : lo + inner] = acc
    return out


def _run(backend: Any, inputs: Any, attrs: dict[str, Any], fn: Callable, ident: int, name: str) -> TensorInfo:
    x = inputs["x"]
    axis = normalize_axis(int(attrs.get("axis", 0)), len(x.shape), name)
    vals = _scan(
        backend.values(x), x.shape, axis, fn, ident, bool(attrs.get("exclusive")), bool(attrs.get("reverse"))
    )
    if x.dtype == "float32":
        return backend.output(array("f", vals), x.shape, "float32")
    return backend.output(to_int32(vals), x.shape, "int32")


def cumsum(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Cumulative sum along `axis` (exclusive: leave out each own value; reverse: from the end)."""
    return _run(backend, inputs, attrs, operator.add, 0, "cumsum")


def cumprod(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Cumulative product along `axis` (exclusive: leave out each own value; reverse: from the end)."""
    return _run(backend, inputs, attrs, operator.mul, 1, "cumprod")


KERNELS = {kn.Cumsum: cumsum, kn.Cumprod: cumprod}
