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


X, Y = ("x",), (True,)  # save the input x / the output y
for config in (
    GradConfig(kernel_name=kn.Abs, inputs_to_save=X, grad_func=_chain(lambda x: ops.step(x, -1))),
    GradConfig(
        kernel_name=kn.Acos,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.neg(ops.rsqrt(_one_minus_square(x)))),
    ),
    GradConfig(
        kernel_name=kn.Asin, inputs_to_save=X, grad_func=_chain(lambda x: ops.rsqrt(_one_minus_square(x)))
    ),
    GradConfig(
        kernel_name=kn.Atan,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.reciprocal(_one_plus_square(x))),
    ),
    GradConfig(kernel_name=kn.Cos, inputs_to_save=X, grad_func=_chain(lambda x: ops.neg(ops.sin(x)))),
    GradConfig(kernel_name=kn.Cosh, inputs_to_save=X, grad_func=_chain(lambda x: ops.sinh(x))),
    GradConfig(
        kernel_name=kn.Erf,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.mul(ops.exp(ops.neg(ops.square(x))), 2 / math.sqrt(math.pi))),
    ),
    GradConfig(kernel_name=kn.Exp, outputs_to_save=Y, grad_func=_chain(lambda y: y)),
    GradConfig(kernel_name=kn.Expm1, inputs_to_save=X, grad_func=_chain(lambda x: ops.exp(x))),
    GradConfig(kernel_name=kn.Log, inputs_to_save=X, grad_func=_chain(lambda x: ops.reciprocal(x))),
    GradConfig(
        kernel_name=kn.Log1p,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.reciprocal(ops.add(x, 1))),
    ),
    GradConfig(
        kernel_name=kn.Reciprocal,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.neg(ops.reciprocal(ops.square(x)))),
    ),
    GradConfig(kernel_name=kn.Relu, inputs_to_save=X, grad_func=_chain(lambda x: ops.step(x))),
    GradConfig(
        kernel_name=kn.Relu6,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.mul(ops.cast(ops.less_equal(x, 6), "float32"), ops.step(x))),
    ),
    GradConfig(
        kernel_name=kn.Rsqrt,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.mul(ops.pow(x, -1.5), -0.5)),
    ),
    GradConfig(kernel_name=kn.Selu, inputs_to_save=X, grad_func=_chain(_selu)),
    GradConfig(
        kernel_name=kn.Sigmoid, outputs_to_save=Y, grad_func=_chain(lambda y: ops.mul(y, ops.sub(1, y)))
    ),
    GradConfig(kernel_name=kn.Sin, inputs_to_save=X, grad_func=_chain(lambda x: ops.cos(x))),
    GradConfig(kernel_name=kn.Sinh, inputs_to_save=X, grad_func=_chain(lambda x: ops.cosh(x))),
    GradConfig(kernel_name=kn.Softplus, inputs_to_save=X, grad_func=_chain(lambda x: ops.sigmoid(x))),
    GradConfig(
        kernel_name=kn.Sqrt,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.reciprocal(ops.mul(ops.sqrt(x), 2))),
    ),
    GradConfig(kernel_name=kn.Square, inputs_to_save=X, grad_func=_chain(lambda x: ops.mul(x, 2))),
    GradConfig(
        kernel_name=kn.Tan,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.reciprocal(ops.square(ops.cos(x)))),
    ),
    GradConfig(kernel_name=kn.Tanh, outputs_to_save=Y, grad_func=_chain(lambda y: ops.sub(1, ops.square(y)))),
    GradConfig(kernel_name=kn.LeakyRelu, inputs_to_save=X, grad_func=_leaky_relu),
    GradConfig(kernel_name=kn.ClipByValue, inputs_to_save=X, grad_func=_clip),
    GradConfig(kernel_name=kn.Neg, grad_func=_neg),
    GradConfig(kernel_name=kn.Cast, grad_func=_cast),
    GradConfig(kernel_name=kn.Identity, grad_func=identity_grad),
    GradConfig(kernel_name=kn.Ceil, grad_func=_zero),
    GradConfig(kernel_name=kn.Floor, grad_func=_zero),
    GradConfig(kernel_name=kn.Round, grad_func=_zero),
    GradConfig(kernel_name=kn.Sign, grad_func=_zero),
    GradConfig(kernel_name=kn.Step, grad_func=_zero),
    GradConfig(kernel_name=kn.IsNan, grad_func=_zero),
    GradConfig(kernel_name=kn.IsFinite, grad_func=_zero),
    GradConfig(kernel_name=kn.IsInf, grad_func=_zero),
    GradConfig(kernel_name=kn.LogicalNot, grad_func=_zero),
    GradConfig(kernel_name=kn.ZerosLike, grad_func=_zero),
    GradConfig(kernel_name=kn.OnesLike, grad_func=_zero),
    GradConfig(
        kernel_name=kn.Acosh,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.rsqrt(ops.sub(ops.square(x), 1))),
    ),
    GradConfig(
        kernel_name=kn.Asinh, inputs_to_save=X, grad_func=_chain(lambda x: ops.rsqrt(_one_plus_square(x)))
    ),
    GradConfig(
        kernel_name=kn.Atanh,
        inputs_to_save=X,
        grad_func=_chain(lambda x: ops.reciprocal(_one_minus_square(x))),
    ),
):
    register_gradient(config)
