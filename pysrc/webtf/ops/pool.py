"""2-D pooling (NHWC): max_pool (kernel MaxPool) and avg_pool (kernel AvgPool)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import kernel_names as kn
from ..backend_util import check_conv_args, compute_pool_info, parse_pair, trim_pool_window
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import check_size
from .conv import from_4d, normalize_pad, to_4d
from .op import TensorLike, convert_non_bool, named_op

__all__ = ["avg_pool", "max_pool"]


def _pool_op(kernel: str, name: str, doc: str) -> Callable[..., Tensor]:
    """The op `name` (docstring `doc`): `kernel` over each filter_size window of NHWC x."""

    def pool_op(
        x: TensorLike,
        filter_size: int | Sequence[int],
        strides: int | Sequence[int],
        pad: Any,
        dim_rounding_mode: str | None = None,
    ) -> Tensor:
        tx = convert_non_bool(x, "x", name, "float32")
        x4 = to_4d(tx, name)
        check_conv_args(name, strides, 1, pad, dim_rounding_mode)
        fh, fw = parse_pair(filter_size, name, "filter_size")
        if fh <= 0 or fw <= 0:
            raise ValueError(f"Error in {name}: filter_size should be larger than 0, but got [{fh},{fw}]")
        attrs = {
            "filter_size": (fh, fw),
            "strides": parse_pair(strides, name, "strides"),
            "pad": normalize_pad(pad),
            "dim_rounding_mode": dim_rounding_mode,
        }
        info = compute_pool_info(
            x4.shape, (fh, fw), attrs["strides"], attrs["pad"], dim_rounding_mode, 1, name
        )
        check_size(info.out_shape, name, f" (x {fmt(tx.shape)})")
        trimmed = trim_pool_window(info)
        if trimmed is not None:  # a window larger than the input: the taps off the input take no part
            attrs.update(filter_size=trimmed[0], pad=trimmed[1], dim_rounding_mode=None)
        return from_4d(ENGINE.run_kernel(kernel, {"x": x4}, attrs), tx)

    return named_op(pool_op, name, doc)


max_pool = _pool_op(
    kn.MaxPool, "max_pool", "The maximum over each filter_size window of NHWC x (padding never wins)."
)
avg_pool = _pool_op(
    kn.AvgPool,
    "avg_pool",
    "The mean over each filter_size window of NHWC x, counting only in-bounds elements.",
)
