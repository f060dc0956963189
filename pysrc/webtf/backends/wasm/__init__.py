"""The wasm backend (priority 2): TF.js's XNNPACK wasm binary driven from Python, cpu kernels as fallback.

`set_wasm_paths(prefix_or_mapping)` says where the .wasm files are (default: the page-relative "wasm/");
`set_threads_count(n)` / `get_threads_count()` size XNNPACK's pthread pool on the threaded build (threads.py).
"""

from __future__ import annotations

from ...engine import ENGINE
from ...kernel_registry import get_kernels_for_backend, register_kernels
from . import flags  # noqa: F401  (WASM_* flags)
from .backend import WasmBackend, WasmKernelError, WasmTrapError
from .kernels import NATIVE, kernel_table
from .module import (
    BINARY_NAMES,
    WasmLoadError,
    binary_url,
    load_module,
    precompile,
    reset_wasm_paths,
    set_wasm_paths,
)
from .threads import get_threads_count, set_threads_count


async def create_backend(simd: bool | None = None, url: str | None = None) -> WasmBackend:
    """The backend factory: load the binary (SIMD where supported) and wrap it; raises outside a browser."""
    backend = WasmBackend(await load_module(simd, url))
    # kernels registered for cpu after import (custom ones) are picked up as fallbacks too
    table = get_kernels_for_backend("wasm")
    for name, impl in get_kernels_for_backend("cpu").items():
        table.setdefault(name, impl)
    return backend


register_kernels("wasm", kernel_table())
ENGINE.register_backend("wasm", create_backend, priority=2)

__all__ = [
    "BINARY_NAMES",
    "NATIVE",
    "WasmBackend",
    "WasmKernelError",
    "WasmTrapError",
    "WasmLoadError",
    "binary_url",
    "create_backend",
    "load_module",
    "precompile",
    "reset_wasm_paths",
    "set_wasm_paths",
    "get_threads_count",
    "set_threads_count",
]
