"""cpu backward kernels of resizing: ResizeBilinearGrad and ResizeNearestNeighborGrad.

Inputs {images, dy}: images [b, h, w, c] (only its shape is used), dy [b, new_h, new_w, c]; attrs
align_corners, half_pixel_centers (the forward's). Output: float32 dx of images' shape, the exact transpose
of the forward kernel (image.py, the same source coordinates): each dy element is added to the pixels it was
read from, with the interpolation weights.
"""

from __future__ import annotations

from itertools import repeat
from operator import add, mul
from typing import Any

from .... import kernel_names as kn
from ....backend_util import bilinear_axis, nearest_axis
from ...base import TensorInfo
from .matmul import to_array


def axis_weights(n_in: int, n_out: int, align: bool, half: bool, bilinear: bool) -> list[tuple]:
    """Per output index along one axis: ((source index, weight), ...), the pixels it reads."""
    if not bilinear:
        return [((i, 1.0),) for i in nearest_axis(n_in, n_out, align, half)]
    lo, hi, frac = bilinear_axis(n_in, n_out, align, half)
    return [((a, 1.0 - t), (b, t)) for a, b, t in zip(lo, hi, frac, strict=True)]


def _resize_grad(backend: Any, inputs: Any, attrs: dict[str, Any], bilinear: bool) -> TensorInfo:
    images, dy = inputs["images"], inputs["dy"]
    batch, h, w, c = images.shape
    new_h, new_w = dy.shape[1], dy.shape[2]
    align, half = bool(attrs["align_corners"]), bool(attrs["half_pixel_centers"])
    rows = axis_weights(h, new_h, align, half, bilinear)
    cols = axis_weights(w, new_w, align, half, bilinear)
    dyv, row_len = backend.values(dy), new_w * c
    out: list = []
    for b in range(batch):
        acc = [[0.0] * (w * c) for _ in range(h)]
        for y, row_weights in enumerate(rows):
            off = (b * new_h + y) * row_len
            dyrow = dyv[off : off + row_len]
            line = [0.0] * (w * c)  # dy's row spread over one source row's columns
            for x, col_weights in enumerate(cols):
                seg = dyrow[x * c : (x + 1) * c]
                for src, weight in col_weights:
                    part = slice(src * c, (src + 1) * c)
                    line[part] = map(add, line[part], map(mul, seg, repeat(weight)))
            for src, weight in row_weights:
                acc[src] = list(map(add, acc[src], map(mul, line, repeat(weight))))
        for row in acc:
            out.extend(row)
    return backend.output(to_array(out, "float32"), images.shape, "float32")


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
