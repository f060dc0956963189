"""top_k (kernel TopK): the k largest entries along the last axis, with their indices."""

from __future__ import annotations

from typing import NamedTuple

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import flag_arg, int_arg
from .op import TensorLike, convert_to_tensor, op

__all__ = ["top_k"]


class TopK(NamedTuple):
    """top_k's result: unpacks as (values, indices), like TF.js's {values, indices}."""

    values: Tensor
    indices: Tensor


@op
def top_k(x: TensorLike, k: int = 1, sorted: bool = True) -> TopK:  # noqa: A002
    """(values, indices) of the k largest entries along the last axis; ties keep the lower index first."""
    t = convert_to_tensor(x, "x", "top_k")
    if t.rank == 0:
        raise ValueError(f"Error in top_k: x must be of rank 1 or higher, but got shape {fmt(t.shape)}")
    k = int_arg(k, "k", "top_k")
    last = t.shape[-1]
    if k < 0:
        raise ValueError(f"Error in top_k: 'k' passed to top_k() must be >= 0 but got {k}")
    if k > last:
        raise ValueError(
            f"Error in top_k: 'k' passed to top_k() must be <= the last dimension ({last}) but got {k} "
            f"(x has shape {fmt(t.shape)})"
        )
    return TopK(
        *ENGINE.run_kernel(kn.TopK, {"x": t}, {"k": k, "sorted": flag_arg(sorted, "sorted", "top_k")})
    )
