"""numpy kernels BatchMatMul and _FusedMatMul: np.matmul (float32 runs on BLAS sgemm), batch dims broadcast.

Attrs transpose_a, transpose_b; _FusedMatMul adds inputs bias and prelu_activation_weights (broadcast to the
output) and attrs activation, leakyrelu_alpha. int32 products wrap like an Int32Array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import TensorInfo
from .activation import epilogue
from .common import mirror_cpu_table, store


def _product(backend: Any, inputs: Any, attrs: dict[str, Any]) -> np.ndarray:
    a, b = backend.nd(inputs["a"]), backend.nd(inputs["b"])
    if attrs.get("transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if attrs.get("transpose_b"):
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def batch_mat_mul(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BatchMatMul: a @ b over rank >= 2 inputs of one dtype."""
    return backend.make(_product(backend, inputs, attrs), inputs["a"].dtype)


def fused_mat_mul(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """_FusedMatMul: BatchMatMul + bias, then `activation`."""
    out = epilogue(
        _product(backend, inputs, attrs),
        optional(backend, inputs, "bias"),
        optional(backend, inputs, "prelu_activation_weights"),
        attrs.get("activation"),
        attrs.get("leakyrelu_alpha", 0.2),
    )
    dtype = inputs["a"].dtype
    return backend.make(store(out, dtype), dtype)


def optional(backend: Any, inputs: Any, name: str) -> np.ndarray | None:
    """The values of an optional input (bias, prelu weights), or None when it is absent."""
    t = inputs.get(name)
    return None if t is None else backend.nd(t)


KERNELS = mirror_cpu_table(globals())
