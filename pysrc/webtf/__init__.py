"""webtf: TensorFlow.js's design in Python, for Pyodide in the browser (and CPython on the host).

`import webtf as tf`, then use the TF.js API in snake_case: tf.tensor, tf.tidy, await tf.set_backend(...).
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from . import backends as _backends  # noqa: F401
from . import (
    browser,
    util,  # tf.util: shapes, strides, shuffling, checks
)
from . import ops as _ops
from .backends import cpu as _cpu  # noqa: F401  (registers the cpu backend and its kernels)
from .backends import wasm  # tf.wasm.set_wasm_paths (TF.js setWasmPaths); WASM_* flags; priority 2
from .backends import webgl as _webgl  # noqa: F401  (WEBGL_* flags; the webgl backend, priority 3)
from .backends.base import Backend, TensorInfo
from .engine import ENGINE, KernelRecord, MemoryInfo, ProfileInfo, TimingInfo
from .environment import ENV, Environment, env
from .gradients import (
    GradConfig,
    custom_grad,
    dispose_variables,
    get_gradient,
    grad,
    grads,
    register_gradient,
    unregister_gradient,
    value_and_grad,
    value_and_grads,
    variable_grads,
)
from .interop import numpy_or_none
from .kernel_registry import (
    get_kernel,
    get_kernels_for_backend,
    register_kernel,
    register_kernels,
    unregister_kernel,
)
from .models import GraphModel, io, load_graph_model
from .models.graph import load_graph_model_sync
from .models.graph.math_ops import deregister_op, register_op
from .ops import *  # noqa: F403
from .ops.chaining import bind as _bind
from .ops.pool_more import pool
from .tensor import Tensor, Variable

# Families most pages never touch (layers models, training, datasets, losses): imported on first use, so that
# `import webtf` and the page's memory snapshot leave them out. name -> (module, attribute; None: the module).
_LAZY: dict[str, tuple[str, str | None]] = {
    "data": (".data", None),  # tf.data: datasets (array, generator, zip, csv)
    "layers": (".layers", None),  # tf.layers.<name>(**config): a factory per layer class
    "losses": (".losses", None),
    "train": (".train", None),
    "Reduction": (".losses", "Reduction"),
    **{name: (f".models.layers.{name}", None) for name in
       ("callbacks", "constraints", "initializers", "metrics", "regularizers")},
    **{name: (".models.layers", name) for name in ("LayersModel", "load_layers_model")},
    **{name: (".models.layers.api", name) for name in ("Sequential", "SymbolicTensor", "input", "model", "sequential")},
    "LayerVariable": (".models.layers.base", "LayerVariable"),
    **{name: (".models.layers.callbacks", name) for name in
       ("Callback", "CallbackList", "CustomCallback", "EarlyStopping", "History", "register_callback_constructor")},
    "RNN": (".models.layers.recurrent", "RNN"),
    "InputSpec": (".models.layers.topology", "InputSpec"),
    **{name: (".train", name) for name in (
        "AdadeltaOptimizer", "AdagradOptimizer", "AdamaxOptimizer", "AdamOptimizer", "MomentumOptimizer",
        "Optimizer", "RMSPropOptimizer", "SGDOptimizer")},
}  # fmt: skip

if numpy_or_none() is not None:  # the numpy backend: priority 2 outside the browser, 0 in Pyodide
    from .backends import numpy as _numpy  # noqa: F401

__version__ = "0.1.0"

_bind(vars(_ops))


def __getattr__(name: str) -> Any:
    """The lazily imported families (_LAZY) on first use; a custom build (build.py custom) says which ops it
    left out and the kernels to add for them."""
    from .kernel_registry import left_out_module, left_out_op

    if name in _LAZY:
        module, attribute = _LAZY[name]
        try:
            value = import_module(module, __name__)
        except ModuleNotFoundError as error:  # a custom build without that family
            if (why := left_out_module(name, error)) is None:
                raise
            raise AttributeError(why) from None
        value = getattr(value, attribute) if attribute else value
        globals()[name] = value  # found directly from now on
        return value
    raise AttributeError(left_out_op(name) or f"module 'webtf' has no attribute '{name}'")


def _lazy_names() -> list[str]:
    """_LAZY's names, for __all__: in a custom build only those whose module it kept (checked without importing)."""
    from .kernel_registry import CUSTOM_BUILD

    if CUSTOM_BUILD is None:
        return list(_LAZY)
    root = Path(__file__).parent
    paths = {m: root.joinpath(*m[1:].split(".")) for m, _ in _LAZY.values()}
    kept = {m for m, path in paths.items() if path.with_suffix(".py").exists() or (path / "__init__.py").exists()}
    return [name for name, (module, _) in _LAZY.items() if module in kept]


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def tidy(fn_or_name: Any, fn: Any = None) -> Any:
    """Run fn and free every tensor it made except those it returns (tensors, lists, tuples, dicts)."""
    return ENGINE.tidy(fn_or_name, fn)


