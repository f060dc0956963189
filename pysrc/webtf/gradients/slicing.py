"""Gradients of slicing, padding and gathering kernels: dx puts dy back where the elements came from.

Scatters (gather, gather_nd, top_k) are one-hot matrix products, so they run on every backend without a
scatter kernel; they take O(indices x rows) memory. Indices get zero gradients.
"""

from __future__ import annotations

from typing import Any

from .. import kernel_names as kn
from .. import ops
from ..backend_util import slice_info
from ..shapes import size_of, strides_of
from ..tensor import Tensor
from .registry import GradConfig, register_gradient
from .util import Thunks, zeros_for


def scatter_add(indices: Tensor, updates: Tensor, n: int) -> Tensor:
    """[..., n, Q]: row i sums the rows updates[..., j, :] with indices[..., j] == i (batch dims broadcast;
    indices [..., I] int32, updates [..., I, Q]); out-of-range indices are dropped."""
    hits = ops.cast(ops.equal(ops.expand_dims(indices, -1), ops.range(0, n, 1, "int32")), "float32")
    return ops.mat_mul(hits, updates, transpose_a=True)


def _slice(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    pads = [(b, d - b - s) for b, s, d in zip(attrs["begin"], attrs["size"], x.shape, strict=True)]
    return {"x": lambda: ops.pad(dy, pads)}


def _strided_slice(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    """Undo the slice per input dim: reverse negative strides, spread elements |stride| apart, pad."""
    (x,) = saved
    info = slice_info(x.shape, *(attrs[k] for k in _SLICE_ATTRS))

    def der_x() -> Tensor:
        if 0 in info.sizes:
            return ops.zeros(x.shape)
        g = ops.reshape(dy, info.sizes)
        backwards = [d for d, s in enumerate(info.strides) if s < 0]
        if backwards:
            g = ops.reverse(g, backwards)
        steps = [abs(s) for s in info.strides]
        spans = [(n - 1) * s + 1 for n, s in zip(info.sizes, steps, strict=True)]
        if any(s > 1 for s in steps):
            g = ops.reshape(g, [m for n in info.sizes for m in (n, 1)])
            g = ops.pad(g, [p for s in steps for p in ((0, 0), (0, s - 1))])
            g = ops.slice(ops.reshape(g, [n * s for n, s in zip(info.sizes, steps, strict=True)]), 0, spans)
        first = [
            b if s > 0 else b + (n - 1) * s
            for b, s, n in zip(info.begin, info.strides, info.sizes, strict=True)
        ]
        return ops.pad(g, [(f, d - f - span) for f, d, span in zip(first, x.shape, spans, strict=True)])

    return {"x": der_x}


_SLICE_ATTRS = (
    "begin", "end", "strides", "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"
)  # fmt: skip


def _pad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    return {"x": lambda: ops.slice(dy, [p[0] for p in attrs["paddings"]], x.shape)}


def _take(g: Tensor, axis: int, start: int, size: int) -> Tensor:
    begin = [start if a == axis else 0 for a in range(g.rank)]
    return ops.slice(g, begin, [size if a == axis else -1 for a in range(g.rank)])


def _pad_axis(g: Tensor, axis: int, before: int, after: int) -> Tensor:
    return ops.pad(g, [(before, after) if a == axis else (0, 0) for a in range(g.rank)])


def _mirror_pad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    """Each padded element is a copy of an x element: fold the reflected borders back onto x, dim by dim
    (TF.js only slices the center out, which drops the borders' share)."""
    (x,) = saved
    offset = 1 if attrs["mode"] == "reflect" else 0

    def der_x() -> Tensor:
        g = dy
        for axis, (lo, hi) in enumerate(attrs["paddings"]):
            d = x.shape[axis]
            folded = _take(g, axis, lo, d)
            if lo:
                left = ops.reverse(_take(g, axis, 0, lo), axis)
                folded = ops.add(folded, _pad_axis(left, axis, offset, d - offset - lo))
            if hi:
                right = ops.reverse(_take(g, axis, lo + d, hi), axis)
                folded = ops.add(folded, _pad_axis(right, axis, d - offset - hi, offset))
            g = folded
        return g

    return {"x": der_x}


def _gather(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, indices = saved
    axis, batch_dims = attrs["axis"], attrs["batch_dims"]

    def der_x() -> Tensor:
        b, p = size_of(x.shape[:batch_dims]), size_of(x.shape[batch_dims:axis])
        i, q = size_of(indices.shape[batch_dims:]), size_of(x.shape[axis + 1 :])
        flat = ops.reshape(indices, [b, 1, i])
        return ops.reshape(scatter_add(flat, ops.reshape(dy, [b, p, i, q]), x.shape[axis]), x.shape)

    return {"x": der_x, "indices": lambda: ops.zeros(indices.shape)}


def _gather_nd(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    params, indices = saved
    k = indices.shape[-1]

    def der_params() -> Tensor:
        strides = ops.tensor(list(strides_of(params.shape[:k])), dtype="int32")
        rows = ops.reshape(ops.sum(ops.mul(indices, strides), -1), [-1])
        updates = ops.reshape(dy, [rows.size, size_of(params.shape[k:])])
        return ops.reshape(scatter_add(rows, updates, size_of(params.shape[:k])), params.shape)

    return {"params": der_params, "indices": lambda: ops.zeros(indices.shape)}


def _top_k(dys: list[Tensor], saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    x, indices = saved
    d_values = dys[0]

    def der_x() -> Tensor:
        updates = ops.expand_dims(d_values, -1)
        return ops.reshape(scatter_add(indices, updates, x.shape[-1]), x.shape)

    return {"x": der_x}


def _nms_with_score(dys: list[Tensor], saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    """selected_scores are scores[selected_indices] (without Soft-NMS): scatter their dy back."""
    boxes, scores, indices = saved
    if attrs["soft_nms_sigma"] > 0:
        raise LookupError(
            "Cannot compute gradient: kernel 'NonMaxSuppressionV5' with soft_nms_sigma > 0 has no gradient"
        )

    def der_scores() -> Tensor:
        return ops.reshape(scatter_add(indices, ops.expand_dims(dys[1], -1), scores.size), scores.shape)

    return {"boxes": lambda: ops.zeros(boxes.shape), "scores": der_scores}


X = ("x",)
NMS = ("boxes", "scores")
for config in (
    GradConfig(kernel_name=kn.Slice, inputs_to_save=X, grad_func=_slice),
    GradConfig(kernel_name=kn.StridedSlice, inputs_to_save=X, grad_func=_strided_slice),
    GradConfig(kernel_name=kn.PadV2, inputs_to_save=X, grad_func=_pad),
    GradConfig(kernel_name=kn.MirrorPad, inputs_to_save=X, grad_func=_mirror_pad),
    GradConfig(kernel_name=kn.GatherV2, inputs_to_save=("x", "indices"), grad_func=_gather),
    GradConfig(kernel_name=kn.GatherNd, inputs_to_save=("params", "indices"), grad_func=_gather_nd),
    GradConfig(kernel_name=kn.TopK, inputs_to_save=X, outputs_to_save=(False, True), grad_func=_top_k),
    GradConfig(kernel_name=kn.OneHot, inputs_to_save=("indices",), grad_func=zeros_for("indices")),
    GradConfig(kernel_name=kn.NonMaxSuppressionV3, inputs_to_save=NMS, grad_func=zeros_for(*NMS)),
    GradConfig(kernel_name=kn.NonMaxSuppressionV4, inputs_to_save=NMS, grad_func=zeros_for(*NMS)),
    GradConfig(
        kernel_name=kn.NonMaxSuppressionV5,
        inputs_to_save=NMS,
        outputs_to_save=(True, False),
        grad_func=_nms_with_score,
    ),
):
    register_gradient(config)
