"""numpy kernels for element-wise unary math, activations, tests (IsNan, ...) and LogicalNot.

Contracts in webtf.kernel_names: float-valued kernels give float32 (float32
inputs are computed in float32, int32 inputs exactly in float64, then rounded); Abs, Neg, Square, Sign, Relu,
Relu6, Floor, Ceil, Round, ClipByValue and Step keep x's dtype (int32 wraps); the tests give bool. No warnings:
float math gives nan / +-inf as in JS.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .... import kernel_names as kn
from ...base import TensorInfo
from .activation import elu, leaky_relu, prelu, relu, relu6, sigmoid
from .common import F32, as_float, share, store

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123
# softplus is exp(x) below the threshold and x above its negative (TF's choice, from float32's epsilon)
_SOFTPLUS_THRESHOLD = math.log(1.1920928955078125e-7) + 2.0
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# erfc(z) ~ t * exp(-z*z + P(t)), t = 1 / (1 + z/2): a Chebyshev fit with relative error < 1.2e-7 for z >= 0
_ERFC_COEFFS = (
    0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
    -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223,
)  # fmt: skip


def _selu(x: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, x * _SELU_SCALE, np.expm1(x) * _SELU_SCALE_ALPHA)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.where(
        x < _SOFTPLUS_THRESHOLD, np.exp(x), np.where(x > -_SOFTPLUS_THRESHOLD, x, np.log1p(np.exp(x)))
    )


def _erf(x: np.ndarray) -> np.ndarray:
    """erf in float64: its Maclaurin series below |x| = 0.5, 1 - erfc (the fit above) from there."""
    v = x.astype(np.float64)
    z = np.abs(v)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for c in _ERFC_COEFFS:
        poly = poly * t + c
    tail = np.copysign(1.0 - t * np.exp(-z * z + poly), v)
    z2, term, series = v * v, v.copy(), v.copy()
    for n in range(1, 12):  # terms of x^(2n+1) / (n! (2n+1)): below 1e-17 by n = 11 for |x| < 0.5
        term = term * (-z2 / n)
        series = series + term / (2 * n + 1)
    return np.where(z < 0.5, series * _TWO_OVER_SQRT_PI, tail)


_FLOAT_FUNCS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    kn.Exp: np.exp,
    kn.Expm1: np.expm1,
    kn.Log: np.log,
    kn.Log1p: np.log1p,
    kn.Sqrt: np.sqrt,
    kn.Rsqrt: lambda x: 1 / np.sqrt(x),
    kn.Reciprocal: lambda x: 1 / x,
    kn.Tanh: np.tanh,
    kn.Selu: _selu,
    kn.Softplus: _softplus,
    kn.Sin: np.sin,
    kn.Cos: np.cos,
    kn.Tan: np.tan,
    kn.Asin: np.arcsin,
    kn.Acos: np.arccos,
    kn.Atan: np.arctan,
    kn.Sinh: np.sinh,
    kn.Cosh: np.cosh,
    kn.Erf: _erf,
    kn.Sigmoid: sigmoid,
    kn.Elu: elu,
    kn.Acosh: np.arccosh,
    kn.Asinh: np.arcsinh,
    kn.Atanh: np.arctanh,
}


def _float_kernel(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[..., TensorInfo]:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        return backend.make(fn(as_float(backend.nd(inputs["x"]))), "float32")

    return kernel


def _same_dtype(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[..., TensorInfo]:
    """A kernel whose output keeps x's dtype (int32 wraps)."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        return backend.make(store(fn(backend.nd(x)), x.dtype), x.dtype)

    return kernel


def _sign(x: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x), 0, np.sign(x)) if x.dtype == F32 else np.sign(x)


def _rounding(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[..., TensorInfo]:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if x.dtype != "float32":  # integers are already whole: share the buffer
            return share(x)
        return backend.make(fn(backend.nd(x)), "float32")

    return kernel


def clip_by_value(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ClipByValue: min(max(x, clip_value_min), clip_value_max), nan kept, dtype kept."""
    x = inputs["x"]
    v = backend.nd(x)
    lo, hi = attrs["clip_value_min"], attrs["clip_value_max"]
    return backend.make(store(np.where(v < lo, lo, np.where(v > hi, hi, v)), x.dtype), x.dtype)


def step(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Step: 1 where x > 0, alpha elsewhere, nan kept; dtype kept."""
    x = inputs["x"]
    v = backend.nd(x)
    alpha = attrs.get("alpha", 0.0)
    return backend.make(store(np.where(v > 0, 1, np.where(v != v, v, alpha)), x.dtype), x.dtype)


def leaky_relu_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LeakyRelu: x where x >= 0, alpha * x below; float32 output."""
    return backend.make(leaky_relu(as_float(backend.nd(inputs["x"])), attrs["alpha"]), "float32")


def prelu_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Prelu: x where x >= 0, alpha * x below, alpha broadcast with x; float32 output."""
    x, alpha = as_float(backend.nd(inputs["x"])), as_float(backend.nd(inputs["alpha"]))
    return backend.make(prelu(x, alpha), "float32")


def _bool_test(fn: Callable[[np.ndarray], np.ndarray], int_value: bool) -> Callable[..., TensorInfo]:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if x.dtype != "float32":
            return backend.make(np.full(x.shape, int_value))
        return backend.make(fn(backend.nd(x)))

    return kernel


def elu_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """EluGrad {dy, y}: dy where y >= 0, dy * (y + 1) below (y is Elu's output); float32."""
    dy, y = as_float(backend.nd(inputs["dy"])), as_float(backend.nd(inputs["y"]))
    return backend.make(np.where(y >= 0, dy, dy * (y + 1)), "float32")


def logical_not(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LogicalNot: not x on a bool tensor."""
    return backend.make(np.logical_not(backend.nd(inputs["x"])))


KERNELS: dict[str, Any] = {name: _float_kernel(fn) for name, fn in _FLOAT_FUNCS.items()}
KERNELS.update(
    {
        kn.EluGrad: elu_grad,
        kn.Abs: _same_dtype(np.abs),
        kn.Neg: _same_dtype(np.negative),
        kn.Square: _same_dtype(np.square),
        kn.Relu: _same_dtype(relu),
        kn.Relu6: _same_dtype(relu6),
        kn.Sign: _same_dtype(_sign),
        kn.Floor: _rounding(np.floor),
        kn.Ceil: _rounding(np.ceil),
        kn.Round: _rounding(np.round),  # half to even, as TF.js does
        kn.ClipByValue: clip_by_value,
        kn.Step: step,
        kn.LeakyRelu: leaky_relu_,
        kn.Prelu: prelu_,
        kn.IsNan: _bool_test(np.isnan, False),
        kn.IsInf: _bool_test(np.isinf, False),
        kn.IsFinite: _bool_test(np.isfinite, True),
        kn.LogicalNot: logical_not,
    }
)
