"""Keras model topology (Sequential / functional, nested models) -> a graph of layer calls, and running it."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from ...tensor import Tensor
from ..runner import Program, Step, compile_steps, release_captures, run
from . import conv, conv_nd, conv_recurrent, core, masking, merge, preprocessing, recurrent, wrappers  # noqa: F401  (register the layer classes)
from .base import LAYERS, Layer, Shape, ShapeArg, fmt_shape
from .core import InputLayer, batch_shape_of
from .fusion import find_fusions

MODEL_CLASSES = ("Sequential", "Model", "Functional")
_NODE_ORDER = itertools.count()


@dataclass(eq=False)
class Node:
    """One call of a layer: where its inputs come from ((node, tensor index) pairs) and its output shapes."""

    layer: Layer
    inputs: list[tuple[Node, int]]
    kwargs: dict[str, Any] = field(default_factory=dict)
    output_shapes: list[Shape] = field(default_factory=list)
    index: int = 0  # the call's node index in the layer (as inbound_nodes entries refer to it)
    order: int = field(default_factory=lambda: next(_NODE_ORDER))  # creation order: inputs come first
    mask: masking.MaskRef | None = None  # the mask of output 0
    mask_in: masking.MaskRef | None = None  # the mask the layer's call reads

    @property
    def reads(self) -> list[tuple[Node, int]]:
        """The tensors the call reads: its inputs, then the input of the layer that makes its mask."""
        return self.inputs if self.mask_in is None else [*self.inputs, self.mask_in[1]]


def _as_list(shape: ShapeArg) -> list[Shape]:
    return shape if isinstance(shape, list) else [shape]


def unwrap_topology(topology: Any) -> tuple[str, Any]:
    """(class_name, config) of a modelTopology, accepting the {model_config: ...} wrapper Keras writes."""
    if isinstance(topology, dict) and isinstance(topology.get("model_config"), dict):
        topology = topology["model_config"]
    if not isinstance(topology, dict) or "class_name" not in topology or "config" not in topology:
        keys = sorted(topology) if isinstance(topology, dict) else type(topology).__name__
        raise ValueError(
            "modelTopology is not a Keras model config: expected {class_name, config} (or model_config), "
            f"got {keys}"
        )
    return str(topology["class_name"]), topology["config"]


def make_layer(spec: Any, where: str) -> Layer:
    """A layer (or a nested model) from its {class_name, config} entry."""
    if not isinstance(spec, dict) or "class_name" not in spec:
        raise ValueError(
            f"{where}: malformed layer entry {str(spec)[:80]!r} (expected {{class_name, config}})"
        )
    class_name = str(spec["class_name"])
    config = spec.get("config") or {}
    if not isinstance(config, dict):
        raise ValueError(f"{where}: malformed config of layer class {class_name}")
    name = str(spec.get("name") or config.get("name") or class_name.lower())
    if class_name in MODEL_CLASSES:
        return ModelLayer(name, config, class_name)
    cls = LAYERS.get(class_name)
    if cls is None:
        raise ValueError(
            f"Unsupported layer class '{class_name}' (layer '{name}'): webtf cannot run this model"
        )
    return construct(cls, name, config, class_name)


def construct(cls: type[Layer], name: str, config: dict[str, Any], class_name: str) -> Layer:
    """cls(name, config, class_name), its config errors named after the layer and the argument."""
    try:
        return cls(name, config, class_name)
    except KeyError as e:
        raise ValueError(f"Layer '{name}' ({class_name}): missing required argument {e}") from None
    except TypeError as e:
        raise ValueError(f"Layer '{name}' ({class_name}): malformed config ({e})") from None


def jsonable(value: Any) -> Any:
    """A config value as JSON: initializers, regularizers and constraints become {class_name, config}."""
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    get_config = getattr(value, "get_config", None)
    config = get_config() if get_config is not None else {k: v for k, v in vars(value).items() if k[0] != "_"}
    return {"class_name": type(value).__name__, "config": jsonable(config)}


def named_error(layer: Layer, e: Exception) -> ValueError:
    """`e` as a ValueError whose message starts with the layer's name and class."""
    msg = str(e)
    if not msg.startswith(f"Layer '{layer.name}'"):
        msg = f"Layer '{layer.name}' ({layer.class_name}): {msg}"
    return ValueError(msg)


