"""numpy image kernels: ResizeBilinear, ResizeNearestNeighbor, CropAndResize, NonMaxSuppressionV3/V4/V5,
FlipLeftRight, RotateWithOffset, Transform (contracts in webtf.kernel_names).

Sampling coordinates are backend_util's (TF.js's float operations, in doubles); the samples are gathered
with index arrays and blended in the same order as TF.js. Greedy NMS drops, per selected box, every
remaining candidate it overlaps in one vectorized IoU; soft-NMS (sigma > 0) runs backend_util's loop.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ....backend_util import (
    bilinear_axis,
    check_box_ind,
    crop_coords,
    nearest_axis,
    non_max_suppression_impl,
    resize_info,
    rotate_info,
)
from ...base import TensorInfo
from .common import F32, js_round, mirror_cpu_table, store


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """a + (b - a) * t, in TF.js's operation order."""
    return a + (b - a) * t


# ---- resize ----------------------------------------------------------------------------------------
def resize_bilinear(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """images [b,h,w,c] -> float32 [b,new_h,new_w,c]; attrs size, align_corners, half_pixel_centers."""
    images = inputs["images"]
    info = resize_info(images.shape, attrs)
    if not math.prod(info.out_shape):
        return backend.make(np.zeros(info.out_shape, F32))
    top, bottom, row_t = (np.asarray(a) for a in bilinear_axis(info.in_height, info.out_height, *info[6:]))
    left, right, col_t = (np.asarray(a) for a in bilinear_axis(info.in_width, info.out_width, *info[6:]))
    v = backend.nd(images)
    if v.dtype != F32:
        v = v.astype(np.float64)
    rows = _lerp(v[:, :, left], v[:, :, right], col_t[:, None].astype(v.dtype))  # every source row
    out = _lerp(rows[:, top], rows[:, bottom], row_t[:, None, None].astype(v.dtype))
    return backend.make(out, "float32")


def resize_nearest_neighbor(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """images [b,h,w,c] -> [b,new_h,new_w,c] of the same dtype; attrs as ResizeBilinear."""
    images = inputs["images"]
    info = resize_info(images.shape, attrs)
    rows = np.asarray(nearest_axis(info.in_height, info.out_height, *info[6:]), np.intp)
    cols = np.asarray(nearest_axis(info.in_width, info.out_width, *info[6:]), np.intp)
    return backend.make(backend.nd(images)[:, rows][:, :, cols])


# ---- crop and resize -------------------------------------------------------------------------------
def crop_and_resize(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """image [b,h,w,c], boxes [n,4] (y1,x1,y2,x2 normalized), box_ind [n] -> float32 [n,crop_h,crop_w,c];
    attrs crop_size, method ('bilinear' | 'nearest'), extrapolation_value. A box_ind outside [0, b) is an
    error, a sample outside the image the extrapolation value."""
    image, boxes, box_ind = inputs["image"], inputs["boxes"], inputs["box_ind"]
    batch, h, w, c = image.shape
    ch, cw = attrs["crop_size"]
    n = boxes.shape[0]
    if not n * ch * cw * c:
        return backend.make(np.zeros((n, ch, cw, c), F32))
    bx = backend.nd(boxes).astype(np.float64).tolist()
    ys = np.array([crop_coords(y1, y2, h, ch) for y1, _, y2, _ in bx])
    xs = np.array([crop_coords(x1, x2, w, cw) for _, x1, _, x2 in bx])
    bi = backend.nd(box_ind).astype(np.int64)
    check_box_ind(bi.tolist(), batch)
    b = bi[:, None, None]
    y_ok, x_ok = (ys >= 0) & (ys <= h - 1), (xs >= 0) & (xs <= w - 1)
    ys, xs = np.where(y_ok, ys, 0.0), np.where(x_ok, xs, 0.0)
    img = backend.nd(image)
    if attrs["method"] == "nearest":
        ry, rx = js_round(ys).astype(np.intp), js_round(xs).astype(np.intp)
        out = img[b, ry[:, :, None], rx[:, None, :]].astype(np.float64)
    else:
        top, bottom = np.floor(ys).astype(np.intp)[:, :, None], np.ceil(ys).astype(np.intp)[:, :, None]
        left, right = np.floor(xs).astype(np.intp)[:, None, :], np.ceil(xs).astype(np.intp)[:, None, :]
        xt = (xs - np.floor(xs))[:, None, :, None]
        upper = _lerp(img[b, top, left].astype(np.float64), img[b, top, right], xt)
        lower = _lerp(img[b, bottom, left].astype(np.float64), img[b, bottom, right], xt)
        out = _lerp(upper, lower, (ys - np.floor(ys))[:, :, None, None])
    out = np.where((y_ok[:, :, None] & x_ok[:, None, :])[..., None], out, float(attrs["extrapolation_value"]))
    return backend.make(out, "float32")


# ---- non max suppression ---------------------------------------------------------------------------
def _greedy_nms(
    boxes: np.ndarray, scores: np.ndarray, max_output_size: int, iou_threshold: float, score_threshold: float
) -> list[int]:
    """backend_util.non_max_suppression_impl's selection with sigma 0: candidates above score_threshold by
    descending score (ties: lower index), each dropping the later ones whose IoU with it is >= the threshold
    (the same float operations as the shared loop, so the same picks)."""
    ymin, ymax = np.minimum(boxes[:, 0], boxes[:, 2]), np.maximum(boxes[:, 0], boxes[:, 2])
    xmin, xmax = np.minimum(boxes[:, 1], boxes[:, 3]), np.maximum(boxes[:, 1], boxes[:, 3])
    area = (ymax - ymin) * (xmax - xmin)
    order = np.flatnonzero(scores > score_threshold)
    order = order[np.argsort(-scores[order], kind="stable")]
    selected: list[int] = []
    while order.size and len(selected) < max_output_size:
        i, rest = order[0], order[1:]
        selected.append(int(i))
        ih = np.minimum(ymax[i], ymax[rest]) - np.maximum(ymin[i], ymin[rest])
        iw = np.minimum(xmax[i], xmax[rest]) - np.maximum(xmin[i], xmin[rest])
        inter = np.maximum(ih, 0.0) * np.maximum(iw, 0.0)
        iou = np.where((area[i] <= 0) | (area[rest] <= 0), 0.0, inter / (area[i] + area[rest] - inter))
        order = rest[~(iou >= iou_threshold)]
    return selected


def _nms(
    backend: Any, inputs: Any, attrs: dict[str, Any], sigma: float = 0.0
) -> tuple[list[int], list[float]]:
    boxes = backend.nd(inputs["boxes"]).astype(np.float64).reshape(-1, 4)
    scores = backend.nd(inputs["scores"]).astype(np.float64)
    args = (attrs["max_output_size"], attrs["iou_threshold"], attrs["score_threshold"])
    if sigma > 0:
        res = non_max_suppression_impl(boxes.ravel().tolist(), scores.tolist(), *args, sigma)
        return res.selected_indices, res.selected_scores
    selected = _greedy_nms(boxes, scores, *args)
    return selected, scores[selected].tolist()


def non_max_suppression_v3(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """boxes [n,4], scores [n] -> int32 indices; attrs max_output_size, iou_threshold, score_threshold."""
    return backend.make(np.array(_nms(backend, inputs, attrs)[0], np.int32))


def non_max_suppression_v4(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """As V3 plus attr pad_to_max_output_size -> [int32 indices (zero-padded), int32 scalar valid_outputs]."""
    selected = _nms(backend, inputs, attrs)[0]
    valid = len(selected)
    if attrs["pad_to_max_output_size"]:
        selected += [0] * (attrs["max_output_size"] - valid)
    return [backend.make(np.array(selected, np.int32)), backend.make(np.array(valid, np.int32))]


def non_max_suppression_v5(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """As V3 plus attr soft_nms_sigma -> [int32 indices, float32 selected (soft-suppressed) scores]."""
    selected, scores = _nms(backend, inputs, attrs, attrs["soft_nms_sigma"])
    return [backend.make(np.array(selected, np.int32)), backend.make(np.array(scores, F32))]


# ---- flips, rotations, projective transforms ------------------------------------------------------
def flip_left_right(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """image [b,h,w,c] -> the same with every row's pixels in reverse order."""
    return backend.make(backend.nd(inputs["image"])[:, :, ::-1].copy())


def _sample(img: np.ndarray, ys: np.ndarray, xs: np.ndarray, fill: Any) -> np.ndarray:
    """img [b,h,w,c] at integer-valued float coordinates ys, xs [b, out_h, out_w] (float64), `fill`
    ([c] or a number) where a coordinate lies outside the image."""
    _, h, w, _ = img.shape
    inside = (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
    b = np.arange(img.shape[0])[:, None, None]
    got = img[b, np.where(inside, ys, 0).astype(np.intp), np.where(inside, xs, 0).astype(np.intp)]
    return np.where(inside[..., None], got, fill)


def rotate_with_offset(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """image [b,h,w,c] rotated by attr radians about attr center (fraction of width/height, a number or
    [cx, cy]); pixels from outside get attr fill_value (a number, or [r, g, b] with 255 for channel 3)."""
    image = inputs["image"]
    b, h, w, c = image.shape
    cx, cy, sin, cos, fill = rotate_info(image.shape, attrs)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    sx = js_round((x - cx) * cos - (y - cy) * sin + cx)
    sy = js_round((x - cx) * sin + (y - cy) * cos + cy)
    out = _sample(backend.nd(image), np.broadcast_to(sy, (b, h, w)), np.broadcast_to(sx, (b, h, w)), fill)
    return backend.make(store(out, image.dtype), image.dtype)


def _map_coord(v: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Where output coordinates v read along an axis of length n under a fill mode (TF's image_ops)."""
    if mode in ("reflect", "wrap") and n <= 1:
        v = np.where((v < 0) | (v > n - 1), 0.0, v)
    elif mode == "reflect":
        sz2 = 2 * n
        below = sz2 * np.trunc(-v / sz2) + v
        below = np.where(below < -n, below + sz2, -below - 1)
        above = v - sz2 * np.trunc(v / sz2)
        above = np.where(above >= n, sz2 - above - 1, above)
        v = np.where(v < 0, below, np.where(v > n - 1, above, v))
    elif mode == "wrap":
        below = v + n * (np.trunc(-v / (n - 1)) + 1)
        v = np.where(v < 0, below, np.where(v > n - 1, v - n * np.trunc(v / (n - 1)), v))
    elif mode != "nearest":
        return v  # constant
    return np.minimum(np.maximum(v, 0), n - 1)


def transform(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """image [b,h,w,c], transforms [b or 1, 8] -> projectively transformed images, same dtype.

    Row [a0,a1,a2,b0,b1,b2,c0,c1] maps output (x, y) to input ((a0x+a1y+a2)/k, (b0x+b1y+b2)/k) with
    k = c0x+c1y+1 (a point at infinity, k = 0, is filled). attrs: interpolation ('nearest' | 'bilinear'),
    fill_mode ('constant' | 'reflect' | 'wrap' | 'nearest'), fill_value, output_shape (None: the input's).
    """
    image = inputs["image"]
    b, h, w, c = image.shape
    out_h, out_w = attrs["output_shape"] or (h, w)
    mode, fill = attrs["fill_mode"], attrs["fill_value"]
    t = np.broadcast_to(backend.nd(inputs["transforms"]).astype(np.float64), (b, 8))
    a0, a1, a2, b0, b1, b2, c0, c1 = (t[:, k, None, None] for k in range(8))
    oy, ox = np.mgrid[0:out_h, 0:out_w].astype(np.float64)
    proj = c0 * ox + c1 * oy + 1
    at_infinity = proj == 0
    proj = np.where(at_infinity, 1.0, proj)
    x = np.where(at_infinity, -1.0, _map_coord((a0 * ox + a1 * oy + a2) / proj, w, mode))
    y = np.where(at_infinity, -1.0, _map_coord((b0 * ox + b1 * oy + b2) / proj, h, mode))
    img = backend.nd(image)
    if attrs["interpolation"] != "bilinear":
        out = _sample(img, js_round(y), js_round(x), fill)
    else:  # a point at infinity reads (-1, -1) and its neighbors with weights 1, 0: the fill value
        x0, y0 = np.floor(x), np.floor(y)
        wx1, wy1 = (x - x0)[..., None], (y - y0)[..., None]
        wx0, wy0 = (x0 + 1 - x)[..., None], (y0 + 1 - y)[..., None]
        top = wx0 * _sample(img, y0, x0, fill) + wx1 * _sample(img, y0, x0 + 1, fill)
        bottom = wx0 * _sample(img, y0 + 1, x0, fill) + wx1 * _sample(img, y0 + 1, x0 + 1, fill)
        out = wy0 * top + wy1 * bottom
    return backend.make(store(np.asarray(out, np.float64), image.dtype), image.dtype)


KERNELS = mirror_cpu_table(globals())
