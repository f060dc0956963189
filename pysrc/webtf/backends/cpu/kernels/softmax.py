"""cpu kernels Softmax and LogSoftmax, over the last axis of float32 logits (attrs: webtf.kernel_names).

Numerically stable: each row is shifted by its max before exp, so exp never overflows. Row maxima and sums
are per-row C builtins; the element-wise work is map() over the whole buffer with the per-row values
repeated alongside, so no per-element Python runs.
"""

from __future__ import annotations

import math
import operator
from array import array
from collections.abc import Callable, Iterable
from itertools import chain, repeat
from typing import Any

from .... import kernel_names as kn
from ...base import TensorInfo

_NAN, _NEG_INF = float("nan"), float("-inf")


def _spread(per_row: list[float], n: int) -> Iterable[float]:
    """Each per-row value repeated n times, in row order."""
    if n < len(per_row):  # many short rows: fill each column with one strided slice assignment
        out = [0.0] * (n * len(per_row))
        for j in range(n):
            out[j::n] = per_row
        return out
    return chain.from_iterable(map(repeat, per_row, repeat(n)))


def _shifted(values: array, n: int) -> list[float]:
    """Each row minus its max (NaN rows stay NaN: builtin max skips a NaN, which then shifts to NaN)."""
    if n > 1 and n * n < len(values):  # many short rows: max over the n strided columns at once
        maxes = list(map(max, *[values[j::n] for j in range(n)]))
    else:
        maxes = [max(values[i : i + n]) for i in range(0, len(values), n)]
    return list(map(operator.sub, values, _spread(maxes, n)))


def _row_sums(e: list[float], n: int) -> list[float]:
    if n > 1 and n * n < len(e):
        acc = e[0::n]
        for j in range(1, n):
            acc = list(map(operator.add, acc, e[j::n]))
        return acc
    return [sum(e[i : i + n]) for i in range(0, len(e), n)]


def _log(s: float) -> float:
    return math.log(s) if s > 0 else (_NEG_INF if s == 0 else _NAN)


def _over_rows(backend: Any, inputs: Any, rows_fn: Callable[[array, int], Iterable[float]]) -> TensorInfo:
    """rows_fn(values, n) on float32 logits seen as rows of n (the last axis); empty logits stay empty."""
    x = inputs["logits"]
    values = backend.values(x)
    n = x.shape[-1] if x.shape else 1
    return backend.output(array("f", rows_fn(values, n) if len(values) else ()), x.shape, "float32")


def _softmax_rows(values: array, n: int) -> Iterable[float]:
    e = list(map(math.exp, _shifted(values, n)))
    return map(operator.truediv, e, _spread(_row_sums(e, n), n))


def _log_softmax_rows(values: array, n: int) -> Iterable[float]:
    shifted = _shifted(values, n)
    logs = list(map(_log, _row_sums(list(map(math.exp, shifted)), n)))
    return map(operator.sub, shifted, _spread(logs, n))


def softmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """exp(x - max) / sum(exp(x - max)) along the last axis (`dim` must name it; the op checks)."""
    return _over_rows(backend, inputs, _softmax_rows)


def log_softmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """(x - max) - log(sum(exp(x - max))) along the last axis (`axis` must name it; the op checks)."""
    return _over_rows(backend, inputs, _log_softmax_rows)


KERNELS = {kn.Softmax: softmax, kn.LogSoftmax: log_softmax}
