"""numpy backward kernels of resizing: ResizeBilinearGrad and ResizeNearestNeighborGrad (contracts in
webtf.kernel_names): the exact transpose of the forward kernels, with the same source coordinates and
weights (backend_util), in float64. Along each axis the source indices never decrease, so the dy rows (then
columns) that land on one source row are summed by one np.add.reduceat."""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import kernel_names as kn
from ....backend_util import bilinear_axis, nearest_axis
from ...base import TensorInfo


def _scatter(v: np.ndarray, index: np.ndarray, n: int, axis: int) -> np.ndarray:
    """out with out.shape[axis] == n and out[.., index[k], ..] = the sum of v[.., k, ..] over equal indices
    (index non-decreasing, one per position of v along `axis`)."""
    shape = list(v.shape)
    shape[axis] = n
    out = np.zeros(shape)
    if v.shape[axis] == 0 or n == 0:
        return out
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    where: list[Any] = [slice(None)] * v.ndim
    where[axis] = index[starts]
    out[tuple(where)] = np.add.reduceat(v, starts, axis=axis)
    return out


def _spread(v: np.ndarray, n_in: int, axis: int, align: bool, half: bool, bilinear: bool) -> np.ndarray:
    """dy along one axis given back to the n_in source positions it was read from, with its weights."""
    n_out = v.shape[axis]
    if not bilinear:
        return _scatter(v, np.asarray(nearest_axis(n_in, n_out, align, half)), n_in, axis)
    lo, hi, frac = (np.asarray(a) for a in bilinear_axis(n_in, n_out, align, half))
    t = frac.reshape([-1 if k == axis else 1 for k in range(v.ndim)])
    return _scatter(v * (1.0 - t), lo, n_in, axis) + _scatter(v * t, hi, n_in, axis)


def _resize_grad(backend: Any, inputs: Any, attrs: dict[str, Any], bilinear: bool) -> TensorInfo:
    _, h, w, _ = inputs["images"].shape
    align, half = bool(attrs["align_corners"]), bool(attrs["half_pixel_centers"])
    dy = backend.nd(inputs["dy"]).astype(np.float64)
    rows = _spread(dy, h, 1, align, half, bilinear)
    return backend.make(_spread(rows, w, 2, align, half, bilinear), "float32")


def resize_bilinear_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeBilinearGrad {images, dy}: dx of images' shape (float32)."""
    return _resize_grad(backend, inputs, attrs, True)


def resize_nearest_neighbor_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeNearestNeighborGrad {images, dy}: dx of images' shape (float32)."""
    return _resize_grad(backend, inputs, attrs, False)


KERNELS = {
    kn.ResizeBilinearGrad: resize_bilinear_grad,
    kn.ResizeNearestNeighborGrad: resize_nearest_neighbor_grad,
}
