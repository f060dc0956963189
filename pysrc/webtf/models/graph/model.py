"""GraphModel (TF.js tf.GraphModel) and load_graph_model."""

from __future__ import annotations

from typing import Any

from ...ops.creation import clone, zeros
from ...shapes import fmt
from ...tensor import Tensor
from ..io.artifacts import ModelArtifacts
from ..io.handlers import get_load_handler, get_save_handler
from ..io.io_utils import get_model_artifacts_for_json_sync, get_weight_specs
from ..io.weights import decode_weights
from ..runner import TensorSpec, live_input, named_inputs
from .executor import Executor
from .functions import parse_functions
from .nodes import _DTYPES, Node, parse_input, parse_nodes
from .tables import Tables


def dispose(ts: Tensor | list[Tensor]) -> None:
    for t in [ts] if isinstance(ts, Tensor) else ts:
        t.dispose()


def _js_str(v: Any) -> str:
    return "undefined" if v is None else str(v)


def _is_array_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1


def _js_keys(obj: dict[str, Any]) -> list[str]:
    """obj's keys in JavaScript's order for a parsed JSON object: array indices ascending, then the rest."""
    indices = sorted((k for k in obj if _is_array_index(k)), key=int)
    return indices + [k for k in obj if not _is_array_index(k)]


def _signature_nodes(entries: dict[str, Any]) -> list[tuple[str, str]]:
    """(node name, key) for each tensor the signature entries name, in TF.js's order.

    As in TF.js, entries are re-keyed by tensor name: a later key naming the same tensor takes the first's
    place."""
    by_tensor: dict[str, str] = {}
    for key in _js_keys(entries):
        name = entries[key].get("name")
        if name is not None:
            by_tensor[name] = key
    return [(parse_input(tensor)[0], key) for tensor, key in by_tensor.items()]


def _signature_spec(name: str, entry: dict[str, Any]) -> TensorSpec:
    dims = entry.get("tensorShape", {}).get("dim")
    shape = [int(d.get("size", -1)) for d in dims] if dims is not None else None
    return TensorSpec(name, shape, _DTYPES.get(entry.get("dtype", "DT_FLOAT"), "float32"))


def _declared_shape(node: Any) -> tuple[int, ...] | None:
    """The shape a Const node's value declares (a dim without a size is 0, as protobuf omits zeros), or None."""
    tensor = (node.attr.get("value") or {}).get("tensor")
    if not isinstance(tensor, dict) or "tensorShape" not in tensor:
        return None
    return tuple(int(d.get("size", 0)) for d in tensor["tensorShape"].get("dim", []))


def check_weights(nodes: dict[str, Any], weights: dict[str, Tensor]) -> None:
    """Raise when a weight's manifest dtype or shape contradicts the Const node of the graph it feeds."""
    for name, t in weights.items():
        node = nodes.get(name)
        if node is None or node.op != "Const":
            continue
        dtype, shape = node.dtype("dtype", t.dtype), _declared_shape(node)
        if dtype != t.dtype or (shape is not None and shape != t.shape):
            declared = f"dtype {dtype}" + (f" and shape {fmt(shape)}" if shape is not None else "")
            raise ValueError(
                f"Weight '{name}' has dtype {t.dtype} and shape {fmt(t.shape)} in the weights manifest, but its "
                f"Const node in the graph declares {declared}"
            )


def _input_dtype(node: Node) -> Any:
    """A Placeholder's dtype; None (as TF.js's, undefined) for a resource handle (a captured table)."""
    return None if (node.attr.get("dtype") or {}).get("type") == "DT_RESOURCE" else node.dtype("dtype")


