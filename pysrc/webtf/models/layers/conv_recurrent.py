"""Convolutional LSTM (tfjs-layers convolutional_recurrent.ts): ConvLSTM2DCell and ConvLSTM2D over inputs
[batch, time, height, width, channels]: the LSTM's matmuls become convolutions (the input's with the layer's
strides, padding and dilation; the recurrent one stride 1, 'same')."""

from __future__ import annotations

from typing import Any

from ...ops import binary, fused, shape
from ...ops.conv import conv2d
from ...ops.creation import zeros
from ...tensor import Tensor
from .base import (
    Shape,
    ShapeArg,
    WeightDef,
    channels_last,
    fmt_shape,
    int_tuple,
    known,
    padding_mode,
    register,
)
from .conv import conv_length
from .core import activate
from .recurrent import RNN, LSTMCell, States


@register
class ConvLSTM2DCell(LSTMCell):
    """One ConvLSTM step: gates i, f, c, o from conv(x, kernel) + bias + conv(h, recurrent_kernel); states
    [h, c] of [batch, out_height, out_width, filters]."""

    def configure(self, config: dict[str, Any]) -> None:
        if config.get("filters") is None:
            raise self.error("filters is required")
        config["units"] = config["filters"]  # TF.js: super({...args, units: filters}); not saved
        super().configure(config)
        del config["units"]
        channels_last(self, config)
        self.filters = self.units
        self.kernel_size = int_tuple(self, config.get("kernel_size"), 2, "kernel_size")
        self.strides = int_tuple(self, config.get("strides") or 1, 2, "strides")
        self.dilation = int_tuple(self, config.get("dilation_rate") or 1, 2, "dilation_rate")
        self.padding = padding_mode(self, config)
        if min(self.kernel_size + self.strides + self.dilation) <= 0:
            raise self.error("kernel_size, strides and dilation_rate must be positive")
        if self.dropout or self.recurrent_dropout:
            raise self.error("dropout and recurrent_dropout are not supported in convolutional cells")

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = input_shape[0] if isinstance(input_shape, list) else input_shape
        n = 4 * self.filters
        defs = [
            WeightDef("kernel", (*self.kernel_size, known(self, s, -1), n)),
            WeightDef("recurrent_kernel", (*self.kernel_size, self.filters, n), key="recurrent"),
        ]
        return defs + ([WeightDef("bias", (n,), initializer="zeros")] if self.use_bias else [])

    def out_size(self, s: Shape) -> tuple[int | None, int | None]:
        """(out_height, out_width) of the input convolution over [batch, height, width, channels]."""
        h, w = s[1], s[2]
        return (
            conv_length(h, self.kernel_size[0], self.padding, self.strides[0], self.dilation[0]),
            conv_length(w, self.kernel_size[1], self.padding, self.strides[1], self.dilation[1]),
        )

    def compute_output_shape(self, input_shape: ShapeArg) -> ShapeArg:
        s = input_shape[0] if isinstance(input_shape, list) else input_shape
        out = (s[0], *self.out_size(s), self.filters)
        return [out, out, out]

    def project(self, x: Tensor) -> Tensor:
        """conv(x, kernel) + bias for every image of x (all time steps at once)."""
        return fused.conv2d(
            x,
            self.weight("kernel"),
            self.strides,
            self.padding,
            "NHWC",
            self.dilation,
            bias=self.weight("bias"),
        )

    def step(self, xp: Tensor, states: States, rec_mask: Tensor | None) -> tuple[Tensor, States]:
        h, c = states
        z = binary.add(xp, conv2d(h, self.weight("recurrent_kernel"), 1, "same"))
        zi, zf, zc, zo = shape.split(z, 4, 3)
        i = activate(zi, self.recurrent_activation)
        f = activate(zf, self.recurrent_activation)
        c = binary.add(binary.mul(f, c), binary.mul(i, activate(zc, self.activation)))
        h = binary.mul(activate(zo, self.recurrent_activation), activate(c, self.activation))
        return h, [h, c]


@register
class ConvLSTM2D(RNN):
    """A ConvLSTM2DCell over the time axis of [batch, time, height, width, channels] (not stateful, no
    dropout: errors)."""

    input_rank = 5

    def make_own_cell(self, config: dict[str, Any]) -> Any:
        if config.get("stateful"):
            raise self.error("stateful convolutional RNNs are not supported")
        return ConvLSTM2DCell(self.name, config, self.class_name)

    def _rank5(self, s: Shape) -> None:
        if len(s) != 5:
            raise self.error(
                f"expects inputs of rank 5 [batch, time, height, width, channels], but got shape {fmt_shape(s)}"
            )

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = input_shape[0] if isinstance(input_shape, list) else input_shape
        self._rank5(s)
        self.batch_size = s[0]
        return self.cell.build((s[0], *s[2:]))

    def compute_output_shape(self, input_shape: ShapeArg) -> ShapeArg:
        s = input_shape[0] if isinstance(input_shape, list) else input_shape
        self._rank5(s)
        state = (s[0], *self.cell.out_size((s[0], *s[2:])), self.cell.filters)
        out: Shape = (s[0], s[1], *state[1:]) if self.return_sequences else state
        return [out, state, state] if self.return_state else out

    def initial_states(self, x: Tensor, given: Any) -> list[Tensor]:
        if given is not None:
            return super().initial_states(x, given)
        state = [x.shape[0], *self.cell.out_size(tuple(x.shape[:1]) + tuple(x.shape[2:])), self.cell.filters]
        return [zeros(state), zeros(state)]
