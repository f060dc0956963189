"""Building models in Python (TF.js tf.layers.*, tf.input, tf.model, tf.sequential) and layer apply()."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...engine import ENGINE
from ...tensor import Tensor
from . import constraints, initializers, regularizers
from .base import LAYERS, Layer, Shape, fmt_shape
from .core import InputLayer, batch_shape_of
from .model import LayersModel
from .topology import ModelLayer, Network, Node, call_node, construct, input_node, named_error

_UIDS: dict[str, int] = {}
# class names whose snake_case is not the mechanical one (TF.js: tf.layers.reLU, leakyReLU, pReLU, ...)
_SNAKE_EXCEPTIONS = {"ReLU": "relu", "LeakyReLU": "leaky_relu", "PReLU": "prelu", "ELU": "elu",
                     "ThresholdedReLU": "thresholded_relu"}  # fmt: skip
# config keys every layer accepts besides those its configure() reads
_COMMON_KEYS = {"name", "trainable", "dtype", "input_shape", "batch_input_shape", "batch_size", "input_dtype"}
_WEIGHT_KEY = re.compile(r".+_(initializer|regularizer|constraint)$")


def snake_name(class_name: str) -> str:
    """The tf.layers factory name of a layer class: Conv2DTranspose -> conv2d_transpose, SimpleRNN -> simple_rnn."""
    if class_name in _SNAKE_EXCEPTIONS:
        return _SNAKE_EXCEPTIONS[class_name]
    return re.sub(
        r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[0-9]D)(?=[A-Z])", "_", class_name
    ).lower()


def unique_name(prefix: str) -> str:
    """prefix + the next number for that prefix: dense_Dense1, dense_Dense2, ..."""
    _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
    return f"{prefix}{_UIDS[prefix]}"


class _Tracked(dict):  # type: ignore[type-arg]
    """A config that remembers which keys were read, to name unknown arguments."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)


def create_layer(class_name: str, config: dict[str, Any]) -> Layer:
    """A layer of a registered class from keyword arguments (Keras config keys); unknown keys are errors."""
    cls = LAYERS.get(class_name)
    if cls is None:
        raise ValueError(f"Unknown layer class '{class_name}'")
    name = config.get("name") or unique_name(f"{snake_name(class_name)}_{class_name}")
    for key in ("input_shape", "batch_input_shape"):
        if config.get(key) is not None and not isinstance(config[key], (list, tuple)):
            raise ValueError(f"Layer '{name}' ({class_name}): {key} must be a list, but got {config[key]!r}")
    tracked = _Tracked({**config, "name": name})
    layer = construct(cls, name, tracked, class_name)
    unknown = [
        k for k in config if k not in tracked.read and k not in _COMMON_KEYS and not _WEIGHT_KEY.match(k)
    ]
    if unknown:
        raise ValueError(
            f"Layer '{name}' ({class_name}): unknown argument(s) {', '.join(map(repr, unknown))}"
        )
    _check_weight_args(layer, config)
    layer.config = dict(tracked)
    return layer


def _check_weight_args(layer: Layer, config: dict[str, Any]) -> None:
    """Resolve each `<weight>_initializer / _regularizer / _constraint` argument now, so that a bad one is
    named with its layer at creation rather than at build."""
    for key, value in config.items():
        kind = _WEIGHT_KEY.match(key)
        if kind is None or value is None:
            continue
        resolve = {"initializer": initializers.get, "regularizer": regularizers.get,
                   "constraint": constraints.get}[kind.group(1)]  # fmt: skip
        try:
            resolve(value)
        except (ValueError, TypeError) as e:
            raise layer.error(f"{key}: {e}") from None


def factory(class_name: str) -> Callable[..., Layer]:
    """tf.layers.<snake_name>(**config) for a registered class."""

    def make(**config: Any) -> Layer:
        return create_layer(class_name, config)

    make.__name__ = snake_name(class_name)
    make.__doc__ = f"A {class_name} layer (tf.layers.{make.__name__}); keyword arguments are its config."
    return make


