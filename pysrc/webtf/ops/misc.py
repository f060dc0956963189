"""Async data-dependent ops (setdiff1d_async, in_top_k_async, boolean_mask_async), the LSTM cell helpers
(basic_lstm_cell, multi_rnn_cell) and next_frame."""

from __future__ import annotations

import asyncio
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from ..engine import ENGINE
from ..shapes import broadcast_shapes, fmt, size_of
from ..tensor import Tensor
from . import binary as B
from . import unary as U
from .checks import axis_arg, int_arg
from .matmul import mat_mul
from .op import TensorLike, convert_to_tensor, op
from .shape import concat, reshape
from .slicing import gather
from .slicing import slice as slice_

__all__ = [
    "setdiff1d_async", "in_top_k_async", "boolean_mask_async", "basic_lstm_cell", "multi_rnn_cell", "next_frame",
]  # fmt: skip


def _release(*pairs: tuple[Tensor, Any]) -> None:
    for t, given in pairs:
        if t is not given:
            t.dispose()


async def setdiff1d_async(x: TensorLike, y: TensorLike) -> list[Tensor]:
    """[the values of x not in y (in x's order), their int32 indices in x]."""
    tx, ty = convert_to_tensor(x, "x", "setdiff1d_async"), convert_to_tensor(y, "y", "setdiff1d_async")
    try:
        if tx.dtype != ty.dtype:
            raise TypeError(
                f"Error in setdiff1d_async: x and y should have the same dtype, but got x ({tx.dtype}) and y "
                f"({ty.dtype})."
            )
        for arg, t in (("x", tx), ("y", ty)):
            if t.rank != 1:
                raise ValueError(
                    f"Error in setdiff1d_async: {arg} should be 1D tensor, but got {arg} {fmt(t.shape)}."
                )
        xs, ys = await tx.data(), set(await ty.data())
        keep = [i for i, v in enumerate(xs) if v not in ys]
        values = array(xs.typecode, [xs[i] for i in keep])
        return [
            ENGINE.make_tensor(values, (len(keep),), tx.dtype),
            ENGINE.make_tensor(array("i", keep), (len(keep),), "int32"),
        ]
    finally:
        _release((tx, x), (ty, y))


async def in_top_k_async(predictions: TensorLike, targets: TensorLike, k: int = 1) -> Tensor:
    """bool: whether each target class is among the k largest predictions of its row (ties: lower index first)."""
    name = "in_top_k_async"
    p = convert_to_tensor(predictions, "predictions", name)
    t = convert_to_tensor(targets, "targets", name, "int32")
    try:
        if p.rank < 1:
            raise ValueError(
                f"Error in {name}: expects the predictions to be of rank 1 or higher, but got {p.rank}"
            )
        if p.rank - 1 != t.rank:
            raise ValueError(
                f"Error in {name}: predictions rank should be 1 larger than targets rank, but got predictions rank "
                f"{p.rank} and targets rank {t.rank}"
            )
        if p.shape[:-1] != t.shape:
            raise ValueError(
                f"Error in {name}: predictions's shape should align with the targets' shape, except the last "
                f"dimension, but got {fmt(p.shape)} and {fmt(t.shape)}"
            )
        kk = int_arg(k, "k", name)
        last = p.shape[-1]
        if not 0 < kk <= last:
            raise ValueError(
                f"Error in {name}: 'k' must be > 0 and <= the predictions last dimension ({last}), got {kk}"
            )
        pv, tv = await p.data(), await t.data()
        out = array("B")
        for row, target in enumerate(tv):
            vals = pv[row * last : (row + 1) * last]
            top = sorted(range(last), key=lambda i: (-vals[i], i))[:kk]
            out.append(target in top)
        return ENGINE.make_tensor(out, t.shape, "bool")
    finally:
        _release((p, predictions), (t, targets))


async def boolean_mask_async(tensor: TensorLike, mask: TensorLike, axis: int | None = None) -> Tensor:
    """The slices of tensor where mask (matching its dims from axis on) is true, flattened over those dims."""
    name = "boolean_mask_async"
    t = convert_to_tensor(tensor, "tensor", name)
    m = convert_to_tensor(mask, "mask", name, "bool")
    try:
        ax = 0 if axis is None else axis_arg(axis, t.rank, name)
        if m.rank == 0:
            raise ValueError(f"Error in {name}: mask cannot be scalar")
        if m.dtype != "bool":
            raise TypeError(f"Error in {name}: mask must be bool, but got {m.dtype}")
        if tuple(t.shape[ax : ax + m.rank]) != tuple(m.shape):
            raise ValueError(
                f"Error in {name}: mask's shape must match the first K dimensions of tensor's shape, got mask "
                f"{fmt(m.shape)} and tensor {fmt(t.shape)} (axis {ax})"
            )
        lead = size_of(t.shape[:ax])
        folded = reshape(t, [lead, size_of(m.shape), *t.shape[ax + m.rank :]])
        flags = await m.data()
        kept = array("i", [i for i, flag in enumerate(flags) if flag])
        picked = ENGINE.make_tensor(kept, (len(kept),), "int32")
        try:
            out = gather(folded, picked, 1)
        finally:
            picked.dispose()
            folded.dispose()
        result = reshape(out, [*t.shape[:ax], out.shape[1], *t.shape[ax + m.rank :]])
        out.dispose()
        return result
    finally:
        _release((t, tensor), (m, mask))


