"""tf.browser: from_pixels (image, video, canvas -> int32 tensor) and to_pixels (tensor -> RGBA bytes).

In the page, sources are JS objects (HTMLVideoElement, HTMLImageElement, HTMLCanvasElement, OffscreenCanvas,
ImageBitmap, ImageData). Everywhere, including plain CPython, a "pixel data" object also works: a dict or an
object with `data` (RGBA bytes, 4 per pixel), `width` and `height`, like TF.js's PixelData.
"""

from __future__ import annotations

import math
import operator
import sys
from array import array
from itertools import repeat
from typing import Any

from ..backends import js as bridge
from ..backends.base import TensorInfo
from ..engine import ENGINE
from ..environment import ENV
from ..ops.cast import cast
from ..ops.op import convert_to_tensor
from ..tensor import Tensor

__all__ = ["draw", "from_pixels", "from_pixels_async", "to_pixels"]

_HAVE_CURRENT_DATA = 2  # HTMLMediaElement.readyState once a frame can be drawn
_scratch: dict[str, Any] = {}  # the reusable OffscreenCanvas and its 2d context


def _get(source: Any, name: str) -> Any:
    if isinstance(source, dict):
        return source.get(name)
    return getattr(source, name, None)


def _kind(source: Any) -> str:
    """Classify a pixel source by duck typing (works for JS proxies and Python objects alike)."""
    if isinstance(source, dict) or isinstance(_get(source, "data"), (bytes, bytearray, memoryview)):
        return "pixel_data"
    if _get(source, "videoWidth") is not None:
        return "video"
    if _get(source, "naturalWidth") is not None:
        return "image"
    if _get(source, "getContext") is not None:
        return "canvas"
    if _get(source, "data") is not None and _get(source, "width") is not None:
        return "image_data"
    if _get(source, "close") is not None and _get(source, "width") is not None:
        return "image_bitmap"
    name = getattr(getattr(source, "constructor", None), "name", None) or type(source).__name__
    raise TypeError(
        "pixels passed to tf.browser.from_pixels() must be an HTMLVideoElement, HTMLImageElement, "
        "HTMLCanvasElement, OffscreenCanvas, ImageBitmap, ImageData or {data, width, height}, "
        f"but was {name}"
    )


def _size(source: Any, kind: str) -> tuple[int, int]:
    if kind == "video":
        return int(source.videoWidth), int(source.videoHeight)
    if kind == "image":
        return int(source.naturalWidth), int(source.naturalHeight)
    return int(_get(source, "width")), int(_get(source, "height"))


def _context(width: int, height: int) -> Any:
    """The shared OffscreenCanvas 2d context (willReadFrequently), sized to width x height."""
    ctx = _scratch.get("ctx")
    if ctx is None:
        canvas = bridge.js.OffscreenCanvas.new(max(width, 1), max(height, 1))
        ctx = canvas.getContext("2d", bridge.js_object({"willReadFrequently": True}))
        ctx.globalCompositeOperation = "copy"  # replace pixels, so transparent sources show no old frame
        _scratch.update(canvas=canvas, ctx=ctx)
    canvas = _scratch["canvas"]
    if canvas.width != width or canvas.height != height:
        canvas.width, canvas.height = width, height
        ctx.globalCompositeOperation = "copy"  # resizing resets the context state
    return ctx


def _rgba_bytes(source: Any, kind: str, width: int, height: int) -> bytes:
    """The source's pixels as one bytes object of RGBA values (one bulk copy out of JS)."""
    data = _get(source, "data") if kind in ("pixel_data", "image_data") else None
    if data is None:
        if not bridge.available():
            raise RuntimeError(f"tf.browser.from_pixels: a {kind} source needs the browser (Pyodide)")
        ctx = _context(width, height)
        ctx.drawImage(source, 0, 0, width, height)
        data = ctx.getImageData(0, 0, width, height).data
    raw = bytes(data) if isinstance(data, (bytes, bytearray, memoryview)) else data.to_bytes()
    if len(raw) != width * height * 4:
        raise ValueError(
            f"Error in from_pixels: pixel data has {len(raw)} bytes, but a {width}x{height} RGBA image "
            f"needs {width * height * 4}"
        )
    return raw


