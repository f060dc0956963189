"""Small converter-format graph models for the converter ops of issue 15 (functional control flow, hash tables,
FusedBatchNorm, creation and random ops, TensorList additions), each with its feeds.

A case is JSON: {"model": model.json (with weightsManifest), "weights": base64 shard, "feeds": {name: [values,
shape, dtype]}, "outputs": [...], "random": bool}. tests/models/test_graph_ops_parity.py runs every case in
TF.js 4.22 and in webtf in the same page; random cases compare shapes, dtypes and value ranges only.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from tests.models.synth import Graph, attr_str, dtype_attr, func_attr

Case = dict[str, Any]


def _case(g: Graph, outputs: list[str], feeds: dict[str, Any], random: bool = False) -> Case:
    model, data = g.model(outputs)
    model["modelTopology"]["versions"] = {"producer": 1, "minConsumer": 0}  # TF.js reads them
    fed = {}
    for name, value in feeds.items():
        arr = np.asarray(value)
        if arr.dtype.kind == "U":
            fed[name] = [arr.ravel().tolist(), list(arr.shape), "string"]
            continue
        dtype = "bool" if arr.dtype == np.bool_ else "int32" if arr.dtype.kind in "iu" else "float32"
        fed[name] = [arr.astype(float).ravel().tolist(), list(arr.shape), dtype]
    return {
        "model": model,
        "weights": base64.b64encode(data).decode(),
        "feeds": fed,
        "outputs": outputs,
        "random": random,
    }


def _if(op: str, pred: bool) -> Case:
    g = Graph()
    g.placeholder("x", "float32", [2, 2])
    g.placeholder("p", "bool", [])

    def then(s: Graph) -> None:
        s.const("then/k", [[2.0, 3.0]])
        s.op("then/mul", "Mul", "a", "then/k")
        s.op("then/sum", "Sum", "then/mul", "then/axis", keep_dims={"b": False})
        s.const("then/axis", [1], "int32")

    def other(s: Graph) -> None:
        s.op("else/neg", "Neg", "a")

    g.function("then_fn", {"a": "float32"}, then, {"y": "then/mul:z:0", "z": "then/sum:output:0"})
    g.function("else_fn", {"a": "float32"}, other, {"y": "else/neg:y:0", "z": "a"})
    g.op("cond", op, "p", "x", then_branch=func_attr("then_fn"), else_branch=func_attr("else_fn"))
    g.op("y", "Identity", "cond")
    g.op("z", "Identity", "cond:1")
    return _case(g, ["y", "z"], {"x": np.array([[1, -2], [3, 4.5]], np.float32), "p": np.bool_(pred)})


def _while(op: str, n: int) -> Case:
    """i, acc, list = 0, x, EmptyTensorList; while i < n: acc = acc * 0.5 + i; list.push(acc); i += 1."""
    g = Graph()
    g.placeholder("x", "float32", [3])
    g.placeholder("n", "int32", [])
    g.const("i0", 0, "int32")
    g.const("shape", [3], "int32")
    g.const("max", -1, "int32")
    g.op("list0", "EmptyTensorList", "shape", "max", element_dtype=dtype_attr("float32"))

    def cond(s: Graph) -> None:
        s.op("c/less", "Less", "i", "n")

    def body(s: Graph) -> None:
        s.const("b/one", 1, "int32")
        s.const("b/half", 0.5)
        s.op("b/i1", "AddV2", "i", "b/one")
        s.op("b/fi", "Cast", "i", DstT=dtype_attr("float32"))
        s.op("b/scaled", "Mul", "acc", "b/half")
        s.op("b/acc1", "AddV2", "b/scaled", "b/fi")
        s.op("b/push", "TensorListPushBack", "lst", "b/acc1", element_dtype=dtype_attr("float32"))

    args = {"i": "int32", "n": "int32", "acc": "float32", "lst": "float32"}
    g.function("cond_fn", args, cond, {"r": "c/less:z:0"})
    g.function(
        "body_fn",
        args,
        body,
        {"i": "b/i1:z:0", "n": "n", "acc": "b/acc1:z:0", "lst": "b/push:output_handle:0"},
    )
    g.op("loop", op, "i0", "n", "x", "list0", cond=func_attr("cond_fn"), body=func_attr("body_fn"))
    g.op("count", "Identity", "loop")
    g.op("acc", "Identity", "loop:2")
    g.op("len", "TensorListLength", "loop:3")
    g.op(
        "stack",
        "TensorListStack",
        "loop:3",
        "shape",
        element_dtype=dtype_attr("float32"),
        num_elements={"i": "-1"},
    )
    outs = ["count", "acc", "len", "stack"] if n else ["count", "acc", "len"]  # TF.js cannot stack no tensors
    return _case(g, outs, {"x": np.array([1, 2, -4], np.float32), "n": np.int32(n)})


def _list_resize() -> Case:
    g = Graph()
    g.placeholder("x", "float32", [4, 2])
    g.const("shape", [2], "int32")
    g.const("size", 6, "int32")
    g.const("small", 2, "int32")
    g.op("list", "TensorListFromTensor", "x", "shape", element_dtype=dtype_attr("float32"))
    g.op("short", "TensorListResize", "list", "small")
    g.op("long", "TensorListResize", "list", "size")
    g.op("short_stack", "TensorListStack", "short", "shape", element_dtype=dtype_attr("float32"))
    g.op("long_len", "TensorListLength", "long")
    return _case(g, ["short_stack", "long_len"], {"x": np.arange(8, dtype=np.float32).reshape(4, 2)})


def _batch_norm(op: str) -> Case:
    rng = np.random.default_rng(7)
    g = Graph()
    g.placeholder("x", "float32", [2, 3, 3, 4])
    g.const("scale", rng.uniform(0.5, 2, 4))
    g.const("offset", rng.standard_normal(4))
    g.const("mean", rng.standard_normal(4))
    g.const("var", rng.uniform(0.1, 2, 4))
    g.op("bn", op, "x", "scale", "offset", "mean", "var", epsilon={"f": 0.01}, is_training={"b": False})
    return _case(g, ["bn"], {"x": rng.standard_normal((2, 3, 3, 4)).astype(np.float32)})


def _creation() -> Case:
    g = Graph()
    g.placeholder("x", "float32", [2, 3])
    g.placeholder("v", "float32", [5])
    g.const("axis", 1, "int32")
    g.const("shape", [2, 3], "int32")
    g.const("start", 1.5)
    g.const("stop", -2.0)
    g.const("num", 6, "int32")
    g.op("cumprod", "Cumprod", "x", "axis")
    g.op("cumprod_er", "Cumprod", "x", "axis", exclusive={"b": True}, reverse={"b": True})
    g.op("isinf", "IsInf", "v")
    g.op("linspace", "LinSpace", "start", "stop", "num")
    g.op("ones", "Ones", "shape", T=dtype_attr("int32"))
    g.op("zeros", "Zeros", "shape")
    g.op("shapes", "ShapeN", "x", "v")
    g.op("shape1", "Identity", "shapes:1")
    g.op("fq", "FakeQuantWithMinMaxVars", "x", min={"f": -1.0}, max={"f": 1.0})
    outs = ["cumprod", "cumprod_er", "isinf", "linspace", "ones", "zeros", "shapes", "shape1", "fq"]
    feeds = {
        "x": np.array([[1, 2, -3], [0.5, 4, 2]], np.float32),
        "v": np.array([1, np.inf, -np.inf, 0, 3], np.float32),
    }
    return _case(g, outs, feeds)


def _transform() -> Case:
    g = Graph()
    g.placeholder("img", "float32", [1, 4, 5, 2])
    g.const("t", [[1.0, 0.2, -0.5, 0.1, 0.9, 0.3, 0.0, 0.0]])
    g.const("out_shape", [3, 6], "int32")
    g.const("fill", 0.5)
    outs = []
    for interp in ("NEAREST", "BILINEAR"):
        for mode in ("CONSTANT", "REFLECT", "WRAP", "NEAREST"):
            name = f"tr_{interp}_{mode}".lower()
            g.op(name, "ImageProjectiveTransformV3", "img", "t", "out_shape", "fill",
                 interpolation=attr_str(interp), fill_mode=attr_str(mode))  # fmt: skip
            outs.append(name)
    img = np.arange(40, dtype=np.float32).reshape(1, 4, 5, 2) / 7
    return _case(g, outs, {"img": img})


def _random() -> Case:
    g = Graph()
    g.const("shape", [40, 5], "int32")
    g.op("uniform", "RandomUniform", "shape", dtype=dtype_attr("float32"), seed={"i": "0"})
    g.op("trunc", "TruncatedNormal", "shape", dtype=dtype_attr("float32"), seed={"i": "3"})
    return _case(g, ["uniform", "trunc"], {}, random=True)


def _tables(with_initializer: bool) -> Case:
    g = Graph()
    g.placeholder("k", "int32", [5])
    g.const("keys", [3, 7, 11], "int32")
    g.const("vals", [[1.0, -1.0], [2.5, 0.0], [9.0, 4.0]])
    g.const("dflt", [0.0, -7.0])
    table_attrs = {"key_dtype": dtype_attr("int32"), "value_dtype": dtype_attr("float32"),
                   "shared_name": attr_str("table"), "use_node_name_sharing": {"b": False}}  # fmt: skip
    g.op("table", "HashTableV2", **table_attrs)
    controls = []
    if not with_initializer:
        g.op("init", "LookupTableImportV2", "table", "keys", "vals")
        controls = ["^init"]
    g.op("find", "LookupTableFindV2", "table", "k", "dflt", *controls)
    g.op("size", "LookupTableSizeV2", "table", *controls)
    case = _case(g, ["find", "size"], {"k": np.array([7, 1, 3, 11, 7], np.int32)})
    if with_initializer:
        init = [
            {"name": "table", "op": "HashTableV2", "attr": table_attrs},
            {"name": "keys", "op": "Const", "attr": {"dtype": dtype_attr("int32")}},
            {"name": "vals", "op": "Const", "attr": {"dtype": dtype_attr("float32")}},
            {"name": "init", "op": "InitializeTableV2", "input": ["table", "keys", "vals"]},
        ]
        case["model"]["modelInitializer"] = {"node": init}
    return case


def _tables_captured() -> Case:
    """A TF2-style table: made and filled by the initializer graph, whose signature output (resourceId 5)
    feeds the main graph's resource input of the same resourceId."""
    g = Graph()
    g.placeholder("k", "int32", [4])
    g.nodes.append({"name": "table_in", "op": "Placeholder", "attr": {"dtype": {"type": "DT_RESOURCE"}}})
    g.const("keys", [5, 6], "int32")
    g.const("vals", [0.5, -1.5])
    g.const("dflt", 9.0)
    g.op("find", "LookupTableFindV2", "table_in", "k", "dflt")
    g.op("size", "LookupTableSizeV2", "table_in")
    case = _case(g, ["find", "size"], {"k": np.array([6, 5, 0, 6], np.int32)})
    case["model"]["signature"]["inputs"] = {
        "k": {"name": "k:0", "dtype": "DT_INT32"},
        "table_in": {"name": "table_in:0", "dtype": "DT_RESOURCE", "resourceId": 5},
    }
    table_attrs = {"key_dtype": dtype_attr("int32"), "value_dtype": dtype_attr("float32")}
    case["model"]["modelInitializer"] = {
        "node": [
            {"name": "table", "op": "HashTableV2", "attr": table_attrs},
            {"name": "keys", "op": "Const", "attr": {"dtype": dtype_attr("int32")}},
            {"name": "vals", "op": "Const", "attr": {"dtype": dtype_attr("float32")}},
            {"name": "init", "op": "LookupTableImportV2", "input": ["table", "keys", "vals"]},
        ]
    }
    case["model"]["initializerSignature"] = {"outputs": {"init:0": {"name": "init:0", "resourceId": 5}}}
    return case


def cases() -> dict[str, Case]:
    """Every case by id."""
    return {
        "if-then": _if("If", True),
        "stateless-if-else": _if("StatelessIf", False),
        "while-tensorlist": _while("While", 4),
        "stateless-while-zero-trips": _while("StatelessWhile", 0),
        "tensorlist-resize": _list_resize(),
        "fused-batch-norm": _batch_norm("FusedBatchNorm"),
        "fused-batch-norm-v3": _batch_norm("FusedBatchNormV3"),
        "creation": _creation(),
        "image-projective-transform": _transform(),
        "random": _random(),
        "hash-table": _tables(False),
        "hash-table-initializer": _tables(True),
        "hash-table-captured": _tables_captured(),
    }
