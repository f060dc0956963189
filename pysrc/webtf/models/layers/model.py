"""LayersModel (TF.js tf.LayersModel): load a Keras-format model, predict, summarize, save."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ...ops.creation import clone, zeros
from ...ops.shape import concat
from ...ops.slicing import slice as slice_
from ...shapes import fmt
from ...tensor import Tensor, Variable
from ..io.artifacts import ModelArtifacts
from ..io.handlers import get_load_handler, get_save_handler
from ..io.load_options import as_load_options
from ..io.weights import decode_weights, encode_weights
from ..runner import TensorSpec, live_input, named_inputs
from .base import Layer, LayerVariable, WeightDef, assign_all, fmt_shape
from .topology import ModelLayer, Network, Node, unwrap_topology
from .training import Training

DEFAULT_BATCH_SIZE = 32  # TF.js predict()'s default batchSize


def _split(layers: list[Layer]) -> tuple[list[Variable], list[Variable]]:
    """(trainable, non-trainable) weights in TF.js order; a frozen layer's weights are all non-trainable."""
    trainable: list[Variable] = []
    frozen: list[Variable] = []
    for layer in layers:
        trainable += layer.trainable_weights
        frozen += layer.non_trainable_weights
    return trainable, frozen


def assign_weights(network: Network, tensors: dict[str, Tensor], strict: bool) -> list[str]:
    """Hand each decoded tensor to the layer weight it names (TF.js matching rules); return unused names."""
    keras_v3 = bool(tensors) and next(iter(tensors)).rsplit("/", 1)[-1].isdigit()
    targets: dict[str, tuple[Layer, WeightDef]] = {}
    for layer in network.leaf_layers:
        for index, (name, d) in enumerate(layer.weight_names()):
            key = f"{layer.name}/{index}" if keras_v3 else name
            if key in targets:
                raise ValueError(f"Duplicate weight name: {key}")
            targets[key] = (layer, d)
    total = len(targets)
    unused: list[str] = []
    for name, t in tensors.items():
        tokens = name.split("/")
        # exact name; TF 2.2+ 'layer/cell/weight'; a nested model's scope 'outer/layer/weight'
        candidates = [name, "/".join(tokens[:-2] + tokens[-1:]), "/".join(tokens[-2:])]
        key = next((k for k in candidates if k in targets), None)
        if key is None:
            if strict:
                raise ValueError(f"Provided weight data has no target variable: {name}")
            unused.append(name)
            continue
        layer, d = targets.pop(key)
        if tuple(t.shape) != d.shape:
            raise ValueError(
                f"Weight '{name}' has shape {fmt(t.shape)} in the weights manifest, but layer '{layer.name}' "
                f"({layer.class_name}) needs {fmt(d.shape)} for its {d.name}"
            )
        if t.dtype != "float32":
            raise ValueError(f"Weight '{name}' has dtype {t.dtype}; layer weights must be float32")
        layer.add_weight(d, t)
    if targets:
        raise ValueError(f"{len(targets)} of {total} weights are not set: {', '.join(targets)}")
    return unused


