"""cpu kernels for element-wise unary math, activations, tests (IsNan, ...) and LogicalNot.

Inputs, attrs and output dtypes: webtf.kernel_names. Math follows float32 JS: no exceptions, nan / +-inf
instead.
"""

from __future__ import annotations

import math
import operator
from array import array
from collections.abc import Callable
from typing import Any

from .... import kernel_names as kn
from ....shapes import broadcast_shapes
from ...base import TensorInfo, new_data_id
from .activation import elu, leaky_relu, prelu, relu, relu6, sigmoid
from .bits import MIN_SIZE, relu_f32
from .broadcast import operand, to_typed
from .lazy import PackedOutput

_INF, _NAN = math.inf, math.nan
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123
# softplus switches to exp(x) / x outside (threshold, -threshold), as TF does (float32 epsilon)
_SOFTPLUS_THRESHOLD = math.log(1.1920928955078125e-7) + 2.0


def _guard(fn: Callable[[Any], float], on_error: Callable[[Any, Exception], float]) -> Callable[[Any], float]:
    def safe(v: Any) -> float:
        try:
            return fn(v)
        except (ValueError, OverflowError, ZeroDivisionError) as e:
            return on_error(v, e)

    return safe


def _nan(v: Any, e: Exception) -> float:
    return _NAN


def _log_error(v: Any, e: Exception) -> float:
    return -_INF if v == 0 else _NAN


def _log1p_error(v: Any, e: Exception) -> float:
    return -_INF if v == -1 else _NAN


def _signed_inf(v: Any, e: Exception) -> float:
    return math.copysign(_INF, v)


def _atanh_error(v: Any, e: Exception) -> float:
    return math.copysign(_INF, v) if abs(v) == 1 else _NAN


def _inv_sqrt(v: Any) -> float:
    return 1.0 / math.sqrt(v)


def _reciprocal(v: Any) -> float:
    return 1.0 / v


def _selu1(v: Any) -> float:
    return _SELU_SCALE * v if v >= 0 else _SELU_SCALE_ALPHA * math.expm1(v)


def _softplus1(v: Any) -> float:
    if v < _SOFTPLUS_THRESHOLD:
        return math.exp(v)
    if v > -_SOFTPLUS_THRESHOLD:
        return float(v)
    return math.log1p(math.exp(v))


def _float_kernel(fn: Callable[[Any], float], safe: Callable[[Any], float]) -> Callable[..., TensorInfo]:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        values = backend.values(x)
        try:
            out = array("f", map(fn, values))
        except (ValueError, OverflowError, ZeroDivisionError):
            out = array("f", map(safe, values))
        return backend.output(out, x.shape, "float32")

    def fast(backend: Any, x: Any, _: Any = None) -> int | None:
        """The kernel on a float32 tensor held here (Engine.run_fast), else None (values and store inline, as
        the binary kernels' fast)."""
        data = backend.data
        values = data.get(x.data_id)
        if values is None or x.dtype != "float32":
            return None
        try:
            out = array("f", map(fn, values))
        except (ValueError, OverflowError, ZeroDivisionError, TypeError):  # (TypeError: a packed conv output)
            return None
        data_id = new_data_id()
        data[data_id] = out
        return data_id

    kernel.fast = fast  # type: ignore[attr-defined]
    return kernel


def _vector_kernel(fn: Callable[[Any], list]) -> Callable[..., TensorInfo]:
    """A float32-output kernel from a helper that maps a whole flat buffer."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        return backend.output(array("f", fn(backend.values(x))), x.shape, "float32")

    return kernel


_FLOAT_FUNCS: dict[str, tuple[Callable[[Any], float], Callable[[Any, Exception], float]]] = {
    kn.Exp: (math.exp, lambda v, e: _INF),
    kn.Expm1: (math.expm1, lambda v, e: _INF),
    kn.Log: (math.log, _log_error),
    kn.Log1p: (math.log1p, _log1p_error),
    kn.Sqrt: (math.sqrt, _nan),
    kn.Rsqrt: (_inv_sqrt, lambda v, e: math.copysign(_INF, v) if v == 0 else _NAN),
    kn.Reciprocal: (_reciprocal, _signed_inf),
    kn.Tanh: (math.tanh, _nan),
    kn.Selu: (_selu1, _nan),
    kn.Softplus: (_softplus1, lambda v, e: _INF),
    kn.Sin: (math.sin, _nan),
    kn.Cos: (math.cos, _nan),
    kn.Tan: (math.tan, _nan),
    kn.Asin: (math.asin, _nan),
    kn.Acos: (math.acos, _nan),
    kn.Atan: (math.atan, _nan),
    kn.Sinh: (math.sinh, _signed_inf),
    kn.Cosh: (math.cosh, lambda v, e: _INF),
    kn.Erf: (math.erf, _nan),
    kn.Acosh: (math.acosh, _nan),
    kn.Asinh: (math.asinh, _nan),
    kn.Atanh: (math.atanh, _atanh_error),
}


def _same_dtype(backend: Any, x: Any, values: Any) -> TensorInfo:
    return backend.output(to_typed(values, x.dtype), x.shape, x.dtype)


def _zero(x: Any) -> Any:
    return 0.0 if x.dtype == "float32" else 0


def abs_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Abs: |x|, dtype kept."""
    x = inputs["x"]
    return _same_dtype(backend, x, map(abs, backend.values(x)))