def dispose(container: Any) -> None:
    """Dispose a tensor, or every tensor inside lists, tuples and dicts."""
    if isinstance(container, Tensor):
        container.dispose()
    elif isinstance(container, (list, tuple)):
        for item in container:
            dispose(item)
    elif isinstance(container, dict):
        for item in container.values():
            dispose(item)


def keep(t: Tensor) -> Tensor:
    """Mark a tensor so that no enclosing tidy() frees it."""
    t.kept = True
    return t


def memory() -> MemoryInfo:
    """Live tensors, data buffers and bytes (plus backend figures such as num_bytes_in_gpu)."""
    return ENGINE.memory()


async def profile(fn: Any) -> ProfileInfo:
    """Run fn and report new_bytes, new_tensors, peak_bytes and the kernels it ran."""
    return await ENGINE.profile(fn)


async def time(fn: Any) -> TimingInfo:
    """Run fn and report wall_ms and kernel_ms."""
    return await ENGINE.time(fn)


def register_backend(name: str, factory: Any, priority: int = 1) -> bool:
    """Register a backend factory (sync or async) under a name with a priority."""
    return ENGINE.register_backend(name, factory, priority)


def remove_backend(name: str) -> None:
    """Unregister a backend."""
    ENGINE.remove_backend(name)


async def set_backend(name: str) -> bool:
    """Make `name` the active backend; returns False (keeping the current one) if it cannot start."""
    return await ENGINE.set_backend(name)


def get_backend() -> str | None:
    """The name of the active backend (initializing the best one if none is active yet)."""
    ENGINE.backend  # noqa: B018
    return ENGINE.backend_name


def backend() -> Backend:
    """The active backend object."""
    return ENGINE.backend


def find_backend(name: str) -> Backend | None:
    """An initialized backend by name."""
    return ENGINE.find_backend(name)


async def ready() -> None:
    """Wait until the best backend (webgl > wasm > cpu) is initialized."""
    await ENGINE.ready()


def enable_prod_mode() -> None:
    """Production mode: drop debug checks."""
    ENV.set("PROD", True)
    ENV.set("DEBUG", False)


def enable_debug_mode() -> None:
    """Debug mode: log every kernel with its time, shapes and memory; fail on NaN results."""
    ENV.set("DEBUG", True)


__all__ = [
    "ENGINE", "ENV", "Backend", "Environment", "GraphModel", "KernelRecord", "MemoryInfo", "ProfileInfo", "Tensor",
    "io", "load_graph_model", "TensorInfo", "TimingInfo", "Variable", "backend", "dispose", "enable_debug_mode",
    "enable_prod_mode", "env", "find_backend", "get_backend", "get_kernel", "get_kernels_for_backend", "keep",
    "memory", "profile", "ready", "register_backend", "register_kernel", "register_kernels", "remove_backend",
    "set_backend", "tidy", "time", "unregister_kernel", "wasm", "GradConfig", "custom_grad", "dispose_variables",
    "get_gradient", "grad", "grads", "register_gradient", "value_and_grad", "value_and_grads", "variable_grads",
    "util", "register_op", "deregister_op", "unregister_gradient", "pool", "browser", "load_graph_model_sync",
] + _lazy_names() + list(_ops.__all__)  # fmt: skip
