"""The webgl backend (priority 3): tensors in WebGL2 float textures, kernels in GLSL (shaders/*.glsl).

Every kernel of the cpu table is registered for "webgl" first (a fallback that downloads its inputs and
keeps its output on the host until a GLSL kernel needs it), then the GLSL kernels replace them.
`register()` can add the backend again under another name (e.g. a float16 instance for tests).
"""

from __future__ import annotations

import functools
from typing import Any

from ... import kernel_names as kn
from ...backend_util.elements import for_dtypes
from ...engine import ENGINE
from ...kernel_registry import get_kernels_for_backend, register_kernels
from .. import js as bridge
from ..cpu import KERNELS as CPU_KERNELS
from . import flags  # noqa: F401  (WEBGL_* flags)
from .backend import WebGLBackend, forward_floats
from .context import ContextLostError, lost_message
from .kernels import KERNELS as GLSL_KERNELS

#: element-wise kernels whose tiny on-host inputs TF.js's webgl backend forwards to its cpu kernels
CPU_FORWARDED = frozenset(
    (
        kn.Abs, kn.Add, kn.Cast, kn.Ceil, kn.Equal, kn.Exp, kn.Expm1, kn.Floor, kn.Greater, kn.GreaterEqual,
        kn.Less, kn.LessEqual, kn.Log, kn.Maximum, kn.Minimum, kn.Multiply, kn.Neg, kn.NotEqual, kn.Rsqrt,
        kn.Sigmoid, kn.Sqrt, kn.Sub,
    )
)  # fmt: skip


def _guarded(name: str, fn: Any, cpu_fn: Any = None) -> Any:
    """fn, raising a clear error instead of running once the backend's context is lost.

    With cpu_fn (a GLSL kernel that has a cpu twin): int32 inputs that all still live on the host run on
    the cpu kernel, exact to 32 bits with Int32Array wrap-around, where float textures hold 24 bits (TF.js's
    webgl backend likewise forwards small on-CPU inputs, e.g. shape arithmetic, to its cpu kernels); so do
    the CPU_FORWARDED kernels' inputs that have no texture yet and fewer than CPU_HANDOFF_SIZE_THRESHOLD
    elements each, when WEBGL_CPU_FORWARD is on (TF.js's flags).
    """
    small = name in CPU_FORWARDED

    if cpu_fn is None:

        @functools.wraps(fn)
        def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
            if backend.ctx.lost:
                raise ContextLostError(lost_message(f"run kernel {name}"))
            return fn(backend, inputs, attrs)

        kernel.__dict__.pop("fast", None)  # a cpu kernel's fast variant would skip the guard
        return kernel

    @functools.wraps(fn)
    def forwarding_kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        if backend.ctx.lost:
            raise ContextLostError(lost_message(f"run kernel {name}"))
        if backend.forward_to_cpu(inputs.values() if type(inputs) is dict else inputs, small):
            return cpu_fn(backend, inputs, attrs)
        return fn(backend, inputs, attrs)

    float_fn = getattr(cpu_fn, "float_fn", None) if small else None
    if float_fn is not None:  # the cpu twin on two small float32 host buffers of one shape (Engine.run_fast)
        forwarding_kernel.fast = functools.partial(forward_floats, float_fn)  # type: ignore[attr-defined]
    return forwarding_kernel


def kernel_table() -> dict[str, Any]:
    """The webgl kernel table: the cpu kernels overridden by the GLSL ones, all guarded for context loss."""
    table = {name: _guarded(name, fn) for name, fn in CPU_KERNELS.items()}
    twins = for_dtypes(CPU_KERNELS)  # as registered for cpu: a forwarded Cast to complex64 must make one
    table.update({name: _guarded(name, fn, twins.get(name)) for name, fn in GLSL_KERNELS.items()})
    return table


def register(name: str = "webgl", priority: int = 3, force_f16: bool | None = None) -> None:
    """Register a webgl backend (and its kernel table) under `name`; force_f16 None reads the flag."""

    def factory() -> WebGLBackend:
        if not bridge.available():
            raise RuntimeError("webgl backend: not running in a browser (no WebGL)")
        return WebGLBackend(force_f16)

    table = get_kernels_for_backend(name)
    register_kernels(name, {k: v for k, v in kernel_table().items() if k not in table})
    ENGINE.register_backend(name, factory, priority)


register()

__all__ = ["ContextLostError", "WebGLBackend", "register"]
