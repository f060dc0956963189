"""Core layers: InputLayer, Dense, activations, dropout (identity at inference) and reshaping layers."""

from __future__ import annotations

import math
from math import prod
from typing import Any

from ...ops import binary, creation, fused, shape, unary
from ...ops.cast import cast
from ...ops.softmax import softmax
from ...tensor import Tensor
from . import activations
from .base import Layer, Shape, ShapeArg, WeightDef, channels_last, fmt_shape, ident, known, register, single


def parse_activation(layer: Layer, value: Any) -> str:
    """The normalized name of a supported activation, or a load-time error naming the layer."""
    name = ident(value)
    if activations.lookup(name) is None:
        raise layer.error(f"unsupported activation '{name}'")
    return activations.normalize(name)


def activate(x: Tensor, name: str) -> Tensor:
    """Apply a parsed activation."""
    return activations.ACTIVATIONS[name](x)


def batch_shape_of(config: dict[str, Any]) -> Shape | None:
    """The batch input shape a config declares (batch_input_shape, batch_shape or input_shape)."""
    for key in ("batch_input_shape", "batch_shape"):
        if config.get(key) is not None:
            return tuple(None if d is None or d == -1 else int(d) for d in config[key])
    if config.get("input_shape") is not None:
        return (None, *(None if d is None else int(d) for d in config["input_shape"]))
    return None


@register
class InputLayer(Layer):
    """A model input: holds the batch shape and dtype of the tensors fed to it."""

    def configure(self, config: dict[str, Any]) -> None:
        shape_ = batch_shape_of(config)
        if shape_ is None:
            raise self.error("needs batch_input_shape")
        self.batch_shape = shape_
        self.dtype = str(config.get("dtype") or "float32")
        if self.dtype not in ("float32", "int32", "bool"):
            raise self.error(f"unsupported input dtype '{self.dtype}'")

    def call(self, inputs: Any, kwargs: dict[str, Any]) -> Tensor:
        return inputs


@register
class Dense(Layer):
    """activation(x @ kernel + bias) over the last axis (fused when the activation allows)."""

    def configure(self, config: dict[str, Any]) -> None:
        self.units = int(config["units"])
        if self.units <= 0:
            raise self.error(f"units must be a positive integer, but got {config['units']!r}")
        self.use_bias = bool(config.get("use_bias", True))
        self.activation = parse_activation(self, config.get("activation"))

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = single(self, input_shape)
        if len(s) < 2:
            raise self.error(f"expects inputs of rank >= 2, but got shape {fmt_shape(s)}")
        n_in = known(self, s, -1, "last")
        defs = [WeightDef("kernel", (n_in, self.units))]
        return defs + ([WeightDef("bias", (self.units,), initializer="zeros")] if self.use_bias else [])

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        return (*single(self, input_shape)[:-1], self.units)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        x = inputs
        lead = x.shape[:-1]
        if x.rank != 2:
            x = shape.reshape(x, [-1, x.shape[-1]])
        act = activations.FUSED.get(self.activation)
        y = fused.mat_mul(x, self.vars["kernel"], bias=self.w("bias"), activation=act or "linear")
        if act is None:
            y = activate(y, self.activation)
        return y if len(lead) == 1 else shape.reshape(y, [*lead, self.units])


@register
class Activation(Layer):
    """Applies an activation function."""

    def configure(self, config: dict[str, Any]) -> None:
        self.activation = parse_activation(self, config.get("activation"))

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return activate(inputs, self.activation)


@register
class ReLU(Layer):
    """Keras ReLU: max_value cap, negative_slope below threshold, threshold shift."""

    def configure(self, config: dict[str, Any]) -> None:
        mv = config.get("max_value")
        self.max_value = None if mv is None else float(mv)
        self.negative_slope = float(config.get("negative_slope") or 0.0)
        self.threshold = float(config.get("threshold") or 0.0)
        if self.max_value is not None and self.max_value < 0:
            raise self.error(f"max_value must be >= 0, but got {self.max_value}")

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        x, mv = inputs, self.max_value
        if self.negative_slope == 0 and self.threshold == 0:
            if mv == 6.0:
                return unary.relu6(x)
            y = unary.relu(x)
            return y if mv is None else binary.minimum(y, mv)
        # x >= threshold: x (capped at max_value); below: negative_slope * (x - threshold)
        above = x if mv is None else binary.minimum(x, mv)
        below = binary.mul(binary.sub(x, self.threshold), self.negative_slope)
        return binary.where(binary.greater_equal(x, self.threshold), above, below)


