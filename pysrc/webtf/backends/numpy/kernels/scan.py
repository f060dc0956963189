"""numpy kernels along one axis: Cumsum, Cumprod (attrs `axis`, `exclusive`, `reverse`) and TopK (attrs `k`,
`sorted`), contracts in webtf.kernel_names: scans of float32 accumulate in float64 and round, int32 and bool
give int32 (wrapping); TopK gives [values, int32 indices] of the k largest along the last axis, largest
first, ties by lower index, nan above every number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .... import kernel_names as kn
from ....shapes import normalize_axis
from ...base import TensorInfo
from .common import F32


def _scan(fn: Callable, identity: int, name: str) -> Callable[..., TensorInfo]:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        axis = normalize_axis(int(attrs.get("axis", 0)), len(x.shape), name)
        v = backend.nd(x)
        reverse = bool(attrs.get("reverse"))
        if reverse:
            v = np.flip(v, axis)
        acc = np.float64 if x.dtype == "float32" else np.int32
        out = fn(v, axis=axis, dtype=acc)
        if attrs.get("exclusive") and v.shape[axis]:  # shift by one: the identity first, the last dropped
            head = np.full((*v.shape[:axis], 1, *v.shape[axis + 1 :]), identity, acc)
            out = np.concatenate([head, np.delete(out, -1, axis)], axis)
        if reverse:
            out = np.flip(out, axis)
        return backend.make(out, "float32" if acc is np.float64 else "int32")

    return kernel


def top_k(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """[values, indices] of the k largest entries of each last-axis row, largest first."""
    x = inputs["x"]
    k = int(attrs["k"])
    v = backend.nd(x)
    if v.dtype == F32:
        nan = np.isnan(v)
        # sort keys, last one first: not-nan (nan ranks first), then -x; lexsort is stable
        order = np.lexsort((-v, ~nan), axis=-1) if nan.any() else np.argsort(-v, axis=-1, kind="stable")
    else:
        order = np.argsort(-v.astype(np.int64), axis=-1, kind="stable")
    idx = order[..., :k]
    return [backend.make(np.take_along_axis(v, idx, -1)), backend.make(idx, "int32")]


KERNELS = {
    kn.Cumsum: _scan(np.cumsum, 0, "cumsum"),
    kn.Cumprod: _scan(np.cumprod, 1, "cumprod"),
    kn.TopK: top_k,
}
