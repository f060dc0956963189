"""The gradient of Elu (kernel EluGrad, from Elu's output)."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as kn
from ..ops import backprop
from ..tensor import Tensor
from .registry import GradConfig, register_gradient
from .util import Thunks


def _elu_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (y,) = saved
    return {"x": lambda: backprop.elu_grad(dy, y)}


register_gradient(GradConfig(kernel_name=kn.Elu, grad_func=_elu_grad, outputs_to_save=(True,)))
