"""Gradients of kernels that move elements without changing them: reshape, transpose, concat / split,
stack / unstack, tile, reverse, flip, depth_to_space and the space <-> batch pair. Each dx rearranges dy back."""

from __future__ import annotations

from typing import Any

from .. import kernel_names as kn
from .. import ops
from ..tensor import Tensor
from .registry import GradConfig, register_gradient
from .util import Thunks, as_list


def _reshape(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    return {"x": lambda: ops.reshape(dy, x.shape)}


def _expand_dims(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    (x,) = saved
    return {"input": lambda: ops.reshape(dy, x.shape)}


def _transpose(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    perm = attrs["perm"]
    inverse = sorted(range(len(perm)), key=perm.__getitem__)
    return {"x": lambda: ops.transpose(dy, inverse)}


def _concat(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    axis = attrs["axis"]
    parts = ops.split(dy, [t.shape[axis] for t in saved], axis)
    return {str(i): (lambda p=p: p) for i, p in enumerate(parts)}


def _pack(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    parts = ops.unstack(dy, attrs["axis"])
    return {str(i): (lambda p=p: p) for i, p in enumerate(parts)}


def _unpack(dys: Any, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"value": lambda: ops.stack(as_list(dys), attrs["axis"])}


def _split(dys: Any, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"x": lambda: ops.concat(as_list(dys), attrs["axis"])}


def _tile(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    """Output dim i is reps[i] copies of x's dim i: view it as [reps[i], dim i] and sum the copies."""
    (x,) = saved
    reps = attrs["reps"]

    def der_x() -> Tensor:
        split_shape = [n for r, d in zip(reps, x.shape, strict=True) for n in (r, d)]
        return ops.sum(ops.reshape(dy, split_shape), list(range(0, 2 * x.rank, 2)))

    return {"x": der_x}


def _reverse(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"x": lambda: ops.reverse(dy, attrs["dims"])}


def _flip_left_right(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"image": lambda: ops.image.flip_left_right(dy)}


def _depth_to_space(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    """The inverse rearrangement (space_to_depth): split each spatial block off and move it to depth."""
    (x,) = saved
    b = attrs["block_size"]

    def der_x() -> Tensor:
        if attrs["data_format"] == "NHWC":
            n, h, w, c = x.shape
            blocks = ops.reshape(dy, [n, h, b, w, b, c // (b * b)])
            return ops.reshape(ops.transpose(blocks, [0, 1, 3, 2, 4, 5]), x.shape)
        n, c, h, w = x.shape
        blocks = ops.reshape(dy, [n, c // (b * b), h, b, w, b])
        return ops.reshape(ops.transpose(blocks, [0, 3, 5, 1, 2, 4]), x.shape)

    return {"x": der_x}


def _space_to_batch(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"x": lambda: ops.batch_to_space_nd(dy, attrs["block_shape"], attrs["paddings"])}


def _batch_to_space(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> Thunks:
    return {"x": lambda: ops.space_to_batch_nd(dy, attrs["block_shape"], attrs["crops"])}


X = ("x",)
for config in (
    GradConfig(kernel_name=kn.Reshape, inputs_to_save=X, grad_func=_reshape),
    GradConfig(kernel_name=kn.ExpandDims, inputs_to_save=("input",), grad_func=_expand_dims),
    GradConfig(kernel_name=kn.Transpose, grad_func=_transpose),
    GradConfig(kernel_name=kn.Concat, save_all_inputs=True, grad_func=_concat),
    GradConfig(kernel_name=kn.Pack, grad_func=_pack),
    GradConfig(kernel_name=kn.Unpack, grad_func=_unpack),
    GradConfig(kernel_name=kn.SplitV, grad_func=_split),
    GradConfig(kernel_name=kn.Tile, inputs_to_save=X, grad_func=_tile),
    GradConfig(kernel_name=kn.Reverse, grad_func=_reverse),
    GradConfig(kernel_name=kn.FlipLeftRight, grad_func=_flip_left_right),
    GradConfig(kernel_name=kn.DepthToSpace, inputs_to_save=X, grad_func=_depth_to_space),
    GradConfig(kernel_name=kn.SpaceToBatchND, grad_func=_space_to_batch),
    GradConfig(kernel_name=kn.BatchToSpaceND, grad_func=_batch_to_space),
):
    register_gradient(config)
