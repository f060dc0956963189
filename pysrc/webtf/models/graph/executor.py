"""Runs a graph: a cached plan per (inputs, outputs), freeing each intermediate after its last use."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...engine import ENGINE
from ...tensor import Tensor
from .dynamic import DynamicPlan, DynamicRun, make_plan
from .nodes import Node, node_error
from .op_table import ASYNC_OPS, CONTROL_FLOW_OPS, resolve


@dataclass
class Plan:
    """The nodes to run, in order, and how many consumers each node's outputs have."""

    order: list[Node]
    uses: dict[str, int]
    is_async: bool
    dynamic: DynamicPlan | None = None
    compiled: dict[Any, _Compiled] = field(default_factory=dict)


class Executor:
    """Executes a graph of Nodes with weights resident; intermediates are freed as soon as they are dead."""

    def __init__(self, nodes: dict[str, Node], weights: dict[str, Tensor]) -> None:
        self.nodes = nodes
        self.weights = weights
        self._plans: dict[tuple[tuple[str, ...], tuple[str, ...]], Plan] = {}
        self._host_values: dict[int, list[Any]] = {}
        self.protected_ids = {id(t) for t in weights.values()}
        self._weight_data = {t.data_id for t in weights.values()}

    def unsupported(self) -> list[Node]:
        """Nodes whose op webtf cannot run."""
        return [
            n for n in self.nodes.values() if n.op not in ("Const", "Placeholder") and resolve(n.op) is None
        ]

    def plan(self, feeds: tuple[str, ...], outputs: tuple[str, ...]) -> Plan:
        """The (cached) execution plan for these fed nodes and wanted output nodes."""
        key = (feeds, outputs)
        cached = self._plans.get(key)
        if cached is not None:
            return cached
        fed = set(feeds)
        order: list[Node] = []
        seen: set[str] = set()
        for out in outputs:
            stack: list[tuple[str, bool]] = [(out, False)]
            while stack:
                name, expanded = stack.pop()
                if expanded:
                    order.append(self.nodes[name])
                    continue
                if name in seen:
                    continue
                seen.add(name)
                node = self.nodes.get(name)
                if node is None:
                    raise ValueError(f"The graph has no node named '{name}'")
                if name in fed or node.op == "Const":
                    continue
                if node.op == "Placeholder":
                    raise ValueError(f"Input '{name}' is needed to compute the outputs but was not provided")
                stack.append((name, True))
                for src, _ in reversed(node.inputs):
                    stack.append((src, False))
                for src in node.controls:
                    stack.append((src, False))
        uses: dict[str, int] = {}
        for node in order:
            for src, _ in node.inputs:
                uses[src] = uses.get(src, 0) + 1
        plan = Plan(order, uses, any(n.op in ASYNC_OPS or n.op in CONTROL_FLOW_OPS for n in order))
        if any(n.op in CONTROL_FLOW_OPS for n in order):
            plan.dynamic = make_plan(self.nodes, fed, outputs)
        self._plans[key] = plan
        return plan

    def values(self, t: Tensor) -> list[Any]:
        """Host values of a parameter tensor (shapes, axes, paddings); weights' values are cached."""
        key = id(t)
        if key in self.protected_ids:
            cached = self._host_values.get(key)
            if cached is None:
                cached = self._host_values[key] = t.data_sync().tolist()
            return cached
        return t.data_sync().tolist()

    def _plan_for(self, feeds: dict[str, Tensor], outputs: list[tuple[str, int]]) -> Plan:
        return self.plan(tuple(feeds), tuple(dict.fromkeys(name for name, _ in outputs)))

    def run(self, feeds: dict[str, Tensor], outputs: list[tuple[str, int]]) -> list[Tensor]:
        """Execute a graph without dynamic ops; returns the outputs, everything else the run made is freed."""
        plan = self._plan_for(feeds, outputs)
        if plan.is_async:
            node = next(n for n in plan.order if n.op in ASYNC_OPS or n.op in CONTROL_FLOW_OPS)
            raise ValueError(
                f"This execution contains the node '{node.name}', which has the dynamic op '{node.op}'. "
                "Please use model.execute_async() instead."
            )
        return self._run_static(plan, feeds, outputs)

    async def run_async(self, feeds: dict[str, Tensor], outputs: list[tuple[str, int]]) -> list[Tensor]:
        """Execute any graph: control flow goes through the data-driven executor, the rest as in run()."""
        plan = self._plan_for(feeds, outputs)
        if plan.dynamic is not None:
            return await DynamicRun(self, plan.dynamic, feeds, outputs).run()
        return self._run_static(plan, feeds, outputs)

    def _compile(self, plan: Plan, feeds: tuple[str, ...], outputs: list[tuple[str, int]]) -> _Compiled:
        """Resolve names to slots, handlers and last uses once per plan (see _Compiled)."""
        slot_of: dict[str, int] = {name: i for i, name in enumerate(feeds)}
        for node in plan.order:
            slot_of.setdefault(node.name, len(slot_of))
        weights: list[tuple[int, Tensor]] = []

        def slot(name: str) -> int:
            got = slot_of.get(name)
            if got is None:
                got = slot_of[name] = len(slot_of)
                w = self.weights.get(name)
                if w is not None:
                    weights.append((got, w))
            return got

        last: dict[int, int] = {}
        steps = []
        for i, node in enumerate(plan.order):
            srcs = tuple((slot(src), idx) for src, idx in node.inputs)
            for s, _ in srcs:
                last[s] = i
            steps.append(_Step(node, resolve(node.op), srcs))
            steps[-1].slot = slot_of[node.name]
        outs = tuple((slot(name), idx) for name, idx in outputs)
        kept = {s for s, _ in outs}
        for s, i in last.items():
            if s not in kept:
                steps[i].frees += (s,)
        names = [""] * len(slot_of)
        for name, i in slot_of.items():
            names[i] = name
        return _Compiled(steps, len(slot_of), tuple(weights), outs, names)

    def _run_static(
        self, plan: Plan, feeds: dict[str, Tensor], outputs: list[tuple[str, int]]
    ) -> list[Tensor]:
        key = (tuple(feeds), tuple(outputs))
        compiled = plan.compiled.get(key)
        if compiled is None:
            compiled = plan.compiled[key] = self._compile(plan, key[0], outputs)
        protected = self.protected_ids | {id(t) for t in feeds.values()}
        live: list[Any] = [None] * compiled.num_slots
        aliases: dict[int, int] = {}
        for i, t in enumerate(feeds.values()):
            live[i] = (t,)
            aliases[id(t)] = aliases.get(id(t), 0) + 1
        for i, w in compiled.weights:
            live[i] = (w,)
        names = compiled.names

        def release(slot: int) -> None:
            got = live[slot]
            live[slot] = None
            for t in got or ():
                key = id(t)
                n = aliases.get(key, 0) - 1
                aliases[key] = n
                if n <= 0 and key not in protected:
                    t.dispose()

        def fetch(slot: int, idx: int) -> Tensor:
            got = live[slot]
            if got is None:
                raise ValueError(f"Node '{names[slot]}' has no value (missing weight or input)")
            if idx >= len(got):
                raise ValueError(f"Node '{names[slot]}' has {len(got)} outputs; output {idx} was requested")
            return got[idx]

        node: Node | None = None
        weight_data = self._weight_data
        try:
            for step in compiled.steps:
                node = step.node
                try:
                    ins = [live[s][i] for s, i in step.srcs]
                except (TypeError, IndexError):
                    ins = [fetch(s, i) for s, i in step.srcs]
                out = step.run(ins, self, weight_data)
                outs = (out,) if isinstance(out, Tensor) else tuple(out)
                live[step.slot] = outs
                for t in outs:
                    aliases[id(t)] = aliases.get(id(t), 0) + 1
                for s in step.frees:
                    release(s)
            node = None
            result = [fetch(s, i) for s, i in compiled.outputs]
        except Exception as e:
            for s in range(len(live)):
                release(s)
            if node is None:
                raise
            raise node_error(node, e) from e
        protected |= {id(t) for t in result}
        for s in range(len(live)):
            release(s)
        return result


