"""wasm kernels for element-wise math: unary, binary (broadcasting), activations, AddN and Select.

Each kernel runs the binary's export for the dtypes where its results match the cpu kernel's contract
(probed against it: see tests/browser/test_wasm.py) and falls back to the cpu kernel otherwise, e.g.
int32 transcendental math (float32 output), float32 FloorDiv (int32 output) or NaN-sensitive cases. int32 runs
natively where the export matches the cpu kernel on every int32 (probed: Square, Relu, Relu6, Sign, Round,
Step, AddN);
the int32 Abs / Neg / Floor / Ceil / FloorDiv exports go through float32 (abs(-2**31 + 1) comes out -2**31)
and int32 Mod traps on a zero divisor, so those stay on the cpu kernel.
"""

from __future__ import annotations

import functools
import math
from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util.elements import COMPLEX_BINARY, complex_binary
from ....shapes import broadcast_shapes
from ...base import TensorInfo, new_info
from ..backend import WasmKernelError, enqueue_fast
from .common import Kernel, any_outside, call_export, cpu, has_nan, with_fallback

F32 = frozenset({"float32"})
F32_I32 = frozenset({"float32", "int32"})
ALL = frozenset({"float32", "int32", "bool"})
BOOL = frozenset({"bool"})

#: binary kernel -> (input dtypes run natively, output dtype or None for the input's)
BINARY: dict[str, tuple[frozenset, str | None]] = {
    kn.Add: (F32_I32, None),
    kn.Sub: (F32_I32, None),
    kn.Multiply: (F32_I32, None),
    kn.RealDiv: (F32, "float32"),
    kn.FloorDiv: (frozenset(), "int32"),
    kn.Maximum: (F32_I32, None),  # float32: only without NaN (XNNPACK's max drops a NaN)
    kn.Minimum: (F32_I32, None),
    kn.Mod: (F32, None),
    kn.SquaredDifference: (F32_I32, None),
    kn.Atan2: (F32, "float32"),
    kn.Equal: (ALL, "bool"),
    kn.NotEqual: (ALL, "bool"),
    kn.Less: (ALL, "bool"),
    kn.LessEqual: (ALL, "bool"),
    kn.Greater: (ALL, "bool"),
    kn.GreaterEqual: (ALL, "bool"),
    kn.LogicalAnd: (BOOL, "bool"),
    kn.LogicalOr: (BOOL, "bool"),
    kn.LogicalXor: (BOOL, "bool"),
    kn.BitwiseAnd: (frozenset({"int32"}), "int32"),
}

#: unary kernel -> (input dtypes run natively, output dtype or None for the input's)
UNARY: dict[str, tuple[frozenset, str | None]] = {
    **{
        name: (F32, "float32")
        for name in (
            kn.Exp, kn.Expm1, kn.Log, kn.Log1p, kn.Sqrt, kn.Rsqrt, kn.Reciprocal, kn.Tanh, kn.Selu,
            kn.Softplus, kn.Sin, kn.Cos, kn.Tan, kn.Asin, kn.Acos, kn.Atan, kn.Sinh, kn.Cosh, kn.Erf, kn.Elu,
        )
    },
    kn.Abs: (F32, None),
    kn.Neg: (F32, None),
    kn.Square: (F32_I32, None),
    kn.Relu: (F32_I32, None),
    kn.Relu6: (F32_I32, None),
    kn.Sign: (F32_I32, None),
    kn.Floor: (F32, None),
    kn.Ceil: (F32, None),
    kn.Round: (F32_I32, None),
    kn.IsNan: (F32, "bool"),
    kn.IsInf: (F32, "bool"),
    kn.IsFinite: (F32, "bool"),
    kn.LogicalNot: (BOOL, "bool"),
    kn.Acosh: (F32, "float32"),
    kn.Asinh: (F32, "float32"),
    kn.Atanh: (F32, "float32"),
}  # fmt: skip


#: kernels whose native float32 result differs from the cpu kernel's when an input holds a NaN
NAN_SENSITIVE = frozenset({kn.Maximum, kn.Minimum, kn.Relu6})


