"""Helpers shared by the GLSL kernels: shape collapsing for broadcasts, suffix tests, activation defines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ....shapes import strides_of

FULL, SCALAR, SUFFIX, GENERAL = 0, 1, 2, 3

#: fused activations (attr `activation`) -> the define that selects them in shaders/epilogue.glsl
ACTIVATIONS = {
    None: "ACT_LINEAR",
    "linear": "ACT_LINEAR",
    "relu": "ACT_RELU",
    "relu6": "ACT_RELU6",
    "elu": "ACT_ELU",
    "leakyrelu": "ACT_LEAKYRELU",
    "sigmoid": "ACT_SIGMOID",
    "prelu": "ACT_PRELU",
}


def size_of(shape: Sequence[int]) -> int:
    """Number of elements of a shape."""
    n = 1
    for d in shape:
        n *= d
    return n


def is_suffix(shape: Sequence[int], out_shape: Sequence[int]) -> bool:
    """True when `shape` without its leading 1s is a suffix of `out_shape` (element i reads i % size)."""
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    core = tuple(shape[k:])
    return core == tuple(out_shape[len(out_shape) - len(core) :]) if core else True


def read_mode(shape: Sequence[int], size: int, out_shape: Sequence[int], out_size: int) -> int:
    """How a broadcast operand is read: FULL, SCALAR, SUFFIX (i % size) or GENERAL (strided)."""
    if size == out_size:
        return FULL
    if size == 1:
        return SCALAR
    if is_suffix(shape, out_shape):
        return SUFFIX
    return GENERAL


def broadcast_strides(shape: Sequence[int], out_shape: Sequence[int]) -> list[int]:
    """Element strides of `shape` read through `out_shape` (0 along broadcast dims)."""
    rank = len(out_shape)
    padded = (1,) * (rank - len(shape)) + tuple(shape)
    return [0 if d == 1 else s for d, s in zip(padded, strides_of(padded), strict=True)]


def collapse(out_shape: Sequence[int], strides: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """Merge neighbouring dims that every operand reads contiguously (or broadcasts) and drop 1s."""
    dims: list[int] = []
    out: list[list[int]] = [[] for _ in strides]
    for d, n in enumerate(out_shape):
        if n == 1:
            continue
        if dims and all(
            (s[d] == 0 and o[-1] == 0) or (s[d] != 0 and o[-1] == s[d] * n)
            for s, o in zip(strides, out, strict=True)
        ):
            dims[-1] *= n
            for s, o in zip(strides, out, strict=True):
                o[-1] = s[d]
            continue
        dims.append(n)
        for s, o in zip(strides, out, strict=True):
            o.append(s[d])
    if not dims:
        dims = [1]
        out = [[0] for _ in strides]
    return dims, out


def broadcast_ints(
    operands: Sequence[Any], out_shape: Sequence[int], modes: Sequence[int]
) -> tuple[int, list[int]]:
    """(rank, ints) describing the GENERAL operands for shaders/Binary.glsl: dims, then strides per operand."""
    if GENERAL not in modes:
        return 0, []
    strides = [broadcast_strides(t.shape, out_shape) for t in operands]
    dims, cstrides = collapse(out_shape, strides)
    ints = list(dims)
    for s in cstrides:
        ints.extend(s)
    return len(dims), ints