def factories() -> dict[str, str]:
    """factory name -> class name for every registered layer class."""
    return {snake_name(c): c for c in LAYERS}


class SymbolicTensor:
    """A placeholder for a value in a model being built: the output `index` of a layer call (node)."""

    __slots__ = ("node", "index")

    def __init__(self, node: Node, index: int = 0) -> None:
        self.node = node
        self.index = index

    @property
    def shape(self) -> list[int | None]:
        """The batch shape (None where unknown)."""
        return list(self.node.output_shapes[self.index])

    @property
    def dtype(self) -> str:
        layer = self.node.layer
        return layer.dtype if isinstance(layer, InputLayer) else "float32"

    @property
    def rank(self) -> int:
        return len(self.node.output_shapes[self.index])

    @property
    def name(self) -> str:
        base = self.node.layer.name
        return base if self.index == 0 else f"{base}:{self.index}"

    @property
    def source_layer(self) -> Layer:
        return self.node.layer

    def __repr__(self) -> str:
        return f"SymbolicTensor(name={self.name}, shape={fmt_shape(self.shape)}, dtype={self.dtype})"


def input(  # noqa: A001  (TF.js tf.input)
    shape: list[int | None] | None = None,
    batch_shape: list[int | None] | None = None,
    name: str | None = None,
    dtype: str = "float32",
    batch_size: int | None = None,
) -> SymbolicTensor:
    """A model input: a SymbolicTensor of [batch, *shape] (or batch_shape)."""
    if (shape is None) == (batch_shape is None):
        raise ValueError("tf.input: give exactly one of shape and batch_shape")
    full = list(batch_shape) if batch_shape is not None else [batch_size, *shape]  # type: ignore[misc]
    name = name or unique_name("input")
    layer = InputLayer(name, {"batch_input_shape": full, "dtype": dtype, "name": name}, "InputLayer")
    return SymbolicTensor(input_node(layer))


def _check_built_shape(layer: Layer, shapes: list[Shape]) -> None:
    """A built layer takes only inputs that agree with the shapes it was first called on."""
    if not layer.input_shapes or isinstance(layer, InputLayer):
        return
    first = layer.input_shapes[0]
    want = first if isinstance(first, list) else [first]
    for got, exp in zip(shapes, want, strict=False):
        ok = len(got) == len(exp) and all(
            e is None or g is None or e == g for i, (g, e) in enumerate(zip(got, exp, strict=True)) if i > 0
        )
        if not ok:
            raise layer.error(
                f"expected inputs of shape {fmt_shape(exp)} (as first called), but got {fmt_shape(got)}"
            )


def apply_layer(layer: Layer, inputs: Any, training: bool = False, **kwargs: Any) -> Any:
    """layer(inputs): SymbolicTensors -> SymbolicTensor(s) (a new call in the graph); Tensors -> Tensors."""
    items = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    if not items:
        raise layer.error("apply() needs at least one input")
    if all(isinstance(x, SymbolicTensor) for x in items):
        _check_built_shape(layer, [tuple(x.shape) for x in items])
        node = call_node(layer, [(x.node, x.index) for x in items], kwargs)
        layer.init_weights()
        outs = [SymbolicTensor(node, i) for i in range(len(node.output_shapes))]
        return outs[0] if len(outs) == 1 else outs
    if not all(isinstance(x, Tensor) for x in items):
        kinds = sorted({type(x).__name__ for x in items})
        raise layer.error(f"apply() takes Tensors or SymbolicTensors (not a mix), got {', '.join(kinds)}")
    shapes: list[Shape] = [tuple(x.shape) for x in items]
    _check_built_shape(layer, shapes)
    arg = shapes[0] if len(shapes) == 1 else shapes
    try:
        if not layer.built:
            layer.weight_defs = layer.build(arg)
            layer.built = True
        layer.compute_output_shape(arg)
    except (ValueError, TypeError, IndexError) as e:
        raise named_error(layer, e) from None
    layer.init_weights()
    if not layer.input_shapes:  # remembered without the batch size, as a symbolic call would
        unbatched = [(None, *s[1:]) for s in shapes]
        layer.input_shapes.append(unbatched[0] if len(unbatched) == 1 else unbatched)
    call_kwargs = {**kwargs, "training": bool(training)}
    x = items[0] if len(items) == 1 else list(items)
    return ENGINE.tidy(lambda: layer.call(x, call_kwargs))


