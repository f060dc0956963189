"""Helpers the gradient families share: undoing broadcasting and reductions, float casts, zero gradients."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import kernel_names as kn
from .. import ops
from ..tensor import Tensor
from .registry import get_gradient

Thunks = dict[str, Callable[[], Tensor]]


def as_float(x: Tensor) -> Tensor:
    """x as float32 (gradients are always float32)."""
    return x if x.dtype == "float32" else ops.cast(x, "float32")


def as_list(dys: Any) -> list[Tensor]:
    """The dys of a multi-output kernel as a list (a kernel that made one output gets its dy alone)."""
    return dys if isinstance(dys, list) else [dys]


def reduction_axes(in_shape: Sequence[int], out_shape: Sequence[int]) -> list[int]:
    """The axes of out_shape that broadcasting added to (or stretched from 1 in) in_shape."""
    lead = len(out_shape) - len(in_shape)
    return [i for i, d in enumerate(out_shape) if i < lead or (in_shape[i - lead] == 1 and d != 1)]


def unbroadcast(dy: Tensor, shape: Sequence[int]) -> Tensor:
    """dy summed over the axes broadcasting stretched, reshaped to `shape` (an input's shape)."""
    axes = reduction_axes(shape, dy.shape)
    if axes:
        dy = ops.sum(dy, axes)
    return dy if dy.shape == tuple(shape) else ops.reshape(dy, shape)


def keep_dims_shape(shape: Sequence[int], axes: Sequence[int]) -> list[int]:
    """`shape` with the reduced axes set to 1 (the keep_dims shape of a reduction)."""
    return [1 if i in axes else d for i, d in enumerate(shape)]


def zeros_for(*names: str) -> Callable[[Any, list[Any], dict[str, Any]], Thunks]:
    """grad_func giving float32 zeros to each named input (kernels whose outputs are piecewise constant:
    comparisons, argmax, indices); save the named inputs, in this order, for their shapes."""

    def grad_func(dy: Any, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
        return {name: (lambda t=t: ops.zeros(t.shape)) for name, t in zip(names, saved, strict=True)}

    return grad_func


#: the kernel whose gradient differentiates each fused activation (tf.fused.* kernels)
ACTIVATION_KERNELS = {
    "relu": kn.Relu,
    "relu6": kn.Relu6,
    "elu": kn.Elu,
    "leakyrelu": kn.LeakyRelu,
    "sigmoid": kn.Sigmoid,
    "prelu": kn.Prelu,
}


def activation_grads(
    dy: Tensor,
    attrs: dict[str, Any],
    pre_activation: Callable[[], Tensor],
    y: Tensor,
    prelu_weights: Tensor | None,
) -> tuple[Tensor, Tensor | None]:
    """(gradient before the activation, gradient of the prelu weights or None) of a fused kernel, using
    the registered gradient of the activation's own kernel; pre_activation() recomputes its input when
    that gradient needs it (y is the fused kernel's output)."""
    activation = attrs["activation"]
    if activation == "linear":
        return dy, None
    kernel = ACTIVATION_KERNELS[activation]
    config = get_gradient(kernel)
    if config is None:
        raise LookupError(
            f"Cannot compute gradient: no gradient is registered for kernel '{kernel}' "
            f"(the fused activation '{activation}')"
        )
    inputs = {"alpha": prelu_weights}
    if "x" in config.inputs_to_save:
        # relu and leakyrelu with alpha >= 0 keep x's sign, all their gradients read: y serves as x and
        # saves recomputing the fused op without its activation
        keeps_sign = activation == "relu" or (activation == "leakyrelu" and attrs["leakyrelu_alpha"] >= 0)
        inputs["x"] = y if keeps_sign else pre_activation()
    saved = [inputs[n] for n in config.inputs_to_save] + [y] * sum(config.outputs_to_save)
    thunks = config.grad_func(dy, saved, {"alpha": attrs["leakyrelu_alpha"]})
    return thunks["x"](), (thunks["alpha"]() if activation == "prelu" else None)
