"""cpu reduction kernels: Sum, Mean, Max, Min, Prod, All, Any, ArgMax, ArgMin.

Inputs and attrs: webtf.kernel_names. Besides the normalized axes the ops pass, these kernels accept None / an
int / negative axes too. Reducing no axes (axis=()) is an identity (same values, the kernel's output dtype).

Strategy: the input is viewed as kept/reduced dimension groups (adjacent dims of one kind merged, size-1 dims
dropped). One reduced group becomes one slice per output element (contiguous, or strided with step `inner`
when kept dims follow it), reduced by a C builtin (sum, max, math.prod, all, ...). When the reduced group is
short (and the rows many, or the trailing kept block long), whole rows or strided columns are combined
pairwise with map() instead. Several reduced groups are first gathered innermost with strided slices.
No per-element Python work.
"""

from __future__ import annotations

import math
import operator
from array import array
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

from .... import kernel_names as kn
from ....shapes import normalize_axes, normalize_axis, size_of
from ...base import TensorInfo

_NAN = float("nan")
_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1


def to_int32(vals: list[int]) -> array:
    """An int32 array of `vals`, wrapping out-of-range values modulo 2**32 like a JS Int32Array."""
    if vals and (max(vals) > _I32_MAX or min(vals) < _I32_MIN):
        vals = [((v - _I32_MIN) & 0xFFFFFFFF) + _I32_MIN for v in vals]
    return array("i", vals)


def may_have_nan(values: Sequence[Any], dtype: str) -> bool:
    """False when `values` surely holds no NaN (a NaN makes the C-speed sum NaN; so does inf - inf)."""
    if dtype != "float32":
        return False
    s = sum(values)
    return s != s


def _groups(shape: Sequence[int], axes: Sequence[int]) -> list[list[Any]]:
    """[size, stride, reduced] per merged group of adjacent same-kind dims (size-1 dims dropped)."""
    red = set(axes)
    groups: list[list[Any]] = []
    for d, size in enumerate(shape):
        if size == 1:
            continue
        if groups and groups[-1][2] == (d in red):
            groups[-1][0] *= size
        else:
            groups.append([size, 1, d in red])
    stride = 1
    for g in reversed(groups):
        g[1] = stride
        stride *= g[0]
    return groups


def _offsets(dims: Sequence[Sequence[int]]) -> list[int]:
    """Flat offsets of every index over (size, stride) dims, in row-major order of those dims."""
    offs = [0]
    for size, stride, *_ in dims:
        offs = [o + i for o in offs for i in range(0, size * stride, stride)]
    return offs


def gather(values: array, dims: Sequence[Sequence[int]]) -> array:
    """The elements of `values` reordered to row-major order over (size, stride) `dims` (a permute)."""
    out = array(values.typecode)
    if not dims:
        out.extend(values[:1])
        return out
    size, stride = dims[-1][0], dims[-1][1]
    span = size * stride
    extend = out.extend
    if stride == 1:
        for o in _offsets(dims[:-1]):
            extend(values[o : o + size])
    else:
        for o in _offsets(dims[:-1]):
            extend(values[o : o + span : stride])
    return out


def chunks(values: array, shape: Sequence[int], axes: Sequence[int]) -> tuple[list[Any], int]:
    """(one sequence of reduced elements per output element in output order, reduce size)."""
    n = size_of([shape[a] for a in axes])
    out_size = size_of(shape) // n if n else size_of([d for i, d in enumerate(shape) if i not in axes])
    if out_size == 0:
        return [], n
    if n == 0:
        return [values[0:0]] * out_size, 0
    groups = _groups(shape, axes)
    kept = [g for g in groups if not g[2]]
    red = [g for g in groups if g[2]]
    if not red:  # only size-1 axes reduced: one element per output
        return [values[i : i + 1] for i in range(len(values))], 1
    if len(red) == 1:
        rsize, rstride = red[0][0], red[0][1]
        if rstride == 1:  # [kept, reduced]: contiguous rows
            return [values[i : i + n] for i in range(0, len(values), n)], n
        span = rsize * rstride  # [kept, reduced, inner kept]: strided columns
        return [values[o : o + span : rstride] for o in _offsets(kept)], n
    flat = gather(values, kept + red)
    return [flat[i : i + n] for i in range(0, len(flat), n)], n


def reduce_values(
    values: array,
    shape: Sequence[int],
    axes: Sequence[int],
    chunk_fn: Callable[[Any], Any],
    pair_fn: Callable[[Any, Any], Any] | None = None,
) -> list[Any]:
    """chunk_fn applied to every reduced slice; pair_fn (an associative binary op), when given, combines
    whole strided columns ([many rows, short axis]) or rows ([outer, short axis, long inner]) instead."""
    if pair_fn is not None and size_of(shape):
        groups = _groups(shape, axes)
        red = [g for g in groups if g[2]]
        if len(red) == 1 and red[0][1] == 1 and red[0][0] < len(values) // red[0][0]:
            n = red[0][0]  # [outer, n] with n < outer: combine the n strided columns
            acc = values[0::n]
            for r in range(1, n):
                acc = list(map(pair_fn, acc, values[r::n]))
            return list(acc)
        if len(red) == 1 and red[0][1] > red[0][0]:  # [outer, n, inner] with n < inner
            n, inner = red[0][0], red[0][1]
            out: list[Any] = []
            for base in range(0, len(values), n * inner):
                acc = values[base : base + inner]
                for r in range(base + inner, base + n * inner, inner):
                    acc = list(map(pair_fn, acc, values[r : r + inner]))
                out.extend(acc)
            return out
    parts, _ = chunks(values, shape, axes)
    return list(map(chunk_fn, parts))


