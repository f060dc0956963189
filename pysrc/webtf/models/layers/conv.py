"""Convolution, pooling, padding, cropping and upsampling layers (channels_last)."""

from __future__ import annotations

from typing import Any

from ...ops import binary, conv, fused, image, pool, reduce, slicing
from ...tensor import Tensor
from . import activations
from .base import (
    Layer,
    Shape,
    ShapeArg,
    WeightDef,
    channels_last,
    fmt_shape,
    ident,
    int_tuple,
    known,
    need_rank,
    padding_mode,
    register,
    single,
)
from .core import activate, parse_activation


def conv_length(size: int | None, kernel: int, pad: str, stride: int, dilation: int = 1) -> int | None:
    """Output length of a convolution / pooling along one axis (None stays None)."""
    if size is None:
        return None
    span = (kernel - 1) * dilation + 1
    n = size if pad == "same" else size - span + 1
    return max((n + stride - 1) // stride, 0)


def deconv_length(size: int | None, kernel: int, pad: str, stride: int) -> int | None:
    """Output length of a transposed convolution along one axis."""
    if size is None:
        return None
    return size * stride + (max(kernel - stride, 0) if pad == "valid" else 0)


class _Conv(Layer):
    """What the convolutions share: kernel size, strides, padding, dilation, bias, activation (`rank` spatial
    dims: 2 here, 1 and 3 in conv_nd.py)."""

    rank = 2

    def configure(self, config: dict[str, Any]) -> None:
        channels_last(self, config)
        self.kernel_size = int_tuple(self, config["kernel_size"], self.rank, "kernel_size")
        self.strides = int_tuple(self, config.get("strides", 1), self.rank, "strides")
        self.dilation = int_tuple(self, config.get("dilation_rate", 1), self.rank, "dilation_rate")
        self.padding = padding_mode(self, config)
        self.use_bias = bool(config.get("use_bias", True))
        self.activation = parse_activation(self, config.get("activation"))
        self.filters = int(config["filters"]) if config.get("filters") is not None else 0
        if int(config.get("groups", 1) or 1) != 1:
            raise self.error(f"groups={config['groups']} is not supported")

    def kernels(self, c: int) -> list[WeightDef]:
        """The kernel weights for `c` input channels: one kernel [*kernel_size, c, filters] unless overridden."""
        return [WeightDef("kernel", (*self.kernel_size, c, self.filters))]

    def out_channels(self, c: int | None) -> int | None:
        """Output channels for `c` input channels (also the bias size)."""
        return self.filters

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = single(self, input_shape)
        need_rank(self, s, self.rank + 2)
        c = known(self, s, self.rank + 1)
        defs = self.kernels(c)
        return defs + (
            [WeightDef("bias", (self.out_channels(c),), initializer="zeros")] if self.use_bias else []
        )

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        need_rank(self, s, self.rank + 2)
        spatial = zip(s[1:-1], self.kernel_size, self.strides, self.dilation, strict=True)
        return (
            s[0],
            *(conv_length(n, k, self.padding, st, d) for n, k, st, d in spatial),
            self.out_channels(s[-1]),
        )

    def call_fused(self, fused_op: Any, kernel: str, inputs: Tensor) -> Tensor:
        """`fused_op` with bias and, where a fused kernel has it, the activation."""
        act = activations.FUSED.get(self.activation)
        y = fused_op(
            inputs, self.vars[kernel], self.strides, self.padding, "NHWC", self.dilation,
            bias=self.w("bias"), activation=act or "linear",
        )  # fmt: skip
        return y if act else activate(y, self.activation)

    def finish(self, y: Tensor) -> Tensor:
        """Bias and activation, for the convolutions without a fused kernel."""
        if self.use_bias:
            y = binary.add(y, self.vars["bias"])
        return activate(y, self.activation)


@register
class Conv2D(_Conv):
    """2-D convolution, fused with its bias and activation."""

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return self.call_fused(fused.conv2d, "kernel", inputs)


class _Depthwise(_Conv):
    """What the depthwise convolutions share: depth_multiplier and the depthwise kernel."""

    def configure(self, config: dict[str, Any]) -> None:
        super().configure(config)
        self.depth_multiplier = int(config.get("depth_multiplier", 1))

    def kernels(self, c: int) -> list[WeightDef]:
        return [WeightDef("depthwise_kernel", (*self.kernel_size, c, self.depth_multiplier), key="depthwise")]


@register
class DepthwiseConv2D(_Depthwise):
    """Depthwise 2-D convolution (depth_multiplier outputs per channel), fused with bias and activation."""

    def out_channels(self, c: int | None) -> int | None:
        return None if c is None else c * self.depth_multiplier

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return self.call_fused(fused.depthwise_conv2d, "depthwise_kernel", inputs)


@register
class SeparableConv2D(_Depthwise):
    """Depthwise then pointwise (1x1) convolution, then bias and activation."""

    def kernels(self, c: int) -> list[WeightDef]:
        pointwise = WeightDef(
            "pointwise_kernel", (1, 1, c * self.depth_multiplier, self.filters), key="pointwise"
        )
        return [*super().kernels(c), pointwise]

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        y = conv.separable_conv2d(
            inputs, self.vars["depthwise_kernel"], self.vars["pointwise_kernel"], self.strides,
            self.padding, self.dilation, "NHWC",
        )  # fmt: skip
        return self.finish(y)


@register
class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution (kernel [kh, kw, filters, in_channels]), then bias and activation."""

    def configure(self, config: dict[str, Any]) -> None:
        super().configure(config)
        if self.dilation != (1, 1):
            raise self.error(f"dilation_rate {list(self.dilation)} is not supported")
        if config.get("output_padding") is not None:
            raise self.error("output_padding is not supported")

    def kernels(self, c: int) -> list[WeightDef]:
        return [WeightDef("kernel", (*self.kernel_size, self.filters, c))]

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        return (
            s[0],
            deconv_length(s[1], kh, self.padding, sh),
            deconv_length(s[2], kw, self.padding, sw),
            self.filters,
        )

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        out = list(self.compute_output_shape(inputs.shape))
        y = conv.conv2d_transpose(inputs, self.vars["kernel"], out, self.strides, self.padding)
        return self.finish(y)


class _Pool(Layer):
    """Max / average pooling over `rank` spatial dims (2 here, 1 and 3 in conv_nd.py)."""

    rank = 2

    def configure(self, config: dict[str, Any]) -> None:
        channels_last(self, config)
        self.pool_size = int_tuple(self, config.get("pool_size", 2), self.rank, "pool_size")
        strides = config.get("strides")
        self.strides = self.pool_size if strides is None else int_tuple(self, strides, self.rank, "strides")
        self.padding = padding_mode(self, config)

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        need_rank(self, s, self.rank + 2)
        spatial = zip(s[1:-1], self.pool_size, self.strides, strict=True)
        return (s[0], *(conv_length(n, p, self.padding, st) for n, p, st in spatial), s[-1])


@register
class MaxPooling2D(_Pool):
    """The maximum over each pool_size window."""

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return pool.max_pool(inputs, self.pool_size, self.strides, self.padding)


@register
class AveragePooling2D(_Pool):
    """The mean over each pool_size window (padding not counted)."""

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return pool.avg_pool(inputs, self.pool_size, self.strides, self.padding)


class _GlobalPool(Layer):
    """Mean / max over every spatial axis (axes 1..rank-2)."""

    rank = 4

    def configure(self, config: dict[str, Any]) -> None:
        channels_last(self, config)
        self.keepdims = bool(config.get("keepdims", False))

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        need_rank(self, s, self.rank)
        return (s[0], *([1] * (self.rank - 2)), s[-1]) if self.keepdims else (s[0], s[-1])

    def axes(self) -> list[int]:
        return list(range(1, self.rank - 1))


@register
class GlobalAveragePooling2D(_GlobalPool):
    """Mean over height and width."""

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return reduce.mean(inputs, self.axes(), self.keepdims)


@register
class GlobalMaxPooling2D(_GlobalPool):
    """Max over height and width."""

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return reduce.max(inputs, self.axes(), self.keepdims)


@register
class GlobalAveragePooling1D(GlobalAveragePooling2D):
    """Mean over the steps axis."""

    rank = 3


@register
class GlobalMaxPooling1D(GlobalMaxPooling2D):
    """Max over the steps axis."""

    rank = 3


def _pads(layer: Layer, value: Any, what: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """int, [h, w] or [[top, bottom], [left, right]]."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, list) for v in value):
        (t, b), (left, r) = (int_tuple(layer, v, 2, what) for v in value)
        return (t, b), (left, r)
    h, w = int_tuple(layer, value, 2, what)
    return (h, h), (w, w)


class _Borders(Layer):
    """Rows and columns added at (sign 1) or cut from (sign -1) the borders of height and width."""

    key, default, sign = "padding", 1, 1

    def configure(self, config: dict[str, Any]) -> None:
        channels_last(self, config)
        self.borders = _pads(self, config.get(self.key, self.default), self.key)

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        need_rank(self, s, 4)
        (t, b), (left, r) = self.borders
        h = None if s[1] is None else s[1] + self.sign * (t + b)
        w = None if s[2] is None else s[2] + self.sign * (left + r)
        if self.sign < 0 and ((h is not None and h < 0) or (w is not None and w < 0)):
            raise self.error(
                f"cropping {[list(c) for c in self.borders]} is larger than inputs {fmt_shape(s)}"
            )
        return (s[0], h, w, s[3])


@register
class ZeroPadding2D(_Borders):
    """Pad height and width with zeros."""

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return slicing.pad(inputs, [[0, 0], list(self.borders[0]), list(self.borders[1]), [0, 0]])


@register
class Cropping2D(_Borders):
    """Crop height and width."""

    key, default, sign = "cropping", 0, -1

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        b, h, w, c = inputs.shape
        (t, bot), (left, r) = self.borders
        return slicing.slice(inputs, [0, t, left, 0], [b, h - t - bot, w - left - r, c])


@register
class UpSampling2D(Layer):
    """Repeat rows and columns `size` times (nearest) or resize bilinearly."""

    def configure(self, config: dict[str, Any]) -> None:
        channels_last(self, config)
        self.size = int_tuple(self, config.get("size", 2), 2, "size")
        self.interpolation = ident(config.get("interpolation", "nearest")).lower()
        if self.interpolation not in ("nearest", "bilinear"):
            raise self.error(f"interpolation '{self.interpolation}' is not supported (nearest or bilinear)")

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        need_rank(self, s, 4)
        h = None if s[1] is None else s[1] * self.size[0]
        return (s[0], h, None if s[2] is None else s[2] * self.size[1], s[3])

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        size = [inputs.shape[1] * self.size[0], inputs.shape[2] * self.size[1]]
        if self.interpolation == "nearest":
            return image.resize_nearest_neighbor(inputs, size)
        return image.resize_bilinear(inputs, size)
