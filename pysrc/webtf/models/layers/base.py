"""The Layer base class, the registry of layer classes, and helpers that read Keras layer configs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from ...tensor import Tensor

Shape = tuple[int | None, ...]
ShapeArg = Shape | list[Shape]  # one shape per input; a single shape when the layer has one input

LAYERS: dict[str, type[Layer]] = {}
L = TypeVar("L", bound="type[Layer]")


def register(cls: L) -> L:
    """Make a Layer subclass loadable under its class name (the Keras class_name)."""
    LAYERS[cls.__name__] = cls
    return cls


def fmt_shape(shape: Any) -> str:
    """A shape as TF.js prints it: [null,224,224,3]."""
    return json.dumps(list(shape) if isinstance(shape, tuple) else shape, separators=(",", ":"))


@dataclass(frozen=True)
class WeightDef:
    """A weight a layer owns: its short name (kernel, bias, ...), shape and whether it is trainable."""

    name: str
    shape: tuple[int, ...]
    trainable: bool = True


class Layer:
    """A Keras layer restored from its config: build() declares weights, call() runs the forward pass."""

    class_name: ClassVar[str] = ""

    def __init__(self, name: str, config: dict[str, Any], class_name: str) -> None:
        self.name = name
        self.config = config
        self.class_name = class_name
        self.trainable = bool(config.get("trainable", True))
        self.weight_defs: list[WeightDef] = []
        self.weights: dict[str, Tensor] = {}
        self.built = False
        self.input_shapes: list[ShapeArg] = []  # per call (inbound node)
        self.output_shapes: list[ShapeArg] = []
        self.configure(config)

    # ---- subclasses override these -----------------------------------------------------------
    def configure(self, config: dict[str, Any]) -> None:
        """Read the layer's config (raise ValueError on anything unsupported)."""

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        """The weights this layer needs for inputs of `input_shape`."""
        return []

    def compute_output_shape(self, input_shape: ShapeArg) -> ShapeArg:
        """The output shape(s) for inputs of `input_shape`."""
        return input_shape

    def call(self, inputs: Any, kwargs: dict[str, Any]) -> Tensor | list[Tensor]:
        """The forward pass (inference): one input tensor, or a list of them for merge layers."""
        raise NotImplementedError

    # ---- shared ------------------------------------------------------------------------------
    def error(self, message: str) -> ValueError:
        """A ValueError naming this layer."""
        return ValueError(f"Layer '{self.name}' ({self.class_name}): {message}")

    def apply_shape(self, input_shape: ShapeArg) -> ShapeArg:
        """Build on the first call, then compute (and remember) the output shape of one more call."""
        if not self.built:
            self.weight_defs = self.build(input_shape)
            self.built = True
        out = self.compute_output_shape(input_shape)
        self.input_shapes.append(input_shape)
        self.output_shapes.append(out)
        return out

    @property
    def leaf_layers(self) -> list[Layer]:
        """The layers that own weights directly (a nested model lists its inner layers)."""
        return [self]

    def weight_names(self) -> list[tuple[str, WeightDef]]:
        """(TF.js original name '<layer>/<weight>', definition) for each weight, in build order."""
        return [(f"{self.name}/{d.name}", d) for d in self.weight_defs]

    def count_params(self) -> int:
        """Number of scalars in this layer's weights."""
        total = 0
        for d in self.weight_defs:
            n = 1
            for s in d.shape:
                n *= s
            total += n
        return total

    def w(self, name: str) -> Tensor | None:
        """A loaded weight by short name, or None when the layer has no such weight."""
        return self.weights.get(name)


# ---------------------------------------------------------------------------------- config helpers


def single(layer: Layer, input_shape: ShapeArg) -> Shape:
    """The one input shape of a single-input layer."""
    if isinstance(input_shape, list):
        if len(input_shape) != 1:
            raise layer.error(f"expects 1 input, but got {len(input_shape)}")
        return input_shape[0]
    return input_shape


def need_rank(layer: Layer, shape: Shape, rank: int) -> None:
    """Raise unless `shape` has `rank` dims."""
    if len(shape) != rank:
        raise layer.error(f"expects inputs of rank {rank}, but got shape {fmt_shape(shape)}")


def known(layer: Layer, shape: Shape, axis: int, what: str = "channel") -> int:
    """A dimension that must be defined to build the layer."""
    dim = shape[axis]
    if dim is None:
        raise layer.error(
            f"the {what} dimension of the inputs must be defined, but got shape {fmt_shape(shape)}"
        )
    return dim


def int_tuple(layer: Layer, value: Any, n: int, what: str) -> tuple[int, ...]:
    """An int (repeated n times) or a list of n ints."""
    if isinstance(value, bool):
        raise layer.error(f"{what} must be an int or a list of {n} ints, but got {value!r}")
    if isinstance(value, (int, float)) and int(value) == value:
        return (int(value),) * n
    if (
        isinstance(value, (list, tuple))
        and len(value) == n
        and all(isinstance(v, (int, float)) for v in value)
    ):
        return tuple(int(v) for v in value)
    raise layer.error(f"{what} must be an int or a list of {n} ints, but got {value!r}")


def channels_last(layer: Layer, config: dict[str, Any]) -> None:
    """Raise unless the layer's data_format is channels_last (the only layout webtf layers run)."""
    fmt_ = config.get("data_format") or "channels_last"
    if fmt_ not in ("channels_last", "channelsLast"):
        raise layer.error(f"data_format '{fmt_}' is not supported; webtf runs channels_last layers only")


def padding_mode(layer: Layer, config: dict[str, Any]) -> str:
    """'same' or 'valid'."""
    pad = str(config.get("padding", "valid")).lower()
    if pad not in ("same", "valid"):
        raise layer.error(f"padding '{pad}' is not supported (expected 'same' or 'valid')")
    return pad


def ident(value: Any) -> str:
    """A Keras identifier (activation, interpolation) given as a string or {class_name, config}."""
    if value is None:
        return "linear"
    if isinstance(value, dict):
        value = value.get("class_name") or value.get("config", {}).get("name", "")
    return str(value)
