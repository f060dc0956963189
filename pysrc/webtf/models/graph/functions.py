"""The model's function library (modelTopology.library.function) and the functional control-flow ops.

A function body is a graph of its own: its input args are Placeholders, its Consts are the model's weights
(by node name), and a body input 'node:out_name:2' means output 2 of 'node' (TF.js reads the trailing index).
If / StatelessIf run one branch function on their args; While / StatelessWhile run cond and body until
cond's first output is false. Bodies run in an executor of their own, sharing the model's weights and the
calling run's TensorArrays / TensorLists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...tensor import Tensor
from .nodes import Node, parse_nodes

if TYPE_CHECKING:
    from .executor import Executor

FUNCTIONAL_OPS = ("If", "StatelessIf", "While", "StatelessWhile")


def _ref(ref: str) -> tuple[str, int]:
    """'node:out:2' -> ('node', 2); 'node:1' -> ('node', 1); 'arg' -> ('arg', 0)."""
    parts = ref.split(":")
    return (parts[0], int(parts[-1])) if len(parts) > 1 else (ref, 0)


@dataclass
class Function:
    """One FunctionDef: its nodes, input arg names (in order) and outputs (node, index) in order."""

    name: str
    nodes: dict[str, Node]
    inputs: list[str]
    outputs: list[tuple[str, int]]


def parse_functions(topology: Any) -> dict[str, Function]:
    """Functions by name from modelTopology.library.function (empty when the model has none)."""
    library = topology.get("library") if isinstance(topology, dict) else None
    funcs: dict[str, Function] = {}
    for raw in (library or {}).get("function") or []:
        sig = raw.get("signature") or {}
        name = sig.get("name")
        if not isinstance(name, str):
            raise ValueError(f"modelTopology.library.function entry without a signature name: {raw!r:.80}")
        args = [a["name"] for a in sig.get("inputArg") or []]
        body = [
            {**n, "input": [r if r.startswith("^") else "{}:{}".format(*_ref(r)) for r in n.get("input", [])]}
            for n in raw.get("nodeDef") or []
        ]
        body += [
            {"name": a["name"], "op": "Placeholder", "attr": {"dtype": {"type": a.get("type", "DT_FLOAT")}}}
            for a in sig.get("inputArg") or []
        ]
        nodes = parse_nodes({"node": body})
        ret = raw.get("ret") or {}
        outputs = []
        for out in sig.get("outputArg") or []:
            ref = ret.get(out["name"])
            if ref is None:
                raise ValueError(f"function '{name}': output '{out['name']}' has no 'ret' entry")
            outputs.append(_ref(ref))
        funcs[name] = Function(name, nodes, args, outputs)
    return funcs


def func_attr(node: Node, key: str) -> str:
    """The function name of a func attr ({'func': {'name': ...}})."""
    v = node.attr.get(key) or {}
    name = (v.get("func") or {}).get("name")
    if not isinstance(name, str):
        raise ValueError(f"node '{node.name}' ({node.op}): attr '{key}' names no function")
    return name


async def call(executor: Executor, name: str, args: list[Tensor], resources: Any) -> list[Tensor]:
    """Run function `name` on args; returns its outputs (possibly some of args themselves)."""
    sub = executor.function_executor(name)
    fn = executor.functions[name]
    if len(args) != len(fn.inputs):
        raise ValueError(f"function '{name}' takes {len(fn.inputs)} inputs but got {len(args)}")
    feeds = dict(zip(fn.inputs, args, strict=True))
    return await sub.run_async(feeds, fn.outputs, resources)


async def run_functional(executor: Executor, node: Node, ins: list[Tensor], resources: Any) -> list[Tensor]:
    """Outputs of an If / StatelessIf / While / StatelessWhile node on its inputs."""
    if node.op in ("If", "StatelessIf"):
        cond, args = ins[0], ins[1:]
        branch = func_attr(node, "then_branch" if (await cond.data())[0] else "else_branch")
        return await call(executor, branch, args, resources)
    cond_fn, body_fn = func_attr(node, "cond"), func_attr(node, "body")
    args = list(ins)
    # the caller's inputs, weights and container handles outlive the loop
    keep = {id(t) for t in ins} | executor.protected_ids
    while True:
        got = await call(executor, cond_fn, args, resources)
        go = bool((await got[0].data())[0])
        _free(got, keep | {id(t) for t in args}, resources)
        if not go:
            return args
        nxt = await call(executor, body_fn, args, resources)
        _free(args, keep | {id(t) for t in nxt}, resources)
        args = nxt


def _free(ts: list[Tensor], keep: set[int], resources: Any) -> None:
    seen: set[int] = set()
    for t in ts:
        if id(t) not in keep and id(t) not in seen and id(t) not in resources.handle_ids:
            seen.add(id(t))
            t.dispose()