@register
class LeakyReLU(Layer):
    """x for x >= 0, alpha * x below (alpha defaults to 0.3 as in Keras)."""

    def configure(self, config: dict[str, Any]) -> None:
        alpha = config.get("alpha", config.get("negative_slope"))
        self.alpha = 0.3 if alpha is None else float(alpha)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return unary.leaky_relu(inputs, self.alpha)


@register
class PReLU(Layer):
    """Leaky ReLU with a learned slope per element (shared along shared_axes)."""

    def configure(self, config: dict[str, Any]) -> None:
        axes = config.get("shared_axes")
        self.shared_axes = (
            [] if axes is None else [int(a) for a in (axes if isinstance(axes, list) else [axes])]
        )

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = list(single(self, input_shape)[1:])
        for a in self.shared_axes:
            if not 1 <= a <= len(s):
                raise self.error(
                    f"shared_axes {self.shared_axes} do not fit inputs of shape {fmt_shape((None, *s))}"
                )
            s[a - 1] = 1
        if any(d is None for d in s):
            raise self.error(f"needs fully defined inputs (besides the batch), got {fmt_shape((None, *s))}")
        return [WeightDef("alpha", tuple(int(d) for d in s), initializer="zeros")]  # type: ignore[arg-type]

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return unary.prelu(inputs, self.vars["alpha"])


@register
class ELU(Layer):
    """alpha * (exp(x) - 1) below 0, x above."""

    def configure(self, config: dict[str, Any]) -> None:
        self.alpha = float(config.get("alpha", 1.0))

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        if self.alpha == 1.0:
            return unary.elu(inputs)
        return binary.where(binary.greater(inputs, 0), inputs, binary.mul(unary.elu(inputs), self.alpha))


@register
class ThresholdedReLU(Layer):
    """x where x > theta, 0 elsewhere."""

    def configure(self, config: dict[str, Any]) -> None:
        self.theta = float(config.get("theta", 1.0))

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return binary.mul(inputs, cast(binary.greater(inputs, self.theta), "float32"))


@register
class Softmax(Layer):
    """Softmax along `axis` (default -1)."""

    def configure(self, config: dict[str, Any]) -> None:
        axis = config.get("axis", -1)
        if isinstance(axis, list):
            if len(axis) != 1:
                raise self.error(f"softmax over several axes {axis} is not supported")
            axis = axis[0]
        self.axis = int(axis)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        axis = self.axis % inputs.rank
        if axis == inputs.rank - 1:
            return softmax(inputs, -1)
        perm = [i for i in range(inputs.rank) if i != axis] + [axis]
        back = [perm.index(i) for i in range(inputs.rank)]
        return shape.transpose(softmax(shape.transpose(inputs, perm), -1), back)


def training(kwargs: dict[str, Any]) -> bool:
    """The call's training flag (False unless the fit loop or apply(training=True) set it)."""
    return bool(kwargs.get("training", False))


def _keep_mask(x: Tensor, rate: float, seed: int | None, noise_shape: list[int] | None = None) -> Tensor:
    """1.0 where an element (or a noise_shape slice) is kept, with probability 1 - rate; else 0.0."""
    draw = creation.random_uniform(noise_shape or list(x.shape), 0.0, 1.0, "float32", seed)
    return cast(binary.greater_equal(draw, rate), "float32")