def call_node(layer: Layer, inputs: list[tuple[Node, int]], kwargs: dict[str, Any]) -> Node:
    """A new call of `layer` on the outputs `inputs` (building the layer on its first call)."""
    shapes = [src.output_shapes[i] for src, i in inputs]
    try:
        out = layer.apply_shape(shapes[0] if len(shapes) == 1 else shapes)
    except (ValueError, TypeError, IndexError, ZeroDivisionError) as e:
        raise named_error(layer, e) from None
    index = len(layer.output_shapes) - 1 + isinstance(layer, ModelLayer)
    node = Node(layer, inputs, kwargs, _as_list(out), index)
    in_masks = [src.mask for src, i in inputs if i == 0 and src.mask is not None]
    if in_masks and len(inputs) > 1:
        raise layer.error("masks through layers with several inputs are not supported")
    in_mask = in_masks[0] if in_masks else None
    node.mask = masking.output_mask(layer, inputs, in_mask)
    node.mask_in = in_mask if masking.consumes(layer) else None
    return node


def input_node(layer: InputLayer) -> Node:
    """The node that stands for an input layer's fed tensor."""
    layer.input_shapes, layer.output_shapes = [layer.batch_shape], [layer.batch_shape]
    return Node(layer, [], {}, [layer.batch_shape])


class LayerStep(Step):
    """One step of an execution plan: a layer call (or a fused chain) whose outputs stand for `node`."""

    __slots__ = ("layer", "kwargs", "node", "mask_layer")

    def __init__(
        self, layer: Any, inputs: list[tuple[Node, int]], kwargs: dict[str, Any], node: Node
    ) -> None:
        # layer: a Layer or a FusedConvBN (has call(), name and class_name)
        mask_in = node.mask_in if node.layer is layer else None
        label = f"layer '{layer.name}' ({layer.class_name})"
        super().__init__(node, node.reads if mask_in else inputs, label)
        self.mask_layer = None if mask_in is None else mask_in[0]
        self.layer = layer
        self.kwargs = kwargs
        self.node = node

    def call(self, ins: list[Tensor]) -> Any:
        kwargs = self.kwargs
        if self.mask_layer is not None:
            kwargs = {**kwargs, "mask": masking.make_mask(self.mask_layer, ins[-1])}
            ins = ins[:-1]
        out = self.layer.call(ins[0] if len(ins) == 1 else ins, kwargs)
        if kwargs.get("training") and getattr(self.layer, "activity_regularizer", None) is not None:
            self.layer.add_activity_loss(out)
        return out


