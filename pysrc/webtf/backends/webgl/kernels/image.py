"""GLSL kernels ResizeBilinear, ResizeNearestNeighbor and CropAndResize (NonMaxSuppression*, FlipLeftRight,
RotateWithOffset and Transform use the cpu kernels, as TF.js's NMS does: it downloads its inputs)."""

from __future__ import annotations

import math
from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util import check_box_ind, crop_coords, js_round, resize_info, resize_ratio
from ...base import TensorInfo


def _resize(backend: Any, inputs: Any, attrs: dict[str, Any], nearest: bool) -> TensorInfo:
    images = inputs["images"]
    batch, h, w, c, new_h, new_w, align, half = resize_info(images.shape, attrs)
    dtype = images.dtype if nearest else "float32"
    vec = c % 4 == 0
    kernel = "ResizeNearestNeighbor" if nearest else "ResizeBilinear"
    key = (kernel, vec, dtype == "int32")
    prog = backend.programs.get(key)
    if prog is None:
        ni = 11 if nearest else 10
        prog = backend.programs.build(
            key, kernel, ("X",), ni, 0, ["VEC"] if vec else [], int_output=dtype == "int32"
        )
    flags = (int(half), int(align)) if nearest else (int(half),)
    ints = (h, w, c, new_h, new_w, *flags, *resize_ratio(h, new_h, align), *resize_ratio(w, new_w, align))
    return backend.run(prog, (images,), (batch, new_h, new_w, c), dtype, ints)


def resize_bilinear(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeBilinear: shaders/ResizeBilinear.glsl."""
    return _resize(backend, inputs, attrs, False)


def resize_nearest_neighbor(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeNearestNeighbor: shaders/ResizeNearestNeighbor.glsl."""
    return _resize(backend, inputs, attrs, True)


def _crop_table(
    boxes: Any, box_ind: Any, batch: int, h: int, w: int, ch: int, cw: int, nearest: bool
) -> array:
    """Per box: image index, then (low, high, fraction) per crop row and per crop column (see the shader)."""
    table = array("f")
    for k, b in enumerate(box_ind):
        y1, x1, y2, x2 = boxes[4 * k : 4 * k + 4]
        table.append(float(b))
        for v1, v2, n, nc in ((y1, y2, h, ch), (x1, x2, w, cw)):
            for v in crop_coords(v1, v2, n, nc):
                if not 0 <= v <= n - 1:
                    table.extend((-1.0, -1.0, 0.0))
                elif nearest:
                    r = js_round(v)
                    table.extend((r, r, 0.0))
                else:
                    lo = math.floor(v)
                    table.extend((lo, math.ceil(v), v - lo))
    return table


def crop_and_resize(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """CropAndResize.

    The sample positions are computed on the host in float64 from the boxes (downloaded if they live on the
    GPU: n * 4 values), exactly as the cpu kernel, then the GPU samples the image.
    """
    image, boxes, box_ind = inputs["image"], inputs["boxes"], inputs["box_ind"]
    batch, h, w, c = image.shape
    ch, cw = attrs["crop_size"]
    nearest = attrs["method"] == "nearest"
    n = boxes.shape[0]
    if n * ch * cw * c == 0:
        return backend.output(array("f"), (n, ch, cw, c), "float32")
    indices = backend.values(box_ind)
    check_box_ind(indices, batch)
    table = _crop_table(backend.values(boxes), indices, batch, h, w, ch, cw, nearest)
    tinfo = backend.output(table, (len(table),), "float32")
    key = ("CropAndResize",)
    prog = backend.programs.get(key) or backend.programs.build(key, "CropAndResize", ("X", "T"), 5, 1)
    floats = (float(attrs["extrapolation_value"]),)
    out = backend.run(prog, (image, tinfo), (n, ch, cw, c), "float32", (h, w, c, ch, cw), floats)
    backend.temp(tinfo)
    return out


KERNELS = {
    kn.ResizeBilinear: resize_bilinear,
    kn.ResizeNearestNeighbor: resize_nearest_neighbor,
    kn.CropAndResize: crop_and_resize,
}
