"""Handlers of the converter ops added for issue 15: batch norm, creation, random, shapes, image transform."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import ops as tf
from ...engine import ENGINE
from ...tensor import Tensor
from .nodes import Node

Handler = Callable[[Node, list[Tensor], Any], Any]


def _ints(ctx: Any, t: Tensor) -> list[int]:
    return [int(v) for v in ctx.values(t)]


def _num(ctx: Any, t: Tensor) -> Any:
    return ctx.values(t)[0]


def _fused_batch_norm(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    """y = (x - mean) * scale / sqrt(variance + epsilon) + offset (TF.js returns y only)."""
    x, scale, offset, mean, variance = ins[:5]
    eps = node.float("epsilon", 0.001)
    return ENGINE.tidy(
        lambda: tf.add(tf.mul(tf.sub(x, mean), tf.mul(tf.rsqrt(tf.add(variance, eps)), scale)), offset)
    )


def _seed(node: Node) -> int | None:
    v = node.attr.get("seed")
    return int(v["i"]) if v and "i" in v else None


def _image_transform(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.image.transform(
        ins[0],
        ins[1],
        node.str("interpolation").lower(),
        node.str("fill_mode").lower(),
        float(_num(ctx, ins[3])),
        _ints(ctx, ins[2]),
    )


HANDLERS: dict[str, Handler] = {
    "FusedBatchNorm": _fused_batch_norm,
    "FusedBatchNormV2": _fused_batch_norm,
    "FusedBatchNormV3": _fused_batch_norm,
    "Cumprod": lambda node, ins, ctx: tf.cumprod(
        ins[0], _ints(ctx, ins[1])[0], node.bool("exclusive"), node.bool("reverse")
    ),
    "IsInf": lambda node, ins, ctx: tf.is_inf(ins[0]),
    "LinSpace": lambda node, ins, ctx: tf.linspace(
        float(_num(ctx, ins[0])), float(_num(ctx, ins[1])), int(_num(ctx, ins[2]))
    ),
    "Ones": lambda node, ins, ctx: tf.ones(_ints(ctx, ins[0]), node.dtype("T")),
    "Zeros": lambda node, ins, ctx: tf.zeros(_ints(ctx, ins[0]), node.dtype("T")),
    "RandomUniform": lambda node, ins, ctx: tf.random_uniform(
        _ints(ctx, ins[0]), node.float("minval", 0.0), node.float("maxval", 1.0), node.dtype("dtype")
    ),
    "TruncatedNormal": lambda node, ins, ctx: tf.truncated_normal(
        _ints(ctx, ins[0]),
        node.float("means", 0.0),
        node.float("stddev", 1.0),
        node.dtype("dtype"),
        _seed(node),
    ),
    # float32 as in TF.js (its ShapeN makes tensor1d(shape) with the default dtype, unlike its Shape)
    "ShapeN": lambda node, ins, ctx: [tf.tensor(list(t.shape), [t.rank], "float32") for t in ins],
    "FakeQuantWithMinMaxVars": lambda node, ins, ctx: ins[0],  # TF.js ignores it too (an identity)
    "ImageProjectiveTransformV3": _image_transform,
}