class GraphModel:
    """A converted TF graph with resident weights: execute / execute_async / predict / dispose.

    Inputs and outputs are found and named as TF.js's GraphModel does: by the signature (model.json's
    `signature`, overridden by `userDefinedMetadata.signature`) in its key order, each named by its key;
    without one, the Placeholders in graph order and the nodes nothing consumes, named by node.
    """

    def __init__(self, artifacts: Any, weights: dict[str, Tensor]) -> None:
        self.artifacts = artifacts
        self.nodes = parse_nodes(artifacts.model_topology)
        self.weights = weights
        functions = parse_functions(artifacts.model_topology)
        init = artifacts.model_initializer
        init_nodes = parse_nodes(init) if isinstance(init, dict) and init.get("node") else {}
        body_nodes = (n for f in functions.values() for n in f.nodes.values())
        self.tables = Tables([*self.nodes.values(), *init_nodes.values(), *body_nodes])
        self.executor = Executor(self.nodes, weights, functions, self.tables)
        # the initializer graph (hash tables' contents) runs once, before the first execution, as in TF.js
        self._initializer = Executor(init_nodes, weights, functions, self.tables) if init_nodes else None
        # initializer outputs by resourceId, fed to the signature inputs with that resourceId (TF.js's
        # resourceIdToCapturedInput: a TF2 model's table handles)
        self._captured: dict[Any, Tensor] = {}
        metadata = artifacts.user_defined_metadata or {}
        signature = metadata.get("signature")
        self.model_signature: dict[str, Any] | None = artifacts.signature if signature is None else signature
        self.model_structured_output_keys: list[str] | None = metadata.get("structuredOutputKeys")
        self._sig_inputs: dict[str, Any] = (self.model_signature or {}).get("inputs") or {}
        self._sig_outputs: dict[str, Any] = (self.model_signature or {}).get("outputs") or {}
        named_outs = _signature_nodes(self._sig_outputs)
        named_ins = _signature_nodes(self._sig_inputs)
        outs = [(node, key) for node, key in named_outs if node in self.nodes]
        ins = [(node, key) for node, key in named_ins if node in self.nodes]
        # a node has one signature key wherever it appears; an input's wins (TF.js assigns it last)
        self._keys = dict(outs + ins)
        self.outputs = [_signature_spec(node, self._sig_outputs[key]) for node, key in outs]
        if not named_outs:
            consumed = {src for n in self.nodes.values() for src in [*(s for s, _ in n.inputs), *n.controls]}
            self.outputs = [TensorSpec(n, None, "float32") for n in _js_keys(self.nodes) if n not in consumed]
        input_nodes = (
            [self.nodes[node] for node, _ in ins]
            if named_ins
            else [n for n in self.nodes.values() if n.op.startswith("Placeholder")]
        )
        self.inputs = [TensorSpec(n.name, n.shape("shape"), _input_dtype(n)) for n in input_nodes]
        self._disposed = False

    @property
    def input_nodes(self) -> list[str]:
        """The inputs' names: signature keys where the model has a signature, else node names."""
        return [self._keys.get(s.name, s.name) for s in self.inputs]

    @property
    def output_nodes(self) -> list[str]:
        """The outputs' names (signature keys or node names), in the order execute() returns them."""
        return [self._keys.get(s.name, s.name) for s in self.outputs]

    @property
    def metadata(self) -> dict[str, Any] | None:
        """model.json's userDefinedMetadata."""
        return self.artifacts.user_defined_metadata

    def check(self) -> None:
        """Raise if any node's op cannot run (called at load time)."""
        bad = self.executor.unsupported() + (self._initializer.unsupported() if self._initializer else [])
        if bad:
            listed = ", ".join(f"'{n.op}' (node '{n.name}')" for n in bad[:10])
            raise ValueError(f"This model uses ops webtf does not support: {listed}")

    def _with_captured(self, inputs: Any) -> Any:
        """inputs with the captured initializer outputs added for the resource inputs of the signature."""
        resources = {k: v["resourceId"] for k, v in self._sig_inputs.items() if v.get("resourceId") is not None}
        if not resources:
            return inputs
        if isinstance(inputs, dict):
            return {**inputs, **{k: self._captured[r] for k, r in resources.items() if r in self._captured}}
        given = iter([inputs] if isinstance(inputs, Tensor) else list(inputs))
        n = len(self.input_nodes) - len(resources)
        if len([inputs] if isinstance(inputs, Tensor) else inputs) != n:
            raise ValueError(
                f"Input tensor count mismatch, the graph model has {n} non-resource placeholders, while there "
                f"are {len(list(given))} input tensors provided."
            )
        return {k: self._captured[resources[k]] if k in resources else next(given) for k in self.input_nodes}

    def _feeds(self, inputs: Any) -> dict[str, Tensor]:
        inputs = self._with_captured(inputs)
        named = named_inputs(
            inputs,
            self.inputs,
            lambda n: f"This model has {len(self.inputs)} inputs ({self.input_nodes}) but got {n}",
        )
        feeds: dict[str, Tensor] = {}
        specs = {s.name: s for s in self.inputs}
        for key, t in named.items():
            name = parse_input(self._sig_inputs.get(key, {}).get("name", key))[0]
            if name not in self.nodes:
                raise ValueError(f"The model has no input named '{key}'; its inputs are {self.input_nodes}")
            t = live_input(key, t)
            spec = specs.get(name)
            if spec is not None and not spec.accepts(t.shape):
                raise ValueError(
                    f"The shape of input '{key}' must be {fmt(spec.shape)}, but was {fmt(t.shape)}"
                )
            if spec is not None and spec.dtype is not None and spec.dtype != t.dtype:
                raise TypeError(f"The dtype of input '{key}' must be {spec.dtype}, but was {t.dtype}")
            feeds[name] = t
        return feeds

    def _outputs(self, outputs: str | list[str] | None) -> list[tuple[str, int]]:
        names = self.output_nodes if outputs is None else [outputs] if isinstance(outputs, str) else outputs
        refs = []
        for asked in names:
            ref = parse_input(self._sig_outputs.get(asked, {}).get("name", asked))
            if ref[0] not in self.nodes:
                raise ValueError(
                    f"The model has no node named '{asked}' to output; its outputs are {self.output_nodes}"
                )
            refs.append(ref)
        return refs

    def _finish(self, feeds: dict[str, Tensor], result: list[Tensor]) -> Tensor | list[Tensor]:
        # outputs that are weights or inputs themselves are cloned so that disposing them is always safe
        fixed = {id(t) for t in self.weights.values()} | {id(t) for t in feeds.values()}
        result = [clone(t) if id(t) in fixed else t for t in result]
        return result[0] if len(result) == 1 else result

    def _check_live(self) -> None:
        if self._disposed:
            raise ValueError("This GraphModel has been disposed")

    def _init_signature(self) -> dict[str, Any]:
        return (self.artifacts.extra.get("initializerSignature") or {}).get("outputs") or {}

    def _initializer_outputs(self, init: Executor) -> list[tuple[str, int]]:
        """The initializer's signature outputs (its keys name the nodes, as in TF.js), else the nodes nothing
        in it consumes."""
        sig = self._init_signature()
        if sig:
            return [parse_input(k) for k in sig]
        consumed = {src for n in init.nodes.values() for src in [*(s for s, _ in n.inputs), *n.controls]}
        return [(n, 0) for n in init.nodes if n not in consumed]

    def _initialized(self, init: Executor, outs: list[Tensor]) -> None:
        sig = self._init_signature()
        if sig:
            self._captured = {v.get("resourceId"): t for v, t in zip(sig.values(), outs, strict=True)}
        kept = {id(t) for t in self._captured.values()} | init.protected_ids
        dispose([t for t in dict.fromkeys(outs) if id(t) not in kept])
        self._initializer = None

    def _initialize(self) -> None:
        if self._initializer is not None:
            init = self._initializer
            self._initialized(init, init.run({}, self._initializer_outputs(init)))

    async def _initialize_async(self) -> None:
        if self._initializer is not None:
            init = self._initializer
            self._initialized(init, await init.run_async({}, self._initializer_outputs(init)))

    def execute(self, inputs: Any, outputs: str | list[str] | None = None) -> Tensor | list[Tensor]:
        """Run the graph synchronously (static graphs); returns one tensor or a list."""
        self._check_live()
        self._initialize()
        feeds = self._feeds(inputs)
        refs = self._outputs(outputs)
        self.executor.begin_run(feeds)
        return self._finish(feeds, self.executor.run(feeds, refs))

    async def execute_async(
        self, inputs: Any, outputs: str | list[str] | None = None
    ) -> Tensor | list[Tensor]:
        """Run the graph, allowing dynamic ops (control flow, TensorArray/TensorList, Where, NMS)."""
        self._check_live()
        await self._initialize_async()
        feeds = self._feeds(inputs)
        refs = self._outputs(outputs)
        self.executor.begin_run({})  # as in TF.js, the async path keeps no clones of the inputs
        return self._finish(feeds, await self.executor.run_async(feeds, refs))

    def get_intermediate_tensors(self) -> dict[str, list[Tensor | None]] | None:
        """The last run's kept tensors by node name (clones of the weights, of execute()'s inputs and of
        every node's outputs, execute()'s in TF.js's order) when KEEP_INTERMEDIATE_TENSORS was on for it, else
        None."""
        kept = self.executor.intermediates
        return None if kept is None else kept.tensors

    def dispose_intermediate_tensors(self) -> None:
        """Free the tensors get_intermediate_tensors() holds (the next run, or dispose(), also does)."""
        self.executor.dispose_intermediate_tensors()

    def _structured_keys(self) -> list[str] | None:
        keys = self.model_structured_output_keys
        if keys is not None and len(keys) != len(self.outputs):
            raise ValueError(
                f"structuredOutputKeys {keys} do not match the model's outputs {self.output_nodes}"
            )
        return keys

    @staticmethod
    def _named(keys: list[str] | None, out: Tensor | list[Tensor]) -> Tensor | list[Tensor] | dict[str, Tensor]:
        if keys is None:
            return out
        return dict(zip(keys, [out] if isinstance(out, Tensor) else out, strict=True))

    def predict(self, inputs: Any) -> Tensor | list[Tensor] | dict[str, Tensor]:
        """Run the graph on its default outputs; a dict by the metadata's structuredOutputKeys if it has them."""
        keys = self._structured_keys()
        return self._named(keys, self.execute(inputs))

    async def predict_async(self, inputs: Any) -> Tensor | list[Tensor] | dict[str, Tensor]:
        """predict() through execute_async, for graphs with control flow or dynamic ops."""
        keys = self._structured_keys()
        return self._named(keys, await self.execute_async(inputs))

    @property
    def model_version(self) -> str:
        """'producer.minConsumer' of the graph's versions, spelled as TF.js's template string does."""
        versions = (self.artifacts.model_topology or {}).get("versions") or {}
        return ".".join(_js_str(versions.get(k)) for k in ("producer", "minConsumer"))

    async def save(self, handler_or_url: Any, config: Any = None) -> dict[str, Any]:
        """Save the model as loaded (its model.json fields and weight bytes) through a handler or URL."""
        return await get_save_handler(handler_or_url).save(self.artifacts)

    def _zero_feeds(self) -> list[Tensor]:
        return [zeros(s.example_shape(), s.dtype) for s in self.inputs]

    def warmup(self) -> None:
        """Run once on zeros so the next call does not pay for compiling and uploading (static graphs)."""
        feeds = self._zero_feeds()
        try:
            out = self.execute(feeds)
            dispose(out)
        finally:
            dispose(feeds)

    async def warmup_async(self) -> None:
        """warmup() through execute_async, for graphs with dynamic ops."""
        feeds = self._zero_feeds()
        try:
            out = await self.execute_async(feeds)
            dispose(out)
        finally:
            dispose(feeds)

    def dispose(self) -> None:
        """Free the weights (and the kept intermediate tensors, which TF.js leaves alive)."""
        self.executor.dispose_intermediate_tensors()
        for t in self.weights.values():
            t.dispose()
        self.tables.dispose()
        dispose([t for t in dict.fromkeys(self._captured.values()) if not t.is_disposed])
        self._captured = {}
        self.executor.release()
        self._disposed = True


