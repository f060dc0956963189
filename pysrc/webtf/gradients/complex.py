"""Gradients of the complex64 kernels TF.js differentiates: ComplexAbs, with Abs's gradient
(dy * step(x, -1), x cast to float32: its real part)."""

from __future__ import annotations

from .. import kernel_names as kn
from . import unary  # noqa: F401  (registers Abs's gradient first)
from .registry import GradConfig, get_gradient, register_gradient

_ABS = get_gradient(kn.Abs)
assert _ABS is not None
register_gradient(GradConfig(kernel_name=kn.ComplexAbs, inputs_to_save=("x",), grad_func=_ABS.grad_func))