def _to_int32(raw: bytes, num_channels: int) -> array:
    """RGBA bytes -> int32 values of the first num_channels channels, by slicing only.

    Each kept byte becomes the low byte of a little-endian int32 (wasm and x86 are little-endian).
    """
    n = len(raw) // 4
    step = 4 * num_channels
    wide = bytearray(n * step)
    for ch in range(num_channels):
        wide[4 * ch :: step] = raw[ch::4]
    values = array("i")
    values.frombytes(wide)
    if sys.byteorder == "big":  # pragma: no cover
        values.byteswap()
    return values


def from_pixels(pixels: Any, num_channels: int = 3) -> Tensor:
    """An int32 tensor [height, width, num_channels] of an image, video frame, canvas or ImageData."""
    if not isinstance(num_channels, int) or isinstance(num_channels, bool) or num_channels < 1:
        raise ValueError(f"Error in from_pixels: num_channels must be 1, 2, 3 or 4, but got {num_channels!r}")
    if num_channels > 4:
        raise ValueError("Cannot construct Tensor with more than 4 channels from pixels.")
    if pixels is None:
        raise ValueError("pixels passed to tf.browser.from_pixels() can not be None")
    kind = _kind(pixels)
    if kind == "video" and int(pixels.readyState) < _HAVE_CURRENT_DATA:
        raise ValueError(
            "The video element has not loaded data yet. Please wait for `loadeddata` event on the <video> "
            "element."
        )
    width, height = _size(pixels, kind)
    backend = ENGINE.backend
    upload = getattr(backend, "from_pixels", None)
    if upload is not None and kind != "pixel_data":  # e.g. webgl: texImage2D straight from the element
        made = upload(pixels, num_channels)
        return ENGINE.wrap(made, backend) if isinstance(made, TensorInfo) else made
    raw = _rgba_bytes(pixels, kind, width, height)
    return ENGINE.make_tensor(_to_int32(raw, num_channels), (height, width, num_channels), "int32")


def _image_tensor(img: Any, fn: str) -> tuple[Tensor, bool]:
    """img as a checked [h, w] or [h, w, 1|3|4] float32/int32 tensor (non-tensors taken as int32, like TF.js),
    and whether it was made here (so the caller frees it)."""
    t = convert_to_tensor(img, "img", fn)
    owned = t is not img
    if owned and t.dtype != "int32":
        as_int = cast(t, "int32")
        t.dispose()
        t = as_int
    try:
        if t.rank not in (2, 3):
            raise ValueError(f"{fn} only supports rank 2 or 3 tensors, got rank {t.rank}.")
        depth = 1 if t.rank == 2 else t.shape[2]
        if depth not in (1, 3, 4):
            raise ValueError(f"{fn} only supports depth of size 1, 3 or 4 but got {depth}")
        if t.dtype not in ("float32", "int32"):
            raise TypeError(f"Unsupported type for {fn}: {t.dtype}. Please use float32 or int32 tensors.")
    except Exception:
        if owned:
            t.dispose()
        raise
    return t, owned


def _rgba(t: Tensor, values: Any, alpha: float = 1.0) -> bytearray:
    """RGBA bytes of an image tensor's values: float32 in [0, 1] scaled by 255, int32 in [0, 255]; depth 1 is
    gray, depth 1 and 3 get alpha * 255."""
    height, width = t.shape[0], t.shape[1]
    depth = 1 if t.rank == 2 else t.shape[2]
    high = 1 if t.dtype == "float32" else 255
    if values and (min(values) < 0 or max(values) > high or math.isnan(math.fsum(values))):
        bad = next(v for v in values if not 0 <= v <= high)  # the first offender, as TF.js reports it
        raise ValueError(
            f"Tensor values for a {t.dtype} Tensor must be in the range [0 - {high}] but encountered {bad}."
        )
    if t.dtype == "float32":  # round half up, like Math.round
        scaled = bytes(map(int, map(operator.add, map(operator.mul, values, repeat(255.0)), repeat(0.5))))
    else:
        scaled = array("B", values).tobytes()  # values may be an int32 array: one byte each
    n = height * width
    if depth == 4:
        return bytearray(scaled)
    rgba = bytearray([int(255 * alpha + 0.5)]) * (n * 4)
    for ch in range(3):
        rgba[ch::4] = scaled if depth == 1 else scaled[ch::3]
    return rgba