class _Dropout(Layer):
    """Dropout: the identity at inference; in training each element is zeroed with probability rate and the
    rest scaled by 1 / (1 - rate)."""

    def configure(self, config: dict[str, Any]) -> None:
        self.rate = float(config["rate"])
        if not 0 <= self.rate < 1:
            raise self.error(f"rate must be in [0, 1), but got {self.rate}")
        ns = config.get("noise_shape")
        self.noise_shape = None if ns is None else [None if d is None else int(d) for d in ns]
        self.seed = config.get("seed")

    def noise(self, x: Tensor) -> list[int] | None:
        """The shape of the mask (broadcast over x)."""
        if self.noise_shape is None:
            return None
        return [x.shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        if not training(kwargs) or self.rate == 0:
            return inputs
        mask = _keep_mask(inputs, self.rate, self.seed, self.noise(inputs))
        return binary.mul(inputs, binary.mul(mask, 1.0 / (1.0 - self.rate)))


@register
class Dropout(_Dropout):
    """Dropout (TF.js tf.layers.dropout)."""


@register
class SpatialDropout1D(_Dropout):
    """Dropout of whole channels of [batch, steps, channels] inputs."""

    def noise(self, x: Tensor) -> list[int] | None:
        return [x.shape[0], 1, x.shape[2]]


@register
class SpatialDropout2D(_Dropout):
    """Dropout of whole channels of [batch, h, w, channels] inputs."""

    def noise(self, x: Tensor) -> list[int] | None:
        return [x.shape[0], 1, 1, x.shape[3]]


@register
class GaussianNoise(Layer):
    """Adds normal noise of stddev while training."""

    def configure(self, config: dict[str, Any]) -> None:
        self.stddev = float(config["stddev"])
        self.seed = config.get("seed")

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        if not training(kwargs):
            return inputs
        return binary.add(
            inputs, creation.random_normal(list(inputs.shape), 0.0, self.stddev, "float32", self.seed)
        )


@register
class GaussianDropout(Layer):
    """Multiplies by normal noise of mean 1 and stddev sqrt(rate / (1 - rate)) while training."""

    def configure(self, config: dict[str, Any]) -> None:
        self.rate = float(config["rate"])
        if not 0 <= self.rate < 1:
            raise self.error(f"rate must be in [0, 1), but got {self.rate}")
        self.seed = config.get("seed")

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        if not training(kwargs) or self.rate == 0:
            return inputs
        std = math.sqrt(self.rate / (1.0 - self.rate))
        return binary.mul(inputs, creation.random_normal(list(inputs.shape), 1.0, std, "float32", self.seed))


@register
class AlphaDropout(_Dropout):
    """Dropout that keeps the mean and variance of SELU activations (dropped values set to -alpha * scale,
    then an affine correction), while training."""

    ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        if not training(kwargs) or self.rate == 0:
            return inputs
        rate, alpha_p = self.rate, self.ALPHA_P
        keep = _keep_mask(inputs, rate, self.seed, self.noise(inputs))
        a = ((1 - rate) * (1 + rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * rate
        x = binary.add(binary.mul(inputs, keep), binary.mul(binary.sub(1.0, keep), alpha_p))
        return binary.add(binary.mul(x, a), b)


class _Identity(Layer):
    """Layers that change nothing in webtf's forward pass."""

    keys: tuple[str, ...] = ()

    def configure(self, config: dict[str, Any]) -> None:
        for key in self.keys:
            config.get(key)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return inputs


register(type("ActivityRegularization", (_Identity,), {"__doc__": "The identity.", "keys": ("l1", "l2")}))


@register
class Flatten(Layer):
    """Reshape to [batch, -1]."""

    def configure(self, config: dict[str, Any]) -> None:
        channels_last(self, config)

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        rest = s[1:]
        return (s[0], None if any(d is None for d in rest) else prod(rest))  # type: ignore[arg-type]

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return shape.reshape(inputs, [inputs.shape[0], -1])


@register
class Reshape(Layer):
    """Reshape every example to target_shape (one entry may be -1)."""

    def configure(self, config: dict[str, Any]) -> None:
        self.target = [-1 if d is None else int(d) for d in config["target_shape"]]
        if self.target.count(-1) > 1:
            raise self.error(f"target_shape {self.target} can have at most one unknown dimension")

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        if -1 not in self.target:
            return (s[0], *self.target)
        rest = s[1:]
        if any(d is None for d in rest):
            return (s[0], *(None if d == -1 else d for d in self.target))
        total, fixed = prod(rest), prod(d for d in self.target if d != -1)  # type: ignore[misc]
        if fixed == 0 or total % fixed:
            raise self.error(f"cannot reshape inputs of shape {fmt_shape(s)} to {self.target}")
        return (s[0], *(total // fixed if d == -1 else d for d in self.target))

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return shape.reshape(inputs, [inputs.shape[0], *self.target])


@register
class Permute(Layer):
    """Permute the non-batch axes; dims are 1-based as in Keras."""

    def configure(self, config: dict[str, Any]) -> None:
        self.dims = [int(d) for d in config["dims"]]
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise self.error(f"dims {self.dims} must be a permutation of 1..{len(self.dims)}")

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        if len(s) != len(self.dims) + 1:
            raise self.error(f"dims {self.dims} do not fit inputs of shape {fmt_shape(s)}")
        return (s[0], *(s[d] for d in self.dims))

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return shape.transpose(inputs, [0, *self.dims])


@register
class RepeatVector(Layer):
    """[batch, features] -> [batch, n, features]."""

    def configure(self, config: dict[str, Any]) -> None:
        self.n = int(config["n"])

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        s = single(self, input_shape)
        if len(s) != 2:
            raise self.error(f"expects inputs of rank 2, but got shape {fmt_shape(s)}")
        return (s[0], self.n, s[1])

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return shape.tile(shape.expand_dims(inputs, 1), [1, self.n, 1])


@register
class Rescaling(Layer):
    """x * scale + offset."""

    def configure(self, config: dict[str, Any]) -> None:
        self.scale = float(config.get("scale", 1.0))
        self.offset = float(config.get("offset", 0.0))

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        x = inputs if inputs.dtype == "float32" else cast(inputs, "float32")
        return binary.add(binary.mul(x, self.scale), self.offset)
