"""The Layer base class, the registry of layer classes, and helpers that read Keras layer configs."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, TypeVar

from ...engine import ENGINE
from ...ops.binary import div as ops_div
from ...ops.cast import cast
from ...tensor import Tensor, Variable
from . import constraints, initializers, regularizers

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
    """A weight a layer owns: its short name (kernel, bias, ...), shape, whether it is trainable, the initializer
    used when the config names none, and the config prefix of its `<key>_initializer` / `_regularizer` /
    `_constraint` entries (default: the name)."""

    name: str
    shape: tuple[int, ...]
    trainable: bool = True
    initializer: str = "glorot_uniform"
    key: str | None = None

    @property
    def config_key(self) -> str:
        return self.key or self.name


class LayerVariable(Variable):
    """A layer's weight: a Variable that also keeps its TF.js original name '<layer>/<weight>'."""

    __slots__ = ("original_name",)

    def __init__(self, initial: Tensor, trainable: bool, name: str, original_name: str) -> None:
        super().__init__(initial, trainable, name)
        self.original_name = original_name


def unique_variable_name(name: str) -> str:
    """`name`, or `name_<n>` when a variable of that name exists (two models may share layer names)."""
    taken = ENGINE.registered_variables
    if name not in taken:
        return name
    n = 1
    while f"{name}_{n}" in taken:
        n += 1
    return f"{name}_{n}"


