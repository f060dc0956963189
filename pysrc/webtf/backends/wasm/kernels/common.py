"""Shared helpers of the wasm kernels: the cpu fallback table and the native-or-fallback wrapper."""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from typing import Any

from ...base import TensorInfo
from ...cpu import KERNELS as CPU_KERNELS
from ..backend import WasmKernelError

Kernel = Callable[[Any, Any, dict[str, Any]], Any]


def cpu(name: str) -> Kernel:
    """The cpu kernel `name` as a fallback of a native kernel: it reads and writes the heap through
    values/output, and each use is counted in backend.fallbacks (name -> calls)."""
    impl = CPU_KERNELS.get(name)

    def fallback(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        if impl is None:
            raise NotImplementedError(f"Kernel '{name}' has no wasm implementation and no cpu fallback")
        counts = backend.fallbacks
        counts[name] = counts.get(name, 0) + 1
        return impl(backend, inputs, attrs)

    fallback.__name__ = f"cpu_{name}"
    return fallback


def with_fallback(name: str, native: Kernel) -> Kernel:
    """`native`, falling back to the cpu kernel when the binary reports a failure (WasmKernelError)."""
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        try:
            return native(backend, inputs, attrs)
        except WasmKernelError:
            return fallback(backend, inputs, attrs)

    kernel.__name__ = f"wasm_{name}"
    kernel.__doc__ = native.__doc__
    kernel.native = native  # type: ignore[attr-defined]
    return kernel


def with_fallbacks(natives: dict[str, Kernel]) -> dict[str, Kernel]:
    """A kernel table: each native kernel (name -> kernel) with_fallback to its cpu kernel."""
    return {name: with_fallback(name, fn) for name, fn in natives.items()}


def call_export(backend: Any, export: str, shape: tuple[int, ...], dtype: str, *args: Any) -> TensorInfo:
    """A new output of `shape` and `dtype` filled by the binary's export(*args, out), not called when empty."""
    out = backend.make_output(shape, dtype)
    if 0 not in shape:
        getattr(backend.abi, export)(*args, out)
    return out


def any_outside(backend: Any, x: Any, low: int, high: Any) -> bool:
    """True when int32 tensor `x` holds a value below `low` or at or above `high` (a number, or a list: one
    bound per index of x's last axis), checked natively (two comparisons, an or, backend.any_true), so a
    compiled replay keeps the check as a guard instead of reading the values in Python."""
    if 0 in x.shape:
        return False
    shape = tuple(x.shape)
    highs = list(high) if isinstance(high, (list, tuple)) else [high]
    high_shape = (len(highs),) if isinstance(high, (list, tuple)) else ()
    low_t = TensorInfo(backend.write(array("i", [low]), (), "int32"), (), "int32")
    made = [low_t]
    try:
        high_t = TensorInfo(backend.write(array("i", highs), high_shape, "int32"), high_shape, "int32")
        made.append(high_t)
        under = call_export(backend, "Less", shape, "bool", x, shape, low_t, (), "int32")
        made.append(under)
        over = call_export(backend, "GreaterEqual", shape, "bool", x, shape, high_t, high_shape, "int32")
        made.append(over)
        either = call_export(backend, "LogicalOr", shape, "bool", under, shape, over, shape, "bool")
        made.append(either)
        return backend.any_true(either)
    finally:
        for t in made:
            backend.dispose_data(t.data_id)


def nonempty(shape: tuple[int, ...]) -> bool:
    """True when a tensor of `shape` has at least one element."""
    return 0 not in shape


def has_nan(backend: Any, x: Any) -> bool:
    """True when float32 tensor x holds a NaN (checked natively: IsNan, then Any, then one byte read)."""
    if x.dtype != "float32" or 0 in x.shape:
        return False
    return backend.has_nan(x)


#: FLT_MIN, the smallest normal positive float32: where some of the binary's max kernels start a window's
#: maximum (std::numeric_limits<float>::min(), not the lowest float)
FLT_MIN = 1.1754943508222875e-38


def min_sum_above_flt_min(backend: Any, *tensors: Any) -> bool:
    """True when float32 `tensors` hold no NaN and the sum of their minima (in float32) is above FLT_MIN, so a
    maximum the binary starts at FLT_MIN is exact (each checked natively: IsNan + Any, Min, one read)."""
    total = 0.0
    for t in tensors:
        if t.dtype != "float32" or has_nan(backend, t):
            return False
        low = backend.make_output((1,), "float32")
        backend.abi.Min(t, "float32", math.prod(t.shape), low)
        total += backend.values(low)[0]
        backend.dispose_data(low.data_id)
    return array("f", [total])[0] > FLT_MIN
