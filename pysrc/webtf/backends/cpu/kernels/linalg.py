"""Diag and Einsum on flat host arrays."""

from __future__ import annotations

from itertools import product
from typing import Any

from .... import kernel_names as kn
from ....backend_util.einsum import einsum_plan
from ....shapes import size_of, strides_of
from ...base import TensorInfo
from .broadcast import to_typed


def diag(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Diag: x of shape S on the diagonal of a zero tensor of shape S + S."""
    x = inputs["x"]
    vals = backend.values(x)
    n = len(vals)
    out = [0] * (n * n)
    for i, v in enumerate(vals):
        out[i * n + i] = v
    return backend.output(to_typed(out, x.dtype), (*x.shape, *x.shape), x.dtype)


def einsum(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Einsum: sum over every label not in the output of the operands' products."""
    terms, output, sizes = einsum_plan(attrs["equation"], [t.shape for t in inputs])
    labels = list(output) + [c for c in sizes if c not in output]
    pos = {c: i for i, c in enumerate(labels)}
    operands = []
    for term, t in zip(terms, inputs, strict=True):
        strides = strides_of(t.shape)
        operands.append((backend.values(t), [(pos[c], s) for c, s in zip(term, strides, strict=True)]))
    out_shape = tuple(sizes[c] for c in output)
    out = [0] * size_of(out_shape)
    out_strides = strides_of(out_shape)
    n_out = len(output)
    for idx in product(*(range(sizes[c]) for c in labels)):
        v = 1
        for vals, axes in operands:
            v *= vals[sum(idx[p] * s for p, s in axes)]
        out[sum(i * s for i, s in zip(idx[:n_out], out_strides, strict=True))] += v
    dtype = inputs[0].dtype
    return backend.output(to_typed(out, dtype), out_shape, dtype)


KERNELS: dict[str, Any] = {kn.Diag: diag, kn.Einsum: einsum}
