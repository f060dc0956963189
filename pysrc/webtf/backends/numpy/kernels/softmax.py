"""numpy kernels Softmax (attr `dim`) and LogSoftmax (attr `axis`) over the last axis of float32 logits,
shifted by each row's max first (so exp never overflows); a row holding nan is all nan, as on cpu."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import TensorInfo
from .common import mirror_cpu_table


def _shifted(backend: Any, x: Any) -> np.ndarray:
    """The logits minus their row's max, as rows of the last axis (a scalar is one row)."""
    v = backend.nd(x).reshape(-1, x.shape[-1] if x.shape else 1)
    return v - v.max(axis=-1, keepdims=True)


def softmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """exp(x - max) / sum(exp(x - max)) along the last axis."""
    x = inputs["logits"]
    if not x.size:
        return backend.make(backend.nd(x).copy())
    e = np.exp(_shifted(backend, x))
    return backend.make((e / e.sum(axis=-1, keepdims=True)).reshape(x.shape))


def log_softmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """(x - max) - log(sum(exp(x - max))) along the last axis."""
    x = inputs["logits"]
    if not x.size:
        return backend.make(backend.nd(x).copy())
    shifted = _shifted(backend, x)
    return backend.make((shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))).reshape(x.shape))


KERNELS = mirror_cpu_table(globals())
