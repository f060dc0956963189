"""softmax (kernel Softmax) and log_softmax (kernel LogSoftmax), over the last axis like TF.js."""

from __future__ import annotations

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import axis_arg
from .op import TensorLike, convert_to_tensor, op

__all__ = ["softmax", "log_softmax"]


def _prepare(logits: TensorLike, dim: int, arg: str, op_name: str, what: str) -> Tensor:
    t = convert_to_tensor(logits, "logits", op_name, "float32")
    if t.rank == 0:
        raise ValueError(
            f"Error in {op_name}: logits must have rank >= 1, but got a scalar (shape {fmt(t.shape)})"
        )
    if axis_arg(dim, t.rank, op_name, arg) != t.rank - 1:
        raise ValueError(
            f"Error in {op_name}: {what} along a non-last dimension is not yet supported. "
            f"Logits was rank {t.rank} and {arg} was {dim}"
        )
    if t.dtype != "float32":
        t = ENGINE.run_kernel(kn.Cast, {"x": t}, {"dtype": "float32"})
    return t


@op
def softmax(logits: TensorLike, dim: int = -1) -> Tensor:
    """exp(logits) / sum(exp(logits)) along the last axis, computed stably (float32; kernel Softmax)."""
    t = _prepare(logits, dim, "dim", "softmax", "Softmax")
    return ENGINE.run_kernel(kn.Softmax, {"logits": t}, {"dim": t.rank - 1})


@op
def log_softmax(logits: TensorLike, axis: int = -1) -> Tensor:
    """logits - log(sum(exp(logits))) along the last axis, computed stably (float32; kernel LogSoftmax)."""
    t = _prepare(logits, axis, "axis", "log_softmax", "Log Softmax")
    return ENGINE.run_kernel(kn.LogSoftmax, {"logits": t}, {"axis": t.rank - 1})
