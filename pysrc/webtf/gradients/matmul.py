"""Gradients of BatchMatMul and _FusedMatMul (bias and activation included); broadcast batch dims are
summed back to each input's shape."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as kn
from .. import ops
from ..tensor import Tensor
from .registry import GradConfig, register_gradient
from .util import Thunks, activation_grads, unbroadcast


def mat_mul_grads(dy: Tensor, a: Tensor, b: Tensor, transpose_a: bool, transpose_b: bool) -> Thunks:
    """Thunks for the gradients of a and b in y = a @ b (each possibly transposed)."""
    if not transpose_a and not transpose_b:
        da, db = (dy, b, False, True), (a, dy, True, False)
    elif not transpose_a:
        da, db = (dy, b, False, False), (dy, a, True, False)
    elif not transpose_b:
        da, db = (b, dy, False, True), (a, dy, False, False)
    else:
        da, db = (b, dy, True, True), (dy, a, True, True)
    return {
        "a": lambda: unbroadcast(ops.mat_mul(*da), a.shape),
        "b": lambda: unbroadcast(ops.mat_mul(*db), b.shape),
    }


def _batch_mat_mul(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    a, b = saved
    return mat_mul_grads(dy, a, b, attrs["transpose_a"], attrs["transpose_b"])


def _fused_mat_mul(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    a, b, bias, prelu_weights, y = saved
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]

    def pre_activation() -> Tensor:
        z = ops.mat_mul(a, b, ta, tb)
        return z if bias is None else ops.add(z, bias)

    dz, d_weights = activation_grads(dy, attrs, pre_activation, y, prelu_weights)
    thunks = mat_mul_grads(dz, a, b, ta, tb)
    if bias is not None:
        thunks["bias"] = lambda: unbroadcast(dz, bias.shape)
    if d_weights is not None:
        thunks["prelu_activation_weights"] = lambda: d_weights
    return thunks


register_gradient(GradConfig(kernel_name=kn.BatchMatMul, inputs_to_save=("a", "b"), grad_func=_batch_mat_mul))
register_gradient(
    GradConfig(
        kernel_name=kn._FusedMatMul,
        inputs_to_save=("a", "b", "bias", "prelu_activation_weights"),
        outputs_to_save=(True,),
        grad_func=_fused_mat_mul,
    )
)