def binary_kernel(name: str, dtypes: frozenset, out_dtype: str | None, complex_route: Kernel | None = None) -> Kernel:
    """A broadcasting binary kernel calling export `name` for inputs of `dtypes` (else the cpu kernel, or
    `complex_route` for complex64 operands), bound once per shapes and dtype (backend.bind: one JS call)."""
    fallback = cpu(name)
    nan_sensitive = name in NAN_SENSITIVE

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        a, b = inputs["a"], inputs["b"]
        dtype = a.dtype
        if dtype not in dtypes or (nan_sensitive and (has_nan(backend, a) or has_nan(backend, b))):
            if complex_route is not None and "complex64" in (a.dtype, b.dtype):
                return complex_route(backend, inputs, attrs)
            return fallback(backend, inputs, attrs)
        key = (name, a.shape, b.shape, dtype)
        bound = backend.bound.get(key)
        if bound is None or not backend.binding:
            sa, sb = tuple(a.shape), tuple(b.shape)
            shape = sa if sa == sb else broadcast_shapes(sa, sb, "broadcast")
            if not backend.binding:  # each call through the ABI (a replay planner records those)
                out = backend.make_output(shape, out_dtype or dtype)
                if 0 not in shape:
                    getattr(backend.abi, name)(a, sa, b, sb, dtype, out)
                return out
            dt = backend.abi_dtypes[dtype]
            bound = backend.bind(key, "binary", name, shape, out_dtype or dtype, sa, sb, dt)
        data, ia, ib = backend.data, a.data_id, b.data_id
        if bound[3] >= 0 and backend.defer:
            queued = backend.queued
            if (ia in data or ia in queued) and (ib in data or ib in queued):
                return new_info((backend.enqueue(bound, ia, ib), bound[1], bound[4]))
        try:
            return backend.call_bound(
                bound, name, out_dtype or dtype,
                ia if ia in data else backend._resident(ia), ib if ib in data else backend._resident(ib),
            )  # fmt: skip
        except WasmKernelError:
            return fallback(backend, inputs, attrs)

    kernel.__name__ = f"wasm_{name}"
    kernel.__doc__ = f"{name} (wasm export {name}; {sorted(dtypes)} natively)."
    if out_dtype in (None, "float32") and not nan_sensitive:  # the output's dtype is the input's (checked)
        kernel.fast = functools.partial(enqueue_fast, name)  # type: ignore[attr-defined]
    return kernel


def unary_kernel(name: str, dtypes: frozenset, out_dtype: str | None, guard: bool = True) -> Kernel:
    """A unary kernel calling export `name` for inputs of `dtypes` (else the cpu kernel), bound once per shape
    and dtype (backend.bind: one JS call). A NaN-sensitive one carries `.unguarded`, the same without its NaN
    check (for captures that prove a NaN input cannot change the model's result: models/capture.py)."""
    fallback = cpu(name)
    nan_sensitive = guard and name in NAN_SENSITIVE

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        dtype = x.dtype
        if dtype not in dtypes or (nan_sensitive and has_nan(backend, x)):
            return fallback(backend, inputs, attrs)
        if not backend.binding:  # each call through the ABI (a replay planner records those)
            out = backend.make_output(x.shape, out_dtype or dtype)
            if 0 not in x.shape:
                getattr(backend.abi, name)(x, dtype, out)
            return out
        key = (name, x.shape, dtype)
        bound = backend.bound.get(key)
        if bound is None:
            dt = backend.abi_dtypes[dtype]
            bound = backend.bind(key, "unary", name, tuple(x.shape), out_dtype or dtype, dt)
        data_id = x.data_id
        if bound[3] >= 0 and backend.defer and (data_id in backend.data or data_id in backend.queued):
            return new_info((backend.enqueue(bound, data_id), bound[1], bound[4]))
        try:
            return backend.call_bound(
                bound, name, out_dtype or dtype, data_id if data_id in backend.data else backend._resident(data_id)
            )
        except WasmKernelError:
            return fallback(backend, inputs, attrs)

    kernel.__name__ = f"wasm_{name}"
    kernel.__doc__ = f"{name} (wasm export {name}; {sorted(dtypes)} natively)."
    if not nan_sensitive:
        kernel.fast = functools.partial(enqueue_fast, name)  # type: ignore[attr-defined]
    if nan_sensitive:
        kernel.unguarded = unary_kernel(name, dtypes, out_dtype, False)  # type: ignore[attr-defined]
    return kernel


def pow_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Pow: float32 natively when every exponent is finite (C pow differs from Math.pow for 1 ** nan)."""
    b = inputs["b"]
    if inputs["a"].dtype != "float32" or not all(map(math.isfinite, backend.values(b))):
        return cpu(kn.Pow)(backend, inputs, attrs)
    return _pow_native(backend, inputs, attrs)


def sigmoid(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Sigmoid: float32 natively (XNNPACK)."""
    x = inputs["x"]
    if x.dtype != "float32":
        return cpu(kn.Sigmoid)(backend, inputs, attrs)
    return call_export(backend, "Sigmoid", x.shape, "float32", x)


