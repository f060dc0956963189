"""Runs a graph: a cached plan per (inputs, outputs), run by the models' one runner (models/runner.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...tensor import Tensor
from ..runner import Program, Step, compile_steps, release_captures, run
from .functions import Function
from .intermediates import Intermediates, keep_flag, tfjs_order
from .nodes import Node
from .op_table import ASYNC_OPS, CONTROL_FLOW_OPS, resolve
from .tables import Tables

if TYPE_CHECKING:  # the data-driven executor is imported only for graphs with control flow
    from .dynamic import DynamicPlan


@dataclass
class Plan:
    """The nodes to run, in order; compiled programs by (feed names, outputs)."""

    order: list[Node]
    is_async: bool
    dynamic: DynamicPlan | None = None
    compiled: dict[Any, Program] = field(default_factory=dict)


class Executor:
    """Executes a graph of Nodes with weights resident; intermediates are freed as soon as they are dead."""

    def __init__(
        self,
        nodes: dict[str, Node],
        weights: dict[str, Tensor],
        functions: dict[str, Function] | None = None,
        tables: Tables | None = None,
    ) -> None:
        self.nodes = nodes
        self.weights = weights
        self.functions = functions or {}
        self.tables = Tables(()) if tables is None else tables
        self._function_executors: dict[str, Executor] = {}
        self._plans: dict[tuple[tuple[str, ...], tuple[str, ...]], Plan] = {}
        self._host_values: dict[int, list[Any]] = {}
        self.protected_ids = {id(t) for t in weights.values()} | self.tables.handle_ids
        self.weight_data = {t.data_id for t in weights.values()}
        #: the last root run's kept tensors while KEEP_INTERMEDIATE_TENSORS was on (begin_run), else None
        self.intermediates: Intermediates | None = None

    def begin_run(self, feeds: dict[str, Tensor]) -> None:
        """Before a model's run: free the last run's kept tensors; with KEEP_INTERMEDIATE_TENSORS on, keep
        clones of the weights and `feeds` now and of each node's outputs as it runs (whole-run capture off)."""
        self.dispose_intermediate_tensors()
        if keep_flag():
            kept = self.intermediates = Intermediates()
            for name, t in [*self.weights.items(), *feeds.items()]:
                kept.add(name, (t,))

    def dispose_intermediate_tensors(self) -> None:
        """Free the kept tensors of the last run, if any."""
        if self.intermediates is not None:
            self.intermediates.dispose()
            self.intermediates = None

    def unsupported(self) -> list[Node]:
        """Nodes (of the graph and its functions) whose op webtf cannot run."""
        every = [*self.nodes.values(), *(n for f in self.functions.values() for n in f.nodes.values())]
        return [n for n in every if n.op not in ("Const", "Placeholder") and resolve(n.op) is None]

    def function_executor(self, name: str) -> Executor:
        """The (cached) executor of a library function's body."""
        got = self._function_executors.get(name)
        if got is None:
            fn = self.functions.get(name)
            if fn is None:
                raise ValueError(f"the model's function library has no function '{name}'")
            got = self._function_executors[name] = Executor(
                fn.nodes, self.weights, self.functions, self.tables
            )
        return got

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
        plan = Plan(order, any(n.op in ASYNC_OPS or n.op in CONTROL_FLOW_OPS for n in order))
        if any(n.op in CONTROL_FLOW_OPS for n in order):
            from .dynamic import make_plan

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

    async def run_async(
        self, feeds: dict[str, Tensor], outputs: list[tuple[str, int]], resources: Any = None
    ) -> list[Tensor]:
        """Execute any graph: control flow goes through the data-driven executor, the rest as in run().

        resources: the calling run's TensorArrays / TensorLists, for a function body (None: a run's own)."""
        plan = self._plan_for(feeds, outputs)
        if plan.dynamic is not None:
            from .dynamic import DynamicRun

            return await DynamicRun(self, plan.dynamic, feeds, outputs, resources).run()
        return self._run_static(plan, feeds, outputs)

    def release(self) -> None:
        """Drop the compiled replays of every program run so far (their wasm arenas; models/capture.py)."""
        release_captures(p for plan in self._plans.values() for p in plan.compiled.values())

    def _run_static(
        self, plan: Plan, feeds: dict[str, Tensor], outputs: list[tuple[str, int]]
    ) -> list[Tensor]:
        key = (tuple(feeds), tuple(outputs))
        program = plan.compiled.get(key)
        if program is None:
            steps: list[Step] = [_NodeStep(node, self) for node in plan.order]
            program = compile_steps(steps, key[0], outputs, self.weights, str, "Node")
            plan.compiled[key] = program
        kept = self.intermediates
        if kept is not None:  # a replayed run has no intermediates
            try:
                return run(program, list(feeds.values()), self.protected_ids, on_step=kept.add)
            finally:
                kept.reorder(tfjs_order(self.nodes, plan.order, feeds))
        return run(program, list(feeds.values()), self.protected_ids, capture=True)


class _NodeStep(Step):
    """A graph node as a runner step: its op's handler, replayed per input signature."""

    __slots__ = ("node", "handler", "executor")

    def __init__(self, node: Node, executor: Executor) -> None:
        super().__init__(node.name, node.inputs, f"node '{node.name}' (op {node.op})", executor.weight_data)
        self.node = node
        self.handler = resolve(node.op)
        self.executor = executor

    def call(self, ins: list[Tensor]) -> Any:
        if self.handler is None:
            raise ValueError(f"unsupported op '{self.node.op}'")
        try:
            return self.handler(self.node, ins, self.executor)
        except IndexError as e:  # the node lacks an input its op reads
            raise ValueError(f"it has {len(self.node.inputs)} inputs, fewer than its op reads ({e})") from e
