"""Gradients of element-wise unary kernels: dx = dy * f'(x), built from ops (tfjs-core gradients/*_grad.ts).

Rounding, sign, step and the is_* tests are piecewise constant: their gradient is zero, as in TF.js.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import kernel_names as kn
from .. import ops
from ..tensor import Tensor
from .registry import GradConfig, GradFunc, register_gradient
from .tape import identity_grad
from .util import Thunks, as_float

SELU_SCALE = 1.0507009873554804934193349852946  # the constants of the Selu kernel (TF's selu)
SELU_SCALE_ALPHA = 1.7580993408473768599402175208123


def _chain(derivative: Callable[..., Tensor]) -> GradFunc:
    """grad_func of y = f(x): dx = dy * derivative(*saved), saved being x or y (as float32) as the config says."""

    def grad_func(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
        return {"x": lambda: ops.mul(dy, derivative(*(as_float(t) for t in saved)))}

    return grad_func


def _zero(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"x": lambda: ops.zeros_like(dy)}


def _neg(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"x": lambda: ops.neg(dy)}


def _cast(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    """dy passes a cast to float32; a cast to int32 or bool rounds (TF.js passes dy there too)."""
    return {"x": lambda: ops.clone(dy) if attrs["dtype"] == "float32" else ops.zeros_like(dy)}


def _leaky_relu(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    return {"x": lambda: ops.where(ops.greater(x, 0), dy, ops.mul(dy, attrs["alpha"]))}


def _clip(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    lo, hi = attrs["clip_value_min"], attrs["clip_value_max"]
    inside = ops.logical_and(ops.greater_equal(x, lo), ops.less_equal(x, hi))
    return {"x": lambda: ops.where(inside, dy, ops.zeros_like(dy))}


def _selu(x: Tensor) -> Tensor:
    return ops.where(ops.greater(x, 0), ops.fill(x.shape, SELU_SCALE), ops.mul(ops.exp(x), SELU_SCALE_ALPHA))


def _one_minus_square(x: Tensor) -> Tensor:
    return ops.sub(1, ops.square(x))


def _one_plus_square(x: Tensor) -> Tensor:
    return ops.add(ops.square(x), 1)


def _of_x(kernel: str, derivative: Callable[[Tensor], Tensor]) -> GradConfig:
    """The config of dx = dy * derivative(x), saving the input x."""
    return GradConfig(kernel_name=kernel, inputs_to_save=("x",), grad_func=_chain(derivative))


def _of_y(kernel: str, derivative: Callable[[Tensor], Tensor]) -> GradConfig:
    """The config of dx = dy * derivative(y), saving the output y."""
    return GradConfig(kernel_name=kernel, outputs_to_save=(True,), grad_func=_chain(derivative))


_PIECEWISE_CONSTANT = (
    kn.Ceil, kn.Floor, kn.Round, kn.Sign, kn.Step, kn.IsNan, kn.IsFinite, kn.IsInf, kn.LogicalNot, kn.ZerosLike,
    kn.OnesLike,
)  # fmt: skip

for config in (
    _of_x(kn.Abs, lambda x: ops.step(x, -1)),
    _of_x(kn.Acos, lambda x: ops.neg(ops.rsqrt(_one_minus_square(x)))),
    _of_x(kn.Asin, lambda x: ops.rsqrt(_one_minus_square(x))),
    _of_x(kn.Atan, lambda x: ops.reciprocal(_one_plus_square(x))),
    _of_x(kn.Cos, lambda x: ops.neg(ops.sin(x))),
    _of_x(kn.Cosh, lambda x: ops.sinh(x)),
    _of_x(kn.Erf, lambda x: ops.mul(ops.exp(ops.neg(ops.square(x))), 2 / math.sqrt(math.pi))),
    _of_y(kn.Exp, lambda y: y),
    _of_x(kn.Expm1, lambda x: ops.exp(x)),
    _of_x(kn.Log, lambda x: ops.reciprocal(x)),
    _of_x(kn.Log1p, lambda x: ops.reciprocal(ops.add(x, 1))),
    _of_x(kn.Reciprocal, lambda x: ops.neg(ops.reciprocal(ops.square(x)))),
    _of_x(kn.Relu, lambda x: ops.step(x)),
    _of_x(kn.Relu6, lambda x: ops.mul(ops.cast(ops.less_equal(x, 6), "float32"), ops.step(x))),
    _of_x(kn.Rsqrt, lambda x: ops.mul(ops.pow(x, -1.5), -0.5)),
    _of_x(kn.Selu, _selu),
    _of_y(kn.Sigmoid, lambda y: ops.mul(y, ops.sub(1, y))),
    _of_x(kn.Sin, lambda x: ops.cos(x)),
    _of_x(kn.Sinh, lambda x: ops.cosh(x)),
    _of_x(kn.Softplus, lambda x: ops.sigmoid(x)),
    _of_x(kn.Sqrt, lambda x: ops.reciprocal(ops.mul(ops.sqrt(x), 2))),
    _of_x(kn.Square, lambda x: ops.mul(x, 2)),
    _of_x(kn.Tan, lambda x: ops.reciprocal(ops.square(ops.cos(x)))),
    _of_y(kn.Tanh, lambda y: ops.sub(1, ops.square(y))),
    GradConfig(kernel_name=kn.LeakyRelu, inputs_to_save=("x",), grad_func=_leaky_relu),
    GradConfig(kernel_name=kn.ClipByValue, inputs_to_save=("x",), grad_func=_clip),
    GradConfig(kernel_name=kn.Neg, grad_func=_neg),
    GradConfig(kernel_name=kn.Cast, grad_func=_cast),
    GradConfig(kernel_name=kn.Identity, grad_func=identity_grad),
    *(GradConfig(kernel_name=kernel, grad_func=_zero) for kernel in _PIECEWISE_CONSTANT),
    _of_x(kn.Acosh, lambda x: ops.rsqrt(ops.sub(ops.square(x), 1))),
    _of_x(kn.Asinh, lambda x: ops.rsqrt(_one_plus_square(x))),
    _of_x(kn.Atanh, lambda x: ops.reciprocal(_one_minus_square(x))),
):
    register_gradient(config)
