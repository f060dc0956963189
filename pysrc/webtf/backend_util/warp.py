"""Source pixels of the warping kernels (RotateWithOffset, Transform), computed in Python floats as TF.js's cpu
kernels do, so every backend samples the same pixels with the same weights (the wasm export and a GPU in
float32 would move JS-rounding ties)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .image import js_round, rotate_info


def rotate_sources(image_shape: Sequence[int], attrs: dict[str, Any]) -> list[int]:
    """Per output pixel of RotateWithOffset, its source pixel (y * w + x), or -1 outside the image."""
    _, h, w, _ = image_shape
    cx, cy, sin, cos, _ = rotate_info(image_shape, attrs)
    pix = []
    for y in range(h):
        for x in range(w):
            sx = js_round((x - cx) * cos - (y - cy) * sin + cx)
            sy = js_round((x - cx) * sin + (y - cy) * cos + cy)
            pix.append(sy * w + sx if 0 <= sx < w and 0 <= sy < h else -1)
    return pix


def map_coord(v: float, n: int, mode: str) -> float:
    """Where output coordinate v reads along an axis of length n under a fill mode (TF's image_ops)."""
    if mode == "reflect":
        if v < 0:
            if n <= 1:
                v = 0.0
            else:
                sz2 = 2 * n
                if v < sz2:
                    v = sz2 * math.trunc(-v / sz2) + v
                v = v + sz2 if v < -n else -v - 1
        elif v > n - 1:
            if n <= 1:
                v = 0.0
            else:
                sz2 = 2 * n
                v -= sz2 * math.trunc(v / sz2)
                if v >= n:
                    v = sz2 - v - 1
    elif mode == "wrap":
        if v < 0:
            v = 0.0 if n <= 1 else v + n * (math.trunc(-v / (n - 1)) + 1)
        elif v > n - 1:
            v = 0.0 if n <= 1 else v - n * math.trunc(v / (n - 1))
    elif mode != "nearest":
        return v  # constant
    return min(max(v, 0), n - 1)


def transform_sources(
    row: Any, h: int, w: int, out_h: int, out_w: int, mode: str, bilinear: bool
) -> list[Any]:
    """Per output pixel of Transform with transform `row`: nearest -> (source pixel,); bilinear -> (4 neighbor
    pixels, wx0, wx1, wy0, wy1). A pixel is y * w + x, or -1 for the fill value; a point at infinity (k == 0)
    is filled."""
    a0, a1, a2, b0, b1, b2, c0, c1 = row

    def at(y: int, x: int) -> int:
        return y * w + x if 0 <= y < h and 0 <= x < w else -1

    at_infinity = (-1, -1, -1, -1, 1.0, 0.0, 1.0, 0.0) if bilinear else (-1,)
    pix: list[tuple[Any, ...]] = []
    for oy in range(out_h):
        for ox in range(out_w):
            proj = c0 * ox + c1 * oy + 1
            if proj == 0:
                pix.append(at_infinity)
                continue
            x = map_coord((a0 * ox + a1 * oy + a2) / proj, w, mode)
            y = map_coord((b0 * ox + b1 * oy + b2) / proj, h, mode)
            if not bilinear:
                pix.append((at(js_round(y), js_round(x)),))
                continue
            x0, y0 = math.floor(x), math.floor(y)
            p00, p01, p10, p11 = at(y0, x0), at(y0, x0 + 1), at(y0 + 1, x0), at(y0 + 1, x0 + 1)
            pix.append((p00, p01, p10, p11, x0 + 1 - x, x - x0, y0 + 1 - y, y - y0))
    return pix
