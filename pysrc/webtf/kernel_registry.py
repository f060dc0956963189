"""Kernels by (TF.js kernel name, backend name). Backends register tables; custom builds can filter them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

KernelFunc = Callable[[Any, Any, dict[str, Any]], Any]

_REGISTRY: dict[str, dict[str, KernelFunc]] = {}


def register_kernel(kernel_name: str, backend_name: str, impl: KernelFunc) -> None:
    """Register `impl(backend, inputs, attrs) -> TensorInfo | list[TensorInfo]` for a backend."""
    table = _REGISTRY.setdefault(backend_name, {})
    if kernel_name in table:
        raise ValueError(f"The kernel '{kernel_name}' for backend '{backend_name}' is already registered")
    table[kernel_name] = impl


def register_kernels(
    backend_name: str, table: Mapping[str, KernelFunc], only: Iterable[str] | None = None
) -> None:
    """Register a table of kernels; `only` keeps just the named kernels (size-optimized builds). The
    element-moving, complex-arithmetic and cast kernels also take complex64 and string tensors
    (backend_util.elements)."""
    from .backend_util.elements import for_dtypes

    keep = None if only is None else set(only)
    for name, impl in for_dtypes(table).items():
        if keep is None or name in keep:
            register_kernel(name, backend_name, impl)


def unregister_kernel(kernel_name: str, backend_name: str) -> None:
    """Remove a registered kernel."""
    table = _REGISTRY.get(backend_name, {})
    if kernel_name not in table:
        raise ValueError(f"The kernel '{kernel_name}' for backend '{backend_name}' is not registered")
    del table[kernel_name]


def get_kernel(kernel_name: str, backend_name: str) -> KernelFunc | None:
    """The kernel registered under this name for this backend, or None."""
    return _REGISTRY.get(backend_name, {}).get(kernel_name)


def get_kernels_for_backend(backend_name: str) -> dict[str, KernelFunc]:
    """The live table of kernels registered for a backend (kernel name -> implementation)."""
    return _REGISTRY.setdefault(backend_name, {})