def model(inputs: Any, outputs: Any, name: str | None = None) -> LayersModel:
    """A functional model from tf.input SymbolicTensors to SymbolicTensors computed from them."""
    ins = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    for what, group in (("inputs", ins), ("outputs", outs)):
        if not group or not all(isinstance(x, SymbolicTensor) for x in group):
            raise ValueError(f"tf.model: {what} must be SymbolicTensors (from tf.input / layer.apply)")
    if not all(isinstance(x.node.layer, InputLayer) for x in ins):
        bad = [x.name for x in ins if not isinstance(x.node.layer, InputLayer)]
        raise ValueError(f"tf.model: inputs must come from tf.input, but {bad} do not")
    graph = (
        name or unique_name("model"),
        [(x.node, x.index) for x in ins],
        [(x.node, x.index) for x in outs],
    )
    return LayersModel(None, Network("Model", None, graph))


class Sequential(LayersModel):
    """A linear stack of layers (TF.js tf.sequential): add() appends one."""

    class_name = "Sequential"

    def __init__(self, layers: list[Layer] | None = None, name: str | None = None) -> None:
        self.artifacts = None
        self._disposed = False
        self.name = name or unique_name("sequential_")
        self.layers = []
        self.inputs = []
        self.outputs = []
        self._input: SymbolicTensor | None = None
        self._output: SymbolicTensor | None = None
        self._previous: list[SymbolicTensor] = []  # the output before each add() (for pop())
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Layer | LayersModel) -> None:
        """Append a layer (or a model, used as one layer); the first one needs input_shape (or
        batch_input_shape), or is an InputLayer or a model."""
        if isinstance(layer, LayersModel):
            layer = layer.as_layer()
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add expects a layer, got {type(layer).__name__}")
        if any(existing.name == layer.name for existing in self.layers):
            raise ValueError(f"Sequential model '{self.name}' already has a layer named '{layer.name}'")
        if self._output is None:
            if isinstance(layer, InputLayer):
                self._input = self._output = SymbolicTensor(input_node(layer))
                return
            shape = (
                layer.network.input_shapes[0]
                if isinstance(layer, ModelLayer)
                else batch_shape_of(layer.config)
            )
            if shape is None:
                raise ValueError(
                    f"The first layer in a Sequential model must get an input_shape or batch_input_shape "
                    f"argument; layer '{layer.name}' ({layer.class_name}) has neither"
                )
            dtype = layer.config.get("dtype") or "float32"
            self._input = input(batch_shape=list(shape), name=f"{layer.name}_input", dtype=dtype)
            self._output = self._input
        out = apply_layer(layer, self._output)
        if isinstance(out, list):
            raise layer.error("a layer of a Sequential model must have one output")
        self._previous.append(self._output)
        self._connect(out)

    def _connect(self, out: SymbolicTensor) -> None:
        graph = (self.name, [(self._input.node, 0)], [(out.node, out.index)])  # type: ignore[union-attr]
        self._set_network(Network("Sequential", None, graph))
        self._output = out

    def pop(self) -> None:
        """Remove the last layer (TF.js pop); its weights stay alive."""
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        previous = self._previous.pop()
        if self._previous:
            self._connect(previous)
        else:  # back to the bare input: add() continues from it
            self.layers, self.outputs, self._output = [], [], previous

    def _feeds(self, inputs: Any) -> list[Tensor]:
        if not self.layers:
            raise ValueError(f"Sequential model '{self.name}' has no layers to run")
        return super()._feeds(inputs)


def sequential(layers: list[Layer] | None = None, name: str | None = None) -> Sequential:
    """tf.sequential: a model that runs `layers` one after another."""
    return Sequential(layers, name)