@op
def basic_lstm_cell(
    forget_bias: TensorLike,
    lstm_kernel: TensorLike,
    lstm_bias: TensorLike,
    data: TensorLike,
    c: TensorLike,
    h: TensorLike,
) -> list[Tensor]:
    """One LSTM step: [new_c, new_h] from data, the previous c and h, a kernel and bias (gates i, j, f, o)."""
    name = "basic_lstm_cell"
    given = {"forget_bias": forget_bias, "lstm_kernel": lstm_kernel, "lstm_bias": lstm_bias, "data": data}
    ts = {a: convert_to_tensor(v, a, name, "float32") for a, v in {**given, "c": c, "h": h}.items()}
    for a, t in ts.items():
        if t.dtype != "float32":
            raise TypeError(f"Error in {name}: argument '{a}' must be a float32 tensor, but got {t.dtype}")
    fb, kernel, bias, x, tc, th = ts.values()
    if not (
        x.rank == th.rank == kernel.rank == 2
        and x.shape[0] == th.shape[0]
        and tuple(kernel.shape) == (x.shape[1] + th.shape[1], 4 * th.shape[1])
    ):
        raise ValueError(
            f"Error in {name}: expected data [batch, n], h [batch, units] and lstm_kernel [n + units, 4 * units], "
            f"but got data {fmt(x.shape)}, h {fmt(th.shape)} and lstm_kernel {fmt(kernel.shape)}"
        )
    batch, units = th.shape
    for a, want in (
        ("lstm_bias", (batch, 4 * units)),
        ("c", (batch, units)),
        ("forget_bias", (batch, units)),
    ):
        if broadcast_shapes(want, ts[a].shape, name) != want:
            raise ValueError(
                f"Error in {name}: argument '{a}' of shape {fmt(ts[a].shape)} does not fit {fmt(want)}"
            )
    res = B.add(mat_mul(concat([x, th], 1), kernel), bias)
    batch, cols = res.shape[0], res.shape[1] // 4
    i, j, f, o = (slice_(res, [0, cols * k], [batch, cols]) for k in range(4))
    new_c = B.add(B.mul(U.sigmoid(i), U.tanh(j)), B.mul(tc, U.sigmoid(B.add(fb, f))))
    return [new_c, B.mul(U.tanh(new_c), U.sigmoid(o))]


@op
def multi_rnn_cell(
    lstm_cells: Sequence[Callable[..., Any]],
    data: TensorLike,
    c: Sequence[TensorLike],
    h: Sequence[TensorLike],
) -> list[list[Tensor]]:
    """Stacked cells: each cell(input, c[i], h[i]) -> [c, h], its h feeding the next; returns [cs, hs]."""
    name = "multi_rnn_cell"
    if not isinstance(lstm_cells, (list, tuple)) or not all(map(callable, lstm_cells)):
        raise TypeError(f"Error in {name}: argument 'lstm_cells' must be a list of cells (callables)")
    for a, v in (("c", c), ("h", h)):
        if not isinstance(v, (list, tuple)) or len(v) != len(lstm_cells):
            raise TypeError(
                f"Error in {name}: argument '{a}' must be a list of {len(lstm_cells)} tensors, one per cell"
            )
    inp = convert_to_tensor(data, "data", name)
    cs, hs = [], []
    for i, cell in enumerate(lstm_cells):
        new_c, new_h = cell(inp, c[i], h[i])
        cs.append(new_c)
        hs.append(new_h)
        inp = new_h
    return [cs, hs]


async def next_frame() -> None:
    """Wait for the next animation frame in the browser (at most 100 ms: a hidden page draws none), a
    zero-delay yield elsewhere, as tf.nextFrame."""
    from ..environment import ENV

    if ENV.get("IS_BROWSER"):
        from pyodide.code import run_js  # type: ignore[import-not-found]

        await run_js("new Promise((ok) => { requestAnimationFrame(() => ok()); setTimeout(ok, 100); })")
    else:
        await asyncio.sleep(0)
