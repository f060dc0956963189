"""Matrix multiplication: mat_mul (kernel BatchMatMul), rank >= 2 with broadcast batch dimensions."""

from __future__ import annotations

from .. import kernel_names as kn
from ..dtypes import upcast
from ..engine import ENGINE
from ..shapes import broadcast_shapes, fmt
from ..tensor import Tensor
from .cast import cast
from .checks import check_size, flag_arg
from .op import TensorLike, convert_non_bool, op

__all__ = ["mat_mul"]


def convert_matching(a: TensorLike, b: TensorLike, op_name: str) -> tuple[Tensor, Tensor]:
    """Both operands as tensors of one dtype (the upcast of theirs, as TF.js makeTypesMatch)."""
    ta, tb = convert_non_bool(a, "a", op_name), convert_non_bool(b, "b", op_name)
    if ta.dtype != tb.dtype:
        dtype = upcast(ta.dtype, tb.dtype)
        ta, tb = cast(ta, dtype), cast(tb, dtype)
    return ta, tb


def matmul_shape(a: Tensor, b: Tensor, transpose_a: bool, transpose_b: bool, op_name: str) -> tuple[int, ...]:
    """The output shape of a @ b; raises TF.js-like errors for bad ranks, inner sizes or batch dims."""
    if a.rank < 2 or b.rank < 2:
        raise ValueError(
            f"Error in {op_name}: inputs must have rank at least 2, but got ranks {a.rank} and {b.rank} "
            f"(shapes {fmt(a.shape)} and {fmt(b.shape)})"
        )
    inner_a = a.shape[-2] if transpose_a else a.shape[-1]
    inner_b = b.shape[-1] if transpose_b else b.shape[-2]
    if inner_a != inner_b:
        raise ValueError(
            f"Error in {op_name}: inner shapes ({inner_a}) and ({inner_b}) of tensors with shapes "
            f"{fmt(a.shape)} and {fmt(b.shape)} must match"
            + (
                f" (transpose_a={transpose_a}, transpose_b={transpose_b})"
                if transpose_a or transpose_b
                else ""
            )
        )
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2], op_name)
    except ValueError:
        raise ValueError(
            f"Error in {op_name}: batch dimensions {fmt(a.shape[:-2])} and {fmt(b.shape[:-2])} of tensors "
            f"with shapes {fmt(a.shape)} and {fmt(b.shape)} cannot be broadcast"
        ) from None
    outer_a = a.shape[-1] if transpose_a else a.shape[-2]
    outer_b = b.shape[-2] if transpose_b else b.shape[-1]
    out = (*batch, outer_a, outer_b)
    check_size(out, op_name, f" (a {fmt(a.shape)} @ b {fmt(b.shape)})")
    return out


@op
def mat_mul(a: TensorLike, b: TensorLike, transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    """The matrix product a @ b over the last two dims, batch dims broadcast (kernel BatchMatMul)."""
    ta, tb = convert_matching(a, b, "mat_mul")
    transpose_a, transpose_b = (
        flag_arg(transpose_a, "transpose_a", "mat_mul"),
        flag_arg(transpose_b, "transpose_b", "mat_mul"),
    )
    matmul_shape(ta, tb, transpose_a, transpose_b, "mat_mul")
    return ENGINE.run_kernel(
        kn.BatchMatMul,
        {"a": ta, "b": tb},
        {"transpose_a": transpose_a, "transpose_b": transpose_b},
    )
