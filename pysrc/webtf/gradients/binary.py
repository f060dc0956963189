"""Gradients of element-wise binary kernels, with broadcasting undone (summed back to each input's shape).

Where TF.js leaves broadcasting out (Maximum, Minimum, Select, ...) these sum it back too. Comparisons and
logical ops are piecewise constant: zero gradients, so `where(x > 0, x, 0)` can be differentiated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import kernel_names as kn
from .. import ops
from ..tensor import Tensor
from .registry import GradConfig, GradFunc, register_gradient
from .util import Thunks, as_float, unbroadcast, zeros_for

Partial = Callable[[Tensor, Tensor, Tensor], Tensor]  # (dy, a, b) -> the gradient before unbroadcasting


def _binary(der_a: Partial, der_b: Partial) -> GradFunc:
    """grad_func of y = f(a, b): each input's partial, summed back to that input's shape."""

    def grad_func(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
        a, b = saved
        return {
            "a": lambda: unbroadcast(as_float(der_a(dy, a, b)), a.shape),
            "b": lambda: unbroadcast(as_float(der_b(dy, a, b)), b.shape),
        }

    return grad_func


def _mask(condition: Tensor) -> Tensor:
    return ops.cast(condition, "float32")


def _div_b(dy: Tensor, a: Tensor, b: Tensor) -> Tensor:
    return ops.neg(ops.div(ops.mul(dy, a), ops.square(as_float(b))))


def _atan2_denominator(a: Tensor, b: Tensor) -> Tensor:
    return ops.add(ops.square(as_float(a)), ops.square(as_float(b)))


def _pow(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    a, b, y = saved

    def der_a() -> Tensor:
        exponent = as_float(b)
        return unbroadcast(ops.mul(dy, ops.mul(exponent, ops.pow(a, ops.sub(exponent, 1)))), a.shape)

    def der_b() -> Tensor:
        log_a = ops.where(ops.greater(a, 0), ops.log(a), ops.zeros(a.shape))
        return unbroadcast(ops.mul(dy, ops.mul(y, log_a)), b.shape)

    return {"a": der_a, "b": der_b}


def _prelu(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, alpha = saved
    positive = ops.greater(x, 0)
    return {
        "x": lambda: unbroadcast(ops.where(positive, dy, ops.mul(dy, alpha)), x.shape),
        "alpha": lambda: unbroadcast(ops.where(positive, ops.zeros_like(dy), ops.mul(dy, x)), alpha.shape),
    }


def _select(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    condition, t, e = saved
    zero = ops.zeros_like(dy)
    return {
        "condition": lambda: ops.zeros(condition.shape),
        "t": lambda: unbroadcast(ops.where(condition, dy, zero), t.shape),
        "e": lambda: unbroadcast(ops.where(condition, zero, dy), e.shape),
    }


def _add_n(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {str(i): (lambda: ops.clone(dy)) for i in range(len(saved))}


AB = ("a", "b")
for config in (
    GradConfig(
        kernel_name=kn.Add, inputs_to_save=AB, grad_func=_binary(lambda dy, a, b: dy, lambda dy, a, b: dy)
    ),
    GradConfig(
        kernel_name=kn.Sub,
        inputs_to_save=AB,
        grad_func=_binary(lambda dy, a, b: dy, lambda dy, a, b: ops.neg(dy)),
    ),
    GradConfig(
        kernel_name=kn.Multiply,
        inputs_to_save=AB,
        grad_func=_binary(lambda dy, a, b: ops.mul(dy, b), lambda dy, a, b: ops.mul(dy, a)),
    ),
    GradConfig(
        kernel_name=kn.RealDiv,
        inputs_to_save=AB,
        grad_func=_binary(lambda dy, a, b: ops.div(dy, as_float(b)), _div_b),
    ),
    # floor(a / b) is piecewise constant (TF.js differentiates it as RealDiv)
    GradConfig(kernel_name=kn.FloorDiv, inputs_to_save=AB, grad_func=zeros_for(*AB)),
    GradConfig(
        kernel_name=kn.Mod,
        inputs_to_save=AB,
        grad_func=_binary(
            lambda dy, a, b: dy, lambda dy, a, b: ops.mul(dy, ops.neg(ops.floor(ops.div(a, b))))
        ),
    ),
    GradConfig(
        kernel_name=kn.Maximum,
        inputs_to_save=AB,
        grad_func=_binary(
            lambda dy, a, b: ops.mul(dy, _mask(ops.greater_equal(a, b))),
            lambda dy, a, b: ops.mul(dy, _mask(ops.less(a, b))),
        ),
    ),
    GradConfig(
        kernel_name=kn.Minimum,
        inputs_to_save=AB,
        grad_func=_binary(
            lambda dy, a, b: ops.mul(dy, _mask(ops.less_equal(a, b))),
            lambda dy, a, b: ops.mul(dy, _mask(ops.greater(a, b))),
        ),
    ),
    GradConfig(
        kernel_name=kn.SquaredDifference,
        inputs_to_save=AB,
        grad_func=_binary(
            lambda dy, a, b: ops.mul(dy, ops.mul(ops.sub(a, b), 2)),
            lambda dy, a, b: ops.mul(dy, ops.mul(ops.sub(b, a), 2)),
        ),
    ),
    GradConfig(
        kernel_name=kn.Atan2,
        inputs_to_save=AB,
        grad_func=_binary(
            lambda dy, a, b: ops.mul(dy, ops.div(b, _atan2_denominator(a, b))),
            lambda dy, a, b: ops.neg(ops.mul(dy, ops.div(a, _atan2_denominator(a, b)))),
        ),
    ),
    GradConfig(kernel_name=kn.Pow, inputs_to_save=AB, outputs_to_save=(True,), grad_func=_pow),
    GradConfig(kernel_name=kn.Prelu, inputs_to_save=("x", "alpha"), grad_func=_prelu),
    GradConfig(kernel_name=kn.Select, inputs_to_save=("condition", "t", "e"), grad_func=_select),
    GradConfig(kernel_name=kn.AddN, save_all_inputs=True, grad_func=_add_n),
    GradConfig(kernel_name=kn.Equal, inputs_to_save=AB, grad_func=zeros_for(*AB)),
    GradConfig(kernel_name=kn.NotEqual, inputs_to_save=AB, grad_func=zeros_for(*AB)),
    GradConfig(kernel_name=kn.Less, inputs_to_save=AB, grad_func=zeros_for(*AB)),
    GradConfig(kernel_name=kn.LessEqual, inputs_to_save=AB, grad_func=zeros_for(*AB)),
    GradConfig(kernel_name=kn.Greater, inputs_to_save=AB, grad_func=zeros_for(*AB)),
    GradConfig(kernel_name=kn.GreaterEqual, inputs_to_save=AB, grad_func=zeros_for(*AB)),
    GradConfig(kernel_name=kn.LogicalAnd, inputs_to_save=AB, grad_func=zeros_for(*AB)),
    GradConfig(kernel_name=kn.LogicalOr, inputs_to_save=AB, grad_func=zeros_for(*AB)),
):
    register_gradient(config)
