"""numpy kernels for element-wise binary math, comparisons, logical ops, AddN and Select, with broadcasting.

Contracts in webtf.kernel_names: inputs {a, b} of one dtype whose shapes
broadcast; arithmetic keeps the dtype (int32 wraps), RealDiv and Atan2 give float32, FloorDiv int32,
comparisons and logical ops bool. x / 0 gives +-inf or nan; int32 FloorDiv and Mod by 0 give 0. Where JS
computes in doubles and rounding once decides the result (FloorDiv, Mod), so do these kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .... import kernel_names as kn
from ....backend_util.elements import complex_binary
from ...base import TensorInfo
from ..backend import NP_DTYPE
from .common import as_float, share, store


def _kernel(
    fn: Callable[[np.ndarray, np.ndarray], np.ndarray], out_dtype: str | None = None, complex_of: str | None = None
) -> Callable:
    """A broadcasting kernel whose output is `out_dtype` (x's dtype when None); `complex_of` names the kernel
    (of COMPLEX_BINARY) whose complex64 operands it routes itself (so for_dtypes adds no wrapper)."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        ta, tb = inputs["a"], inputs["b"]
        if complex_of is not None and (ta.dtype == "complex64" or tb.dtype == "complex64"):
            return complex_binary(KERNELS, complex_of)(backend, inputs, attrs)
        a, b = backend.nd(ta), backend.nd(tb)
        if ta.dtype == "bool":  # arithmetic on bools counts them as 0 / 1
            a, b = a.view(np.uint8), b.view(np.uint8)
        dtype = out_dtype or ta.dtype
        out = fn(a, b)
        return backend.make(out if out.dtype == NP_DTYPE[dtype] else store(out, dtype), dtype)

    kernel.for_dtypes = complex_of is not None  # type: ignore[attr-defined]
    return kernel


def _real_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return as_float(a) / as_float(b)


def _floor_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":  # floor(a / b) in doubles, as JS; inf and nan store as 0
        return np.floor(a.astype(np.float64) / b)
    return np.floor_divide(a, b)  # integer x // 0 is 0


def _mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind != "f":
        return np.mod(a, b)  # floored, the divisor's sign; x % 0 is 0
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    rem = np.fmod(a64, b64)  # the JS remainder, moved to the divisor's sign when the signs differ
    return np.where((a64 < 0) == (b64 < 0), rem, np.fmod(rem + b64, b64))


def _pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Math.pow: nan for 1 ** +-inf and 1 ** nan (C's pow gives 1); int32 computed in doubles."""
    if a.dtype.kind != "f":
        a, b = a.astype(np.float64), b.astype(np.float64)
    out = np.power(a, b)
    bad = np.isnan(b) | (np.isinf(b) & (np.abs(a) == 1))
    return np.where(bad, np.nan, out) if bad.any() else out


def _squared_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = a - b
    return d * d


def _atan2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.arctan2(as_float(a), as_float(b))


def add_n(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AddN: the element-wise sum of a list of same-shape, same-dtype tensors."""
    first = inputs[0]
    if len(inputs) == 1:
        return share(first)
    acc = backend.nd(first) + backend.nd(inputs[1])
    for t in inputs[2:]:
        acc += backend.nd(t)
    return backend.make(store(acc, first.dtype), first.dtype)


def select(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Select: t where condition else e; the three shapes broadcast together."""
    c, t, e = (backend.nd(inputs[k]) for k in ("condition", "t", "e"))
    return backend.make(np.where(c, t, e))


KERNELS: dict[str, Any] = {
    kn.Add: _kernel(np.add, None, kn.Add),
    kn.Sub: _kernel(np.subtract, None, kn.Sub),
    kn.Multiply: _kernel(np.multiply, None, kn.Multiply),
    kn.RealDiv: _kernel(_real_div, "float32"),
    kn.FloorDiv: _kernel(_floor_div, "int32"),
    kn.Mod: _kernel(_mod),
    kn.Pow: _kernel(_pow),
    kn.Maximum: _kernel(np.maximum),
    kn.Minimum: _kernel(np.minimum),
    kn.SquaredDifference: _kernel(_squared_difference),
    kn.Atan2: _kernel(_atan2, "float32"),
    kn.Equal: _kernel(np.equal, "bool"),
    kn.NotEqual: _kernel(np.not_equal, "bool"),
    kn.Less: _kernel(np.less, "bool"),
    kn.LessEqual: _kernel(np.less_equal, "bool"),
    kn.Greater: _kernel(np.greater, "bool"),
    kn.GreaterEqual: _kernel(np.greater_equal, "bool"),
    kn.LogicalAnd: _kernel(np.logical_and, "bool"),
    kn.LogicalOr: _kernel(np.logical_or, "bool"),
    kn.LogicalXor: _kernel(np.logical_xor, "bool"),
    kn.AddN: add_n,
    kn.Select: select,
}