class Network:
    """The layer graph of one model: layers, nodes in an executable order, input and output references."""

    def __init__(self, class_name: str, config: Any, graph: Any = None) -> None:
        self.class_name = class_name
        self.layers: list[Layer] = []
        self.nodes: list[Node] = []  # every non-input call, each after the nodes it reads
        self.input_refs: list[tuple[Node, int]] = []
        self.output_refs: list[tuple[Node, int]] = []
        self.sequential = class_name == "Sequential"
        if graph is not None:  # built in Python: (name, input refs, output refs)
            self.name, self.input_refs, self.output_refs = graph
            self._from_refs()
        elif self.sequential:
            self.name = config.get("name", "sequential") if isinstance(config, dict) else "sequential"
            self._sequential(config)
        elif class_name in ("Model", "Functional"):
            if not isinstance(config, dict):
                raise ValueError(f"{class_name} config must be an object")
            self.name = str(config.get("name", "model"))
            self._functional(config)
        else:
            raise ValueError(f"Unsupported model class '{class_name}' (expected {', '.join(MODEL_CLASSES)})")
        self.fusions = find_fusions(self.nodes)
        self.fuse = True  # run conv -> batch norm (-> relu) chains as one fused conv
        self._plans: dict[tuple[Any, ...], tuple[list[LayerStep], Program]] = {}

    # ---- construction ------------------------------------------------------------------------
    def _call(self, layer: Layer, inputs: list[tuple[Node, int]], kwargs: dict[str, Any]) -> Node:
        node = call_node(layer, inputs, kwargs)
        self.nodes.append(node)
        return node

    def _input(self, layer: InputLayer) -> Node:
        return input_node(layer)

    def _sequential(self, config: Any) -> None:
        specs = config.get("layers") if isinstance(config, dict) else config
        if not isinstance(specs, list) or not specs:
            raise ValueError("Sequential config has no layers")
        layers = [make_layer(s, "Sequential") for s in specs]
        first = layers[0]
        if isinstance(first, InputLayer):
            inp, layers = first, layers[1:]
        elif isinstance(first, ModelLayer):
            inp = InputLayer(
                f"{first.name}_input",
                {"batch_input_shape": list(first.network.input_shapes[0])},
                "InputLayer",
            )
        else:
            shape = batch_shape_of(first.config)
            if shape is None:
                raise ValueError(
                    f"Sequential model: its first layer '{first.name}' has no batch_input_shape, so the "
                    "input shape is unknown"
                )
            conf = {"batch_input_shape": list(shape), "dtype": first.config.get("dtype") or "float32"}
            inp = InputLayer(f"{first.name}_input", conf, "InputLayer")
        self.layers = layers
        ref = (self._input(inp), 0)
        self.input_refs = [ref]
        self.input_layers = [inp]
        for layer in layers:
            ref = (self._call(layer, [ref], {}), 0)
        self.output_refs = [ref]

    def _functional(self, config: dict[str, Any]) -> None:
        specs = config.get("layers")
        if not isinstance(specs, list) or not specs:
            raise ValueError(f"{self.class_name} config has no layers")
        by_name: dict[str, Layer] = {}
        pending: list[tuple[Layer, list[Any]]] = []
        calls: dict[str, list[Node | None]] = {}
        for spec in specs:
            layer = make_layer(spec, self.class_name)
            if layer.name in by_name:
                raise ValueError(f"Duplicate layer name '{layer.name}'")
            by_name[layer.name] = layer
            self.layers.append(layer)
            # a nested model's node 0 is its own internal call: the outer model's calls start at 1
            calls[layer.name] = [None] if isinstance(layer, ModelLayer) else []
            if isinstance(layer, InputLayer):
                calls[layer.name].append(self._input(layer))
            inbound = spec.get("inbound_nodes") or []
            if not isinstance(inbound, list):
                raise ValueError(f"Layer '{layer.name}': inbound_nodes must be a list")
            for node_data in inbound:
                if not isinstance(node_data, list):
                    raise ValueError(
                        f"Layer '{layer.name}': unsupported inbound node {str(node_data)[:80]!r} "
                        "(Keras 3 format?)"
                    )
                pending.append((layer, node_data))

        def resolve(entry: Any) -> tuple[Node, int] | None:
            if not isinstance(entry, list) or len(entry) < 3:
                raise ValueError(f"Malformed inbound node entry {entry!r}")
            name, node_index, tensor_index = str(entry[0]), int(entry[1]), int(entry[2])
            if name not in calls:
                raise ValueError(f"Inbound node refers to unknown layer '{name}'")
            made = calls[name]
            if node_index >= len(made) or made[node_index] is None:
                return None
            node = made[node_index]
            assert node is not None
            if tensor_index >= len(node.output_shapes):
                raise ValueError(f"Layer '{name}' has no output {tensor_index}")
            return node, tensor_index

        # process calls whose inputs exist, repeatedly (shared layers can be called at different depths)
        while pending:
            left: list[tuple[Layer, list[Any]]] = []
            for layer, node_data in pending:
                refs = [resolve(e) for e in node_data]
                if any(r is None for r in refs) or any(owner is layer for owner, _ in left):
                    left.append((layer, node_data))
                    continue
                kwargs = node_data[0][3] if node_data and len(node_data[0]) > 3 and node_data[0][3] else {}
                calls[layer.name].append(self._call(layer, refs, dict(kwargs)))  # type: ignore[arg-type]
            if len(left) == len(pending):
                names = ", ".join(sorted({layer.name for layer, _ in left}))
                raise ValueError(f"Cannot connect layers {names}: their inbound nodes never become available")
            pending = left

        def refs_of(key: str) -> list[tuple[Node, int]]:
            entries = config.get(key)
            if not isinstance(entries, list) or not entries:
                raise ValueError(f"{self.class_name} config has no {key}")
            if isinstance(entries[0], str):
                entries = [entries]
            out = []
            for e in entries:
                r = resolve(e)
                if r is None:
                    raise ValueError(f"{key}: layer '{e[0]}' has no node {e[1]}")
                out.append(r)
            return out

        self.input_refs = refs_of("input_layers")
        self.output_refs = refs_of("output_layers")
        self.input_layers = [node.layer for node, _ in self.input_refs]
        if not all(isinstance(layer, InputLayer) for layer in self.input_layers):
            raise ValueError("input_layers must name InputLayer layers")

    def _from_refs(self) -> None:
        """Nodes and layers of the calls between input_refs and output_refs (a model built in Python)."""
        feeds = {id(n) for n, _ in self.input_refs}
        seen: dict[int, Node] = {}
        stack = [n for n, _ in self.output_refs]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen[id(node)] = node
            if not node.inputs and id(node) not in feeds:
                names = [n.layer.name for n, _ in self.input_refs]
                raise ValueError(
                    f"Graph disconnected: cannot obtain the value of input layer '{node.layer.name}'; "
                    f"the model's inputs are {names}"
                )
            if id(node) not in feeds:
                stack.extend(src for src, _ in node.inputs)
        ordered = sorted(seen.values(), key=lambda n: n.order)
        self.nodes = [n for n in ordered if id(n) not in feeds]
        self.input_layers = [n.layer for n, _ in self.input_refs]
        layers: list[Layer] = [] if self.sequential else list(self.input_layers)
        for node in self.nodes:
            if all(node.layer is not layer for layer in layers):
                layers.append(node.layer)
        names = [layer.name for layer in layers]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup is not None:
            raise ValueError(f"The layer name '{dup}' is used more than once in model '{self.name}'")
        self.layers = layers

    def to_config(self) -> dict[str, Any]:
        """The Keras JSON topology ({class_name, config}) of this graph, as TF.js's model.toJSON writes it."""
        local: dict[int, int] = {}  # node -> its index among its layer's calls in this network
        counts: dict[int, int] = {}
        for node in [n for n, _ in self.input_refs] + self.nodes:
            n = counts.get(id(node.layer), 0)
            counts[id(node.layer)] = n + 1
            local[id(node)] = n + isinstance(node.layer, ModelLayer)  # a nested model's node 0 is its own

        def entry(layer: Layer) -> dict[str, Any]:
            config = {k: jsonable(v) for k, v in layer.config.items() if k != "name"}
            if isinstance(layer, InputLayer):
                config = {"batch_input_shape": list(layer.batch_shape), "dtype": layer.dtype, "sparse": False}
            if isinstance(layer, ModelLayer):
                config = {k: v for k, v in layer.network.to_config()["config"].items() if k != "name"}
            return {"class_name": layer.class_name, "config": {"name": layer.name, **config}}

        if self.sequential:
            specs = [entry(layer) for layer in self.layers]
            inp = self.input_layers[0]
            if not isinstance(self.layers[0], ModelLayer):
                specs[0]["config"]["batch_input_shape"] = list(inp.batch_shape)  # type: ignore[attr-defined]
            return {"class_name": "Sequential", "config": {"name": self.name, "layers": specs}}
        specs = []
        for layer in self.layers:
            e = entry(layer)
            e["name"] = layer.name
            e["inbound_nodes"] = [
                [[src.layer.name, local[id(src)], i, {}] for src, i in node.inputs]
                for node in self.nodes
                if node.layer is layer
            ]
            specs.append(e)

        def refs(pairs: list[tuple[Node, int]]) -> list[list[Any]]:
            return [[n.layer.name, local[id(n)], i] for n, i in pairs]

        config = {
            "name": self.name,
            "layers": specs,
            "input_layers": refs(self.input_refs),
            "output_layers": refs(self.output_refs),
        }
        return {"class_name": "Model", "config": config}

    # ---- queries -----------------------------------------------------------------------------
    @property
    def input_shapes(self) -> list[Shape]:
        """Batch shapes of the inputs."""
        return [node.output_shapes[i] for node, i in self.input_refs]

    @property
    def output_shapes(self) -> list[Shape]:
        """Shapes of the outputs."""
        return [node.output_shapes[i] for node, i in self.output_refs]

    @property
    def sequential_like(self) -> bool:
        """A plain chain: one input per call, each layer called once, each output read once."""
        if self.sequential:
            return True
        reads: dict[int, int] = {}
        for node in self.nodes:
            for src, _ in node.inputs:
                reads[id(src)] = reads.get(id(src), 0) + 1
        once = len({id(n.layer) for n in self.nodes}) == len(self.nodes)
        return once and all(len(n.inputs) <= 1 for n in self.nodes) and all(v == 1 for v in reads.values())

    @property
    def leaf_layers(self) -> list[Layer]:
        """Every weight-owning layer, nested models expanded, in layer order."""
        return [leaf for layer in self.layers for leaf in layer.leaf_layers]

    # ---- execution ---------------------------------------------------------------------------
    def plan(self, wanted: list[tuple[Node, int]], training: bool = False) -> tuple[list[LayerStep], Program]:
        """The steps that compute `wanted` (in order), and the program that runs them (in training mode:
        layers get training=True and nothing is fused)."""
        fuse = self.fuse and not training
        key = (fuse, training, *((id(n), i) for n, i in wanted))
        cached = self._plans.get(key)
        if cached is not None:
            return cached
        needed: set[int] = set()
        stack = [n for n, _ in wanted]
        while stack:
            node = stack.pop()
            if id(node) in needed:
                continue
            needed.add(id(node))
            stack.extend(src for src, _ in node.reads)
        wanted_ids = {id(n) for n, _ in wanted}
        steps: list[LayerStep] = []
        fused: set[int] = set()
        for node in self.nodes:
            if id(node) not in needed or id(node) in fused:
                continue
            group = self.fusions.get(id(node)) if fuse else None
            if (
                group is not None
                and all(id(n) in needed for n in group.nodes)
                and not any(id(n) in wanted_ids for n in group.nodes[:-1])
            ):
                steps.append(LayerStep(group, node.inputs, {}, group.nodes[-1]))
                fused.update(id(n) for n in group.nodes)
            else:
                kwargs = {**node.kwargs, "training": True} if training else node.kwargs
                steps.append(LayerStep(node.layer, node.inputs, kwargs, node))
        feeds = [n for n, _ in self.input_refs]
        program = compile_steps(list(steps), feeds, wanted, {}, lambda n: n.layer.name, "Layer")
        self._plans[key] = (steps, program)
        return steps, program

    def release(self) -> None:
        """Drop the compiled replays of its programs (their wasm arenas; models/capture.py)."""
        release_captures(program for _, program in self._plans.values())

    def run(
        self, feeds: list[Tensor], wanted: list[tuple[Node, int]] | None = None, training: bool = False
    ) -> list[Tensor]:
        """Run on input tensors (one per input); every intermediate is disposed after its last read. Inference
        runs are captured and replayed (models/capture.py) unless a layer keeps state between calls."""
        program = self.plan(self.output_refs if wanted is None else wanted, training)[1]
        return run(program, feeds, set(), capture=not training and not _stateful(self.layers))


