"""The numpy backend, registered only where numpy imports: vectorized kernels on ndarrays (webtf's tfjs-node).

Outside the browser it ranks above cpu (priority 2; TF.js's node backend outranks cpu the same way), so
plain CPython runs on it by default. In Pyodide, where webgl (3), wasm (2) and cpu (1) are the defaults as in
TF.js, it registers at priority 0: `await tf.set_backend("numpy")` picks it. cpu stays the reference.
"""

from __future__ import annotations

from ...engine import ENGINE
from ...environment import ENV
from ...kernel_registry import register_kernels
from .backend import NumpyBackend
from .kernels import KERNELS, NATIVE

register_kernels("numpy", KERNELS)
ENGINE.register_backend("numpy", NumpyBackend, priority=0 if ENV.get("IS_BROWSER") else 2)

__all__ = ["KERNELS", "NATIVE", "NumpyBackend"]
