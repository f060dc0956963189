"""Broadcasting flat buffers to an output shape at C speed, and storing Python numbers as typed buffers.

Shared by the element-wise kernels (and usable by any family): `operand` gives a lazy iterable in output
order (the buffer itself, `repeat` for a scalar, `cycle` for a trailing-dims tile, else a materialized
copy), `expand` materializes a broadcast with slice assignment / block repetition instead of per-element
indexing, and `to_typed` stores results with float32 rounding or int32 wrap-around like a JS typed array.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from itertools import chain, cycle, repeat
from typing import Any

from ....shapes import size_of

_INT_MIN = -(2**31)
_INT_MASK = 2**32 - 1


def _left_pad(shape: Sequence[int], rank: int) -> tuple[int, ...]:
    return (1,) * (rank - len(shape)) + tuple(shape)


def _join(parts: list, like: Any) -> Any:
    if isinstance(like, array):
        out = array(like.typecode)
        out.frombytes(b"".join(p.tobytes() for p in parts))
        return out
    return list(chain.from_iterable(parts))


def repeat_blocks(flat: Any, inner: int, rep: int) -> Any:
    """`flat` (list or array) with each consecutive block of `inner` elements repeated `rep` times."""
    n = len(flat)
    blocks = n // inner if inner else 0
    if blocks <= 1 or rep == 1:
        return flat * rep
    if blocks <= rep * inner:  # one C-level copy per block
        return _join([flat[i : i + inner] * rep for i in range(0, n, inner)], flat)
    # few (rep * inner) strided slice assignments, each over all blocks
    out = flat[:1] * (n * rep)
    step = rep * inner
    for j in range(rep):
        for o in range(inner):
            out[j * inner + o :: step] = flat[o::inner]
    return out


def expand(values: Any, shape: Sequence[int], out_shape: Sequence[int]) -> Any:
    """`values` (flat, of `shape`) broadcast to `out_shape`, flat; `values` itself when no copy is needed."""
    n_out = size_of(out_shape)
    if len(values) == n_out:
        return values
    if n_out == 0:
        return values[:0]
    if len(values) == 1:
        return values[:1] * n_out
    groups: list[list] = []  # [out_dim, is_broadcast] with adjacent axes of the same kind merged
    for s, o in zip(_left_pad(shape, len(out_shape)), out_shape, strict=True):
        if o == 1:
            continue
        bcast = s == 1
        if groups and groups[-1][1] == bcast:
            groups[-1][0] *= o
        else:
            groups.append([o, bcast])
    flat, inner = values, 1
    for o, bcast in reversed(groups):
        if bcast:
            flat = repeat_blocks(flat, inner, o)
        inner *= o
    return flat


def operand(values: Any, shape: Sequence[int], out_shape: Sequence[int]) -> Iterable:
    """An iterable over `values` broadcast to `out_shape`, in row-major order (possibly infinite).

    Among the operands of one broadcast at least one is always finite (the one that has the output's
    leading dimension), so `map(fn, *operands)` stops at the output size.
    """
    n = len(values)
    n_out = size_of(out_shape)
    if n == n_out:
        return values
    if n == 1:
        return repeat(values[0])
    core = tuple(shape)
    while core and core[0] == 1:
        core = core[1:]
    if core == tuple(out_shape[len(out_shape) - len(core) :]):
        return cycle(values)
    return expand(values, shape, out_shape)


def to_int32(v: Any) -> int:
    """A number stored into an Int32Array: truncated toward zero, nan/inf -> 0, wrapped modulo 2**32."""
    if isinstance(v, float):
        if not math.isfinite(v):
            return 0
        v = int(v)
    return ((v - _INT_MIN) & _INT_MASK) + _INT_MIN


def to_typed(values: Iterable, dtype: str) -> array:
    """Store computed Python numbers as the flat buffer of `dtype` (float32 rounds, int32 wraps, bool 0/1)."""
    if dtype == "float32":
        return array("f", values)
    if dtype == "bool":
        return array("B", values)
    if not isinstance(values, (list, array)):
        values = list(values)
    try:
        return array("i", values)
    except (OverflowError, TypeError):
        return array("i", map(to_int32, values))
