"""Runs a graph: a cached plan per (inputs, outputs), freeing each intermediate after its last use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...tensor import Tensor
from .dynamic import DynamicPlan, DynamicRun, make_plan
from .nodes import Node
from .op_table import ASYNC_OPS, CONTROL_FLOW_OPS, resolve


@dataclass
class Plan:
    """The nodes to run, in order, and how many consumers each node's outputs have."""

    order: list[Node]
    uses: dict[str, int]
    is_async: bool
    dynamic: DynamicPlan | None = None


class Executor:
    """Executes a graph of Nodes with weights resident; intermediates are freed as soon as they are dead."""

    def __init__(self, nodes: dict[str, Node], weights: dict[str, Tensor]) -> None:
        self.nodes = nodes
        self.weights = weights
        self._plans: dict[tuple[tuple[str, ...], tuple[str, ...]], Plan] = {}
        self._host_values: dict[int, list[Any]] = {}
        self.protected_ids = {id(t) for t in weights.values()}

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

    def _run_static(
        self, plan: Plan, feeds: dict[str, Tensor], outputs: list[tuple[str, int]]
    ) -> list[Tensor]:
        protected = self.protected_ids | {id(t) for t in feeds.values()}
        live: dict[str, list[Tensor]] = {name: [t] for name, t in feeds.items()}
        aliases: dict[int, int] = {}
        remaining = dict(plan.uses)
        for name, _ in outputs:
            remaining[name] = remaining.get(name, 0) + 1

        def store(name: str, tensors: list[Tensor]) -> None:
            live[name] = tensors
            for t in tensors:
                aliases[id(t)] = aliases.get(id(t), 0) + 1

        def release(name: str) -> None:
            for t in live.pop(name, ()):
                n = aliases.get(id(t), 0) - 1
                aliases[id(t)] = n
                if n <= 0 and id(t) not in protected:
                    t.dispose()

        def fetch(src: str, idx: int) -> Tensor:
            got = live.get(src)
            if got is None:
                w = self.weights.get(src)
                if w is None:
                    raise ValueError(f"Node '{src}' has no value (missing weight or input)")
                return w
            if idx >= len(got):
                raise ValueError(f"Node '{src}' has {len(got)} outputs; output {idx} was requested")
            return got[idx]

        node: Node | None = None
        try:
            for node in plan.order:
                ins = [fetch(src, idx) for src, idx in node.inputs]
                handler = resolve(node.op)
                if handler is None:
                    raise ValueError(f"unsupported op '{node.op}'")
                out = handler(node, ins, self)
                store(node.name, [out] if isinstance(out, Tensor) else list(out))
                for src, _ in node.inputs:
                    remaining[src] -= 1
                    if remaining[src] == 0:
                        release(src)
            node = None
            result = [fetch(name, idx) for name, idx in outputs]
        except Exception as e:
            for name in list(live):
                release(name)
            if node is None:
                raise
            raise type(e)(f"Error in node '{node.name}' (op {node.op}): {e}") from e
        keep = {id(t) for t in result}
        protected |= keep
        for name in list(live):
            release(name)
        return result
