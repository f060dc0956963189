"""Gradients of FusedBatchNorm (every input, parameters summed back over the axes they broadcast), LRN,
UnsortedSegmentSum and Dilation2D."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as kn
from .. import ops
from ..engine import ENGINE
from ..tensor import Tensor
from .registry import GradConfig, register_gradient
from .util import Thunks, unbroadcast


def _batch_norm(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, mean, variance, offset, scale = saved
    inv_std = ops.rsqrt(ops.add(variance, attrs["variance_epsilon"]))
    centred = ops.sub(x, mean)
    dy_scaled = dy if scale is None else ops.mul(dy, scale)
    thunks = {
        "x": lambda: ops.mul(dy_scaled, inv_std),
        "mean": lambda: unbroadcast(ops.neg(ops.mul(dy_scaled, inv_std)), mean.shape),
        "variance": lambda: unbroadcast(
            ops.mul(ops.mul(ops.pow(inv_std, 3), -0.5), ops.mul(centred, dy_scaled)), variance.shape
        ),
    }
    if offset is not None:
        thunks["offset"] = lambda: unbroadcast(dy, offset.shape)
    if scale is not None:
        thunks["scale"] = lambda: unbroadcast(ops.mul(dy, ops.mul(centred, inv_std)), scale.shape)
    return thunks


def _lrn(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, y = saved
    return {"x": lambda: ENGINE.run_kernel(kn.LRNGrad, {"x": x, "y": y, "dy": dy}, dict(attrs))}


for config in (
    GradConfig(
        kernel_name=kn.FusedBatchNorm,
        inputs_to_save=("x", "mean", "variance", "offset", "scale"),
        grad_func=_batch_norm,
    ),
    GradConfig(kernel_name=kn.LRN, inputs_to_save=("x",), outputs_to_save=(True,), grad_func=_lrn),
):
    register_gradient(config)


def _unsorted_segment_sum(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (ids,) = saved
    n = int(attrs["num_segments"])

    def dx() -> Tensor:
        valid = ops.logical_and(ops.greater_equal(ids, 0), ops.less(ids, n))
        rows = ops.gather(dy, ops.where(valid, ids, ops.zeros_like(ids)))
        mask = ops.reshape(ops.cast(valid, rows.dtype), [ids.shape[0]] + [1] * (rows.rank - 1))
        return ops.mul(rows, mask)

    return {"x": dx, "segment_ids": lambda: ops.zeros_like(ids)}


register_gradient(
    GradConfig(
        kernel_name=kn.UnsortedSegmentSum, inputs_to_save=("segment_ids",), grad_func=_unsorted_segment_sum
    )
)


def _dilation2d(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, f = saved
    inputs = {"x": x, "filter": f, "dy": dy}
    return {
        "x": lambda: ENGINE.run_kernel(kn.Dilation2DBackpropInput, dict(inputs), dict(attrs)),
        "filter": lambda: ENGINE.run_kernel(kn.Dilation2DBackpropFilter, dict(inputs), dict(attrs)),
    }


register_gradient(
    GradConfig(kernel_name=kn.Dilation2D, inputs_to_save=("x", "filter"), grad_func=_dilation2d)
)
