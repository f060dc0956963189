"""Kernels by (TF.js kernel name, backend name). Backends register tables; custom builds can filter them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

KernelFunc = Callable[[Any, Any, dict[str, Any]], Any]

_REGISTRY: dict[str, dict[str, KernelFunc]] = {}
#: the registered kernels' `fast` variants by backend (see Engine.run_fast), kept with _REGISTRY
_FAST: dict[str, dict[str, Callable[..., Any]]] = {}

try:  # a custom build's contents (backends, kernels, config): `build.py custom` writes webtf/_build.py
    from ._build import BUILD as CUSTOM_BUILD
except ImportError:
    CUSTOM_BUILD: dict[str, Any] | None = None
#: the built-in backends, which a custom build registers only when its config lists them
BUILT_IN_BACKENDS = ("cpu", "wasm", "webgl", "numpy")


def left_out(kind: str, name: str) -> str | None:
    """Why a built-in backend (kind "backends") or a kernel (kind "kernels") is absent: a custom build that
    left it out of its config; None when it is in the build (or this is the full build)."""
    if CUSTOM_BUILD is None or name in CUSTOM_BUILD[kind]:
        return None
    if kind == "backends" and name not in BUILT_IN_BACKENDS:
        return None
    what = "backend" if kind == "backends" else "kernel"
    return f"{what} '{name}' is not in this custom webtf build: {_add(kind, [name])}"


def left_out_op(name: str) -> str | None:
    """Why op `name` is absent: a custom build left out the kernels it runs; None otherwise."""
    kernels = (CUSTOM_BUILD or {}).get("left_out_ops", {}).get(name)
    if not kernels:
        return None
    ran = ", ".join(f"'{k}'" for k in kernels)
    return f"op '{name}' (kernel {ran}) is not in this custom webtf build: {_add('kernels', kernels)}"


class LeftOutOp:
    """What a custom build has for an op (or an ops namespace, e.g. `spectral`) it left out: calling it raises
    AttributeError naming the kernels to add."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, name: str) -> LeftOutOp:
        if name.startswith("_"):
            raise AttributeError(name)
        return LeftOutOp(f"{self.name}.{name}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        op = self.name.rsplit(".", 1)[-1]
        raise AttributeError(left_out_op(op) or f"op '{self.name}' is not in this custom webtf build")


def left_out_module(name: str, error: ModuleNotFoundError) -> str | None:
    """Why `tf.<name>` (a lazily imported family) cannot be imported: a custom build left its module out."""
    if CUSTOM_BUILD is None:
        return None
    config = CUSTOM_BUILD["config"]
    return (
        f"tf.{name} is not in this custom webtf build (module {error.name} was left out): add the kernels it "
        f'runs to "kernels" in {config} and run `python3 build.py custom --config {config}` again'
    )


#: io's browser stores and the model management over them: their functions and URL schemes, which a custom build
#: keeps only with "browserStores"
BROWSER_STORES = (
    "browser_files", "browser_downloads", "indexeddb://", "localstorage://", "downloads://",
    "list_models", "copy_model", "move_model", "remove_model", "register_manager",
)  # fmt: skip


def left_out_store(name: str) -> str | None:
    """Why io's browser store `name` (a function of tf.io or a URL) is absent: a custom build left the stores
    out; None otherwise."""
    if CUSTOM_BUILD is None or CUSTOM_BUILD.get("browser_stores", True) or not isinstance(name, str):
        return None
    if not any(name == s or (s.endswith("://") and name.startswith(s)) for s in BROWSER_STORES):
        return None
    config = CUSTOM_BUILD["config"]
    return (
        f"{name!r}: io's browser stores (indexeddb://, localstorage://, downloads://, browser_files, model "
        "management) are not in "
        f'this custom webtf build: set "browserStores": true in {config} and run '
        f"`python3 build.py custom --config {config}` again"
    )


def _add(key: str, names: list[str]) -> str:
    config = CUSTOM_BUILD["config"] if CUSTOM_BUILD else ""
    listed = ", ".join(f'"{n}"' for n in names)
    return f'add {listed} to "{key}" in {config} and run `python3 build.py custom --config {config}` again'


def register_kernel(kernel_name: str, backend_name: str, impl: KernelFunc) -> None:
    """Register `impl(backend, inputs, attrs) -> TensorInfo | list[TensorInfo]` for a backend."""
    table = _REGISTRY.setdefault(backend_name, {})
    if kernel_name in table:
        raise ValueError(f"The kernel '{kernel_name}' for backend '{backend_name}' is already registered")
    table[kernel_name] = impl
    fast = getattr(impl, "fast", None)
    if fast is not None:
        _FAST.setdefault(backend_name, {})[kernel_name] = fast


def register_kernels(
    backend_name: str, table: Mapping[str, KernelFunc], only: Iterable[str] | None = None
) -> None:
    """Register a table of kernels; `only` keeps just the named kernels (a custom build: its kernels). The
    element-moving, complex-arithmetic and cast kernels also take complex64 and string tensors
    (backend_util.elements)."""
    from .backend_util.elements import for_dtypes

    if only is None and CUSTOM_BUILD is not None:
        only = CUSTOM_BUILD["kernels"]
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
    _FAST.get(backend_name, {}).pop(kernel_name, None)


def get_kernel(kernel_name: str, backend_name: str) -> KernelFunc | None:
    """The kernel registered under this name for this backend, or None."""
    return _REGISTRY.get(backend_name, {}).get(kernel_name)


def get_kernels_for_backend(backend_name: str) -> dict[str, KernelFunc]:
    """The live table of kernels registered for a backend (kernel name -> implementation)."""
    return _REGISTRY.setdefault(backend_name, {})


def get_fast_kernels_for_backend(backend_name: str) -> dict[str, Callable[..., Any]]:
    """The live table of the registered kernels' `fast` variants for a backend (kernel name -> fast)."""
    return _FAST.setdefault(backend_name, {})
