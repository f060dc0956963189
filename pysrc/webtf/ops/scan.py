"""Scans: cumsum (kernel Cumsum) and cumprod (kernel Cumprod) along one axis."""

from __future__ import annotations

from .. import kernel_names as kn
from ..engine import ENGINE
from ..tensor import Tensor
from .checks import axis_arg, flag_arg
from .op import TensorLike, convert_to_tensor, op

__all__ = ["cumsum", "cumprod"]


def _scan(kernel: str, x: TensorLike, axis: int, exclusive: bool, reverse: bool, op_name: str) -> Tensor:
    t = convert_to_tensor(x, "x", op_name)
    ax = axis_arg(axis, t.rank, op_name)
    return ENGINE.run_kernel(
        kernel,
        {"x": t},
        {
            "axis": ax,
            "exclusive": flag_arg(exclusive, "exclusive", op_name),
            "reverse": flag_arg(reverse, "reverse", op_name),
        },
    )


@op
def cumsum(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Cumulative sum along `axis`; bool and int32 give int32 (kernel Cumsum)."""
    return _scan(kn.Cumsum, x, axis, exclusive, reverse, "cumsum")


@op
def cumprod(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Cumulative product along `axis`; bool and int32 give int32 (kernel Cumprod)."""
    return _scan(kn.Cumprod, x, axis, exclusive, reverse, "cumprod")
