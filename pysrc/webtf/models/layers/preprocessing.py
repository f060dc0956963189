"""Image preprocessing layers (tfjs-layers's preprocessing/): CenterCrop and Resizing, on [h, w, c] or
[batch, h, w, c] inputs."""

from __future__ import annotations

from typing import Any

from ...ops import cast, creation, image, shape
from ...tensor import Tensor
from .base import Layer, Shape, ShapeArg, register, single


def _size(layer: Layer, config: dict[str, Any]) -> tuple[int, int]:
    """The required height and width: positive ints."""
    out = []
    for key in ("height", "width"):
        value = config.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise layer.error(f"{key} must be a positive int, but got {value!r}")
        out.append(value)
    return out[0], out[1]


class _Image(Layer):
    """A layer that maps images to height x width (rank 3 or 4 inputs)."""

    def configure(self, config: dict[str, Any]) -> None:
        self.height, self.width = _size(self, config)

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        if len(s) not in (3, 4):
            raise self.error(f"expects inputs of rank 3 or 4, but got shape {tuple(s)}")
        return (*s[:-3], self.height, self.width, s[-1])


@register
class CenterCrop(_Image):
    """The central height x width crop (nearest crop_and_resize of the centred box, as TF.js); an input
    smaller than that is resized up bilinearly. Keeps the input's dtype."""

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        self.compute_output_shape(inputs.shape)
        ih, iw = inputs.shape[-3], inputs.shape[-2]
        top = (ih - self.height) // 2 if ih != self.height else 0
        left = (iw - self.width) // 2 if iw != self.width else 0
        if iw != self.width and left == 0:
            left = 1  # TF.js moves a one-pixel surplus of width to the left
        if top < 0 or left < 0:
            out = image.resize_bilinear(inputs, [self.height, self.width])
            return out if out.dtype == inputs.dtype else cast(out, inputs.dtype)
        x = inputs if inputs.rank == 4 else shape.expand_dims(inputs, 0)
        box = [top / ih, left / iw, (self.height + top) / ih, (self.width + left) / iw]
        boxes = creation.tensor([box] * x.shape[0], [x.shape[0], 4])
        ind = creation.range(0, x.shape[0], 1, "int32")
        out = image.crop_and_resize(x, boxes, ind, [self.height, self.width], "nearest")
        out = out if out.dtype == inputs.dtype else cast(out, inputs.dtype)
        return out if inputs.rank == 4 else shape.squeeze(out, [0])


@register
class Resizing(_Image):
    """Resize to height x width (interpolation 'bilinear' or 'nearest'); as TF.js, corners are aligned
    unless crop_to_aspect_ratio (which crops nothing)."""

    def configure(self, config: dict[str, Any]) -> None:
        super().configure(config)
        self.interpolation = config.get("interpolation") or "bilinear"
        if self.interpolation not in ("bilinear", "nearest"):
            raise self.error(f"invalid interpolation parameter: {self.interpolation!r} is not implemented")
        self.crop_to_aspect_ratio = bool(config.get("crop_to_aspect_ratio", False))

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        self.compute_output_shape(inputs.shape)
        size, align = [self.height, self.width], not self.crop_to_aspect_ratio
        if self.interpolation == "bilinear":
            return image.resize_bilinear(inputs, size, align)
        return image.resize_nearest_neighbor(inputs, size, align)
