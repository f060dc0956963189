"""Diag and Einsum on ndarrays (np.einsum)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import kernel_names as kn
from ...base import TensorInfo
from .common import store


def diag(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Diag: x on the diagonal of a zero tensor of shape x.shape * 2."""
    x = inputs["x"]
    flat = backend.nd(x).ravel()
    return backend.make(np.diag(flat).reshape(x.shape + x.shape), x.dtype)


def einsum(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Einsum through np.einsum in float64 / int64, stored as the operands' dtype."""
    dtype = inputs[0].dtype
    wide = np.float64 if dtype == "float32" else np.int64
    arrays = [backend.nd(t).astype(wide) for t in inputs]
    return backend.make(store(np.asarray(np.einsum(attrs["equation"], *arrays)), dtype), dtype)


KERNELS: dict[str, Any] = {kn.Diag: diag, kn.Einsum: einsum}
