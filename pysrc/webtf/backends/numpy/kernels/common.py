"""What the numpy kernels share: input views, dtype stores like JS typed arrays, JS rounding, and the tables
of the families that mirror cpu's."""

from __future__ import annotations

from typing import Any

import numpy as np

from ....interop import store_as
from ...base import TensorInfo
from ...cpu import KERNELS as CPU_KERNELS

F32 = np.float32


def share(x: Any, shape: tuple[int, ...] | None = None) -> TensorInfo:
    """x's own buffer as the output (Identity, Reshape, no-op casts and pads): the engine counts the reference."""
    return TensorInfo(x.data_id, x.shape if shape is None else tuple(shape), x.dtype)


def store(x: np.ndarray, dtype: str) -> np.ndarray:
    """Computed values stored as `dtype`: float32 rounds, int32 truncates and wraps (nan -> 0), bool is != 0."""
    return store_as(np, x, dtype)


def as_float(x: np.ndarray) -> np.ndarray:
    """The input of a float-valued kernel: float32 as it is; int32 and bool as float64, exact like JS numbers."""
    return x if x.dtype == F32 else x.astype(np.float64)


def js_round(x: np.ndarray) -> np.ndarray:
    """JavaScript Math.round elementwise: nearest integer, ties toward +infinity."""
    f = np.floor(x)
    return np.where(x - f >= 0.5, f + 1, f)


def mirror_cpu_table(namespace: dict[str, Any]) -> dict[str, Any]:
    """The kernel table of a family that mirrors cpu's name for name: each kernel of the cpu table whose
    function the module of `namespace` (its globals()) defines under the same name. Kernels it does not
    define stay cpu's (see KERNELS in __init__)."""
    table = {}
    for kernel, cpu_fn in CPU_KERNELS.items():
        fn = namespace.get(getattr(cpu_fn, "__name__", ""))
        if callable(fn) and getattr(fn, "__module__", None) == namespace["__name__"]:
            table[kernel] = fn
    return table
