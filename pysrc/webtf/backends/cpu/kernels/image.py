"""cpu image kernels: ResizeBilinear, ResizeNearestNeighbor, CropAndResize, NonMaxSuppressionV3/V4/V5,
FlipLeftRight, Transform, RotateWithOffset.

Coordinate math follows TF.js's cpu kernels exactly (same float operations in the same order, in Python
floats, stored as float32); the resize/crop coordinates and NMS are backend_util's, shared by every backend.
Work is vectorized per image row: per-output-column source offsets and weights are computed once per call,
and rows are combined with map() over C-level operators.
"""

from __future__ import annotations

import math
from array import array
from itertools import repeat
from operator import add, mul, sub
from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    NmsResult,
    bilinear_axis,
    check_box_ind,
    crop_coords,
    js_round,
    nearest_axis,
    non_max_suppression_impl,
    resize_info,
    rotate_info,
    rotate_sources,
    transform_sources,
)
from ...base import TensorInfo


def _lerp(a: Any, b: Any, t: Any) -> list[float]:
    """a + (b - a) * t elementwise (t an iterable), in TF.js's operation order."""
    return list(map(add, a, map(mul, map(sub, b, a), t)))


def _expand(cols: list[int], channels: int) -> list[int]:
    """Flat offsets within an image row of every (column, channel) pair."""
    return [c * channels + d for c in cols for d in range(channels)]


# ---- resize ----------------------------------------------------------------------------------------
def _resize_args(backend: Any, inputs: Any, attrs: dict[str, Any]) -> tuple[Any, Any, tuple[int, ...], tuple]:
    """(images, their values, the output shape, resize_info's (batch, h, w, c, new_h, new_w, align, half))."""
    images = inputs["images"]
    info = resize_info(images.shape, attrs)
    batch, _, _, c, new_h, new_w, _, _ = info
    return images, backend.values(images), (batch, new_h, new_w, c), info


