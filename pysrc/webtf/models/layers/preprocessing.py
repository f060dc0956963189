"""Preprocessing layers (tfjs-layers's preprocessing/): CenterCrop and Resizing on [h, w, c] or
[batch, h, w, c] images, RandomWidth, and CategoryEncoding."""

from __future__ import annotations

import math
import random
from typing import Any

from ...ops import binary, cast, creation, image, shape, slicing
from ...ops import reduce as ops_reduce
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


_OUTPUT_MODES = {"multiHot": "multi_hot", "oneHot": "one_hot", "count": "count"}


@register
class CategoryEncoding(Layer):
    """Integer tokens in [0, num_tokens) to float32 per-token vectors: output_mode 'multiHot' (default: 1 for
    each token present), 'oneHot' (one token per row) or 'count' (occurrences, or the sums of kwarg
    count_weights). Inputs of rank 0-2 (rank 0-1 for 'oneHot' without a last dim of 1), as TF.js."""

    def configure(self, config: dict[str, Any]) -> None:
        n = config.get("num_tokens")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise self.error(f"num_tokens must be a positive int, but got {n!r}")
        self.num_tokens = n
        mode = config.get("output_mode") or "multiHot"
        if mode not in _OUTPUT_MODES and mode not in _OUTPUT_MODES.values():
            raise self.error(f"output_mode must be 'multiHot', 'oneHot' or 'count', but got {mode!r}")
        self.output_mode = mode if mode in _OUTPUT_MODES else {v: k for k, v in _OUTPUT_MODES.items()}[mode]

    def _rank2(self, s: Shape) -> Shape:
        """The shape the bincount sees: a 1 added for 'oneHot' (unless already last) and for a scalar."""
        s = tuple(s) or (1,)
        if self.output_mode == "oneHot" and s[-1] != 1:
            s = (*s, 1)
        if len(s) > 2:
            raise self.error(
                f"when output_mode is not int, the maximum output rank is 2; got output_mode "
                f"{self.output_mode} and inputs of shape {tuple(s)}"
            )
        return s

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = self._rank2(single(self, input_shape))
        return (*s[:-1], self.num_tokens)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        weights = kwargs.get("count_weights")
        if weights is not None and self.output_mode != "count":
            raise self.error("count_weights is only used when output_mode is 'count'")
        x = inputs if inputs.dtype == "int32" else cast(inputs, "int32")
        s = self._rank2(x.shape)
        if x.size:
            lo, hi = (int(reduce(x).data_sync()[0]) for reduce in (ops_reduce.min, ops_reduce.max))
            if lo < 0 or hi >= self.num_tokens:
                raise self.error(
                    f"input values must be in [0, num_tokens) with num_tokens={self.num_tokens}, but range "
                    f"over [{lo}, {hi}]"
                )
        x = shape.reshape(x, list(s))
        hot = slicing.one_hot(x, max(2, self.num_tokens), 1, 0, "float32")  # [..., n, max(2, tokens)]
        if self.num_tokens == 1:
            hot = slicing.slice(hot, [0] * x.rank + [0], [*x.shape, 1])
        if weights is not None:
            hot = binary.mul(hot, shape.expand_dims(cast(weights, "float32"), -1))
        axis = x.rank - 1
        if self.output_mode == "count":
            return ops_reduce.sum(hot, axis)
        return ops_reduce.max(hot, axis)


@register
class RandomWidth(Layer):
    """Resize images to a random width (round(w * u), u uniform in [1 + lower, 1 + upper] from `factor`) at
    every call, training or not, as TF.js; `seed` makes the sequence of widths repeatable."""

    def configure(self, config: dict[str, Any]) -> None:
        factor = config.get("factor")
        if isinstance(factor, (list, tuple)) and len(factor) == 2:
            lower, upper = (float(f) for f in factor)
        elif isinstance(factor, (int, float)) and not isinstance(factor, bool) and factor > 0:
            lower, upper = -float(factor), float(factor)
        else:
            raise self.error(f"invalid factor {factor!r}: must be a positive number or a list of 2 numbers")
        if lower < -1.0 or upper < -1.0:
            raise self.error(f"factor must have values larger than -1, but got {factor!r}")
        if upper < lower:
            raise self.error(
                f"factor cannot have an upper bound ({upper}) less than its lower bound ({lower})"
            )
        self.lower, self.upper = lower, upper
        self.interpolation = config.get("interpolation") or "bilinear"
        if self.interpolation not in ("bilinear", "nearest"):
            raise self.error(f"invalid interpolation parameter: {self.interpolation!r} is not implemented")
        self.rng = random.Random(config.get("seed"))

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        if len(s) not in (3, 4):
            raise self.error(f"expects inputs of rank 3 or 4, but got shape {tuple(s)}")
        return (*s[:-2], None, s[-1])

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        self.compute_output_shape(inputs.shape)
        h, w = inputs.shape[-3], inputs.shape[-2]
        width = math.floor(self.rng.uniform(1.0 + self.lower, 1.0 + self.upper) * w + 0.5)  # JS Math.round
        if width <= 0:
            raise self.error(f"the random width of an input {w} wide came out {width}")
        if self.interpolation == "bilinear":
            return image.resize_bilinear(inputs, [h, width])
        return image.resize_nearest_neighbor(inputs, [h, width])