def neg(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Neg: -x, dtype kept."""
    x = inputs["x"]
    return _same_dtype(backend, x, map(operator.neg, backend.values(x)))


def square(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Square: x * x, dtype kept."""
    x = inputs["x"]
    v = backend.values(x)
    return _same_dtype(backend, x, map(operator.mul, v, v))


def _relu_bits(backend: Any, x: Any, six: bool) -> TensorInfo | None:
    """Relu / Relu6 of a large float32 x on its bits (bits.py), or None. A packed conv output stays packed."""
    if getattr(backend, "packed_outputs", False):
        stored = backend.data.get(x.data_id)
        if stored.__class__ is PackedOutput:
            then = stored.then("relu6" if six else "relu")
            if then is not None:
                return backend.output(then, x.shape, x.dtype)
    values = backend.values(x)
    if len(values) < MIN_SIZE or not isinstance(values, array) or values.typecode != "f":
        return None
    out = relu_f32(values, six)
    return None if out is None else backend.output(out, x.shape, x.dtype)


def relu_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Relu: max(x, 0), dtype kept (nan stays nan)."""
    x = inputs["x"]
    done = _relu_bits(backend, x, False)
    return _same_dtype(backend, x, relu(backend.values(x), _zero(x))) if done is None else done


def relu6_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Relu6: min(max(x, 0), 6), dtype kept."""
    x = inputs["x"]
    done = _relu_bits(backend, x, True)
    if done is not None:
        return done
    zero = _zero(x)
    return _same_dtype(backend, x, relu6(backend.values(x), zero, zero + 6))


def sign(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Sign: -1, 0 or 1 (0 for nan, as the TF.js cpu kernel), dtype kept."""
    x = inputs["x"]
    return _same_dtype(backend, x, [-1 if v < 0 else (1 if v > 0 else 0) for v in backend.values(x)])


def _rounding(fn: Callable[[float], int]) -> Callable[..., TensorInfo]:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if x.dtype != "float32":  # integers are already whole: share the buffer
            return TensorInfo(x.data_id, x.shape, x.dtype)
        values = backend.values(x)
        try:
            out = array("f", map(fn, values))
        except (ValueError, OverflowError):  # inf / nan round to themselves
            out = array("f", [fn(v) if math.isfinite(v) else v for v in values])
        return backend.output(out, x.shape, "float32")

    return kernel


def clip_by_value(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ClipByValue: min(max(x, clip_value_min), clip_value_max), nan kept, dtype kept."""
    x = inputs["x"]
    lo, hi = attrs["clip_value_min"], attrs["clip_value_max"]
    return _same_dtype(backend, x, [lo if v < lo else (hi if v > hi else v) for v in backend.values(x)])


def step(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Step: 1 where x > 0, alpha elsewhere, nan kept; dtype kept."""
    x = inputs["x"]
    alpha = attrs.get("alpha", 0.0)
    return _same_dtype(backend, x, [1 if v > 0 else (alpha if v == v else v) for v in backend.values(x)])


def leaky_relu_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LeakyRelu: x where x >= 0, alpha * x below; float32 output."""
    x = inputs["x"]
    return backend.output(array("f", leaky_relu(backend.values(x), attrs["alpha"])), x.shape, "float32")


def prelu_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Prelu: x where x >= 0, alpha * x below, alpha broadcast with x; float32 output."""
    x, alpha = inputs["x"], inputs["alpha"]
    shape = broadcast_shapes(x.shape, alpha.shape, "prelu")
    xs = operand(backend.values(x), x.shape, shape)  # zip stops at the finite one of the two
    ws = operand(backend.values(alpha), alpha.shape, shape)
    return backend.output(array("f", prelu(xs, ws)), shape, "float32")


def _bool_test(fn: Callable[[float], bool], int_value: int) -> Callable[..., TensorInfo]:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        values = backend.values(x)
        out = array("B", map(fn, values)) if x.dtype == "float32" else array("B", [int_value]) * len(values)
        return backend.output(out, x.shape, "bool")

    return kernel


def logical_not(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LogicalNot: not x on a bool tensor."""
    x = inputs["x"]
    return backend.output(array("B", map(operator.not_, backend.values(x))), x.shape, "bool")


def elu_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """EluGrad {dy, y}: dy where y >= 0, dy * (y + 1) below (y is Elu's output); float32."""
    dy, y = inputs["dy"], inputs["y"]
    out = [d if v >= 0 else d * (v + 1) for d, v in zip(backend.values(dy), backend.values(y), strict=True)]
    return backend.output(array("f", out), y.shape, "float32")


KERNELS: dict[str, Any] = {
    name: _float_kernel(fn, _guard(fn, on_error)) for name, (fn, on_error) in _FLOAT_FUNCS.items()
}
KERNELS.update(
    {
        kn.Sigmoid: _vector_kernel(sigmoid),
        kn.Elu: _vector_kernel(elu),
        kn.EluGrad: elu_grad,
        kn.Abs: abs_,
        kn.Neg: neg,
        kn.Square: square,
        kn.Relu: relu_,
        kn.Relu6: relu6_,
        kn.Sign: sign,
        kn.Floor: _rounding(math.floor),
        kn.Ceil: _rounding(math.ceil),
        kn.Round: _rounding(round),  # Python rounds half to even, as TF.js does
        kn.ClipByValue: clip_by_value,
        kn.Step: step,
        kn.LeakyRelu: leaky_relu_,
        kn.Prelu: prelu_,
        kn.IsNan: _bool_test(math.isnan, 0),
        kn.IsInf: _bool_test(math.isinf, 0),
        kn.IsFinite: _bool_test(math.isfinite, 1),
        kn.LogicalNot: logical_not,
    }
)
