"""The 1-D and 3-D convolution and pooling layers (channels_last): Conv1D, Conv3D, Conv3DTranspose,
MaxPooling1D/3D and AveragePooling1D/3D (TF.js tfjs-layers's names, config fields and weights)."""

from __future__ import annotations

from typing import Any

from ...ops import pool, shape
from ...ops.conv3d import avg_pool3d, conv1d, conv3d, conv3d_transpose, max_pool3d
from ...tensor import Tensor
from .base import Shape, ShapeArg, WeightDef, register, single
from .conv import _Conv, _Pool, deconv_length


@register
class Conv1D(_Conv):
    """1-D convolution over steps (kernel [k, in_channels, filters]), then bias and activation."""

    rank = 1

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        y = conv1d(inputs, self.vars["kernel"], self.strides[0], self.padding, "NWC", self.dilation[0])
        return self.finish(y)


@register
class Conv3D(_Conv):
    """3-D convolution (kernel [kd, kh, kw, in_channels, filters]), then bias and activation."""

    rank = 3

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        y = conv3d(inputs, self.vars["kernel"], self.strides, self.padding, "NDHWC", self.dilation)
        return self.finish(y)


@register
class Conv3DTranspose(_Conv):
    """Transposed 3-D convolution (kernel [kd, kh, kw, filters, in_channels]), then bias and activation."""

    rank = 3

    def configure(self, config: dict[str, Any]) -> None:
        super().configure(config)
        if self.dilation != (1, 1, 1):
            raise self.error(f"dilation_rate {list(self.dilation)} is not supported")

    def kernels(self, c: int) -> list[WeightDef]:
        return [WeightDef("kernel", (*self.kernel_size, self.filters, c))]

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        spatial = zip(s[1:-1], self.kernel_size, self.strides, strict=True)
        return (s[0], *(deconv_length(n, k, self.padding, st) for n, k, st in spatial), self.filters)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        out = list(self.compute_output_shape(inputs.shape))
        y = conv3d_transpose(inputs, self.vars["kernel"], out, self.strides, self.padding)
        return self.finish(y)


class _Pool1D(_Pool):
    """Pooling over steps: a 2-D pool of height pool_size over [batch, steps, 1, channels] (as TF.js)."""

    rank = 1
    pool2d: Any = None

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        x = shape.expand_dims(inputs, 2)
        y = type(self).pool2d(x, (self.pool_size[0], 1), (self.strides[0], 1), self.padding)
        return shape.squeeze(y, [2])


@register
class MaxPooling1D(_Pool1D):
    """The maximum over each pool_size window of steps."""

    pool2d = staticmethod(pool.max_pool)


@register
class AveragePooling1D(_Pool1D):
    """The mean over each pool_size window of steps (padding not counted)."""

    pool2d = staticmethod(pool.avg_pool)


@register
class MaxPooling3D(_Pool):
    """The maximum over each pool_size window of depth, height and width."""

    rank = 3

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return max_pool3d(inputs, self.pool_size, self.strides, self.padding)


@register
class AveragePooling3D(_Pool):
    """The mean over each pool_size window of depth, height and width (padding not counted)."""

    rank = 3

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return avg_pool3d(inputs, self.pool_size, self.strides, self.padding)
