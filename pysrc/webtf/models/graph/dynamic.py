"""Data-driven execution of graphs with control flow (TF.js GraphExecutor.executeWithControlFlow).

A node runs once its inputs have values in its execution context; a Merge runs on its first available input.
A context is the stack of (frame name, iteration) of the while loops around a node: Enter pushes a frame
(its value lives in the new frame, or in the enclosing one when is_constant, so every iteration sees it),
NextIteration bumps the innermost iteration, Exit pops the frame. A value is stored under its node's name
and context, and looked up from the innermost context outwards. Switch makes one of its two outputs dead
(None): consumers of a dead output never run.

Memory: every stored output counts the graph edges that read it; a read from the same context uses one up,
and an output is freed when none are left. Values read from an enclosing context (loop invariants),
and values whose readers never ran (dead branches), are freed when the run ends, with the TensorArrays and
TensorLists. Control-flow ops pass tensors through without copying (the count is per stored reference).
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ... import ops as tf
from ...ops.extra import where_coords
from ...tensor import Tensor
from .functions import FUNCTIONAL_OPS, run_functional
from .nodes import Node, node_error
from .op_table import resolve
from .resources import Resources

if TYPE_CHECKING:
    from .executor import Executor

Frames = tuple[tuple[str, int], ...]
ROOT: Frames = ()
#: a released output: its readers all ran (kept distinct from None, a dead output)
FREED = object()


@dataclass
class DynamicPlan:
    """The nodes an execution may run, who reads each of them, and where execution starts."""

    used: set[str]
    children: dict[str, list[Node]]
    readers: dict[tuple[str, int], int]
    start: list[Node]
    needs_merge_index: set[str] = field(default_factory=set)


def make_plan(nodes: dict[str, Node], fed: set[str], outputs: tuple[str, ...]) -> DynamicPlan:
    """Walk back from the outputs over data and control inputs, stopping at inputs and constants."""
    used: set[str] = set()
    frontier = list(outputs)
    while frontier:
        name = frontier.pop()
        if name in used:
            continue
        node = nodes.get(name)
        if node is None:
            raise ValueError(f"The graph has no node named '{name}'")
        used.add(name)
        if name in fed or node.op == "Const":
            continue
        if node.op == "Placeholder":
            raise ValueError(f"Input '{name}' is needed to compute the outputs but was not provided")
        frontier.extend(src for src, _ in node.inputs)
        frontier.extend(node.controls)
    children: dict[str, list[Node]] = {}
    readers: dict[tuple[str, int], int] = {}
    start: list[Node] = []
    merge_index: set[str] = set()
    for node in nodes.values():  # graph order, as TF.js builds its children lists
        if node.name not in used:
            continue
        if node.name in fed or node.op == "Const" or not (node.inputs or node.controls):
            start.append(node)
        if node.name in fed:
            continue
        for src in dict.fromkeys([s for s, _ in node.inputs] + node.controls):
            children.setdefault(src, []).append(node)
        for src, idx in node.inputs:
            readers[(src, idx)] = readers.get((src, idx), 0) + 1
            if idx == 1 and nodes[src].op == "Merge":
                merge_index.add(src)
    return DynamicPlan(used, children, readers, start, merge_index)


def _context_ids(frames: Frames) -> list[str]:
    ids = []
    for n in range(len(frames), 0, -1):
        ids.append("/".join(f"{name}:{it}" for name, it in frames[:n]))
    ids.append("")
    return ids


class DynamicRun:
    """One execution of a graph with control flow; `await run()` returns the output tensors."""

    def __init__(
        self,
        executor: Executor,
        plan: DynamicPlan,
        feeds: dict[str, Tensor],
        outputs: list[tuple[str, int]],
        resources: Resources | None = None,
    ) -> None:
        self.executor = executor
        self.tables = executor.tables
        self.nodes = executor.nodes
        self.weights = executor.weights
        self.plan = plan
        self.feeds = feeds
        self.outputs = outputs
        # a function body shares its caller's containers (and leaves them to the caller to free)
        self.owns_resources = resources is None
        self.resources = Resources() if resources is None else resources
        self.protected = set(executor.protected_ids) | {id(t) for t in feeds.values()}
        self.vals: dict[str, list[Any]] = {name: [t] for name, t in feeds.items()}
        self.pending: dict[str, list[int]] = {}
        self.refs: dict[int, int] = {}
        self.objs: dict[int, Tensor] = {}
        self.added: set[str] = set()
        # ready nodes: earliest loop iteration first, then last queued first (TF.js uses a plain stack,
        # which lets a loop counter run ahead while every iteration's values wait; this keeps memory flat)
        self.queue: list[tuple[tuple[int, ...], int, Node, Frames]] = []
        self._seq = itertools.count()
        # loop invariants (is_constant Enter nodes) by (enclosing context, frame name), and the
        # iteration contexts each such frame has had: an invariant's readers are queued in every iteration
        self.invariants: dict[tuple[Frames, str], list[Node]] = {}
        self.iterations: dict[tuple[Frames, str], list[Frames]] = {}
        self._ids: dict[Frames, list[str]] = {}
        self.wanted = {}
        for name, idx in outputs:
            self.wanted[(name, idx)] = self.wanted.get((name, idx), 0) + 1

    def values(self, t: Tensor) -> list[Any]:
        """Host values of a parameter tensor (cached for weights)."""
        return self.executor.values(t)

    # ---------------------------------------------------------------------------------------- storage

    def ids(self, frames: Frames) -> list[str]:
        """Context ids from frames outwards to the root ('')."""
        got = self._ids.get(frames)
        if got is None:
            got = self._ids[frames] = _context_ids(frames)
        return got

    @staticmethod
    def key(name: str, context_id: str) -> str:
        """Storage key of a node's outputs in a context."""
        return f"{name}@{context_id}" if context_id else name

    def find(self, name: str, frames: Frames) -> tuple[str | None, list[Any] | None]:
        """(key, outputs) of a node as seen from frames, innermost context first; weights last."""
        for cid in self.ids(frames):
            key = self.key(name, cid)
            got = self.vals.get(key)
            if got is not None:
                return key, got
        w = self.weights.get(name)
        if w is not None and self.nodes[name].op == "Const":
            return None, [w]
        return None, None

    def available(self, name: str, idx: int, frames: Frames) -> bool:
        """Whether output idx of a node has a live value in this context."""
        _, got = self.find(name, frames)
        return got is not None and idx < len(got) and got[idx] is not None

    def control_ready(self, name: str, frames: Frames) -> bool:
        """Whether a control input has run in this context (and its first output is not dead)."""
        _, got = self.find(name, frames)
        return got is not None and (not got or got[0] is not None)

    def store(self, name: str, frames: Frames, outs: list[Any]) -> None:
        key = self.key(name, self.ids(frames)[0])
        kept = self.executor.intermediates
        if kept is not None:
            kept.add(key, outs)
        old = self.vals.get(key)
        if old is not None:  # a Const re-run in a context: nothing new to count
            for i in range(len(old)):
                self.release(key, i)
        self.vals[key] = outs
        counts = []
        for i, t in enumerate(outs):
            n = self.plan.readers.get((name, i), 0)
            if not frames:
                n += self.wanted.get((name, i), 0)
            counts.append(n)
            if t is not None:
                self.refs[id(t)] = self.refs.get(id(t), 0) + 1
                self.objs[id(t)] = t
                if n == 0:
                    self.release(key, i)
        self.pending[key] = counts

    def release(self, key: str, idx: int) -> None:
        outs = self.vals[key]
        t = outs[idx]
        if t is None or t is FREED:
            return
        outs[idx] = FREED
        n = self.refs[id(t)] - 1
        self.refs[id(t)] = n
        if n <= 0:
            del self.refs[id(t)]
            del self.objs[id(t)]
            if id(t) not in self.protected and id(t) not in self.resources.handle_ids:
                t.dispose()

    def read(self, name: str, idx: int, frames: Frames) -> Tensor:
        """The value of output idx of a node for a reader running in frames; uses up one read."""
        key, got = self.find(name, frames)
        if got is None:
            raise ValueError(f"node '{name}' has no value (missing weight or input)")
        if idx >= len(got):
            raise ValueError(f"node '{name}' has {len(got)} outputs; output {idx} was requested")
        t = got[idx]
        if t is None or t is FREED:
            raise ValueError(f"output {idx} of node '{name}' is {'dead' if t is None else 'already freed'}")
        counts = self.pending.get(key) if key is not None else None
        if counts is not None and key == self.key(name, self.ids(frames)[0]):
            counts[idx] -= 1
            if counts[idx] == 0:
                self._to_release.append((key, idx))
        return t

    # -------------------------------------------------------------------------------------------- run

    async def run(self) -> list[Tensor]:
        """Execute until no node can run; return the outputs, having freed everything else."""
        for n in reversed(self.plan.start):
            self.enqueue(n, ROOT)
        self._to_release: list[tuple[str, int]] = []
        node: Node | None = None
        frames: Frames = ROOT
        try:
            while self.queue:
                _, _, node, frames = heapq.heappop(self.queue)
                if node.name in self.feeds or node.op == "Const":
                    if node.op == "Const" and node.name not in self.weights:
                        raise ValueError("constant has no weight")
                    self.push_children(node, frames)
                    continue
                out_frames = await self.execute(node, frames)
                self.push_children(node, out_frames)
            node = None
            result = self.collect()
        except Exception as e:
            self.cleanup(set())
            if node is None:
                raise
            where = f" in loop context {self.ids(frames)[0]}" if frames else ""
            raise node_error(node, e, where) from e.__cause__
        self.cleanup({id(t) for t in result})
        return result

    async def execute(self, node: Node, frames: Frames) -> Frames:
        """Run one node in frames, store its outputs; returns the context its children run in."""
        op = node.op
        store_frames = out_frames = frames
        invariant = False
        if op == "Merge":
            for i, (src, idx) in enumerate(node.inputs):
                if self.available(src, idx, frames):
                    t = self.read(src, idx, frames)
                    outs: list[Any] = [t]
                    if node.name in self.plan.needs_merge_index or (node.name, 1) in self.wanted:
                        outs.append(tf.scalar(i, "int32"))
                    break
            else:
                raise ValueError("none of its inputs has a value")
        else:
            ins = [self.read(src, idx, frames) for src, idx in node.inputs]
            if op == "Enter":
                frame = node.str("frame_name")
                out_frames = (*frames, (frame, 0))
                store_frames = out_frames
                outs = [ins[0]]
                if node.bool("is_constant"):
                    store_frames, invariant = frames, True
                    self.invariants.setdefault((frames, frame), []).append(node)
            elif op == "Exit":
                if not frames:
                    raise ValueError("Exit outside of a loop frame")
                store_frames = out_frames = frames[:-1]
                outs = [ins[0]]
            elif op == "NextIteration":
                if not frames:
                    raise ValueError("NextIteration outside of a loop frame")
                name, it = frames[-1]
                store_frames = out_frames = (*frames[:-1], (name, it + 1))
                outs = [ins[0]]
            elif op == "LoopCond":
                outs = [ins[0]]
            elif op == "Switch":
                pred = (await ins[1].data())[0]
                outs = [None, ins[0]] if pred else [ins[0], None]
            elif op in FUNCTIONAL_OPS:
                outs = await run_functional(self.executor, node, ins, self.resources)
            elif op == "Where":
                outs = [where_coords(ins[0].shape, await ins[0].data())]
            else:
                handler = resolve(op)
                if handler is None:
                    raise ValueError(f"unsupported op '{op}'")
                got = handler(node, ins, self)
                outs = [got] if isinstance(got, Tensor) else list(got)
        self.store(node.name, store_frames, outs)
        for key, idx in self._to_release:
            self.release(key, idx)
        self._to_release.clear()
        if invariant:
            for ctx in self.iterations.get((frames, out_frames[-1][0]), ()):
                self.push_children(node, ctx)
        if op in ("Enter", "NextIteration"):
            self.open_iteration(out_frames)
        return out_frames

    def open_iteration(self, frames: Frames) -> None:
        """Note a loop iteration context; the first time, queue the readers of the loop's invariants in it."""
        parent, name = frames[:-1], frames[-1][0]
        seen = self.iterations.setdefault((parent, name), [])
        if frames in seen:
            return
        seen.append(frames)
        for enter in self.invariants.get((parent, name), ()):
            self.push_children(enter, frames)

    def push_children(self, node: Node, frames: Frames) -> None:
        """Queue each child that can now run in frames (a Merge needs one input, others all)."""
        cid = self.ids(frames)[0]
        for child in self.plan.children.get(node.name, ()):
            key = self.key(child.name, cid)
            if key in self.added:
                continue
            if child.op == "Merge":
                ready = any(self.available(src, idx, frames) for src, idx in child.inputs)
            else:
                ready = all(self.available(src, idx, frames) for src, idx in child.inputs) and all(
                    self.control_ready(src, frames) for src in child.controls
                )
            if ready:
                self.added.add(key)
                self.enqueue(child, frames)

    def enqueue(self, node: Node, frames: Frames) -> None:
        """Queue a node that can run in frames."""
        heapq.heappush(self.queue, (tuple(it for _, it in frames), -next(self._seq), node, frames))

    def collect(self) -> list[Tensor]:
        """The requested outputs, from the root context."""
        missing = [name for name, idx in self.outputs if not self.available(name, idx, ROOT)]
        if missing:
            raise ValueError(
                f"Cannot compute the outputs {missing} from the provided inputs {list(self.feeds)}: "
                "they were never computed (a dead branch, or a node inside a loop)"
            )
        return [self.read(name, idx, ROOT) for name, idx in self.outputs]

    def cleanup(self, keep: set[int]) -> None:
        """Free every tensor the run still holds, except `keep`, inputs and weights."""
        handles = self.resources.handle_ids
        for tid, t in list(self.objs.items()):
            if tid not in keep and tid not in self.protected and tid not in handles:
                t.dispose()
        self.objs.clear()
        self.refs.clear()
        self.vals.clear()
        if self.owns_resources:
            self.resources.dispose(keep)
