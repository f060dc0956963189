"""Converter op handlers for the ops of issue 15's math share (unary, norms, linalg, scatter, random, ...)."""

from __future__ import annotations

from typing import Any

from ... import kernel_names as kn
from ... import ops as tf
from ...tensor import Tensor
from .nodes import Node  # noqa: F401  (handlers take a Node)


def _ints(ctx: Any, t: Tensor) -> list[int]:
    return [int(v) for v in ctx.values(t)]


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
        "EuclideanNorm": lambda node, ins, ctx: tf.euclidean_norm(
            ins[0], _ints(ctx, ins[1]), node.bool("keep_dims")
        ),
    }