async def to_pixels(img: Any, canvas: Any = None) -> bytes:
    """RGBA bytes (4 per pixel) of a [h, w] or [h, w, 1|3|4] image tensor; draws it into canvas if given.

    float32 values must lie in [0, 1] (scaled by 255), int32 values in [0, 255].
    """
    t, owned = _image_tensor(img, "to_pixels")
    try:
        values = await t.data()
    finally:
        if owned:
            t.dispose()
    rgba = _rgba(t, values)
    if canvas is not None:
        _draw(canvas, bytes(rgba), t.shape[1], t.shape[0])
    return bytes(rgba)


def _option(options: Any, snake: str, camel: str) -> Any:
    return options.get(snake, options.get(camel)) if isinstance(options, dict) else None


def draw(image: Any, canvas: Any, options: dict[str, Any] | None = None) -> None:
    """Draw a [h, w] or [h, w, 1|3|4] image tensor into a canvas (resized to it), as tf.browser.draw.

    options: {"image_options": {"alpha": a}} (alpha in [0, 1] for depth 1 and 3; default 1) and
    {"context_options": {"context_type": "2d", "context_attributes": {...}}}; TF.js's camelCase keys work too.
    """
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"tf.browser.draw: options must be a dict, got {type(options).__name__}")
    image_options = _option(options, "image_options", "imageOptions")
    alpha = _option(image_options, "alpha", "alpha") or 1  # like TF.js, 0 means the default
    if not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise ValueError(f"tf.browser.draw: alpha value {alpha} is supposed to be in range [0 - 1].")
    context_options = _option(options, "context_options", "contextOptions")
    context_type = _option(context_options, "context_type", "contextType") or "2d"
    if context_type != "2d":
        raise ValueError(f"tf.browser.draw: context type {context_type!r} is not supported (only '2d')")
    if canvas is None:
        raise ValueError("tf.browser.draw: canvas must be an HTMLCanvasElement or OffscreenCanvas, got None")
    t, owned = _image_tensor(image, "draw")
    try:
        values = t.data_sync()
    finally:
        if owned:
            t.dispose()
    attributes = _option(context_options, "context_attributes", "contextAttributes")
    _draw(canvas, bytes(_rgba(t, values, float(alpha))), t.shape[1], t.shape[0], attributes)


async def from_pixels_async(pixels: Any, num_channels: int = 3) -> Tensor:
    """from_pixels, first wrapping an element source in an ImageBitmap (premultiplyAlpha 'none') when the
    WRAP_TO_IMAGEBITMAP flag is set and the bitmap keeps the source's size, as TF.js does."""
    source = pixels
    if (
        pixels is not None
        and bridge.available()
        and ENV.get_bool("WRAP_TO_IMAGEBITMAP")
        and _kind(pixels) in ("video", "image", "canvas", "image_data")
    ):
        try:
            bitmap = await bridge.js.createImageBitmap(pixels, bridge.js_object({"premultiplyAlpha": "none"}))
        except Exception:  # some browsers cannot wrap every source: fall back to the source itself
            bitmap = None
        if bitmap is not None and (bitmap.width, bitmap.height) == (_get(pixels, "width"), _get(pixels, "height")):
            source = bitmap
    try:
        return from_pixels(source, num_channels)
    finally:
        if source is not pixels:
            source.close()  # the pixels are copied out: free the bitmap now rather than at GC


def _draw(canvas: Any, rgba: bytes, width: int, height: int, attributes: dict[str, Any] | None = None) -> None:
    """Resize canvas to width x height and put the RGBA bytes into it."""
    if not bridge.available():
        raise RuntimeError("tf.browser.to_pixels: drawing into a canvas needs the browser (Pyodide)")
    js = bridge.js
    canvas.width, canvas.height = width, height
    if width * height == 0:
        return
    u8 = bridge.uint8_array(rgba)
    clamped = js.Uint8ClampedArray.new(u8.buffer, u8.byteOffset, u8.length)
    ctx = canvas.getContext("2d", bridge.js_object(attributes)) if attributes else canvas.getContext("2d")
    ctx.putImageData(js.ImageData.new(clamped, width, height), 0, 0)
