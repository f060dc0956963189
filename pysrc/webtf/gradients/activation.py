"""Elu's gradient (kernel EluGrad) and what fused kernels share: the fused activation's derivative applied
to dy, and the sum of a broadcast operand's gradient back to its shape."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ops import backprop
from ..ops.binary import greater, minimum, mul, sub, where
from ..ops.reduce import sum as sum_
from ..ops.shape import reshape
from ..ops.unary import step
from ..tensor import Tensor
from .registry import GradConfig, register_gradient


def reduce_to_shape(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """x summed over the dims that broadcasting added or stretched to reach x's shape, as `shape`."""
    if x.shape == tuple(shape):
        return x
    lead = x.rank - len(shape)
    axes = [i for i in range(x.rank) if i < lead or shape[i - lead] == 1 and x.shape[i] != 1]
    return reshape(sum_(x, axes, keep_dims=True), shape) if axes else reshape(x, shape)


def fused_dy(
    dy: Tensor, y: Tensor, attrs: dict[str, Any], pre_activation: Callable[[], Tensor], prelu: Tensor | None
) -> tuple[Tensor, Tensor | None]:
    """(the gradient at the fused op's pre-activation z, the prelu weights' gradient or None), from dy at
    its output y. Derivatives come from y where it determines them (relu: y > 0; relu6: 0 < y < 6, as
    TensorFlow's Relu6Grad; elu: EluGrad; sigmoid: y (1 - y); leakyrelu with alpha >= 0: y > 0), else
    from z = pre_activation() (prelu, leakyrelu with a negative alpha)."""
    activation = attrs.get("activation") or "linear"
    alpha = float(attrs.get("leakyrelu_alpha", 0.2))
    if activation == "linear":
        return dy, None
    if activation == "relu":
        return mul(dy, step(y)), None
    if activation == "relu6":
        return mul(dy, mul(step(y), step(sub(6.0, y)))), None
    if activation == "elu":
        return backprop.elu_grad(dy, y), None
    if activation == "sigmoid":
        return mul(dy, mul(y, sub(1.0, y))), None
    if activation == "leakyrelu" and alpha >= 0:
        return where(greater(y, 0.0), dy, mul(dy, alpha)), None
    z = pre_activation()
    positive = greater(z, 0.0)
    if activation == "leakyrelu":
        return where(positive, dy, mul(dy, alpha)), None
    if activation == "prelu" and prelu is not None:
        dz = where(positive, dy, mul(dy, prelu))
        return dz, reduce_to_shape(mul(dy, minimum(z, 0.0)), prelu.shape)
    raise ValueError(f"Error in gradient of a fused op: unknown activation '{activation}'")


def _elu_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> dict[str, Callable[[], Tensor]]:
    (y,) = saved
    return {"x": lambda: backprop.elu_grad(dy, y)}


register_gradient(GradConfig(kernel_name="Elu", grad_func=_elu_grad, outputs_to_save=(True,)))
