"""Gradients of kernels, registered by kernel name; the tape in the engine looks them up."""

from . import activation, conv, image, pool  # noqa: F401  (importing them registers their gradients)
from .registry import GradConfig, GradFunc, get_gradient, register_gradient, registered_gradients

__all__ = ["GradConfig", "GradFunc", "get_gradient", "register_gradient", "registered_gradients"]