class Layer:
    """A Keras layer restored from its config: build() declares weights, call() runs the forward pass."""

    class_name: ClassVar[str] = ""
    stateful = False  # whether the layer keeps state between calls (a stateful RNN sets it)

    def __init__(self, name: str, config: dict[str, Any], class_name: str) -> None:
        self.name = name
        self.config = config
        self.class_name = class_name
        self.weight_defs: list[WeightDef] = []
        self.vars: dict[str, Variable] = {}  # by short name (kernel, bias, ...)
        self.regularizers: dict[str, regularizers.Regularizer] = {}
        self.constraints: dict[str, constraints.Constraint] = {}
        self._trainable = bool(config.get("trainable", True))
        try:
            self.activity_regularizer = regularizers.get(config.get("activity_regularizer"))
        except ValueError as e:
            raise self.error(f"activity_regularizer: {e}") from None
        self.activity_losses: list[Tensor] = []  # penalties of this layer's outputs in the current step
        self.added_losses: list[Callable[[], Tensor]] = []  # add_loss(): penalties training adds
        self.built = False
        self.input_shapes: list[ShapeArg] = []  # per call (inbound node)
        self.output_shapes: list[ShapeArg] = []
        self.configure(config)

    def get_class_name(self) -> str:
        """The Keras class name ('Dense', ...), as TF.js getClassName."""
        return self.class_name

    def get_config(self) -> dict[str, Any]:
        """The layer's config with its current name and trainable flag (keys as model.json saves them)."""
        return {**self.config, "name": self.name, "trainable": self.trainable}

    @property
    def output_shape(self) -> Any:
        """The output shape of this layer's calls (a list of shapes for several outputs), as TF.js outputShape;
        AttributeError before any call or when calls gave different shapes."""
        shapes: list[Any] = []
        for out in self.output_shapes:
            if out not in shapes:
                shapes.append(out)
        if not shapes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined output shape.")
        if len(shapes) > 1:
            raise AttributeError(
                f"The layer {self.name} has multiple inbound nodes with different output shapes. Hence the "
                'notion of "output shape" is ill-defined for the layer.'
            )
        return _as_lists(shapes[0])

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

    def apply(self, inputs: Any, training: bool = False, **kwargs: Any) -> Any:
        """Call the layer: on Tensors it computes (building on first use), on SymbolicTensors it adds a
        call to the model being built."""
        from .api import apply_layer

        return apply_layer(self, inputs, training, **kwargs)

    __call__ = apply

    # ---- weights -----------------------------------------------------------------------------
    @property
    def trainable(self) -> bool:
        """Whether the optimizer updates this layer's trainable weights (TF.js layer.trainable)."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        for d in self.weight_defs:
            if d.name in self.vars:
                self.vars[d.name].trainable = d.trainable and self._trainable

    def add_weight(self, d: WeightDef, value: Tensor | None = None) -> Variable:
        """Create the variable for `d`: from `value` (a loaded weight, which it takes over) or else from the
        initializer the config names; attach the config's regularizer and constraint."""
        if d.name in self.vars:
            raise self.error(f"weight '{d.name}' already exists")
        key = d.config_key
        if value is None:
            value = self.initial_value(d)
        elif tuple(value.shape) != d.shape:
            raise self.error(
                f"weight '{d.name}' needs shape {fmt_shape(d.shape)}, got {fmt_shape(value.shape)}"
            )
        original = f"{self.name}/{d.name}"
        try:
            var = LayerVariable(
                value, d.trainable and self._trainable, unique_variable_name(original), original
            )
        finally:
            value.dispose()
        self.vars[d.name] = var
        reg = regularizers.get(self.config.get(f"{key}_regularizer"))
        if reg is not None:
            self.regularizers[d.name] = reg
        con = constraints.get(self.config.get(f"{key}_constraint"))
        if con is not None:
            self.constraints[d.name] = con
        return var

    def initial_value(self, d: WeightDef) -> Tensor:
        """A new value for weight `d` from the initializer the config names (else d's default)."""
        init = initializers.get(self.config.get(f"{d.config_key}_initializer") or d.initializer)
        return init(d.shape, "float32")

    def init_weights(self) -> None:
        """Create every declared weight that has no variable yet from its initializer."""
        for d in self.weight_defs:
            if d.name not in self.vars:
                self.add_weight(d)

    @property
    def weights(self) -> list[Variable]:
        """This layer's variables in build order."""
        return [self.vars[d.name] for d in self.weight_defs if d.name in self.vars]

    @property
    def trainable_weights(self) -> list[Variable]:
        """The weights an optimizer updates (none when the layer is frozen)."""
        if not self.trainable:
            return []
        return [self.vars[d.name] for d in self.weight_defs if d.trainable and d.name in self.vars]

    @property
    def non_trainable_weights(self) -> list[Variable]:
        """Every other weight (all of them when the layer is frozen)."""
        ids = {id(v) for v in self.trainable_weights}
        return [v for v in self.weights if id(v) not in ids]

    def get_weights(self) -> list[Tensor]:
        """The weight values (the variables themselves, as TF.js's getWeights reads them)."""
        return list(self.weights)

    def set_weights(self, values: list[Tensor]) -> None:
        """Assign new values to this layer's weights, in build order."""
        assign_all(self.weights, values, f"Layer '{self.name}' ({self.class_name})")

    def regularization_losses(self) -> list[Tensor]:
        """The regularizer penalty of each regularized weight, then of each add_loss() function (scalars)."""
        return self.calculate_losses()

    @property
    def losses(self) -> list[Callable[[], Tensor]]:
        """The penalty functions training adds: one per regularized weight, then add_loss()'s (TF.js losses)."""
        regs = [partial(reg, self.vars[name]) for name, reg in self.regularizers.items() if name in self.vars]
        return regs + self.added_losses

    def add_loss(self, losses: Callable[[], Tensor] | list[Callable[[], Tensor]]) -> None:
        """Add penalty functions (each returns a scalar) that training adds to the loss (TF.js addLoss)."""
        self.added_losses += losses if isinstance(losses, list) else [losses]

    def calculate_losses(self) -> list[Tensor]:
        """The current value of each function in `losses` (TF.js calculateLosses)."""
        return [fn() for fn in self.losses]

    @property
    def updates(self) -> list[Tensor]:
        """Always empty: webtf's layers (as TF.js's) keep no pending update ops."""
        return []

    def reset_states(self) -> None:
        """Reset a stateful layer's states; TF.js's error for any other layer."""
        if not self.stateful:
            raise ValueError("Cannot call the resetStates() method of a non-stateful Layer object.")

    def add_activity_loss(self, outputs: Any) -> None:
        """Record the activity regularizer's penalty of one training call's outputs: regularizer(output) over the
        batch size, summed over outputs (as Keras; TF.js 4.22 rejects activity regularizers). The tensors are
        kept until the training step takes them (take_activity_losses)."""
        reg = self.activity_regularizer
        assert reg is not None
        for out in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
            batch = out.shape[0] if out.rank else 1
            t = ENGINE.tidy(lambda o=out, n=batch, r=reg: ops_div(r.apply(o), float(n)))
            t.kept = True
            self.activity_losses.append(t)

    def take_activity_losses(self) -> list[Tensor]:
        """The activity penalties recorded since the last call (the caller frees them)."""
        got, self.activity_losses = self.activity_losses, []
        return got

    def apply_constraints(self) -> None:
        """Project each constrained weight back into its allowed set (called after an optimizer step)."""
        for name, con in self.constraints.items():
            var = self.vars.get(name)
            if var is not None:
                new = con(var)
                var.assign(new)
                new.dispose()

    def dispose_weights(self) -> None:
        """Free the variables."""
        for v in self.vars.values():
            v.dispose()
        self.vars.clear()

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
        """A weight by short name, or None when the layer has no such weight."""
        return self.vars.get(name)


def assign_all(variables: list[Variable], values: list[Tensor], who: str) -> None:
    """Assign values to variables one to one, checking the count and every shape before assigning any."""
    if len(values) != len(variables):
        raise ValueError(f"{who}: set_weights expects {len(variables)} weights, but got {len(values)}")
    for v, t in zip(variables, values, strict=True):
        if not isinstance(t, Tensor):
            raise TypeError(f"{who}: set_weights expects Tensors, got {type(t).__name__}")
        if tuple(t.shape) != tuple(v.shape):
            raise ValueError(
                f"{who}: weight '{_label(v)}' has shape {fmt_shape(v.shape)}, "
                f"but the value given has shape {fmt_shape(t.shape)}"
            )
    for v, t in zip(variables, values, strict=True):
        new = t if t.dtype == v.dtype else cast(t, v.dtype)
        v.assign(new)
        if new is not t:
            new.dispose()


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


def _label(v: Variable) -> str:
    return v.original_name if isinstance(v, LayerVariable) else v.name


def _as_lists(shape: Any) -> Any:
    """A shape (or nested shapes) as lists."""
    return [_as_lists(d) for d in shape] if isinstance(shape, (list, tuple)) else shape
