"""A graph run's kept intermediate tensors (TF.js's KEEP_INTERMEDIATE_TENSORS flag, for debugging models)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from ...environment import ENV
from ...ops.creation import clone
from ...tensor import Tensor

FLAG = "KEEP_INTERMEDIATE_TENSORS"


def keep_flag() -> bool:
    """The flag's value; a flag that is not a bool warns and reads as False, as in TF.js."""
    try:
        return ENV.get_bool(FLAG)
    except TypeError as e:
        warnings.warn(str(e), stacklevel=3)
        return False


class Intermediates:
    """Clones of a run's tensors by node name (weights, the sync path's inputs, every node it ran), each
    kept out of tidy scopes; they share their originals' data, so they add tensors but no bytes."""

    def __init__(self) -> None:
        self.tensors: dict[str, list[Tensor | None]] = {}

    def add(self, name: str, outs: Iterable[Tensor | None]) -> None:
        """Keep clones of one node's outputs (a dead output stays None)."""
        kept: list[Tensor | None] = []
        for t in outs:
            c = None if t is None else clone(t)
            if c is not None:
                c.kept = True
            kept.append(c)
        self.tensors[name] = kept

    def reorder(self, node_order: list[str]) -> None:
        """Put the nodes' entries in `node_order` (those it lacks last), after the weights and inputs."""
        rank = {name: i for i, name in enumerate(node_order)}
        items = list(self.tensors.items())
        fixed = [kv for kv in items if kv[0] not in rank]
        nodes = sorted((kv for kv in items if kv[0] in rank), key=lambda kv: rank[kv[0]])
        self.tensors = dict(fixed + nodes)

    def dispose(self) -> None:
        """Free every kept clone not disposed yet."""
        for outs in self.tensors.values():
            for t in outs:
                if t is not None and not t.is_disposed:
                    t.dispose()
        self.tensors = {}


def tfjs_order(nodes: Mapping[str, Any], ran: Iterable[Any], feeds: Iterable[str]) -> list[str]:
    """The order TF.js 4.22's execute() runs the nodes `ran` in (its getNodesInTopologicalOrder: Kahn's
    algorithm over the used nodes, consumers in graph order, the ready list used as a stack)."""
    children: dict[str, list[str]] = {}
    for node in nodes.values():
        for src in [*(s for s, _ in node.inputs), *node.controls]:
            children.setdefault(src, []).append(node.name)
    ran = list(ran)
    used = {n.name for n in ran} | set(feeds)
    for node in ran:
        used.update(s for s, _ in node.inputs)
        used.update(node.controls)
    weights = [name for name, node in nodes.items() if node.op == "Const"]
    counts: dict[str, float] = {}
    for name in dict.fromkeys([*feeds, *weights, *nodes]):
        if name not in used:
            continue
        counts.setdefault(name, 0)
        for child in children.get(name, ()):
            if child not in used:
                counts[child] = float("inf")
            counts[child] = counts.get(child, 0) + 1
    frontier = [name for name, n in counts.items() if n == 0]
    order = list(frontier)
    while frontier:
        for child in children.get(frontier.pop(), ()):
            if child in used:
                counts[child] -= 1
                if counts[child] == 0:
                    order.append(child)
                    frontier.append(child)
    executed = {n.name for n in ran}
    return [name for name in order if name in executed]
