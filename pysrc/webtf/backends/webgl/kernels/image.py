"""GLSL kernels ResizeBilinear, ResizeNearestNeighbor, CropAndResize, FlipLeftRight, RotateWithOffset and
Transform (NonMaxSuppression* use the cpu kernels, as TF.js's NMS does: it downloads its inputs)."""

from __future__ import annotations

import math
from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    check_box_ind,
    crop_coords,
    js_round,
    resize_info,
    resize_ratio,
    rotate_info,
    rotate_sources,
    transform_sources,
)
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


def flip_left_right(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FlipLeftRight: shaders/FlipLeftRight.glsl."""
    image = inputs["image"]
    w, c = image.shape[2], image.shape[3]
    vec = c % 4 == 0
    key = ("FlipLeftRight", vec, image.dtype == "int32")
    prog = backend.programs.get(key) or backend.programs.build(
        key, "FlipLeftRight", ("X",), 2, 0, ["VEC"] if vec else [], int_output=image.dtype == "int32"
    )
    return backend.run(prog, (image,), image.shape, image.dtype, (w, c))


def _sampled(backend: Any, kernel: str, image: Any, table: array, shape: Any, ints: tuple, floats: tuple) -> Any:
    """Run a table-driven sampling kernel (X = image, T = table uploaded for this call)."""
    key = (kernel, image.dtype == "int32")
    prog = backend.programs.get(key) or backend.programs.build(
        key, kernel, ("X", "T"), len(ints), len(floats), int_output=image.dtype == "int32"
    )
    tinfo = backend.output(table, (len(table),), "float32")
    out = backend.run(prog, (image, tinfo), shape, image.dtype, ints, floats)
    backend.temp(tinfo)
    return out


def rotate_with_offset(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """RotateWithOffset: the source pixels from the cpu kernel's rotate_sources, sampled on the GPU."""
    image = inputs["image"]
    b, h, w, c = image.shape
    if not b * h * w * c:
        return backend.run(None, (), image.shape, image.dtype)
    sources = rotate_sources(image.shape, attrs)
    table = array("f", [*sources, *rotate_info(image.shape, attrs).fills])
    return _sampled(backend, "RotateWithOffset", image, table, image.shape, (h * w, c), ())


_FILL_MODES = {"constant": 1, "reflect": 2, "wrap": 3, "nearest": 4}


def transform(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Transform: bilinear float32 images entirely on the GPU (shaders/TransformBilinear.glsl); else the source
    pixels from the cpu kernel's transform_sources (float64: nearest-neighbor ties land as on cpu), sampled on
    the GPU."""
    image, transforms = inputs["image"], inputs["transforms"]
    b, h, w, c = image.shape
    oh, ow = attrs["output_shape"] or (h, w)
    out_shape = (b, oh, ow, c)
    if not b * oh * ow * c:
        return backend.run(None, (), out_shape, image.dtype)
    bilinear = attrs["interpolation"] == "bilinear"
    rows = 1 if transforms.shape[0] == 1 else b
    fill = (float(attrs["fill_value"]),)
    if bilinear and image.dtype == "float32":
        key = ("TransformBilinear",)
        prog = backend.programs.get(key) or backend.programs.build(key, "TransformBilinear", ("X", "T"), 7, 1)
        ints = (h, w, c, oh, ow, _FILL_MODES[attrs["fill_mode"]], int(rows > 1))
        return backend.run(prog, (image, transforms), out_shape, "float32", ints, fill)
    tv = backend.values(transforms)
    table = array("f")
    for k in range(rows):
        for px in transform_sources(tv[8 * k : 8 * k + 8], h, w, oh, ow, attrs["fill_mode"], bilinear):
            table.extend(px)
    ints = (h * w, c, oh * ow, 8 if bilinear else 1, int(rows > 1))
    return _sampled(backend, "Transform", image, table, out_shape, ints, fill)


KERNELS = {
    kn.ResizeBilinear: resize_bilinear,
    kn.ResizeNearestNeighbor: resize_nearest_neighbor,
    kn.CropAndResize: crop_and_resize,
    kn.FlipLeftRight: flip_left_right,
    kn.RotateWithOffset: rotate_with_offset,
    kn.Transform: transform,
}
