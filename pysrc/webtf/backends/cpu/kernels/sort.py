"""cpu kernel TopK: the k largest entries along the last axis (inputs and attrs: webtf.kernel_names).

Returns [values (x's dtype), indices (int32)], each of shape x.shape[:-1] + [k]. Equal values keep the lower
index first (a stable descending sort); NaN ranks above every number. With sorted=False the order is
unspecified in TF.js; this kernel returns the sorted order anyway.
"""

from __future__ import annotations

from array import array
from typing import Any

from .... import kernel_names as kn
from ...base import TensorInfo
from .reduce import may_have_nan


def _nan_key(row: list[float]) -> Any:
    return lambda i: (row[i] != row[i], row[i] if row[i] == row[i] else 0.0)


def top_k(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """[values, indices] of the k largest entries of each last-axis row, largest first."""
    x = inputs["x"]
    k = int(attrs["k"])
    values = backend.values(x)
    n = x.shape[-1]
    out_shape = (*x.shape[:-1], k)
    out_vals, out_idx = array(values.typecode), array("i")
    if k and len(values):
        nan = may_have_nan(values, x.dtype)
        order = range(n)
        for base in range(0, len(values), n):
            row = values[base : base + n].tolist()
            idx = sorted(order, key=_nan_key(row) if nan else row.__getitem__, reverse=True)[:k]
            out_idx.extend(idx)
            out_vals.extend(map(row.__getitem__, idx))
    return [backend.output(out_vals, out_shape, x.dtype), backend.output(out_idx, out_shape, "int32")]


KERNELS = {kn.TopK: top_k}