def _out_shape(shape: Sequence[int], axes: Sequence[int], keep_dims: bool) -> tuple[int, ...]:
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _parse(x: Any, attrs: dict[str, Any], key: str, name: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    axes = normalize_axes(attrs.get(key), len(x.shape), name)
    return axes, _out_shape(x.shape, axes, bool(attrs.get("keep_dims", False)))


def _arithmetic(
    backend: Any, inputs: Any, attrs: dict[str, Any], name: str, chunk_fn: Callable, pair_fn: Callable
) -> TensorInfo:
    """Sum or Prod over `axis`: bool and int32 give int32 (wrapping like TF.js), float32 gives float32."""
    x = inputs["x"]
    axes, shape = _parse(x, attrs, "axis", name)
    vals = reduce_values(backend.values(x), x.shape, axes, chunk_fn, pair_fn)
    if x.dtype == "float32":
        return backend.output(array("f", vals), shape, "float32")
    return backend.output(to_int32(vals), shape, "int32")


def sum_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Sum over `axis`; bool and int32 sum to int32 (wrapping like TF.js), float32 to float32."""
    return _arithmetic(backend, inputs, attrs, "sum", sum, operator.add)


def mean(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Mean over `axis`, always float32; an empty reduction is NaN."""
    x = inputs["x"]
    axes, shape = _parse(x, attrs, "axis", "mean")
    n = size_of([x.shape[a] for a in axes])
    sums = reduce_values(backend.values(x), x.shape, axes, sum, operator.add)
    if n == 0:
        return backend.output(array("f", [_NAN]) * len(sums), shape, "float32")
    return backend.output(array("f", map(operator.truediv, sums, repeat(n))), shape, "float32")


def _extreme(
    backend: Any, x: Any, axes: tuple[int, ...], shape: tuple[int, ...], pick: Callable
) -> TensorInfo:
    values = backend.values(x)
    empty = _NAN if x.dtype == "float32" else 0  # what TF.js's cpu kernel yields for an empty reduction
    if not size_of([x.shape[a] for a in axes]):
        vals: list[Any] = [empty] * size_of(shape)
    elif may_have_nan(values, x.dtype):
        isnan = math.isnan
        vals = [_NAN if any(map(isnan, c)) else pick(c) for c in chunks(values, x.shape, axes)[0]]
    else:
        vals = reduce_values(values, x.shape, axes, pick, pick)
    return backend.output(array(values.typecode, vals), shape, x.dtype)


def max_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Max over `reduction_indices`; NaN wins; an empty reduction is NaN (float32) or 0 (int32/bool)."""
    x = inputs["x"]
    axes, shape = _parse(x, attrs, "reduction_indices", "max")
    return _extreme(backend, x, axes, shape, max)


def min_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Min over `axis`; NaN wins; an empty reduction is NaN (float32) or 0 (int32/bool)."""
    x = inputs["x"]
    axes, shape = _parse(x, attrs, "axis", "min")
    return _extreme(backend, x, axes, shape, min)


def prod(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Product over `axis`; bool and int32 give int32 (wrapping), float32 gives float32; empty is 1."""
    return _arithmetic(backend, inputs, attrs, "prod", math.prod, operator.mul)


def all_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Logical AND over `axis` of a bool tensor (non-zero is true); an empty reduction is true."""
    x = inputs["x"]
    axes, shape = _parse(x, attrs, "axis", "all")
    vals = reduce_values(backend.values(x), x.shape, axes, all, min if x.dtype == "bool" else None)
    return backend.output(array("B", map(bool, vals)), shape, "bool")


def any_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Logical OR over `axis` of a bool tensor (non-zero is true); an empty reduction is false."""
    x = inputs["x"]
    axes, shape = _parse(x, attrs, "axis", "any")
    vals = reduce_values(backend.values(x), x.shape, axes, any, max if x.dtype == "bool" else None)
    return backend.output(array("B", map(bool, vals)), shape, "bool")


def _arg(backend: Any, inputs: Any, attrs: dict[str, Any], pick: Callable, name: str) -> TensorInfo:
    x = inputs["x"]
    axis = normalize_axis(int(attrs.get("axis", 0)), len(x.shape), name)
    shape = _out_shape(x.shape, (axis,), False)
    parts, n = chunks(backend.values(x), x.shape, (axis,))
    if n == 0:
        return backend.output(array("i", [0]) * len(parts), shape, "int32")
    # pick (builtin max/min) keeps the first of equal values and skips NaN unless it comes first, exactly
    # like TF.js's strict > / < scan; list.index finds that very object (identity before equality).
    out = array("i")
    append = out.append
    for c in parts:
        lst = c.tolist()
        append(lst.index(pick(lst)))
    return backend.output(out, shape, "int32")


def arg_max(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Index of the first maximum along the int `axis` (int32); 0 for an empty axis."""
    return _arg(backend, inputs, attrs, max, "arg_max")


def arg_min(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Index of the first minimum along the int `axis` (int32); 0 for an empty axis."""
    return _arg(backend, inputs, attrs, min, "arg_min")


KERNELS = {
    kn.Sum: sum_,
    kn.Mean: mean,
    kn.Max: max_,
    kn.Min: min_,
    kn.Prod: prod,
    kn.All: all_,
    kn.Any: any_,
    kn.ArgMax: arg_max,
    kn.ArgMin: arg_min,
}
