"""2-D pooling (NHWC): max_pool (kernel MaxPool) and avg_pool (kernel AvgPool)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..backend_util import check_conv_args, compute_pool_info, parse_pair
from ..engine import ENGINE
from ..tensor import Tensor
from .conv import from_4d, normalize_pad, to_4d
from .matmul import convert_numeric
from .op import TensorLike, op

__all__ = ["avg_pool", "max_pool"]


def _pool(
    kernel: str,
    op_name: str,
    x: TensorLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Any,
    dim_rounding_mode: str | None,
) -> Tensor:
    tx = convert_numeric(x, "x", op_name, "float32")
    x4 = to_4d(tx, op_name)
    check_conv_args(op_name, strides, 1, pad, dim_rounding_mode)
    fh, fw = parse_pair(filter_size, op_name, "filter_size")
    if fh <= 0 or fw <= 0:
        raise ValueError(f"Error in {op_name}: filter_size should be larger than 0, but got [{fh},{fw}]")
    attrs = {
        "filter_size": (fh, fw),
        "strides": parse_pair(strides, op_name, "strides"),
        "pad": normalize_pad(pad),
        "dim_rounding_mode": dim_rounding_mode,
    }
    compute_pool_info(x4.shape, (fh, fw), attrs["strides"], attrs["pad"], dim_rounding_mode, 1, op_name)
    return from_4d(ENGINE.run_kernel(kernel, {"x": x4}, attrs), tx)


@op
def max_pool(
    x: TensorLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Any,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """The maximum over each filter_size window of NHWC x (padding never wins)."""
    return _pool("MaxPool", "max_pool", x, filter_size, strides, pad, dim_rounding_mode)


@op
def avg_pool(
    x: TensorLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Any,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """The mean over each filter_size window of NHWC x, counting only in-bounds elements."""
    return _pool("AvgPool", "avg_pool", x, filter_size, strides, pad, dim_rounding_mode)
