"""Gradients of reductions, scans and softmax: the reduced dy is broadcast back over the reduced axes."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as kn
from .. import ops
from ..shapes import size_of
from ..tensor import Tensor
from .registry import GradConfig, register_gradient
from .util import Thunks, as_float, keep_dims_shape, zeros_for


def _spread(dy: Tensor, x: Tensor, axes: tuple[int, ...]) -> Tensor:
    """dy of a reduction over `axes` repeated over those axes to x's shape."""
    return ops.broadcast_to(ops.reshape(dy, keep_dims_shape(x.shape, axes)), x.shape)


def _sum(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    return {"x": lambda: _spread(dy, x, attrs["axis"])}


def _mean(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    axes = attrs["axis"]
    count = size_of([x.shape[a] for a in axes])
    return {"x": lambda: ops.div(_spread(dy, x, axes), count)}


def _min_max(key: str) -> Any:
    """dy flows to every x equal to the extreme (all tied entries get it, as in TF.js)."""

    def grad_func(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
        x, y = saved
        kept = keep_dims_shape(x.shape, attrs[key])
        hit = ops.cast(ops.equal(x, ops.reshape(y, kept)), "float32")
        return {"x": lambda: ops.mul(ops.reshape(dy, kept), hit)}

    return grad_func


def _prod(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    """d prod / d x_i = the product of the others: exclusive cumprods from both sides (exact with zeros)."""
    (x,) = saved
    axes = attrs["axis"]

    def der_x() -> Tensor:
        rest = [a for a in range(x.rank) if a not in axes]
        perm = rest + list(axes)
        moved = ops.transpose(x, perm) if perm != sorted(perm) else x
        flat = ops.reshape(moved, [*(x.shape[a] for a in rest), -1])
        last = flat.rank - 1
        others = ops.mul(
            ops.cumprod(flat, last, exclusive=True), ops.cumprod(flat, last, exclusive=True, reverse=True)
        )
        g = ops.reshape(ops.mul(others, ops.reshape(dy, [*(x.shape[a] for a in rest), 1])), moved.shape)
        if moved is x:
            return as_float(g)
        inverse = sorted(range(len(perm)), key=perm.__getitem__)
        return as_float(ops.transpose(g, inverse))

    return {"x": der_x}


def _cumsum(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"x": lambda: ops.cumsum(dy, attrs["axis"], attrs["exclusive"], not attrs["reverse"])}


def _cumprod(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    """TF's formula, sum over later outputs of dy * y / x: inf / nan where x has zeros (as in TF)."""
    x, y = saved
    axis, exclusive, reverse = attrs["axis"], attrs["exclusive"], attrs["reverse"]
    return {"x": lambda: ops.div(ops.cumsum(ops.mul(dy, y), axis, exclusive, not reverse), as_float(x))}


def _softmax(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (y,) = saved
    dy_y = ops.mul(dy, y)
    return {"logits": lambda: ops.sub(dy_y, ops.mul(ops.sum(dy_y, attrs["dim"], keep_dims=True), y))}


def _log_softmax(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (y,) = saved
    return {"logits": lambda: ops.sub(dy, ops.mul(ops.sum(dy, attrs["axis"], keep_dims=True), ops.exp(y)))}


X = ("x",)
for config in (
    GradConfig(kernel_name=kn.Sum, inputs_to_save=X, grad_func=_sum),
    GradConfig(kernel_name=kn.Mean, inputs_to_save=X, grad_func=_mean),
    GradConfig(
        kernel_name=kn.Max, inputs_to_save=X, outputs_to_save=(True,), grad_func=_min_max("reduction_indices")
    ),
    GradConfig(kernel_name=kn.Min, inputs_to_save=X, outputs_to_save=(True,), grad_func=_min_max("axis")),
    GradConfig(kernel_name=kn.Prod, inputs_to_save=X, grad_func=_prod),
    GradConfig(kernel_name=kn.Cumsum, grad_func=_cumsum),
    GradConfig(kernel_name=kn.Cumprod, inputs_to_save=X, outputs_to_save=(True,), grad_func=_cumprod),
    GradConfig(kernel_name=kn.Softmax, outputs_to_save=(True,), grad_func=_softmax),
    GradConfig(kernel_name=kn.LogSoftmax, outputs_to_save=(True,), grad_func=_log_softmax),
    GradConfig(kernel_name=kn.All, inputs_to_save=X, grad_func=zeros_for(*X)),
    GradConfig(kernel_name=kn.Any, inputs_to_save=X, grad_func=zeros_for(*X)),
    GradConfig(kernel_name=kn.ArgMax, inputs_to_save=X, grad_func=zeros_for(*X)),
    GradConfig(kernel_name=kn.ArgMin, inputs_to_save=X, grad_func=zeros_for(*X)),
):
    register_gradient(config)