def _stateful(layers: list[Layer]) -> bool:
    """Whether a layer (or one of a nested model's) keeps state between calls (a stateful RNN)."""
    return any(getattr(la, "stateful", False) or _stateful(getattr(la, "layers", None) or []) for la in layers)


class ModelLayer(Layer):
    """A Sequential or functional model used as a layer of another model."""

    @classmethod
    def of(cls, network: Network) -> ModelLayer:
        """A model built in Python used as a layer of another model: it shares the model's layers and weights."""
        layer = cls.__new__(cls)
        layer.network = network
        Layer.__init__(layer, network.name, {"name": network.name}, network.class_name)
        return layer

    def configure(self, config: dict[str, Any]) -> None:
        if "network" not in self.__dict__:  # loaded from its config (of() sets it first)
            self.network = Network(self.class_name, config)

    @property
    def leaf_layers(self) -> list[Layer]:
        return self.network.leaf_layers

    def weight_names(self) -> list[tuple[str, Any]]:
        return [item for layer in self.network.leaf_layers for item in layer.weight_names()]

    @Layer.trainable.setter
    def trainable(self, value: bool) -> None:
        Layer.trainable.fset(self, value)  # type: ignore[misc]
        for layer in self.network.layers:
            layer.trainable = value

    @property
    def trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return []
        return [v for layer in self.network.layers for v in layer.trainable_weights]

    @property
    def non_trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return [v for layer in self.network.layers for v in layer.weights]
        return [v for layer in self.network.layers for v in layer.non_trainable_weights]

    @property
    def weights(self) -> list[Any]:
        return self.trainable_weights + self.non_trainable_weights

    def init_weights(self) -> None:
        for layer in self.network.leaf_layers:
            layer.init_weights()

    def dispose_weights(self) -> None:
        for layer in self.network.leaf_layers:
            layer.dispose_weights()

    def count_params(self) -> int:
        return sum(layer.count_params() for layer in self.network.leaf_layers)

    def compute_output_shape(self, input_shape: ShapeArg) -> ShapeArg:
        shapes = _as_list(input_shape)
        want = self.network.input_shapes
        if len(shapes) != len(want):
            raise self.error(f"expects {len(want)} inputs, but got {len(shapes)}")
        for got, exp in zip(shapes, want, strict=True):
            ok = len(got) == len(exp) and all(
                a is None or b is None or a == b for a, b in zip(got, exp, strict=True)
            )
            if not ok:
                raise self.error(f"expects inputs of shape {fmt_shape(exp)}, but got {fmt_shape(got)}")
        outs = self.network.output_shapes
        return outs[0] if len(outs) == 1 else outs

    def call(self, inputs: Any, kwargs: dict[str, Any]) -> Tensor | list[Tensor]:
        feeds = inputs if isinstance(inputs, list) else [inputs]
        out = self.network.run(feeds, None, bool(kwargs.get("training")))
        return out[0] if len(out) == 1 else out


class InputSpec:
    """What a layer accepts as input (TF.js InputSpec): dtype, shape, ndim (shape's rank if shape is given),
    max_ndim, min_ndim and axes ({axis: size})."""

    def __init__(
        self,
        dtype: str | None = None,
        shape: list[int | None] | tuple[int | None, ...] | None = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: dict[int, int] | None = None,
    ) -> None:
        self.dtype = dtype
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})

    def __repr__(self) -> str:
        return (
            f"InputSpec(dtype={self.dtype!r}, shape={self.shape!r}, ndim={self.ndim!r}, max_ndim={self.max_ndim!r}, "
            f"min_ndim={self.min_ndim!r}, axes={self.axes!r})"
        )
