"""Source coordinates of the resampling kernels (ResizeBilinear, ResizeNearestNeighbor, CropAndResize),
computed as TF.js's cpu kernels do (the same float operations in the same order), so every backend samples
the same pixels with the same weights."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple


def js_round(x: float) -> int:
    """JavaScript Math.round: nearest integer, ties toward +infinity (not Python's banker's rounding)."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


class ResizeInfo(NamedTuple):
    """A resize of NHWC images: the sizes and TF.js's two source-coordinate flags."""

    batch: int
    in_height: int
    in_width: int
    channels: int
    out_height: int
    out_width: int
    align_corners: bool
    half_pixel_centers: bool

    @property
    def out_shape(self) -> tuple[int, int, int, int]:
        """[batch, out_height, out_width, channels]."""
        return (self.batch, self.out_height, self.out_width, self.channels)


def resize_info(images_shape: Sequence[int], attrs: dict[str, Any]) -> ResizeInfo:
    """The ResizeInfo of a ResizeBilinear/ResizeNearestNeighbor call: attrs size, align_corners,
    half_pixel_centers."""
    batch, h, w, c = images_shape
    new_h, new_w = (int(v) for v in attrs["size"])
    return ResizeInfo(
        batch, h, w, c, new_h, new_w, bool(attrs["align_corners"]), bool(attrs["half_pixel_centers"])
    )


def resize_ratio(n_in: int, n_out: int, align_corners: bool) -> tuple[int, int]:
    """The resize ratio as a fraction (num, den): (in - 1) / (out - 1) with align_corners, else in / out."""
    if n_out == 0:
        return 0, 1
    if align_corners and n_out > 1:
        return n_in - 1, n_out - 1
    return n_in, n_out


def bilinear_axis(n_in: int, n_out: int, align: bool, half: bool) -> tuple[list[int], list[int], list[float]]:
    """ResizeBilinear along one axis, per output index: source index below, above, and the fraction between."""
    num, den = resize_ratio(n_in, n_out, align)
    ratio = num / den
    lo, hi, frac = [], [], []
    for i in range(n_out):
        src = ratio * (i + 0.5) - 0.5 if half else ratio * i
        f = max(0, math.floor(src))
        lo.append(f)
        hi.append(min(n_in - 1, math.ceil(src)))
        frac.append(src - f)
    return lo, hi, frac


def nearest_axis(n_in: int, n_out: int, align: bool, half: bool) -> list[int]:
    """ResizeNearestNeighbor along one axis: the source index each output index reads."""
    num, den = resize_ratio(n_in, n_out, align)
    ratio = num / den
    out = []
    for i in range(n_out):
        src = ratio * (i + 0.5) if half else ratio * i
        n = min(n_in - 1, js_round(src) if align else math.floor(src))
        out.append(max(0, n) if half else n)
    return out


def crop_coords(v1: float, v2: float, n_image: int, n_crop: int) -> list[float]:
    """CropAndResize along one axis: the source coordinate (in pixels) of each of `n_crop` samples of a box
    edge pair v1, v2 (normalized)."""
    if n_crop > 1:
        return [v1 * (n_image - 1) + (v2 - v1) * i * (n_image - 1) / (n_crop - 1) for i in range(n_crop)]
    return [0.5 * (v1 + v2) * (n_image - 1)]


def check_box_ind(box_ind: Sequence[int], batch: int) -> None:
    """Raise an error naming crop_and_resize for a box index outside [0, batch) (TF's check: TF.js would
    quietly give zeros)."""
    if len(box_ind) and not 0 <= min(box_ind) <= max(box_ind) < batch:
        k, bad = next((k, b) for k, b in enumerate(box_ind) if not 0 <= b < batch)
        raise ValueError(
            f"Error in crop_and_resize: box_ind[{k}] = {bad} is not in [0, {batch - 1}] (the image batch is {batch})"
        )


class RotateInfo(NamedTuple):
    """RotateWithOffset's geometry: the center in pixels, the angle's sine and cosine, one fill per channel."""

    cx: float
    cy: float
    sin: float
    cos: float
    fills: list[float]


def rotate_info(image_shape: Sequence[int], attrs: dict[str, Any]) -> RotateInfo:
    """RotateWithOffset's attrs read for an image of `image_shape` [b, h, w, c]: the center is a fraction of
    the width and height (a number or [cx, cy]); fill_value is a number or [r, g, b] (255 for channel 3)."""
    _, h, w, c = image_shape
    radians, fill, center = attrs["radians"], attrs["fill_value"], attrs["center"]
    cx = w * (center if isinstance(center, (int, float)) else center[0])
    cy = h * (center if isinstance(center, (int, float)) else center[1])
    if isinstance(fill, (int, float)):
        fills = [fill] * c
    else:
        fills = [255 if d == 3 else (fill[d] if d < len(fill) else 0) for d in range(c)]
    return RotateInfo(cx, cy, math.sin(radians), math.cos(radians), fills)
