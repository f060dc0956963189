"""Converter op handlers for the ops of issue 15's math share (unary, norms, linalg, scatter, random, ...)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from ... import kernel_names as kn
from ... import ops as tf
from ...tensor import Tensor
from .nodes import Node  # noqa: F401  (handlers take a Node)

#: TF op name -> a custom op function (tf.register_op), consulted before the built-in handlers
CUSTOM_OPS: dict[str, Callable[[Any], Any]] = {}


def register_op(name: str, op_func: Callable[[Any], Any]) -> None:
    """Run graph nodes of op `name` with op_func(node), node having .inputs (tensors) and .attrs (raw)."""
    CUSTOM_OPS[name] = op_func


def deregister_op(name: str) -> None:
    """Forget the custom op `name`."""
    CUSTOM_OPS.pop(name, None)


def custom_handler(op: str) -> Any:
    """The handler running custom op `op`, or None."""
    fn = CUSTOM_OPS.get(op)
    if fn is None:
        return None
    return lambda node, ins, ctx: fn(
        SimpleNamespace(inputs=list(ins), attrs=node.attr, name=node.name, op=node.op)
    )


def _ints(ctx: Any, t: Tensor) -> list[int]:
    return [int(v) for v in ctx.values(t)]


def _unique(node: Any, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    axis = _ints(ctx, ins[1])[0] if len(ins) > 1 else 0
    result = tf.unique(ins[0], axis)
    return [result["values"], result["indices"]]


def _hw(values: list[int]) -> tuple[int, int]:
    return (values[1], values[2]) if len(values) == 4 else (values[0], values[1])


def _max_pool_with_argmax(node: Any, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    r = tf.max_pool_with_argmax(
        ins[0], _hw(node.ints("ksize", [1, 1, 1, 1])), _hw(node.ints("strides", [1, 1, 1, 1])),
        node.str("padding", "VALID").lower(), node.bool("include_batch_in_index"),
    )  # fmt: skip
    return [r["result"], r["indexes"]]


def _list_diff(node: Any, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    """ListDiff (setdiff1d_async in TF.js: an async op), computed from the inputs' values."""
    xs, ys = ctx.values(ins[0]), set(ctx.values(ins[1]))
    keep = [i for i, v in enumerate(xs) if v not in ys]
    return [
        tf.tensor([xs[i] for i in keep], [len(keep)], ins[0].dtype),
        tf.tensor(keep, [len(keep)], "int32"),
    ]


def _ensure_shape(node: Any, ins: list[Tensor], ctx: Any) -> Tensor:
    shape = _ints(ctx, ins[1]) if len(ins) > 1 else node.shape("shape")
    return tf.ensure_shape(ins[0], [None if d < 0 else d for d in shape or []])


def _random_uniform_int(node: Any, ins: list[Tensor], ctx: Any) -> Tensor:
    """TF passes minval / maxval as inputs; TF.js's op list reads them as attrs: take either."""
    if len(ins) >= 3:
        lo, hi = _ints(ctx, ins[1])[0], _ints(ctx, ins[2])[0]
    else:
        lo, hi = node.int("minval"), node.int("maxval")
    return tf.random_uniform_int(_ints(ctx, ins[0]), lo, hi, node.int("seed") or None)


def _print(node: Any, ins: list[Tensor], ctx: Any) -> Tensor:
    print(node.str("message"))  # noqa: T201  (TF's Print op logs its message and data)
    for t in ins[1:]:
        t.print()
    return ins[0]


def handlers() -> dict[str, Any]:
    """TF op name -> handler(node, inputs, ctx) for this share's ops."""
    return {
        kn.Acosh: lambda node, ins, ctx: tf.acosh(ins[0]),
        kn.Asinh: lambda node, ins, ctx: tf.asinh(ins[0]),
        kn.Atanh: lambda node, ins, ctx: tf.atanh(ins[0]),
        kn.LRN: lambda node, ins, ctx: tf.local_response_normalization(
            ins[0],
            node.int("depth_radius", 5),
            node.float("bias", 1.0),
            node.float("alpha", 1.0),
            node.float("beta", 0.5),
        ),
        kn.Einsum: lambda node, ins, ctx: tf.einsum(node.str("equation"), *ins),
        "MatrixBandPart": lambda node, ins, ctx: tf.linalg.band_part(ins[0], ins[1], ins[2]),
        kn.ScatterNd: lambda node, ins, ctx: tf.scatter_nd(ins[0], ins[1], _ints(ctx, ins[2])),
        kn.TensorScatterUpdate: lambda node, ins, ctx: tf.tensor_scatter_update(ins[0], ins[1], ins[2]),
        kn.Bincount: lambda node, ins, ctx: tf.bincount(ins[0], ins[2], _ints(ctx, ins[1])[0]),
        kn.DenseBincount: lambda node, ins, ctx: tf.dense_bincount(
            ins[0], ins[2], _ints(ctx, ins[1])[0], node.bool("binary_output")
        ),
        kn.Unique: _unique,
        "UniqueV2": _unique,
        "LowerBound": lambda node, ins, ctx: tf.lower_bound(ins[0], ins[1]),
        "UpperBound": lambda node, ins, ctx: tf.upper_bound(ins[0], ins[1]),
        kn.BitwiseAnd: lambda node, ins, ctx: tf.bitwise_and(ins[0], ins[1]),
        kn.BroadcastArgs: lambda node, ins, ctx: tf.broadcast_args(ins[0], ins[1]),
        kn.Multinomial: lambda node, ins, ctx: tf.multinomial(
            ins[0], _ints(ctx, ins[1])[0], node.int("seed") or None, False
        ),
        "RandomStandardNormal": lambda node, ins, ctx: tf.random_standard_normal(
            _ints(ctx, ins[0]), node.dtype("dtype"), node.int("seed") or None
        ),
        "RandomUniformInt": _random_uniform_int,
        "EnsureShape": _ensure_shape,
        "Print": _print,
        kn.Dilation2D: lambda node, ins, ctx: tf.dilation2d(
            ins[0],
            ins[1],
            _hw(node.ints("strides", [1, 1, 1, 1])),
            node.str("padding", "VALID").lower(),
            _hw(node.ints("rates", [1, 1, 1, 1])),
        ),
        kn.MaxPoolWithArgmax: _max_pool_with_argmax,
        "ListDiff": _list_diff,
        "EuclideanNorm": lambda node, ins, ctx: tf.euclidean_norm(
            ins[0], _ints(ctx, ins[1]), node.bool("keep_dims")
        ),
    }
