"""Tiny synthetic converter-format graph models written by the tests (model.json + one shard)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np


def attr_ints(*v: int) -> dict[str, Any]:
    return {"list": {"i": [str(i) for i in v]}}


def attr_str(s: str) -> dict[str, Any]:
    return {"s": base64.b64encode(s.encode()).decode()}


def attr_strs(*v: str) -> dict[str, Any]:
    return {"list": {"s": [base64.b64encode(s.encode()).decode() for s in v]}}


def conv_model(rng: np.random.Generator) -> tuple[dict[str, Any], bytes, dict[str, np.ndarray]]:
    """input [1,8,8,3] -> _FusedConv2D(3x3x3x4, stride 2, SAME, BiasAdd+Relu) -> Reshape [-1,64] -> out."""
    w = {
        "conv/filter": rng.standard_normal((3, 3, 3, 4)).astype(np.float32),
        "conv/bias": rng.standard_normal(4).astype(np.float32),
        "flat/shape": np.array([-1, 64], dtype=np.int32),
    }
    nodes = [
        {"name": "input", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
         "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "8"}, {"size": "8"}, {"size": "3"}]}}}},
        {"name": "conv/filter", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
        {"name": "conv/bias", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
        {"name": "flat/shape", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}}},
        {"name": "conv", "op": "_FusedConv2D", "input": ["input", "conv/filter", "conv/bias"],
         "attr": {"strides": attr_ints(1, 2, 2, 1), "padding": attr_str("SAME"),
                  "dilations": attr_ints(1, 1, 1, 1), "data_format": attr_str("NHWC"),
                  "fused_ops": attr_strs("BiasAdd", "Relu"), "num_args": {"i": "1"},
                  "T": {"type": "DT_FLOAT"}}},
        {"name": "flat", "op": "Reshape", "input": ["conv", "flat/shape"]},
        {"name": "out", "op": "Identity", "input": ["flat"]},
    ]  # fmt: skip
    specs = [{"name": k, "shape": list(v.shape), "dtype": str(v.dtype)} for k, v in w.items()]
    manifest = [{"paths": ["weights.bin"], "weights": specs}]
    data = b"".join(v.tobytes() for v in w.values())
    model = {"format": "graph-model", "modelTopology": {"node": nodes}, "weightsManifest": manifest}
    return model, data, w


def write(dir_: Path, model: dict[str, Any], data: bytes) -> Path:
    dir_.mkdir(parents=True, exist_ok=True)
    (dir_ / "model.json").write_text(json.dumps(model))
    (dir_ / "weights.bin").write_bytes(data)
    return dir_ / "model.json"


def conv_reference(x: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    """numpy reference of conv_model: SAME 3x3 stride-2 conv + bias + relu, flattened."""
    f = w["conv/filter"]
    n, h, wd, c = x.shape
    oh, ow = -(-h // 2), -(-wd // 2)
    pad_h = max((oh - 1) * 2 + 3 - h, 0)
    pad_w = max((ow - 1) * 2 + 3 - wd, 0)
    xp = np.pad(x, ((0, 0), (pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2), (0, 0)))
    out = np.zeros((n, oh, ow, f.shape[3]), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * 2 : i * 2 + 3, j * 2 : j * 2 + 3, :]
            out[:, i, j, :] = np.tensordot(patch, f, axes=([1, 2, 3], [0, 1, 2]))
    return np.maximum(out + w["conv/bias"], 0).reshape(n, -1)


_TF_DTYPES = {
    "float32": "DT_FLOAT",
    "int32": "DT_INT32",
    "bool": "DT_BOOL",
    "string": "DT_STRING",
    "complex64": "DT_COMPLEX64",
}


_NP_DTYPES = {"float32": np.float32, "int32": np.int32, "bool": np.bool_, "string": np.str_, "complex64": np.complex64}


class Graph:
    """Builds a converter-format graph model: nodes (with TF attrs) and Const weights in one shard."""

    def __init__(self) -> None:
        self.nodes: list[dict[str, Any]] = []
        self.weights: dict[str, np.ndarray] = {}
        self.functions: list[dict[str, Any]] = []

    def placeholder(self, name: str, dtype: str = "float32", shape: list[int] | None = None) -> str:
        attr: dict[str, Any] = {"dtype": {"type": _TF_DTYPES[dtype]}}
        if shape is not None:
            attr["shape"] = {"shape": {"dim": [{"size": str(d)} for d in shape]}}
        else:
            attr["shape"] = {"shape": {"unknownRank": True}}
        self.nodes.append({"name": name, "op": "Placeholder", "attr": attr})
        return name

    def const(self, name: str, value: Any, dtype: str = "float32", controls: tuple[str, ...] = ()) -> str:
        arr = np.asarray(value, dtype=_NP_DTYPES[dtype])
        self.weights[name] = arr
        node: dict[str, Any] = {"name": name, "op": "Const", "attr": {"dtype": {"type": _TF_DTYPES[dtype]}}}
        if controls:
            node["input"] = [f"^{c}" for c in controls]
        self.nodes.append(node)
        return name

    def op(self, name: str, op: str, *inputs: str, **attr: Any) -> str:
        """Add a node; attrs are given already encoded ({'i': '1'}, attr_str(...), ...)."""
        node: dict[str, Any] = {"name": name, "op": op, "input": list(inputs)}
        if attr:
            node["attr"] = attr
        self.nodes.append(node)
        return name

    def enter(self, name: str, src: str, frame: str, constant: bool = False) -> str:
        return self.op(name, "Enter", src, frame_name=attr_str(frame), is_constant={"b": constant})

    def function(self, name: str, args: dict[str, str], body: Any, outputs: dict[str, str]) -> str:
        """Add a library function: args name -> dtype; body(g) adds its nodes to the sub-Graph g (its Consts
        become the model's weights); outputs name -> 'node:out_name:index' or an arg name."""
        sub = Graph()
        body(sub)
        self.weights.update(sub.weights)
        self.functions.append({
            "signature": {
                "name": name,
                "inputArg": [{"name": a, "type": _TF_DTYPES[d]} for a, d in args.items()],
                "outputArg": [{"name": o, "type": "DT_FLOAT"} for o in outputs],
            },
            "nodeDef": sub.nodes,
            "ret": outputs,
        })  # fmt: skip
        return name

    def model(self, outputs: list[str] | None = None) -> tuple[dict[str, Any], bytes]:
        specs = [{"name": k, "shape": list(v.shape), "dtype": _weight_dtype(v)} for k, v in self.weights.items()]
        data = b"".join(_weight_bytes(v) for v in self.weights.values())
        model: dict[str, Any] = {
            "format": "graph-model",
            "modelTopology": {
                "node": self.nodes,
                **({"library": {"function": self.functions}} if self.functions else {}),
            },
            "weightsManifest": [{"paths": ["weights.bin"], "weights": specs}],
        }
        if outputs:
            model["signature"] = {"outputs": {o: {"name": o} for o in outputs}}
        return model, data


def _weight_dtype(v: np.ndarray) -> str:
    return "string" if v.dtype.kind == "U" else str(v.dtype)


def _weight_bytes(v: np.ndarray) -> bytes:
    """A weight's shard bytes as TF.js stores them: strings as uint32 byte length + UTF-8 bytes each,
    complex64 as interleaved float32 (real, imag)."""
    if v.dtype.kind != "U":
        return v.tobytes()
    return b"".join(len(b).to_bytes(4, "little") + b for b in (str(x).encode() for x in v.ravel()))


def func_attr(name: str) -> dict[str, Any]:
    return {"func": {"name": name}}


def dtype_attr(dtype: str) -> dict[str, Any]:
    return {"type": _TF_DTYPES[dtype]}


def shape_attr(shape: list[int] | None) -> dict[str, Any]:
    if shape is None:
        return {"shape": {"unknownRank": True}}
    return {"shape": {"dim": [{"size": str(d)} for d in shape]}}


def while_loop(
    g: Graph,
    prefix: str,
    frame: str,
    init: dict[str, str],
    cond: Any,
    body: Any,
    invariants: dict[str, str] | None = None,
) -> dict[str, str]:
    """TF1 while_loop wiring: Enter -> Merge -> cond -> LoopCond -> Switch -> body -> NextIteration / Exit.

    init: loop var -> initial node; invariants: name -> outer node (entered is_constant).
    cond(g, vars, inv) returns the bool node; body(g, vars, inv, pivot) returns loop var -> next node.
    vars/inv map names to the in-loop nodes. Returns loop var -> Exit node.
    """
    inv = {k: g.enter(f"{prefix}/{k}/Enter", v, frame, True) for k, v in (invariants or {}).items()}
    merges = {}
    for k, v in init.items():
        g.enter(f"{prefix}/{k}/Enter", v, frame)
        merges[k] = g.op(f"{prefix}/{k}/Merge", "Merge", f"{prefix}/{k}/Enter", f"{prefix}/{k}/NextIteration")
    pred = cond(g, merges, inv)
    g.op(f"{prefix}/LoopCond", "LoopCond", pred)
    ids = {}
    for k in init:
        g.op(f"{prefix}/{k}/Switch", "Switch", merges[k], f"{prefix}/LoopCond")
        ids[k] = g.op(f"{prefix}/{k}/Identity", "Identity", f"{prefix}/{k}/Switch:1")
    pivot = ids[next(iter(init))]
    nxt = body(g, ids, inv, pivot)
    exits = {}
    for k in init:
        g.op(f"{prefix}/{k}/NextIteration", "NextIteration", nxt[k])
        exits[k] = g.op(f"{prefix}/{k}/Exit", "Exit", f"{prefix}/{k}/Switch")
    return exits


def signature_model(signed: bool = True) -> tuple[dict[str, Any], bytes]:
    """x [-1, 2] -> Identity = x + 1, Identity_1 = x + 2, Identity_2 = x + 3, 7 = Identity(x + 3).

    signed: a top-level signature named by tensor, overridden by userDefinedMetadata.signature, whose keys
    TF.js enumerates as "0", "1", "scores", "also" ("also" renames Identity:0 in "1"'s place). Unsigned: no
    signature, an unused Const "spare" and a NoOp "guard" with a control input from Identity_2.
    """
    g = Graph()
    g.placeholder("x", "float32", [-1, 2])
    for k in (1, 2, 3):
        g.const(f"c{k}", [float(k)] * 2)
    if not signed:
        g.const("spare", [0.0])
    for k in (1, 2, 3):
        g.op(f"add{k}", "AddV2", "x", f"c{k}")
    g.op("Identity", "Identity", "add1")
    g.op("Identity_1", "Identity", "add2")
    g.op("Identity_2", "Identity", "add3")
    if not signed:
        g.op("guard", "NoOp", "^Identity_2")
        g.op("7", "Identity", "add3")
    model, data = g.model()
    model["modelTopology"]["versions"] = {"producer": 1}  # TF.js reads it
    if signed:
        spec = {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "-1"}, {"size": "2"}]}}
        model["signature"] = {
            "inputs": {"x:0": {"name": "x:0", **spec}},
            "outputs": {f"{n}:0": {"name": f"{n}:0", **spec} for n in ("Identity", "Identity_1")},
        }
        outputs = {"scores": "Identity_2:0", "1": "Identity:0", "0": "Identity_1:0", "also": "Identity:0"}
        model["userDefinedMetadata"] = {
            "signature": {
                "inputs": {"image": {"name": "x:0", **spec}},
                "outputs": {key: {"name": name, **spec} for key, name in outputs.items()},
            },
            "author": "synth",
        }
    return model, data
