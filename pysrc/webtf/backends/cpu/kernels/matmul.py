"""cpu kernels BatchMatMul and _FusedMatMul, plus the helpers the conv kernels share (dot, bias, epilogue).

Speed: every output element is one C-level dot product (math.sumprod where present) of a list row of A with a
list column of B extracted once per call; `starmap(dot, product(rows, cols))` keeps the loop out of bytecode.
"""

from __future__ import annotations

import math
import operator
from array import array
from itertools import cycle, product, repeat, starmap
from typing import Any

from .... import kernel_names as kn
from ....shapes import broadcast_shapes, size_of, strides_of
from .activation import apply_activation

_sumprod = getattr(math, "sumprod", None)


def _sum_of_products(a: Any, b: Any) -> Any:
    return sum(map(operator.mul, a, b))


#: dot(a, b) of two equal-length sequences (math.sumprod on Python >= 3.12, the map/sum fallback on 3.11).
dot = _sumprod or _sum_of_products

_INT_MIN, _INT_SPAN = -(2**31), 2**32


def to_array(values: Any, dtype: str) -> array:
    """Store Python numbers as the flat buffer of `dtype` (float32 rounds; int32 truncates and wraps)."""
    if dtype == "float32":
        return array("f", values)
    values = values if isinstance(values, list) else list(values)
    try:
        return array("i", values)
    except TypeError:  # floats computed for an int32 output: truncate toward zero like an Int32Array store
        values = [int(v) if v == v and v not in (math.inf, -math.inf) else 0 for v in values]
    except OverflowError:
        pass
    try:
        return array("i", values)
    except OverflowError:
        return array("i", [(v - _INT_MIN) % _INT_SPAN + _INT_MIN for v in values])


def _expand(values: list, shape: tuple[int, ...], out_shape: tuple[int, ...]) -> list:
    """`values` of `shape` repeated out to `out_shape` (which it broadcasts to), flat row-major."""
    shape = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    flat, inner = list(values), 1
    for axis in range(len(out_shape) - 1, -1, -1):
        n = out_shape[axis]
        if shape[axis] == 1 and n != 1:
            flat = [v for i in range(0, len(flat), inner) for v in flat[i : i + inner] * n]
        inner *= n
    return flat


def broadcast_iter(values: Any, shape: tuple[int, ...], out_shape: tuple[int, ...]) -> Any:
    """An iterator over `values` broadcast to `out_shape`, in row-major order (cycles when it only tiles)."""
    core = tuple(shape)
    while core and core[0] == 1:
        core = core[1:]
    if len(values) == 1:
        return repeat(values[0])
    if core == tuple(out_shape[len(out_shape) - len(core) :]):
        return cycle(values)
    return iter(_expand(list(values), tuple(shape), tuple(out_shape)))


def epilogue(
    backend: Any,
    values: list,
    out_shape: tuple[int, ...],
    bias: Any,
    prelu: Any,
    activation: str,
    leakyrelu_alpha: float,
) -> list:
    """Add a bias broadcast to `out_shape`, then apply the fused activation (the shared fused-op tail)."""
    if bias is not None:
        values = list(map(operator.add, values, broadcast_iter(backend.values(bias), bias.shape, out_shape)))
    if activation == "linear":
        return values
    weights = None
    if prelu is not None:
        weights = broadcast_iter(backend.values(prelu), prelu.shape, out_shape)
    return apply_activation(values, activation, weights, leakyrelu_alpha)


def batch_index_pairs(a_batch: tuple[int, ...], b_batch: tuple[int, ...]) -> tuple[tuple[int, ...], list]:
    """The broadcast batch shape and, per output batch, the (a, b) batch indices it reads."""
    out = broadcast_shapes(a_batch, b_batch, "mat_mul")
    n = size_of(out)
    if a_batch == b_batch:
        return out, [(i, i) for i in range(n)]
    rank = len(out)
    pa = (1,) * (rank - len(a_batch)) + tuple(a_batch)
    pb = (1,) * (rank - len(b_batch)) + tuple(b_batch)
    sa = [s if d != 1 else 0 for s, d in zip(strides_of(pa), pa, strict=False)]
    sb = [s if d != 1 else 0 for s, d in zip(strides_of(pb), pb, strict=False)]
    so = strides_of(out)
    pairs = []
    for i in range(n):
        ia = ib = 0
        for axis in range(rank):
            c = (i // so[axis]) % out[axis]
            ia += c * sa[axis]
            ib += c * sb[axis]
        pairs.append((ia, ib))
    return out, pairs


def _rows(vals: Any, off: int, outer: int, inner: int, transposed: bool) -> list:
    """The `outer` vectors of length `inner` of one matrix as lists: rows, or columns when transposed."""
    if transposed:
        return [vals[off + i : off + outer * inner : outer].tolist() for i in range(outer)]
    return [vals[off + i * inner : off + (i + 1) * inner].tolist() for i in range(outer)]


def matmul_values(backend: Any, a: Any, b: Any, ta: bool, tb: bool) -> tuple[list, tuple[int, ...]]:
    """The product of a and b (rank >= 2, batch dims broadcast) as a flat list, and its shape."""
    sa, sb = a.shape, b.shape
    m, k = (sa[-1], sa[-2]) if ta else (sa[-2], sa[-1])
    n = sb[-2] if tb else sb[-1]
    batch, pairs = batch_index_pairs(sa[:-2], sb[:-2])
    av, bv = backend.values(a), backend.values(b)
    a_rows: dict[int, list] = {}
    b_cols: dict[int, list] = {}
    out: list = []
    for ia, ib in pairs:
        rows = a_rows.get(ia)
        if rows is None:
            rows = a_rows[ia] = _rows(av, ia * m * k, m, k, ta)
        cols = b_cols.get(ib)
        if cols is None:
            # B's columns are B's rows when transposed, else strided slices of B.
            cols = b_cols[ib] = _rows(bv, ib * k * n, n, k, not tb)
        out.extend(starmap(dot, product(rows, cols)))
    return out, (*batch, m, n)


def batch_mat_mul(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
    """BatchMatMul: one C-level dot product per output."""
    a, b = inputs["a"], inputs["b"]
    out, shape = matmul_values(backend, a, b, bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b")))
    return backend.output(to_array(out, a.dtype), shape, a.dtype)


def fused_mat_mul(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
    """_FusedMatMul: BatchMatMul + bias (broadcast to the output), then `activation` (prelu, leakyrelu)."""
    a, b = inputs["a"], inputs["b"]
    out, shape = matmul_values(backend, a, b, bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b")))
    out = epilogue(
        backend,
        out,
        shape,
        inputs.get("bias"),
        inputs.get("prelu_activation_weights"),
        attrs.get("activation") or "linear",
        attrs.get("leakyrelu_alpha", 0.2),
    )
    return backend.output(to_array(out, a.dtype), shape, a.dtype)


KERNELS = {kn.BatchMatMul: batch_mat_mul, kn._FusedMatMul: fused_mat_mul}