def resize_bilinear(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeBilinear with TF.js's source-coordinate rules."""
    _, vals, shape, (batch, h, w, c, new_h, new_w, align, half) = _resize_args(backend, inputs, attrs)
    if 0 in shape:
        return backend.output(array("f"), shape, "float32")
    top, bottom, row_frac = bilinear_axis(h, new_h, align, half)
    left, right, col_frac = bilinear_axis(w, new_w, align, half)
    left_idx, right_idx = _expand(left, c), _expand(right, c)
    col_t = [f for f in col_frac for _ in range(c)]
    row_len = w * c
    out = array("f")
    for b in range(batch):
        rows: dict[int, list[float]] = {}  # source row -> horizontally interpolated row
        for y in {*top, *bottom}:
            start = (b * h + y) * row_len
            get = vals[start : start + row_len].__getitem__
            rows[y] = _lerp(list(map(get, left_idx)), list(map(get, right_idx)), col_t)
        diffs: dict[tuple[int, int], list[float]] = {}  # (y0, y1) -> rows[y1] - rows[y0] (upsampling reuses it)
        for y0, y1, t in zip(top, bottom, row_frac, strict=True):
            d = diffs.get((y0, y1))
            if d is None:
                d = diffs[(y0, y1)] = list(map(sub, rows[y1], rows[y0]))
            out.extend(map(add, rows[y0], map(mul, d, repeat(t))))  # _lerp's order: a + (b - a) * t
    return backend.output(out, shape, "float32")


def resize_nearest_neighbor(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeNearestNeighbor with TF.js's source-coordinate rules."""
    images, vals, shape, (batch, h, w, c, new_h, new_w, align, half) = _resize_args(backend, inputs, attrs)
    if 0 in shape:
        return backend.output(array(vals.typecode), shape, images.dtype)
    rows = nearest_axis(h, new_h, align, half)
    col_idx = _expand(nearest_axis(w, new_w, align, half), c)
    row_len = w * c
    out = array(vals.typecode)
    for b in range(batch):
        cache: dict[int, array] = {}
        for y in rows:
            r = cache.get(y)
            if r is None:
                start = (b * h + y) * row_len
                r = cache[y] = array(vals.typecode, map(vals[start : start + row_len].__getitem__, col_idx))
            out.extend(r)
    return backend.output(out, shape, images.dtype)


# ---- crop and resize -------------------------------------------------------------------------------
def crop_and_resize(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """CropAndResize -> [n, crop_h, crop_w, c]; samples outside the image get extrapolation_value, and boxes
    whose box_ind is outside [0, batch) are an error (TF.js gives zeros)."""
    image, boxes, box_ind = inputs["image"], inputs["boxes"], inputs["box_ind"]
    batch, h, w, c = image.shape
    n = boxes.shape[0]
    ch, cw = attrs["crop_size"]
    nearest = attrs["method"] == "nearest"
    extrap = float(attrs["extrapolation_value"])
    img, bx, bi = backend.values(image), backend.values(boxes), backend.values(box_ind)
    check_box_ind(bi, batch)
    row_len, crop_row = w * c, cw * c
    out = array("f", bytes(4 * n * ch * crop_row))
    extrap_row = array("f", [extrap]) * crop_row
    for k in range(n):
        b = int(bi[k])
        y1, x1, y2, x2 = bx[4 * k : 4 * k + 4]
        ys = crop_coords(y1, y2, h, ch)
        xs = crop_coords(x1, x2, w, cw)
        bad_cols = [i for i, x in enumerate(xs) if not 0 <= x <= w - 1]
        fallback = next((x for x in xs if 0 <= x <= w - 1), 0.0)  # stand-in for columns outside the image
        xs_ok = [x if 0 <= x <= w - 1 else fallback for x in xs]
        # read only the span of columns this box touches, with offsets relative to its first column
        if nearest:
            cols = [js_round(x) for x in xs_ok]
            first, last = min(cols), max(cols)
            col_idx = _expand([x - first for x in cols], c)
        else:
            left, right = [math.floor(x) for x in xs_ok], [math.ceil(x) for x in xs_ok]
            first, last = min(left), max(right)
            left_idx, right_idx = (
                _expand([x - first for x in left], c),
                _expand([x - first for x in right], c),
            )
            col_t = [x - lo for x, lo in zip(xs_ok, left, strict=True) for _ in range(c)]
        span_start, span_len = first * c, (last - first + 1) * c
        inside = [y for y in ys if 0 <= y <= h - 1]
        needed = (
            {js_round(y) for y in inside}
            if nearest
            else {f(y) for y in inside for f in (math.floor, math.ceil)}
        )
        rows: dict[int, list[float]] = {}  # source row -> its horizontally resampled values
        for y in needed:
            start = (b * h + y) * row_len + span_start
            get = img[start : start + span_len].__getitem__
            if nearest:
                rows[y] = list(map(get, col_idx))
            else:
                rows[y] = _lerp(list(map(get, left_idx)), list(map(get, right_idx)), col_t)
        for i, y in enumerate(ys):
            pos = (k * ch + i) * crop_row
            if not 0 <= y <= h - 1:
                out[pos : pos + crop_row] = extrap_row
                continue
            if nearest:
                row = list(rows[js_round(y)])
            else:
                top = math.floor(y)
                row = _lerp(rows[top], rows[math.ceil(y)], repeat(y - top))
            for j in bad_cols:
                row[j * c : (j + 1) * c] = [extrap] * c
            out[pos : pos + crop_row] = array("f", row)
    return backend.output(out, (n, ch, cw, c), "float32")


# ---- non max suppression ---------------------------------------------------------------------------
def _nms(
    backend: Any, inputs: Any, attrs: dict[str, Any], sigma: float = 0.0, pad: bool = False
) -> NmsResult:
    return non_max_suppression_impl(
        backend.values(inputs["boxes"]),
        backend.values(inputs["scores"]),
        attrs["max_output_size"],
        attrs["iou_threshold"],
        attrs["score_threshold"],
        sigma,
        pad,
    )


def _indices(backend: Any, res: NmsResult) -> TensorInfo:
    return backend.output(array("i", res.selected_indices), (len(res.selected_indices),), "int32")


def non_max_suppression_v3(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """NonMaxSuppressionV3: the selected indices."""
    return _indices(backend, _nms(backend, inputs, attrs))


def non_max_suppression_v4(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """NonMaxSuppressionV4: V3, indices zero-padded to max_output_size when asked, and their count."""
    res = _nms(backend, inputs, attrs, pad=attrs["pad_to_max_output_size"])
    return [_indices(backend, res), backend.output(array("i", [res.valid_outputs]), (), "int32")]


def non_max_suppression_v5(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """NonMaxSuppressionV5: V3 with soft suppression (sigma), and the selected scores."""
    res = _nms(backend, inputs, attrs, sigma=attrs["soft_nms_sigma"])
    scores = array("f", res.selected_scores)
    return [_indices(backend, res), backend.output(scores, (len(scores),), "float32")]


# ---- flips, rotations, projective transforms ------------------------------------------------------
def _typed(values: list[Any], dtype: str) -> array:
    """Store results like a typed array of `dtype` does (int32 truncates toward zero, NaN -> 0)."""
    if dtype == "float32":
        return array("f", values)
    return array("i", [int(v) if v == v else 0 for v in values])


def flip_left_right(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """image [b,h,w,c] -> the same with every row's pixels in reverse order."""
    image = inputs["image"]
    b, h, w, c = image.shape
    vals = backend.values(image)
    out = array(vals.typecode, vals)
    row_len = w * c
    for start in range(0, b * h * row_len, row_len):
        for d in range(c):  # each channel's values of the row, reversed in place
            seg = vals[start + d : start + row_len : c]
            seg.reverse()
            out[start + d : start + row_len : c] = seg
    return backend.output(out, image.shape, image.dtype)


def rotate_with_offset(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """RotateWithOffset: pixels from outside get fill_value (an [r, g, b] fill gives 255 in channel 3)."""
    image = inputs["image"]
    b, h, w, c = image.shape
    vals = backend.values(image)
    n = len(vals)
    ext = vals.tolist() + rotate_info(image.shape, attrs).fills  # index n + d reads channel d's fill value
    pix = [p * c for p in rotate_sources(image.shape, attrs)]
    image_len = h * w * c
    idx = [
        base + p + d if p >= 0 else n + d
        for base in range(0, b * image_len, image_len)
        for p in pix
        for d in range(c)
    ]
    return backend.output(_typed(list(map(ext.__getitem__, idx)), image.dtype), image.shape, image.dtype)


def transform(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Transform: projectively transformed images, same dtype.

    Row [a0,a1,a2,b0,b1,b2,c0,c1] maps output (x, y) to input ((a0x+a1y+a2)/k, (b0x+b1y+b2)/k) with
    k = c0x+c1y+1.
    """
    image, transforms = inputs["image"], inputs["transforms"]
    b, h, w, c = image.shape
    out_h, out_w = attrs["output_shape"] or (h, w)
    mode, fill, bilinear = attrs["fill_mode"], attrs["fill_value"], attrs["interpolation"] == "bilinear"
    vals, tv = backend.values(image), backend.values(transforms)
    n = len(vals)
    ext = vals.tolist() + [fill]  # index n reads the fill value
    image_len = h * w * c
    chans = range(c)
    out: list[float] = []
    for k in range(b):
        row = tv[0:8] if transforms.shape[0] == 1 else tv[8 * k : 8 * k + 8]
        base = k * image_len
        # source element offsets (-1: the fill value) and, for bilinear, the weights
        pix = [
            tuple(base + p * c if p >= 0 else -1 for p in px[:4]) + px[4:]
            for px in transform_sources(row, h, w, out_h, out_w, mode, bilinear)
        ]
        if not pix:
            continue
        if not bilinear:
            out.extend(map(ext.__getitem__, [p + d if p >= 0 else n for (p,) in pix for d in chans]))
            continue
        cols = list(zip(*pix, strict=True))
        v00, v01, v10, v11 = (
            [ext[p + d] if p >= 0 else fill for p in col for d in chans] for col in cols[:4]
        )
        wx0, wx1, wy0, wy1 = ([v for v in col for _ in chans] for col in cols[4:])
        top = map(add, map(mul, wx0, v00), map(mul, wx1, v01))
        bot = map(add, map(mul, wx0, v10), map(mul, wx1, v11))
        out.extend(map(add, map(mul, wy0, top), map(mul, wy1, bot)))
    return backend.output(_typed(out, image.dtype), (b, out_h, out_w, c), image.dtype)


KERNELS = {
    kn.ResizeBilinear: resize_bilinear,
    kn.ResizeNearestNeighbor: resize_nearest_neighbor,
    kn.CropAndResize: crop_and_resize,
    kn.NonMaxSuppressionV3: non_max_suppression_v3,
    kn.NonMaxSuppressionV4: non_max_suppression_v4,
    kn.NonMaxSuppressionV5: non_max_suppression_v5,
    kn.FlipLeftRight: flip_left_right,
    kn.RotateWithOffset: rotate_with_offset,
    kn.Transform: transform,
}
