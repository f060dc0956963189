"""Reductions: sum, mean, max, min, prod, all, any, arg_max, arg_min, and the composite log_sum_exp."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from .. import kernel_names as kn
from ..engine import ENGINE
from ..tensor import Tensor
from .checks import axes_arg, axis_arg, flag_arg
from .op import TensorLike, convert_to_tensor, named_op, op

__all__ = ["sum", "mean", "max", "min", "prod", "all", "any", "arg_max", "arg_min", "log_sum_exp"]

Axis = int | Sequence[int] | None


class ReduceOp(Protocol):
    """The type of the ops _reduce_op makes."""

    def __call__(self, x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor: ...


class ArgOp(Protocol):
    """The type of the ops _arg_op makes."""

    def __call__(self, x: TensorLike, axis: int = 0) -> Tensor: ...


def _reduce_op(kernel: str, name: str, doc: str, key: str = "axis", logical: bool = False) -> ReduceOp:
    """The op `name` (docstring `doc`): `kernel` over `axis` (attr `key`); a logical op reads x as bool."""

    def reduce_op(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:
        t = convert_to_tensor(x, "x", name, "bool" if logical else None)
        axes = axes_arg(axis, t.rank, name)
        if logical and t.dtype != "bool":
            t = ENGINE.run_kernel(kn.Cast, {"x": t}, {"dtype": "bool"})
        return ENGINE.run_kernel(
            kernel, {"x": t}, {key: axes, "keep_dims": flag_arg(keep_dims, "keep_dims", name)}
        )

    return named_op(reduce_op, name, doc)


sum = _reduce_op(kn.Sum, "sum", "Sum over `axis` (None = all); bool and int32 sum to int32 (kernel Sum).")
mean = _reduce_op(kn.Mean, "mean", "Mean over `axis` (None = all), always float32 (kernel Mean).")
max = _reduce_op(
    kn.Max, "max", "Maximum over `axis` (None = all); NaN propagates (kernel Max).", "reduction_indices"
)
min = _reduce_op(kn.Min, "min", "Minimum over `axis` (None = all); NaN propagates (kernel Min).")
prod = _reduce_op(
    kn.Prod, "prod", "Product over `axis` (None = all); bool and int32 multiply to int32 (kernel Prod)."
)
all = _reduce_op(
    kn.All,
    "all",
    "Logical AND over `axis` (None = all); non-bool input counts non-zero as true (kernel All).",
    logical=True,
)
any = _reduce_op(
    kn.Any,
    "any",
    "Logical OR over `axis` (None = all); non-bool input counts non-zero as true (kernel Any).",
    logical=True,
)


def _arg_op(kernel: str, name: str, doc: str) -> ArgOp:
    """The op `name` (docstring `doc`): `kernel`, an int32 index along one axis."""

    def arg_op(x: TensorLike, axis: int = 0) -> Tensor:
        t = convert_to_tensor(x, "x", name)
        return ENGINE.run_kernel(kernel, {"x": t}, {"axis": axis_arg(axis, t.rank, name)})

    return named_op(arg_op, name, doc)


arg_max = _arg_op(kn.ArgMax, "arg_max", "int32 index of the first maximum along `axis` (kernel ArgMax).")
arg_min = _arg_op(kn.ArgMin, "arg_min", "int32 index of the first minimum along `axis` (kernel ArgMin).")


@op
def log_sum_exp(x: TensorLike, axis: Axis = None, keep_dims: bool = False) -> Tensor:
    """log(sum(exp(x))) over `axis`, computed stably as max + log(sum(exp(x - max))) (float32)."""
    t = convert_to_tensor(x, "x", "log_sum_exp")
    axes = axes_arg(axis, t.rank, "log_sum_exp")
    if t.dtype != "float32":
        t = ENGINE.run_kernel(kn.Cast, {"x": t}, {"dtype": "float32"})
    run: Any = ENGINE.run_kernel
    x_max = run(kn.Max, {"x": t}, {"reduction_indices": axes, "keep_dims": True})
    shifted = run(kn.Sub, {"a": t, "b": x_max})
    summed = run(kn.Sum, {"x": run(kn.Exp, {"x": shifted})}, {"axis": axes, "keep_dims": True})
    res = run(kn.Add, {"a": x_max, "b": run(kn.Log, {"x": summed})})
    if flag_arg(keep_dims, "keep_dims", "log_sum_exp"):
        return res
    # Summing the size-1 kept axes away drops them without needing a Reshape kernel.
    return run(kn.Sum, {"x": res}, {"axis": axes, "keep_dims": False})