class LayersModel(Training):
    """A Keras model: restored from TF.js layers-model artifacts or built with tf.model / tf.sequential;
    compile/fit/evaluate come from Training."""

    user_defined_metadata: dict[str, Any] | None = None
    class_name = "Model"  # TF.js's className of a LayersModel (a Sequential: 'Sequential')

    def __init__(self, artifacts: ModelArtifacts | None, network: Network) -> None:
        self.artifacts = artifacts
        self.user_defined_metadata = None if artifacts is None else artifacts.user_defined_metadata
        self._set_network(network)
        self._disposed = False

    def _set_network(self, network: Network) -> None:
        self.network = network
        self.name = network.name
        self.layers = network.layers
        self.inputs = [
            TensorSpec(layer.name, list(shape), getattr(layer, "dtype", "float32"))
            for layer, shape in zip(network.input_layers, network.input_shapes, strict=True)
        ]
        self.outputs = [
            TensorSpec(
                node.layer.name if i == 0 else f"{node.layer.name}:{i}",
                list(node.output_shapes[i]),
                "float32",
            )
            for node, i in network.output_refs
        ]

    def get_class_name(self) -> str:
        """'Model', or 'Sequential' for a Sequential model (TF.js getClassName)."""
        return self.class_name

    @property
    def input_names(self) -> list[str]:
        """The input layers' names (TF.js inputNames)."""
        return [layer.name for layer in self.network.input_layers]

    @property
    def output_names(self) -> list[str]:
        """The output layers' names, one per output (TF.js outputNames)."""
        return [node.layer.name for node, _ in self.network.output_refs]

    @property
    def output_shape(self) -> Any:
        """The output's shape, or a list of them for several outputs (TF.js outputShape)."""
        shapes = [spec.shape for spec in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    # ---- weights -----------------------------------------------------------------------------
    @property
    def trainable(self) -> bool:
        """False when every layer is frozen; setting it sets every layer's."""
        return any(layer.trainable for layer in self.layers) or not self.layers

    @trainable.setter
    def trainable(self, value: bool) -> None:
        for layer in self.layers:
            layer.trainable = value

    @property
    def trainable_weights(self) -> list[Variable]:
        """The variables an optimizer updates, in TF.js order."""
        return _split(self.layers)[0]

    @property
    def non_trainable_weights(self) -> list[Variable]:
        """The frozen variables and the non-trainable ones (batch norm moving statistics)."""
        return _split(self.layers)[1]

    @property
    def weights(self) -> list[Variable]:
        """Trainable weights, then non-trainable ones (TF.js model.weights)."""
        trainable, frozen = _split(self.layers)
        return trainable + frozen

    def named_weights(self) -> dict[str, Variable]:
        """The weights by their TF.js original names '<layer>/<weight>' (as save() writes them)."""
        return {v.original_name if isinstance(v, LayerVariable) else v.name: v for v in self.weights}

    def get_weights(self) -> list[Tensor]:
        """The weight values (trainable first, then non-trainable, as TF.js orders them)."""
        return list(self.weights)

    def set_weights(self, weights: list[Tensor]) -> None:
        """Assign new values to every weight, in get_weights() order."""
        assign_all(self.weights, weights, f"Model '{self.name}'")

    def load_weights(self, weights: dict[str, Tensor], strict: bool = True) -> None:
        """Assign values by weight name ('<layer>/<weight>', as named_weights()) (TF.js loadWeights); strict:
        every name must be a weight of the model and every weight must be given."""
        targets = self.named_weights()
        total = len(targets)
        pairs = []
        for name, t in weights.items():
            v = targets.pop(name, None)
            if v is not None:
                pairs.append((v, t))
            elif strict:
                raise ValueError(f"Provided weight data has no target variable: {name}")
        if strict and targets:
            raise ValueError(f"{len(targets)} of {total} weights are not set: {', '.join(targets)}")
        assign_all([v for v, _ in pairs], [t for _, t in pairs], f"Model '{self.name}'")

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A layer by name or by index (TF.js getLayer)."""
        if index is not None:
            if not -len(self.layers) <= index < len(self.layers):
                raise ValueError(
                    f"Was asked to retrieve layer at index {index}, but model only has {len(self.layers)} layers"
                )
            return self.layers[index]
        if name is None:
            raise ValueError("get_layer needs a name or an index")
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}")

    def regularization_losses(self) -> list[Tensor]:
        """Each regularized weight's penalty (scalars) for the training loss (TF.js model.losses)."""
        return [t for layer in self.network.leaf_layers for t in layer.regularization_losses()]

    @property
    def losses(self) -> list[Any]:
        """Every layer's penalty functions (TF.js losses)."""
        return [fn for layer in self.network.leaf_layers for fn in layer.losses]

    calculate_losses = regularization_losses  # TF.js calculateLosses

    @property
    def updates(self) -> list[Tensor]:
        """Always empty (as every layer's)."""
        return []

    @property
    def stateful(self) -> bool:
        """Whether any layer keeps state between calls."""
        return any(layer.stateful for layer in self.network.leaf_layers)

    def reset_states(self) -> None:
        """Reset the states of the stateful layers (TF.js resetStates)."""
        for layer in self.network.leaf_layers:
            if layer.stateful:
                layer.reset_states()

    def take_activity_losses(self) -> list[Tensor]:
        """The activity-regularizer penalties of the last training forward pass (the caller frees them)."""
        return [t for layer in self.network.leaf_layers for t in layer.take_activity_losses()]

    def apply_constraints(self) -> None:
        """Project constrained weights back into their sets (the fit loop calls this after each step)."""
        for layer in self.network.leaf_layers:
            layer.apply_constraints()

    # ---- running -----------------------------------------------------------------------------
    def as_layer(self) -> Layer:
        """This model as a layer of another model (one per model; it shares this model's weights)."""
        layer = self.__dict__.get("_as_layer")
        if layer is None:
            layer = self._as_layer = ModelLayer.of(self.network)
        return layer

    def apply(self, inputs: Any, training: bool = False, **kwargs: Any) -> Any:
        """Call the model as a layer: on SymbolicTensors it adds a nested-model call to the model being built,
        on Tensors it computes (TF.js model.apply)."""
        return self.as_layer().apply(inputs, training, **kwargs)

    def _feeds(self, inputs: Any) -> list[Tensor]:
        if self._disposed:
            raise ValueError("This LayersModel has been disposed")
        names = [s.name for s in self.inputs]
        if isinstance(inputs, dict):
            missing = [n for n in names if n not in inputs]
            extra = [k for k in inputs if k not in names]
            if missing or extra:
                raise ValueError(f"The model's inputs are {names}; missing {missing}, unknown {extra}")
        named = named_inputs(
            inputs,
            self.inputs,
            lambda n: (
                "Error when checking model: the Array of Tensors that you are passing to your model is "
                f"not the size the model expected. Expected to see {len(self.inputs)} Tensor(s), but instead got "
                f"{n} Tensor(s)."
            ),
        )
        feeds = []
        for spec in self.inputs:
            t = live_input(spec.name, named[spec.name])
            if t.rank != len(spec.shape or ()):
                raise ValueError(
                    f"Error when checking : expected {spec.name} to have {len(spec.shape or ())} dimension(s). "
                    f"but got array with shape {fmt(t.shape)}"
                )
            if not spec.accepts(t.shape):
                raise ValueError(
                    f"Error when checking : expected {spec.name} to have shape {fmt_shape(spec.shape)} "
                    f"but got array with shape {fmt(t.shape)}."
                )
            feeds.append(t)
        return feeds

    def _run(self, feeds: list[Tensor], wanted: list[tuple[Node, int]] | None) -> list[Tensor]:
        out = self.network.run(feeds, wanted)
        fixed = {id(t) for t in feeds} | {id(t) for t in self.weights}
        return [clone(t) if id(t) in fixed else t for t in out]

    def predict(self, x: Any, batch_size: int | None = None) -> Tensor | list[Tensor]:
        """Run the model on a batch (in chunks of batch_size, default 32); one tensor or a list per output."""
        feeds = self._feeds(x)
        n = feeds[0].shape[0] if feeds[0].rank else 1
        if any(t.rank == 0 or t.shape[0] != n for t in feeds):
            raise ValueError(f"All inputs must have the same batch size; got {[fmt(t.shape) for t in feeds]}")
        size = DEFAULT_BATCH_SIZE if batch_size is None else int(batch_size)
        if size < 1:
            raise ValueError(f"batch_size must be a positive integer, but got {batch_size}")
        if n <= size:
            outs = self._run(feeds, None)
        else:
            pieces: list[list[Tensor]] = []
            try:
                for start in range(0, n, size):
                    part = [
                        slice_(t, [start] + [0] * (t.rank - 1), [min(size, n - start)] + [-1] * (t.rank - 1))
                        for t in feeds
                    ]
                    try:
                        pieces.append(self._run(part, None))
                    finally:
                        for t in part:
                            t.dispose()
                outs = [concat([p[i] for p in pieces], 0) for i in range(len(self.outputs))]
            finally:
                for p in pieces:
                    for t in p:
                        t.dispose()
        return outs[0] if len(outs) == 1 else outs

    def execute(self, inputs: Any, outputs: str | list[str] | None = None) -> Tensor | list[Tensor]:
        """Run on one batch and return the outputs of the named layers (default: the model outputs)."""
        feeds = self._feeds(inputs)
        wanted = (
            None
            if outputs is None
            else [self._ref(n) for n in ([outputs] if isinstance(outputs, str) else outputs)]
        )
        out = self._run(feeds, wanted)
        return out[0] if len(out) == 1 else out

    def _ref(self, name: str) -> tuple[Node, int]:
        base, _, idx = name.partition(":")
        for node in self.network.nodes:
            if node.layer.name == base:
                return node, int(idx or 0)
        for node, i in self.network.input_refs:
            if node.layer.name == base:
                return node, i
        raise ValueError(f"The model has no layer named '{base}'")

    def warmup(self) -> None:
        """Run once on zeros so that the next call does not pay for compiling and uploading."""
        feeds = [zeros(s.example_shape(), s.dtype) for s in self.inputs]
        try:
            out = self.predict(feeds)
            for t in [out] if isinstance(out, Tensor) else out:
                t.dispose()
        finally:
            for t in feeds:
                t.dispose()

    # ---- summary, save ------------------------------------------------------------------------
    def count_params(self) -> int:
        """Number of scalars in all weights."""
        return sum(t.size for t in self.weights)

    def summary(
        self, line_length: int | None = None, positions: list[float] | None = None, print_fn: Any = print
    ) -> str:
        """Print (and return) a Keras-like table of layers, output shapes and parameter counts."""
        seq = self.network.sequential_like
        heads = ["Layer (type)", "Input Shape", "Output shape", "Param #"]
        width = line_length or (90 if seq else 115)
        pos = positions or ([0.32, 0.61, 0.89, 1.0] if seq else [0.24, 0.48, 0.70, 0.80, 1.0])
        if not seq:
            heads.append("Receives inputs")
        cols = [int(width * p) for p in pos] if pos[-1] <= 1 else [int(p) for p in pos]
        lines = ["_" * width, _row(heads, cols), "=" * width]
        for i, layer in enumerate(self.layers):
            outs = layer.output_shapes
            fields = [
                f"{layer.name} ({layer.class_name})",
                ",".join(_shape_text(s) for s in layer.input_shapes),
                _shape_text(outs[0]) if len(outs) == 1 else "multiple",
                str(layer.count_params()),
            ]
            if seq:
                lines.append(_row(fields, cols))
            else:
                links = [
                    f"{src.layer.name}[{src.index}][{t}]"
                    for node in self.network.nodes
                    if node.layer is layer
                    for src, t in node.inputs
                ] or [""]
                lines.append(_row([*fields, links[0]], cols))
                lines += [_row(["", "", "", "", link], cols) for link in links[1:]]
            lines.append(("=" if i == len(self.layers) - 1 else "_") * width)
        total = self.count_params()
        trainable = sum(t.size for t in self.trainable_weights)
        lines += [
            f"Total params: {total}",
            f"Trainable params: {trainable}",
            f"Non-trainable params: {total - trainable}",
            "_" * width,
        ]
        text = "\n".join(lines)
        if print_fn is not None:
            for line in lines:
                print_fn(line)
        return text

    def _model_topology(self) -> dict[str, Any]:
        """model.json's modelTopology: as loaded, else (built in Python) the topology of its graph."""
        if self.artifacts is not None:
            return self.artifacts.model_topology
        return {**self.network.to_config(), "keras_version": "tfjs-layers 4.22.0", "backend": "tensor_flow.js"}

    def to_json(self, unused: Any = None, return_string: bool = True) -> str | dict[str, Any]:
        """The model's topology (class_name, config, keras_version, backend) as JSON text, or as a dict when
        return_string is False (TF.js toJSON)."""
        topology = self._model_topology()
        return json.dumps(topology) if return_string else topology

    def get_config(self) -> dict[str, Any]:
        """The topology's config: name, layers, input and output layers (TF.js getConfig, keys as saved)."""
        return self._model_topology()["config"]

    def find_layer(self, index: int) -> Layer:
        """The layer at `index` (TF.js findLayer)."""
        return self.get_layer(index=index)

    def artifacts_for_save(self, include_optimizer: bool = False) -> ModelArtifacts:
        """What save() writes: the topology, all weights unquantized in one shard, and once compiled the
        trainingConfig (plus the optimizer's weights in group 'optimizer' when include_optimizer)."""
        from ... import __version__

        specs, data = encode_weights(self.named_weights())
        a = self.artifacts
        if a is None:
            a = ModelArtifacts(self._model_topology(), [], b"", "layers-model")
        training_config = a.training_config
        if self.compiled is not None:
            training_config = self.training_config()
            if include_optimizer:
                pairs = self.optimizer_weights()
                more, extra = encode_weights(dict(pairs))
                specs += [replace(s, group="optimizer") for s in more]
                data += extra
                pairs[0][1].dispose()  # iter is made fresh by get_weights
        elif include_optimizer:
            raise ValueError("save: include_optimizer needs a compiled model (the model has no optimizer)")
        return ModelArtifacts(
            a.model_topology, specs, data, "layers-model", f"webtf {__version__}", None,
            user_defined_metadata=self.user_defined_metadata, training_config=training_config,
        )  # fmt: skip

    async def save(self, handler_or_url: Any, include_optimizer: bool = False) -> dict[str, Any]:
        """Save through a URL ('indexeddb://name', 'localstorage://name', 'downloads://name', a directory path)
        or an IOHandler with save(); returns the handler's result ({"model_artifacts_info": ...}).
        include_optimizer also saves the optimizer's state (TF.js's includeOptimizer)."""
        if self._disposed:
            raise ValueError("This LayersModel has been disposed")
        return await get_save_handler(handler_or_url).save(self.artifacts_for_save(include_optimizer))

    def set_user_defined_metadata(self, metadata: dict[str, Any] | None) -> None:
        """Metadata that save() writes with the model (TF.js setUserDefinedMetadata): a JSON-serializable dict."""
        if metadata is not None and not isinstance(metadata, dict):
            raise TypeError(f"set_user_defined_metadata: metadata must be a dict, but got {type(metadata).__name__}")
        json.dumps(metadata)  # not JSON-serializable: fails here, not at save time
        self.user_defined_metadata = metadata

    def get_user_defined_metadata(self) -> dict[str, Any] | None:
        """The metadata it was loaded with or set_user_defined_metadata set (TF.js getUserDefinedMetadata)."""
        return self.user_defined_metadata

    def dispose(self) -> None:
        """Free the weights (and an optimizer compile() made from a name)."""
        self.dispose_training()
        for layer in self.network.leaf_layers:
            layer.dispose_weights()
        self.network.release()
        self._disposed = True


def _shape_text(shape: Any) -> str:
    if isinstance(shape, list) and shape and isinstance(shape[0], (tuple, list)):
        return ",".join(fmt_shape(s) for s in shape)
    return json.dumps(list(shape), separators=(",", ":"))


def _row(fields: list[str], cols: list[int]) -> str:
    line = ""
    for i, text in enumerate(fields):
        if i > 0:
            line = line[:-1] + " "
        line = (line + text)[: cols[i]]
        line += " " * (cols[i] - len(line))
    return line


async def load_layers_model(url_or_handler: Any, options: Any = None, strict: bool | None = None) -> LayersModel:
    """Load a TF.js layers model (Keras JSON topology + weights) from a URL, a path or an IOHandler.

    options: TF.js's LoadOptions (tf.io.LoadOptions or a dict of its fields). strict (or options' strict)
    False ignores weights the model does not use (missing weights are always an error).
    """
    opts = as_load_options(options, "load_layers_model")
    strict = opts.strict if strict is None else strict
    handler = get_load_handler(url_or_handler, opts)
    artifacts = await handler.load()
    if artifacts.model_topology is None:
        raise ValueError("The model artifacts have no modelTopology")
    network = Network(*unwrap_topology(artifacts.model_topology))
    tensors = decode_weights(artifacts.weight_specs, artifacts.weight_data)
    optimizer_names = [s.name for s in artifacts.weight_specs if s.group == "optimizer"]
    optimizer_weights = [(name, tensors.pop(name)) for name in optimizer_names]
    try:
        unused = assign_weights(network, tensors, strict)
        model = LayersModel(artifacts, network)
    except Exception:
        for layer in network.leaf_layers:
            layer.dispose_weights()
        for t in tensors.values():
            if not t.is_disposed:
                t.dispose()
        for _, t in optimizer_weights:
            t.dispose()
        raise
    for name in unused:
        tensors[name].dispose()
    try:
        if artifacts.training_config is not None:
            model.compile_from_config(artifacts.training_config)
            if optimizer_weights:
                await model.set_optimizer_weights(optimizer_weights)
    except Exception:
        model.dispose()
        raise
    finally:
        for _, t in optimizer_weights:
            t.dispose()
    return model
