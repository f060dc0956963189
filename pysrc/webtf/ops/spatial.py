"""Spatial rearrangement ops: depth_to_space, space_to_batch_nd, batch_to_space_nd."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import check_size, choice_arg, int_list
from .op import TensorLike, convert_to_tensor, op

__all__ = ["batch_to_space_nd", "depth_to_space", "space_to_batch_nd"]


def _pairs(values: Any, m: int, arg: str, name: str, block_arg: str = "block_shape") -> list[list[int]]:
    if not isinstance(values, (list, tuple)) or len(values) != m:
        got = len(values) if isinstance(values, (list, tuple)) else repr(values)
        raise ValueError(
            f"Error in {name}: {arg} has {got} rows but should have {m}, the length of {block_arg}"
        )
    out = [int_list(p, arg, name) for p in values]
    if any(len(p) != 2 for p in out):
        raise ValueError(f"Error in {name}: {arg} must have shape [{m},2], but got {values!r}")
    if any(v < 0 for p in out for v in p):
        raise ValueError(f"Error in {name}: {arg} must be >= 0, but got {out}")
    return out


def _block_args(
    x: TensorLike, block_shape: Any, pairs: Any, arg: str, name: str
) -> tuple[Tensor, list[int], list[list[int]]]:
    """x, block_shape and the [M, 2] paddings / crops of space_to_batch_nd and batch_to_space_nd, checked."""
    x = convert_to_tensor(x, "x", name)
    block = int_list(block_shape, "block_shape", name)
    if any(b < 1 for b in block):
        raise ValueError(f"Error in {name}: block_shape values must be >= 1, but got {block}")
    if x.rank < 1 + len(block):
        raise ValueError(
            f"Error in {name}: input rank {x.rank} should be > the length of block_shape {len(block)} "
            f"(input shape {fmt(x.shape)})"
        )
    return x, block, _pairs(pairs, len(block), arg, name)


@op
def depth_to_space(x: TensorLike, block_size: int, data_format: str = "NHWC") -> Tensor:
    """Move depth into block_size x block_size spatial blocks of a rank-4 tensor (NHWC or NCHW)."""
    name = "depth_to_space"
    x = convert_to_tensor(x, "x", name)
    if x.rank != 4:
        raise ValueError(f"Error in {name}: x must be rank 4, but got rank {x.rank} ({fmt(x.shape)})")
    data_format = choice_arg(data_format, ("NHWC", "NCHW"), "data_format", name)
    if isinstance(block_size, bool) or not hasattr(block_size, "__index__") or block_size <= 1:
        raise ValueError(f"Error in {name}: block_size should be an int > 1, but was: {block_size!r}")
    depth = x.shape[3] if data_format == "NHWC" else x.shape[1]
    if depth % (block_size * block_size):
        raise ValueError(
            f"Error in {name}: dimension size must be evenly divisible by {block_size * block_size} but is "
            f"{depth} for depth_to_space with input shape {fmt(x.shape)}"
        )
    attrs = {"block_size": int(block_size), "data_format": data_format}
    return ENGINE.run_kernel(kn.DepthToSpace, {"x": x}, attrs)


@op
def space_to_batch_nd(x: TensorLike, block_shape: Sequence[int], paddings: Sequence[Sequence[int]]) -> Tensor:
    """Zero-pad spatial dims 1..M, split them into block_shape blocks and move the blocks into the batch."""
    name = "space_to_batch_nd"
    x, block, pads = _block_args(x, block_shape, paddings, "paddings", name)
    spatial = x.shape[1 : 1 + len(block)]
    if any((d + p[0] + p[1]) % b for d, p, b in zip(spatial, pads, block, strict=True)):
        raise ValueError(
            f"Error in {name}: input spatial dimensions {fmt(spatial)} with paddings {pads} must be "
            f"divisible by block_shape {fmt(block)}"
        )
    padded = [(d + p[0] + p[1]) // b for d, p, b in zip(spatial, pads, block, strict=True)]
    check_size((x.shape[0] * prod(block), *padded, *x.shape[1 + len(block) :]), name, f" (x {fmt(x.shape)})")
    attrs = {"block_shape": tuple(block), "paddings": tuple(tuple(p) for p in pads)}
    return ENGINE.run_kernel(kn.SpaceToBatchND, {"x": x}, attrs)


@op
def batch_to_space_nd(x: TensorLike, block_shape: Sequence[int], crops: Sequence[Sequence[int]]) -> Tensor:
    """Inverse of space_to_batch_nd: move batch blocks back into spatial dims 1..M, then crop them."""
    name = "batch_to_space_nd"
    x, block, crop = _block_args(x, block_shape, crops, "crops", name)
    p = prod(block)
    if x.shape[0] % p:
        raise ValueError(
            f"Error in {name}: input tensor batch is {x.shape[0]} but is not divisible by the product of "
            f"the elements of block_shape {' * '.join(map(str, block))} === {p}"
        )
    for i, (b, (c0, c1)) in enumerate(zip(block, crop, strict=True)):
        if c0 + c1 > x.shape[1 + i] * b:
            raise ValueError(
                f"Error in {name}: crops[{i}] = [{c0},{c1}] crop more than the {x.shape[1 + i] * b} elements "
                f"of spatial dimension {i} (input shape {fmt(x.shape)}, block_shape {fmt(block)})"
            )
    attrs = {"block_shape": tuple(block), "crops": tuple(tuple(c) for c in crop)}
    return ENGINE.run_kernel(kn.BatchToSpaceND, {"x": x}, attrs)
