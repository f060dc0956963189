"""numpy reduction kernels: Sum, Mean, Max, Min, Prod, All, Any, ArgMax, ArgMin.

Contracts in webtf.kernel_names: Sum, Mean, Min, Prod, All, Any take
`axis` and `keep_dims`, Max `reduction_indices` and `keep_dims`, ArgMax/ArgMin one int `axis`. float32 sums
and products accumulate in float64 (as TF.js's cpu kernels do in JS numbers) and round once; int32 and bool
give int32, wrapping. An empty Max/Min is nan (float32) or 0; an empty Mean is nan.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

import numpy as np

from .... import kernel_names as kn
from ....shapes import normalize_axes, normalize_axis
from ...base import TensorInfo
from .common import F32


def _parse(
    backend: Any, inputs: Any, attrs: dict[str, Any], key: str, name: str
) -> tuple[Any, Any, tuple, bool]:
    x = inputs["x"]
    axes = normalize_axes(attrs.get(key), len(x.shape), name)
    return x, backend.nd(x), axes, bool(attrs.get("keep_dims", False))


def _arithmetic(fn: Callable, key: str, name: str) -> Callable[..., TensorInfo]:
    """Sum or Prod: float32 through float64, int32 and bool to int32 (wrapping)."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x, v, axes, keep = _parse(backend, inputs, attrs, key, name)
        acc = np.float64 if x.dtype == "float32" else np.int32
        return backend.make(
            fn(v, axis=axes, dtype=acc, keepdims=keep), "float32" if acc is np.float64 else "int32"
        )

    return kernel


def mean(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Mean over `axis`, always float32; an empty reduction is nan."""
    x, v, axes, keep = _parse(backend, inputs, attrs, "axis", "mean")
    sums = np.sum(v, axis=axes, dtype=np.float64, keepdims=keep)
    return backend.make(sums / prod(x.shape[a] for a in axes), "float32")


def _extreme(fn: Callable, key: str, name: str) -> Callable[..., TensorInfo]:
    """Max / Min: nan wins; an empty reduction is nan (float32) or 0 (int32, bool)."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x, v, axes, keep = _parse(backend, inputs, attrs, key, name)
        if any(x.shape[a] == 0 for a in axes):
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keep or i not in axes)
            return backend.make(np.full(shape, np.nan if v.dtype == F32 else 0, v.dtype))
        return backend.make(fn(v, axis=axes, keepdims=keep))

    return kernel


def _logical(fn: Callable, name: str) -> Callable[..., TensorInfo]:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x, v, axes, keep = _parse(backend, inputs, attrs, "axis", name)
        return backend.make(fn(v, axis=axes, keepdims=keep))

    return kernel


def _arg(fn: Callable, nan_fill: float, name: str) -> Callable[..., TensorInfo]:
    """ArgMax / ArgMin: the first extreme along `axis`, scanned like TF.js's strict > / <: a nan is skipped,
    unless it comes first, which then stays picked."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        axis = normalize_axis(int(attrs.get("axis", 0)), len(x.shape), name)
        v = np.moveaxis(backend.nd(x), axis, -1)
        if v.shape[-1] == 0:
            return backend.make(np.zeros(v.shape[:-1], np.int32))
        if v.dtype == F32:
            nan = np.isnan(v)
            if nan.any():
                idx = fn(np.where(nan, nan_fill, v), axis=-1)
                return backend.make(np.where(nan[..., 0], 0, idx), "int32")
        return backend.make(fn(v, axis=-1), "int32")

    return kernel


KERNELS = {
    kn.Sum: _arithmetic(np.sum, "axis", "sum"),
    kn.Mean: mean,
    kn.Max: _extreme(np.max, "reduction_indices", "max"),
    kn.Min: _extreme(np.min, "axis", "min"),
    kn.Prod: _arithmetic(np.prod, "axis", "prod"),
    kn.All: _logical(np.all, "all"),
    kn.Any: _logical(np.any, "any"),
    kn.ArgMax: _arg(np.argmax, -np.inf, "arg_max"),
    kn.ArgMin: _arg(np.argmin, np.inf, "arg_min"),
}
