"""Helpers shared by the pipelines: turning any pixel source into an image tensor and running the model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import ops
from ...engine import ENGINE
from ...ops import image as tf_image
from ...tensor import Tensor
from ..graph import GraphModel


def frame_tensor(image: Any) -> tuple[Tensor, bool]:
    """(an [h, w, 3] or [1, h, w, 3] tensor of `image`, whether the caller must dispose it)."""
    if isinstance(image, Tensor):
        if image.rank not in (3, 4) or (image.rank == 4 and image.shape[0] != 1):
            raise ValueError(f"expected an image tensor [h, w, 3] or [1, h, w, 3], not {list(image.shape)}")
        return image, False
    from ...browser import from_pixels  # imported lazily: the browser module is optional on the host

    return from_pixels(image, 3), True


def square_crop(height: int, width: int) -> list[float]:
    """The normalized box [y1, x1, y2, x2] of the square, centred on the frame, that contains it."""
    side = max(height, width)
    dy, dx = (side - height) / 2 / height, (side - width) / 2 / width
    return [-dy, -dx, 1 + dy, 1 + dx]


def letterbox(image: Tensor, size: int) -> Tensor:
    """[h, w, c] or [1, h, w, c] pixels -> [1, size, size, c] float32: the frame padded to a square with
    black (crop_and_resize outside the frame) and resized, so that shapes keep their aspect ratio."""
    height, width = image_size(image)
    batched = image if image.rank == 4 else ops.expand_dims(image, 0)
    box = ops.tensor([square_crop(height, width)], dtype="float32")
    index = ops.tensor([0], dtype="int32")
    return tf_image.crop_and_resize(ops.cast(batched, "float32"), box, index, [size, size])


def from_square(x: float, y: float, height: int, width: int) -> list[float]:
    """A point given in [0, 1] coordinates of square_crop(height, width) -> frame pixels [x, y]."""
    y1, x1, y2, x2 = square_crop(height, width)
    return [(x1 + x * (x2 - x1)) * width, (y1 + y * (y2 - y1)) * height]


def image_size(t: Tensor) -> tuple[int, int]:
    """(height, width) of an [h, w, c] or [1, h, w, c] image tensor."""
    return t.shape[-3], t.shape[-2]


def run_on_frame(
    model: GraphModel, image: Any, preprocess: Callable[[Tensor], Tensor]
) -> tuple[Tensor | list[Tensor], int, int]:
    """(model.execute(preprocess(frame)), frame height, frame width) for a tensor or a pixel source; the
    frame (when made here) and the model input are freed."""
    frame, owned = frame_tensor(image)
    height, width = image_size(frame)
    try:
        x = ENGINE.tidy(lambda: preprocess(frame))
    finally:
        if owned:
            frame.dispose()
    try:
        return model.execute(x), height, width
    finally:
        x.dispose()