#: a kernel input in a Replay: an index into [node inputs..., outputs of earlier kernels...], a list of them,
#: or None
_Ref = Any


class _Replay:
    """The kernels one node's op ran for one input signature, to run again without the op layer.

    Recorded on a node's first run with given input shapes and dtypes (and backend): the op validated its
    arguments then, and a graph node's attrs and weights do not change, so the same kernels with the same
    attrs follow. Only ops whose kernels read nothing but node inputs and earlier kernels' outputs, and that
    read no tensor data except weights', are replayed; the rest always run through the op.
    """

    __slots__ = ("kernels", "result", "single")

    def __init__(self, kernels: list[tuple[str, Any, Any]], result: Any, single: bool) -> None:
        self.kernels = kernels
        self.result = result
        self.single = single

    @staticmethod
    def build(ins: list[Tensor], log: list[Any], out: Any, weight_data: set[int]) -> _Replay | None:
        """A replay of what `log` (ENGINE.record_kernels) holds, or None when it cannot be replayed."""
        index = {id(t): i for i, t in reversed(list(enumerate(ins)))}
        kernels = []
        pos = len(ins)
        for entry in log:
            if entry[0] == "read":
                if entry[1] not in weight_data:
                    return None
                continue
            name, inputs, attrs, outs = entry
            if any(isinstance(v, Tensor) for v in attrs.values()):
                return None
            try:
                if isinstance(inputs, dict):
                    refs: Any = {k: _ref(v, index) for k, v in inputs.items()}
                else:
                    refs = [_ref(v, index) for v in inputs]
            except KeyError:
                return None
            for t in (outs,) if isinstance(outs, Tensor) else outs:
                index[id(t)] = pos
                pos += 1
            kernels.append((name, refs, attrs))
        single = isinstance(out, Tensor)
        result = [index.get(id(t)) for t in ((out,) if single else out)]
        if None in result:
            return None
        return _Replay(kernels, result, single)

    def run(self, ins: list[Tensor]) -> Any:
        """Run the recorded kernels on new inputs of the same signature; intermediates are freed."""
        engine = ENGINE
        pool: list[Any] = list(ins)
        engine.start_scope()
        try:
            for name, refs, attrs in self.kernels:
                if type(refs) is dict:
                    inputs: Any = {k: _take(pool, r) for k, r in refs.items()}
                else:
                    inputs = [_take(pool, r) for r in refs]
                out = engine.run_kernel(name, inputs, attrs)
                if isinstance(out, Tensor):
                    pool.append(out)
                else:
                    pool.extend(out)
            result = pool[self.result[0]] if self.single else [pool[i] for i in self.result]
        except BaseException:
            engine.end_scope(None)
            raise
        engine.end_scope(result)
        return result


