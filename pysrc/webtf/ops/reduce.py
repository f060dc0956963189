"""Reductions: sum, mean, max, min, prod, all, any, arg_max, arg_min, and the composite log_sum_exp."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

from ..engine import ENGINE
from ..shapes import normalize_axes, normalize_axis
from ..tensor import Tensor
from .op import TensorLike, convert_to_tensor, op

__all__ = ["sum", "mean", "max", "min", "prod", "all", "any", "arg_max", "arg_min", "log_sum_exp"]

Axis = int | Sequence[int] | None


def parse_axes(axis: Axis, rank: int, op_name: str) -> tuple[int, ...]:
    """Normalize an axis argument (None = all, an int, or a list of ints; negatives count from the end)."""
    if axis is not None:
        items = [axis] if not isinstance(axis, (list, tuple)) else list(axis)
        try:
            if builtins.any(isinstance(a, bool) for a in items):
                raise TypeError
            axis = [operator.index(a) for a in items]
        except TypeError:
            raise TypeError(
                f"Error in {op_name}: axis must be an int, a list of ints or None, but got {axis!r}"
            ) from None
    return normalize_axes(axis, rank, op_name)


def _reduce(
    kernel: str, x: TensorLike, axis: Axis, keep_dims: bool, op_name: str, key: str = "axis"
) -> Tensor:
    t = convert_to_tensor(x, "x", op_name)
    axes = parse_axes(axis, t.rank, op_name)
    return ENGINE.run_kernel(kernel, {"x": t}, {key: axes, "keep_dims": bool(keep_dims)})


@op
def sum(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:  # noqa: A001
    """Sum over `axis` (None = all); bool and int32 sum to int32 (kernel Sum)."""
    return _reduce("Sum", x, axis, keep_dims, "sum")


@op
def mean(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:
    """Mean over `axis` (None = all), always float32 (kernel Mean)."""
    return _reduce("Mean", x, axis, keep_dims, "mean")


@op
def max(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:  # noqa: A001
    """Maximum over `axis` (None = all); NaN propagates (kernel Max)."""
    return _reduce("Max", x, axis, keep_dims, "max", "reduction_indices")


@op
def min(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:  # noqa: A001
    """Minimum over `axis` (None = all); NaN propagates (kernel Min)."""
    return _reduce("Min", x, axis, keep_dims, "min")


@op
def prod(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:
    """Product over `axis` (None = all); bool and int32 multiply to int32 (kernel Prod)."""
    return _reduce("Prod", x, axis, keep_dims, "prod")


def _logical(kernel: str, x: TensorLike, axis: Axis, keep_dims: bool, op_name: str) -> Tensor:
    t = convert_to_tensor(x, "x", op_name, "bool")
    axes = parse_axes(axis, t.rank, op_name)
    if t.dtype != "bool":
        t = ENGINE.run_kernel("Cast", {"x": t}, {"dtype": "bool"})
    return ENGINE.run_kernel(kernel, {"x": t}, {"axis": axes, "keep_dims": bool(keep_dims)})


@op
def all(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:  # noqa: A001
    """Logical AND over `axis` (None = all); non-bool input counts non-zero as true (kernel All)."""
    return _logical("All", x, axis, keep_dims, "all")


@op
def any(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:  # noqa: A001
    """Logical OR over `axis` (None = all); non-bool input counts non-zero as true (kernel Any)."""
    return _logical("Any", x, axis, keep_dims, "any")


def _arg(kernel: str, x: TensorLike, axis: int, op_name: str) -> Tensor:
    t = convert_to_tensor(x, "x", op_name)
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"Error in {op_name}: axis must be an int, but got {axis!r}")
    return ENGINE.run_kernel(
        kernel, {"x": t}, {"axis": normalize_axis(operator.index(axis), t.rank, op_name)}
    )


@op
def arg_max(x: TensorLike, axis: int = 0) -> Tensor:
    """int32 index of the first maximum along `axis` (kernel ArgMax)."""
    return _arg("ArgMax", x, axis, "arg_max")


@op
def arg_min(x: TensorLike, axis: int = 0) -> Tensor:
    """int32 index of the first minimum along `axis` (kernel ArgMin)."""
    return _arg("ArgMin", x, axis, "arg_min")


@op
def log_sum_exp(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:
    """log(sum(exp(x))) over `axis`, computed stably as max + log(sum(exp(x - max))) (float32)."""
    t = convert_to_tensor(x, "x", "log_sum_exp")
    axes = parse_axes(axis, t.rank, "log_sum_exp")
    if t.dtype != "float32":
        t = ENGINE.run_kernel("Cast", {"x": t}, {"dtype": "float32"})
    run: Any = ENGINE.run_kernel
    x_max = run("Max", {"x": t}, {"reduction_indices": axes, "keep_dims": True})
    shifted = run("Sub", {"a": t, "b": x_max})
    summed = run("Sum", {"x": run("Exp", {"x": shifted})}, {"axis": axes, "keep_dims": True})
    res = run("Add", {"a": x_max, "b": run("Log", {"x": summed})})
    if keep_dims:
        return res
    # Summing the size-1 kept axes away drops them without needing a Reshape kernel.
    return run("Sum", {"x": res}, {"axis": axes, "keep_dims": False})
