"""The graph of a converted model: nodes with parsed inputs and typed attribute access."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

#: TF dtypes as webtf dtypes (as in TF.js: every integer type is int32, every float type float32)
_DTYPES = {
    "DT_FLOAT": "float32",
    "DT_HALF": "float32",
    "DT_BFLOAT16": "float32",
    "DT_DOUBLE": "float32",
    "DT_INT32": "int32",
    "DT_INT64": "int32",
    "DT_INT16": "int32",
    "DT_INT8": "int32",
    "DT_UINT8": "int32",
    "DT_UINT16": "int32",
    "DT_UINT32": "int32",
    "DT_BOOL": "bool",
    "DT_STRING": "string",
    "DT_COMPLEX64": "complex64",
    "DT_COMPLEX128": "complex64",
}


def parse_input(ref: str) -> tuple[str, int]:
    """'name:1' -> ('name', 1); 'name' -> ('name', 0)."""
    name, sep, idx = ref.rpartition(":")
    if sep and idx.isdigit():
        return name, int(idx)
    return ref, 0


@dataclass
class Node:
    """One graph node: name, TF op, data inputs as (node, output index), control inputs and raw attrs."""

    name: str
    op: str
    inputs: list[tuple[str, int]]
    controls: list[str]
    attr: dict[str, Any] = field(default_factory=dict)
    # decoded string attrs: the executor reads the same attrs on every run, base64 decoding is not free
    _strs: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def _get(self, key: str) -> Any:
        return self.attr.get(key)

    def int(self, key: str, default: int = 0) -> int:
        """An int attr."""
        v = self._get(key)
        return int(v["i"]) if v and "i" in v else default

    def float(self, key: str, default: float = 0.0) -> float:
        """A float attr."""
        v = self._get(key)
        return float(v["f"]) if v and "f" in v else default

    def bool(self, key: str, default: bool = False) -> bool:
        """A bool attr."""
        v = self._get(key)
        return bool(v["b"]) if v and "b" in v else default

    def str(self, key: str, default: str = "") -> str:
        """A string attr (base64 in model.json)."""
        got = self._strs.get(key)
        if got is None:
            v = self._get(key)
            got = self._strs[key] = base64.b64decode(v["s"]).decode() if v and "s" in v else None
        return default if got is None else got

    def dtype(self, key: str, default: str = "float32") -> str:
        """A dtype attr as a webtf dtype name."""
        v = self._get(key)
        if not v or "type" not in v:
            return default
        if v["type"] not in _DTYPES:
            raise ValueError(f"node '{self.name}' ({self.op}): unsupported dtype {v['type']}")
        return _DTYPES[v["type"]]

    def ints(self, key: str, default: list[int] | None = None) -> list[int]:
        """A list-of-ints attr."""
        v = self._get(key)
        if not v or "list" not in v:
            return list(default or [])
        return [int(i) for i in v["list"].get("i", [])]

    def strs(self, key: str) -> list[str]:
        """A list-of-strings attr."""
        got = self._strs.get(("list", key))
        if got is None:
            v = self._get(key)
            raw = v["list"].get("s", []) if v and "list" in v else []
            got = self._strs[("list", key)] = tuple(base64.b64decode(s).decode() for s in raw)
        return list(got)

    def shape(self, key: str) -> list[int] | None:
        """A shape attr (-1 for unknown dims), or None."""
        v = self._get(key)
        if not v or "shape" not in v:
            return None
        s = v["shape"]
        if s.get("unknownRank"):
            return None
        return [int(d.get("size", -1)) for d in s.get("dim", [])]


def node_error(node: Node, error: Exception, where: str = "") -> Exception:
    """`error` as raised by running `node`, with a note naming the node; an IndexError (the node lacks an
    input its op reads) becomes a ValueError."""
    if isinstance(error, IndexError):
        error = ValueError(f"it has {len(node.inputs)} inputs, fewer than its op reads ({error})")
    error.add_note(f"Error in node '{node.name}' (op {node.op}){where}")
    return error


def parse_nodes(topology: Any) -> dict[str, Node]:
    """Nodes by name from a converter modelTopology ({'node': [...], 'library': ..., 'versions': ...})."""
    if not isinstance(topology, dict) or not isinstance(topology.get("node"), list):
        raise ValueError(
            "modelTopology has no 'node' list: not a graph model (a layers model needs load_layers_model)"
        )
    nodes: dict[str, Node] = {}
    for k, raw in enumerate(topology["node"]):
        if (
            not isinstance(raw, dict)
            or not isinstance(raw.get("name"), str)
            or not isinstance(raw.get("op"), str)
        ):
            raise ValueError(
                f"modelTopology node {k} must be an object with a string 'name' and 'op': {raw!r:.80}"
            )
        refs, attr = raw.get("input", []), raw.get("attr", {})
        if (
            not isinstance(refs, list)
            or not all(isinstance(r, str) for r in refs)
            or not isinstance(attr, dict)
        ):
            raise ValueError(
                f"modelTopology node '{raw['name']}' must have 'input' that is a list of strings and 'attr' that "
                "is an object"
            )
        data, controls = [], []
        for ref in refs:
            if ref.startswith("^"):
                controls.append(ref[1:])
            else:
                data.append(parse_input(ref))
        nodes[raw["name"]] = Node(raw["name"], raw["op"], data, controls, attr)
    return nodes