def _ref(v: Any, index: dict[int, int]) -> _Ref:
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [index[id(t)] for t in v]
    return index[id(v)]


def _take(pool: list[Any], r: _Ref) -> Any:
    return pool[r] if type(r) is int else None if r is None else [pool[i] for i in r]


class _Step:
    """One node of a compiled plan: its handler, input slots, the slots that die after it, and its replays."""

    __slots__ = ("node", "handler", "srcs", "slot", "frees", "replays")

    def __init__(self, node: Node, handler: Any, srcs: tuple[tuple[int, int], ...]) -> None:
        self.node = node
        self.handler = handler
        self.srcs = srcs
        self.slot = -1
        self.frees: tuple[int, ...] = ()
        self.replays: dict[Any, _Replay | None] = {}

    def run(self, ins: list[Tensor], ctx: Any, weight_data: set[int]) -> Any:
        """The node's outputs: a recorded replay when one exists for this input signature, else the op."""
        engine = ENGINE
        sig = (engine.backend_name, *[(t.shape, t.dtype) for t in ins])
        replays = self.replays
        replay = replays.get(sig, _MISSING)
        if replay is None:
            return self._call(ins, ctx)
        if replay is not _MISSING:
            return replay.run(ins)  # type: ignore[union-attr]
        log: list[Any] = []
        previous = engine.record_kernels(log)
        try:
            out = self._call(ins, ctx)
        finally:
            engine.record_kernels(previous)
        replays[sig] = _Replay.build(ins, log, out, weight_data)
        return out

    def _call(self, ins: list[Tensor], ctx: Any) -> Any:
        if self.handler is None:
            raise ValueError(f"unsupported op '{self.node.op}'")
        return self.handler(self.node, ins, ctx)


_MISSING = object()


@dataclass
class _Compiled:
    """A plan resolved for one set of feed and output names: slot per value, weights pre-placed."""

    steps: list[_Step]
    num_slots: int
    weights: tuple[tuple[int, Tensor], ...]
    outputs: tuple[tuple[int, int], ...]
    names: list[str]