async def load_graph_model(url_or_handler: Any, options: Any = None) -> GraphModel:
    """Load a TF.js graph model (model.json + shards) from a URL, a path or an IOHandler; `options` are
    TF.js's LoadOptions (tf.io.LoadOptions or a dict of its fields) for loading over HTTP."""
    handler = get_load_handler(url_or_handler, options)
    return _graph_model_of(await handler.load())


def load_graph_model_sync(model_source: Any) -> GraphModel:
    """Load a graph model synchronously: from a handler with load_sync(), ModelArtifacts, or
    (model_json, weight bytes)."""
    where = "load_graph_model_sync(model_source)"
    if model_source is None:
        raise ValueError(f"{where}: model_source is None; pass model artifacts or a handler with load_sync()")
    if isinstance(model_source, (list, tuple)):
        if len(model_source) != 2:
            raise ValueError(f"{where}: expected (model_json, weight bytes), got {len(model_source)} items")
        model_json, weight_data = model_source
        if not isinstance(model_json, dict):
            raise ValueError(f"{where}: model_json must be the first element, got {type(model_json).__name__}")
        if not isinstance(weight_data, (bytes, bytearray, memoryview)):
            raise ValueError(f"{where}: weight bytes must be the second element, got {type(weight_data).__name__}")
        for key in ("modelTopology", "weightsManifest"):
            if key not in model_json:
                raise ValueError(f"{where}: model JSON is missing '{key}'")
        specs = get_weight_specs(model_json["weightsManifest"])
        artifacts = get_model_artifacts_for_json_sync(model_json, specs, weight_data)
    elif isinstance(model_source, ModelArtifacts):
        artifacts = model_source
    elif callable(getattr(model_source, "load_sync", None)):
        artifacts = model_source.load_sync()
    else:
        raise TypeError(
            f"{where}: expected a handler with load_sync(), ModelArtifacts or (model_json, weight bytes), "
            f"got {type(model_source).__name__}"
        )
    return _graph_model_of(artifacts)


def _graph_model_of(artifacts: ModelArtifacts) -> GraphModel:
    """A checked GraphModel of loaded artifacts (its weights freed if it cannot be built)."""
    weights = decode_weights(artifacts.weight_specs, artifacts.weight_data)
    model = None
    try:
        model = GraphModel(artifacts, weights)
        check_weights(model.nodes, weights)
        model.check()
    except Exception:
        if model is not None:
            model.dispose()
        else:
            for t in weights.values():
                t.dispose()
        raise
    return model
