"""The plain-Python cpu backend (priority 1: the fallback that always starts).

`KERNELS` (kernel name -> kernel) is the public fallback table: a cpu kernel touches its backend only through
values() and output(), so the wasm and webgl backends register these for the kernels they lack natively.
"""

from __future__ import annotations

from ...engine import ENGINE
from ...kernel_registry import register_kernels
from .backend import CpuBackend
from .kernels import KERNELS

register_kernels("cpu", KERNELS)
ENGINE.register_backend("cpu", CpuBackend, priority=1)

__all__ = ["KERNELS", "CpuBackend"]
