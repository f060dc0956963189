"""Helpers shared by the pipelines: turning any pixel source into an image tensor."""

from __future__ import annotations

from typing import Any

from ...engine import ENGINE
from ...tensor import Tensor


def frame_tensor(image: Any) -> tuple[Tensor, bool]:
    """(an [h, w, 3] or [1, h, w, 3] tensor of `image`, whether the caller must dispose it)."""
    if isinstance(image, Tensor):
        if image.rank not in (3, 4) or (image.rank == 4 and image.shape[0] != 1):
            raise ValueError(f"expected an image tensor [h, w, 3] or [1, h, w, 3], not {list(image.shape)}")
        return image, False
    from ...browser import from_pixels  # imported lazily: the browser module is optional on the host

    return from_pixels(image, 3), True


def image_size(t: Tensor) -> tuple[int, int]:
    """(height, width) of an [h, w, c] or [1, h, w, c] image tensor."""
    return t.shape[-3], t.shape[-2]


def tidy(fn: Any) -> Any:
    """tf.tidy (webtf.tidy is defined in the package root, which is still importing when this loads)."""
    ENGINE.start_scope()
    try:
        result = fn()
    except BaseException:
        ENGINE.end_scope(None)
        raise
    ENGINE.end_scope(result)
    return result
