"""wasm kernels Transpose, reductions (Sum, Mean, Max, Min, Prod, All, Any, ArgMax, ArgMin), Cumsum,
Cumprod and TopK.

The binary reduces (and scans) over the innermost axes only, so other axes are first moved last with a native
Transpose, as TF.js's wasm backend does. Contracts: webtf.kernel_names; empty reductions and dtypes the binary
lacks go to the cpu kernels.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .... import kernel_names as kn
from ....shapes import normalize_axes, normalize_axis
from ...base import TensorInfo
from .common import Kernel, call_export, cpu, has_nan, with_fallback


def transpose_info(backend: Any, x: Any, perm: tuple[int, ...]) -> tuple[TensorInfo, bool]:
    """(x transposed by `perm`, whether that is a new buffer): when only size-1 dims move, x's buffer."""
    shape = x.shape
    out_shape = tuple(shape[p] for p in perm)
    kept = [i for i, d in enumerate(shape) if d != 1]
    rank_of = {axis: r for r, axis in enumerate(kept)}
    reduced_perm = tuple(rank_of[p] for p in perm if shape[p] != 1)
    if 0 in shape or reduced_perm == tuple(range(len(reduced_perm))):
        return TensorInfo(x.data_id, out_shape, x.dtype), False
    out = backend.make_output(out_shape, x.dtype)
    backend.abi.Transpose(x, tuple(shape[i] for i in kept), x.dtype, out, reduced_perm)
    return out, True


def transpose(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Transpose: natively for every dtype (a pure relabeling shares x's buffer)."""
    return transpose_info(backend, inputs["x"], tuple(int(p) for p in attrs["perm"]))[0]


@contextmanager
def _innermost(backend: Any, x: Any, axes: tuple[int, ...]) -> Iterator[Any]:
    """x with `axes` moved last, for the block (a buffer made for it is disposed after the block)."""
    rank = len(x.shape)
    if axes == tuple(range(rank - len(axes), rank)):
        yield x
        return
    kept = tuple(i for i in range(rank) if i not in axes)
    src, made = transpose_info(backend, x, kept + axes)
    try:
        yield src
    finally:
        if made:
            backend.dispose_data(src.data_id)


def _reduce(name: str, key: str, dtypes: frozenset, out_dtype: str | None) -> Kernel:
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if x.dtype not in dtypes or 0 in x.shape or (name in (kn.Max, kn.Min) and has_nan(backend, x)):
            return fallback(backend, inputs, attrs)
        axes = normalize_axes(attrs.get(key), len(x.shape), name.lower())
        if not axes:
            return fallback(backend, inputs, attrs)
        keep = bool(attrs.get("keep_dims", False))
        out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keep or i not in axes)
        reduce_size = math.prod(x.shape[a] for a in axes)
        with _innermost(backend, x, axes) as src:
            out = backend.make_output(out_shape, out_dtype or x.dtype)
            call = getattr(backend.abi, name)
            if name in (kn.Sum, kn.Prod):
                call(src, reduce_size, x.dtype, out)
            elif name in (kn.Max, kn.Min):
                call(src, x.dtype, reduce_size, out)
            else:
                call(src, reduce_size, out)
        return out

    kernel.__doc__ = f"{name} over `{key}` (innermost after a transpose; {sorted(dtypes)} natively)."
    return kernel


def _arg(name: str) -> Kernel:
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if x.dtype not in ("float32", "int32") or 0 in x.shape or not x.shape:
            return fallback(backend, inputs, attrs)
        axis = normalize_axis(int(attrs.get("axis", 0)), len(x.shape), name.lower())
        out_shape = x.shape[:axis] + x.shape[axis + 1 :]
        with _innermost(backend, x, (axis,)) as src:
            return call_export(
                backend, name, out_shape, "int32", src, x.dtype, math.prod(out_shape), x.shape[axis]
            )

    kernel.__doc__ = f"{name} along the int `axis` (natively for float32 and int32)."
    return kernel


def _scan(name: str) -> Kernel:
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if x.dtype not in ("float32", "int32") or 0 in x.shape or not x.shape:
            return fallback(backend, inputs, attrs)
        rank = len(x.shape)
        axis = normalize_axis(int(attrs.get("axis", 0)), rank, name.lower())
        perm = tuple(i for i in range(rank) if i != axis) + (axis,)
        with _innermost(backend, x, (axis,)) as src:
            out = backend.make_output(src.shape, x.dtype)
            getattr(backend.abi, name)(
                src, bool(attrs.get("exclusive")), bool(attrs.get("reverse")), src.shape[-1], out, x.dtype
            )
        if src is x:
            return out
        back, made = transpose_info(backend, out, tuple(perm.index(i) for i in range(rank)))
        if made:
            backend.dispose_data(out.data_id)
        return back

    kernel.__doc__ = f"{name} along `axis` (exclusive, reverse), natively for float32 and int32."
    return kernel


def top_k(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """TopK: natively for float32 and int32 without NaN."""
    x = inputs["x"]
    k = int(attrs["k"])
    if x.dtype not in ("float32", "int32") or not x.shape or 0 in x.shape or k == 0 or has_nan(backend, x):
        return cpu(kn.TopK)(backend, inputs, attrs)
    out_shape = (*x.shape[:-1], k)
    values = backend.make_output(out_shape, x.dtype)
    indices = backend.make_output(out_shape, "int32")
    backend.abi.TopK(x, x.shape, x.dtype, k, True, values, indices)
    return [values, indices]


KERNELS: dict[str, Kernel] = {
    kn.Transpose: with_fallback(kn.Transpose, transpose),
    kn.Sum: with_fallback(kn.Sum, _reduce(kn.Sum, "axis", frozenset({"float32", "int32"}), None)),
    kn.Mean: with_fallback(kn.Mean, _reduce(kn.Mean, "axis", frozenset({"float32"}), "float32")),
    kn.Max: with_fallback(
        kn.Max, _reduce(kn.Max, "reduction_indices", frozenset({"float32", "int32"}), None)
    ),
    kn.Min: with_fallback(kn.Min, _reduce(kn.Min, "axis", frozenset({"float32", "int32"}), None)),
    kn.Prod: with_fallback(kn.Prod, _reduce(kn.Prod, "axis", frozenset({"float32", "int32"}), None)),
    kn.All: with_fallback(kn.All, _reduce(kn.All, "axis", frozenset({"bool"}), "bool")),
    kn.Any: with_fallback(kn.Any, _reduce(kn.Any, "axis", frozenset({"bool"}), "bool")),
    kn.ArgMax: with_fallback(kn.ArgMax, _arg(kn.ArgMax)),
    kn.ArgMin: with_fallback(kn.ArgMin, _arg(kn.ArgMin)),
    kn.Cumsum: with_fallback(kn.Cumsum, _scan(kn.Cumsum)),
    kn.Cumprod: with_fallback(kn.Cumprod, _scan(kn.Cumprod)),
    kn.TopK: with_fallback(kn.TopK, top_k),
}
