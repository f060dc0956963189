"""GraphModel (TF.js tf.GraphModel) and load_graph_model."""

from __future__ import annotations

from typing import Any

from ...ops.creation import clone, zeros
from ...shapes import fmt
from ...tensor import Tensor
from ..io.handlers import get_load_handler
from ..io.weights import decode_weights
from ..runner import TensorSpec, live_input, named_inputs
from .executor import Executor
from .nodes import _DTYPES, parse_input, parse_nodes


def dispose(ts: Tensor | list[Tensor]) -> None:
    for t in [ts] if isinstance(ts, Tensor) else ts:
        t.dispose()


def _signature_specs(entries: dict[str, Any]) -> list[TensorSpec]:
    out = []
    for entry in entries.values():
        dims = entry.get("tensorShape", {}).get("dim")
        shape = [int(d.get("size", -1)) for d in dims] if dims is not None else None
        out.append(TensorSpec(entry["name"], shape, _DTYPES.get(entry.get("dtype", "DT_FLOAT"), "float32")))
    return out


class GraphModel:
    """A converted TF graph with resident weights: execute / execute_async / predict / dispose."""

    def __init__(self, artifacts: Any, weights: dict[str, Tensor]) -> None:
        self.artifacts = artifacts
        self.nodes = parse_nodes(artifacts.model_topology)
        self.weights = weights
        self.executor = Executor(self.nodes, weights)
        sig = artifacts.signature or {}
        if sig.get("inputs"):
            self.inputs = _signature_specs(sig["inputs"])
        else:
            self.inputs = [
                TensorSpec(n.name, n.shape("shape"), n.dtype("dtype"))
                for n in self.nodes.values()
                if n.op == "Placeholder"
            ]
        if sig.get("outputs"):
            self.outputs = _signature_specs(sig["outputs"])
        else:
            consumed = {src for n in self.nodes.values() for src, _ in n.inputs}
            self.outputs = [
                TensorSpec(n.name, None, "float32")
                for n in self.nodes.values()
                if n.name not in consumed and n.op not in ("Const", "Placeholder", "NoOp")
            ]
        self._disposed = False

    @property
    def input_nodes(self) -> list[str]:
        """Names of the input nodes."""
        return [s.name for s in self.inputs]

    @property
    def output_nodes(self) -> list[str]:
        """Names of the output nodes."""
        return [s.name for s in self.outputs]

    def check(self) -> None:
        """Raise if any node's op cannot run (called at load time)."""
        bad = self.executor.unsupported()
        if bad:
            listed = ", ".join(f"'{n.op}' (node '{n.name}')" for n in bad[:10])
            raise ValueError(f"This model uses ops webtf does not support: {listed}")

    def _feeds(self, inputs: Any) -> dict[str, Tensor]:
        named = named_inputs(
            inputs,
            self.inputs,
            lambda n: f"This model has {len(self.inputs)} inputs ({self.input_nodes}) but got {n}",
        )
        feeds: dict[str, Tensor] = {}
        specs = {s.name: s for s in self.inputs}
        for key, t in named.items():
            name = parse_input(key)[0]
            if name not in self.nodes:
                raise ValueError(f"The model has no input named '{key}'; its inputs are {self.input_nodes}")
            t = live_input(key, t)
            spec = specs.get(name)
            if spec is not None and not spec.accepts(t.shape):
                raise ValueError(
                    f"The shape of input '{key}' must be {fmt(spec.shape)}, but was {fmt(t.shape)}"
                )
            if spec is not None and spec.dtype != t.dtype:
                raise TypeError(f"The dtype of input '{key}' must be {spec.dtype}, but was {t.dtype}")
            feeds[name] = t
        return feeds

    def _outputs(self, outputs: str | list[str] | None) -> list[tuple[str, int]]:
        names = self.output_nodes if outputs is None else [outputs] if isinstance(outputs, str) else outputs
        refs = [parse_input(n) for n in names]
        for name, _ in refs:
            if name not in self.nodes:
                raise ValueError(f"The model has no node named '{name}' to output")
        return refs

    def _finish(self, feeds: dict[str, Tensor], result: list[Tensor]) -> Tensor | list[Tensor]:
        # outputs that are weights or inputs themselves are cloned so that disposing them is always safe
        fixed = {id(t) for t in self.weights.values()} | {id(t) for t in feeds.values()}
        result = [clone(t) if id(t) in fixed else t for t in result]
        return result[0] if len(result) == 1 else result

    def _check_live(self) -> None:
        if self._disposed:
            raise ValueError("This GraphModel has been disposed")

    def execute(self, inputs: Any, outputs: str | list[str] | None = None) -> Tensor | list[Tensor]:
        """Run the graph synchronously (static graphs); returns one tensor or a list."""
        self._check_live()
        feeds = self._feeds(inputs)
        return self._finish(feeds, self.executor.run(feeds, self._outputs(outputs)))

    async def execute_async(
        self, inputs: Any, outputs: str | list[str] | None = None
    ) -> Tensor | list[Tensor]:
        """Run the graph, allowing dynamic ops (control flow, TensorArray/TensorList, Where, NMS)."""
        self._check_live()
        feeds = self._feeds(inputs)
        return self._finish(feeds, await self.executor.run_async(feeds, self._outputs(outputs)))

    def predict(self, inputs: Any) -> Tensor | list[Tensor]:
        """Run the graph on its default outputs (TF.js predict)."""
        return self.execute(inputs)

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
        """Free the weights."""
        for t in self.weights.values():
            t.dispose()
        self._disposed = True


async def load_graph_model(url_or_handler: Any) -> GraphModel:
    """Load a TF.js graph model (model.json + shards) from a URL, a path or an IOHandler."""
    handler = get_load_handler(url_or_handler)
    artifacts = await handler.load()
    weights = decode_weights(artifacts.weight_specs, artifacts.weight_data)
    try:
        model = GraphModel(artifacts, weights)
        model.check()
    except Exception:
        for t in weights.values():
            t.dispose()
        raise
    return model
