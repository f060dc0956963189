"""The plain-Python cpu backend (priority 1: the fallback that always starts)."""

from __future__ import annotations

from ...engine import ENGINE
from ...kernel_registry import register_kernels
from .backend import CpuBackend
from .kernels import KERNELS

register_kernels("cpu", KERNELS)
ENGINE.register_backend("cpu", CpuBackend, priority=1)

__all__ = ["CpuBackend"]
