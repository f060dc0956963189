"""Gradients of ResizeBilinear and ResizeNearestNeighbor (kernels ResizeBilinearGrad, ResizeNearestNeighborGrad)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import kernel_names as kn
from ..ops import backprop
from ..tensor import Tensor
from .registry import GradConfig, register_gradient


def _resize_grad(
    bilinear: bool,
) -> Callable[[Tensor, list[Any], dict[str, Any]], dict[str, Callable[[], Tensor]]]:
    op = backprop.resize_bilinear_grad if bilinear else backprop.resize_nearest_neighbor_grad

    def grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> dict[str, Callable[[], Tensor]]:
        (images,) = saved
        return {"images": lambda: op(images, dy, attrs["align_corners"], attrs["half_pixel_centers"])}

    return grad


register_gradient(
    GradConfig(kernel_name=kn.ResizeBilinear, grad_func=_resize_grad(True), inputs_to_save=("images",))
)
register_gradient(
    GradConfig(kernel_name=kn.ResizeNearestNeighbor, grad_func=_resize_grad(False), inputs_to_save=("images",))
)