def leaky_relu(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LeakyRelu: float32 natively."""
    x = inputs["x"]
    if x.dtype != "float32":
        return cpu(kn.LeakyRelu)(backend, inputs, attrs)
    return call_export(backend, "LeakyRelu", x.shape, "float32", x, x.dtype, attrs["alpha"])


def step(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Step: float32 and int32 natively (int32: alpha truncated, as the cpu kernel)."""
    x = inputs["x"]
    if x.dtype not in F32_I32:
        return cpu(kn.Step)(backend, inputs, attrs)
    return call_export(backend, "Step", x.shape, x.dtype, x, attrs.get("alpha", 0.0), x.dtype)


def clip_by_value(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ClipByValue: float32 natively (XNNPACK clamp) unless x holds a NaN."""
    x = inputs["x"]
    if x.dtype != "float32" or has_nan(backend, x):
        return cpu(kn.ClipByValue)(backend, inputs, attrs)
    return call_export(
        backend, "ClipByValue", x.shape, "float32", x, attrs["clip_value_min"], attrs["clip_value_max"]
    )


def prelu(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Prelu: natively for float32 with one alpha, or one per channel of x's last axis."""
    x, alpha = inputs["x"], inputs["alpha"]
    core = alpha.shape
    while core and core[0] == 1:
        core = core[1:]
    per_channel = core == () or (len(core) == 1 and x.shape[-1:] == core)
    if x.dtype != "float32" or alpha.dtype != "float32" or not per_channel or len(alpha.shape) > len(x.shape):
        return cpu(kn.Prelu)(backend, inputs, attrs)
    return call_export(backend, "Prelu", x.shape, "float32", x, alpha)


def add_n(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AddN: float32 and int32 natively; one input shares its buffer."""
    first = inputs[0]
    if len(inputs) == 1 or first.dtype not in F32_I32:
        return cpu(kn.AddN)(backend, inputs, attrs)
    return call_export(backend, "AddN", first.shape, first.dtype, inputs, first.dtype)


def select(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Select: natively when t and e match and condition matches them or is their axis 0."""
    c, t, e = inputs["condition"], inputs["t"], inputs["e"]
    if t.shape != e.shape or c.dtype != "bool":
        return cpu(kn.Select)(backend, inputs, attrs)
    if c.shape == t.shape:
        offset = 1
    elif len(c.shape) == 1 and len(t.shape) > 1 and c.shape[0] == t.shape[0]:
        offset = 1
        for d in t.shape[1:]:
            offset *= d
    else:
        return cpu(kn.Select)(backend, inputs, attrs)
    return call_export(backend, "SelectV2", t.shape, t.dtype, c, t, e, offset)


_floor_div_int32 = binary_kernel(kn.FloorDiv, frozenset({"int32"}), "int32")
_EXACT = 2**23  # FloorDiv's int32 export divides in float32: exact while |a| + |b| < 2**24


def floor_div(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FloorDiv: int32 natively where every |a| and |b| is below 2**23 and no b is 0 (the export's float32
    division is exact there; checked natively, so a compiled replay keeps the checks as guards), else the
    cpu kernel."""
    a, b = inputs["a"], inputs["b"]
    if (
        a.dtype == "int32"
        and b.dtype == "int32"
        and not any_outside(backend, a, 1 - _EXACT, _EXACT)
        and not any_outside(backend, b, 1 - _EXACT, _EXACT)
        and not _any_zero(backend, b)
    ):
        return _floor_div_int32(backend, inputs, attrs)
    return cpu(kn.FloorDiv)(backend, inputs, attrs)


def _any_zero(backend: Any, x: Any) -> bool:
    """True when int32 tensor x holds a 0 (checked natively, as any_outside)."""
    if 0 in x.shape:
        return False
    zero = TensorInfo(backend.write(array("i", [0]), (), "int32"), (), "int32")
    try:
        flags = call_export(backend, "Equal", x.shape, "bool", x, tuple(x.shape), zero, (), "int32")
        try:
            return backend.any_true(flags)
        finally:
            backend.dispose_data(flags.data_id)
    finally:
        backend.dispose_data(zero.data_id)


KERNELS: dict[str, Kernel] = {}
for _name, (_dtypes, _out) in BINARY.items():
    # Add, Sub and Multiply route complex64 operands themselves (for_dtypes leaves them as they are)
    _route = complex_binary(KERNELS, _name) if _name in COMPLEX_BINARY else None
    KERNELS[_name] = binary_kernel(_name, _dtypes, _out, _route)
    KERNELS[_name].for_dtypes = _route is not None  # type: ignore[attr-defined]
for _name, (_dtypes, _out) in UNARY.items():
    KERNELS[_name] = unary_kernel(_name, _dtypes, _out)
_pow_native = binary_kernel(kn.Pow, F32, None)
for _name, _fn in {
    kn.Pow: pow_,
    kn.Sigmoid: sigmoid,
    kn.LeakyRelu: leaky_relu,
    kn.Step: step,
    kn.ClipByValue: clip_by_value,
    kn.Prelu: prelu,
    kn.AddN: add_n,
    kn.Select: select,
}.items():
    KERNELS[_name] = with_fallback(_name, _fn)
KERNELS[kn.FloorDiv] = floor_div
