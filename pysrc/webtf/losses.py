"""tf.losses (tfjs-core ops/losses/*.ts): per-element losses reduced by compute_weighted_loss.

Every loss takes optional `weights` (broadcast against the per-element losses) and a `reduction`
(Reduction.SUM_BY_NONZERO_WEIGHTS by default: the weighted sum over the number of non-zero weights, or
over the number of elements without weights). Each is an op (one scope, so temporaries are freed) built
from ops, hence differentiable; softmax_cross_entropy has its own gradient, as TF.js's.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from .gradients import custom_grad
from .ops import binary, reduce, unary
from .ops.cast import cast
from .ops.creation import ones, scalar
from .ops.op import TensorLike, convert_to_tensor, op
from .ops.shape import reshape
from .ops.softmax import log_softmax
from .shapes import fmt
from .tensor import Tensor

__all__ = [
    "Reduction", "absolute_difference", "compute_weighted_loss", "cosine_distance", "hinge_loss", "huber_loss",
    "log_loss", "mean_squared_error", "sigmoid_cross_entropy", "softmax_cross_entropy",
]  # fmt: skip


class Reduction(IntEnum):
    """How compute_weighted_loss reduces (TF.js's tf.Reduction, same values)."""

    NONE = 0
    MEAN = 1
    SUM = 2
    SUM_BY_NONZERO_WEIGHTS = 3


_DEFAULT = Reduction.SUM_BY_NONZERO_WEIGHTS


def _pair(
    labels: TensorLike, predictions: TensorLike, names: tuple[str, str], op_name: str
) -> tuple[Tensor, Tensor]:
    a = convert_to_tensor(labels, names[0], op_name)
    b = convert_to_tensor(predictions, names[1], op_name)
    if a.shape != b.shape:
        raise ValueError(
            f"Error in {op_name}: {names[0]} shape {fmt(a.shape)} and {names[1]} shape {fmt(b.shape)} must match"
        )
    return a, b


def _weights(weights: TensorLike | None, op_name: str) -> Tensor | None:
    return None if weights is None else convert_to_tensor(weights, "weights", op_name)


@op
def compute_weighted_loss(
    losses: TensorLike, weights: TensorLike | None = None, reduction: int = _DEFAULT
) -> Tensor:
    """losses * weights, reduced by `reduction` (NONE keeps the shape; MEAN divides the sum by the sum of
    the weights, scaled by how many losses each weight covers)."""
    t = convert_to_tensor(losses, "losses", "compute_weighted_loss")
    w = _weights(weights, "compute_weighted_loss")
    weighted = t if w is None else binary.mul(t, w)
    if reduction == Reduction.NONE:
        return weighted
    if reduction == Reduction.SUM:
        return reduce.sum(weighted)
    if reduction == Reduction.MEAN:
        if w is None:
            return reduce.mean(weighted)
        result = binary.div(reduce.sum(weighted), reduce.sum(w))
        factor = t.size / w.size
        return binary.div(result, scalar(factor)) if factor > 1 else result
    if reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
        if w is None:
            return binary.div(reduce.sum(weighted), scalar(float(t.size)))
        nonzero = binary.not_equal(binary.mul(w, ones(t.shape)), scalar(0.0))
        return binary.div(reduce.sum(weighted), cast(reduce.sum(nonzero), "float32"))
    raise ValueError(f"Error in compute_weighted_loss: unknown reduction {reduction!r}")


@op
def absolute_difference(
    labels: TensorLike, predictions: TensorLike, weights: TensorLike | None = None, reduction: int = _DEFAULT
) -> Tensor:
    """|labels - predictions|, weighted and reduced."""
    a, b = _pair(labels, predictions, ("labels", "predictions"), "absolute_difference")
    return compute_weighted_loss(
        unary.abs(binary.sub(a, b)), _weights(weights, "absolute_difference"), reduction
    )


@op
def cosine_distance(
    labels: TensorLike,
    predictions: TensorLike,
    axis: int,
    weights: TensorLike | None = None,
    reduction: int = _DEFAULT,
) -> Tensor:
    """1 - sum(labels * predictions) along `axis` (kept), weighted and reduced (inputs normalized by the caller)."""
    a, b = _pair(labels, predictions, ("labels", "predictions"), "cosine_distance")
    losses = binary.sub(1.0, reduce.sum(binary.mul(a, b), axis, True))
    return compute_weighted_loss(losses, _weights(weights, "cosine_distance"), reduction)


@op
def hinge_loss(
    labels: TensorLike, predictions: TensorLike, weights: TensorLike | None = None, reduction: int = _DEFAULT
) -> Tensor:
    """relu(1 - (2 * labels - 1) * predictions) for labels in {0, 1}, weighted and reduced."""
    a, b = _pair(labels, predictions, ("labels", "predictions"), "hinge_loss")
    signs = binary.sub(binary.mul(2.0, a), 1.0)
    losses = unary.relu(binary.sub(1.0, binary.mul(signs, b)))
    return compute_weighted_loss(losses, _weights(weights, "hinge_loss"), reduction)


@op
def huber_loss(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    delta: float = 1.0,
    reduction: int = _DEFAULT,
) -> Tensor:
    """0.5 * e ** 2 where e = |predictions - labels| <= delta, else delta * (e - 0.5 * delta); weighted, reduced."""
    a, b = _pair(labels, predictions, ("labels", "predictions"), "huber_loss")
    error = unary.abs(binary.sub(b, a))
    quadratic = binary.minimum(error, delta)
    linear = binary.sub(error, quadratic)
    losses = binary.add(binary.mul(0.5, unary.square(quadratic)), binary.mul(delta, linear))
    return compute_weighted_loss(losses, _weights(weights, "huber_loss"), reduction)


@op
def log_loss(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    epsilon: float = 1e-7,
    reduction: int = _DEFAULT,
) -> Tensor:
    """-labels * log(predictions + epsilon) - (1 - labels) * log(1 - predictions + epsilon); weighted, reduced."""
    a, b = _pair(labels, predictions, ("labels", "predictions"), "log_loss")
    positive = unary.neg(binary.mul(a, unary.log(binary.add(b, epsilon))))
    negative = binary.mul(binary.sub(1.0, a), unary.log(binary.add(binary.sub(1.0, b), epsilon)))
    return compute_weighted_loss(binary.sub(positive, negative), _weights(weights, "log_loss"), reduction)


@op
def mean_squared_error(
    labels: TensorLike, predictions: TensorLike, weights: TensorLike | None = None, reduction: int = _DEFAULT
) -> Tensor:
    """(labels - predictions) ** 2, weighted and reduced."""
    a, b = _pair(labels, predictions, ("labels", "predictions"), "mean_squared_error")
    return compute_weighted_loss(
        binary.squared_difference(a, b), _weights(weights, "mean_squared_error"), reduction
    )


@op
def sigmoid_cross_entropy(
    multi_class_labels: TensorLike,
    logits: TensorLike,
    weights: TensorLike | None = None,
    label_smoothing: float = 0.0,
    reduction: int = _DEFAULT,
) -> Tensor:
    """Cross entropy of sigmoid(logits) with labels in [0, 1], as relu(x) - x * z + log1p(exp(-|x|)); label
    smoothing moves labels toward 1/2: z * (1 - s) + s / 2. Weighted and reduced."""
    z, x = _pair(multi_class_labels, logits, ("multi_class_labels", "logits"), "sigmoid_cross_entropy")
    if label_smoothing > 0:
        z = binary.add(binary.mul(z, 1.0 - label_smoothing), 0.5 * label_smoothing)
    losses = binary.add(
        binary.sub(unary.relu(x), binary.mul(x, z)), unary.log1p(unary.exp(unary.neg(unary.abs(x))))
    )
    return compute_weighted_loss(losses, _weights(weights, "sigmoid_cross_entropy"), reduction)


def _softmax_cross_entropy_forward(labels: Tensor, logits: Tensor, save: Any) -> dict[str, Any]:
    log_probs = log_softmax(logits)
    save([labels, log_probs])
    value = unary.neg(reduce.sum(binary.mul(labels, log_probs), -1))

    def grad_func(dy: Tensor, saved: list[Tensor]) -> list[Tensor]:
        labels, log_probs = saved
        d = binary.mul(reshape(dy, (*dy.shape, 1)), binary.sub(unary.exp(log_probs), labels))
        return [unary.neg(d), d]

    return {"value": value, "grad_func": grad_func}


_softmax_cross_entropy_with_logits = custom_grad(_softmax_cross_entropy_forward)


@op
def softmax_cross_entropy(
    onehot_labels: TensorLike,
    logits: TensorLike,
    weights: TensorLike | None = None,
    label_smoothing: float = 0.0,
    reduction: int = _DEFAULT,
) -> Tensor:
    """-sum(labels * log_softmax(logits)) along the last axis, with its own gradient softmax(logits) - labels;
    label smoothing: labels * (1 - s) + s / classes (the last axis's size; TF.js takes shape[1], the
    same for the usual rank 2). Weighted and reduced."""
    z, x = _pair(onehot_labels, logits, ("onehot_labels", "logits"), "softmax_cross_entropy")
    if x.rank == 0:
        raise ValueError(
            f"Error in softmax_cross_entropy: logits must have rank >= 1, got shape {fmt(x.shape)}"
        )
    if x.dtype != "float32":
        x = cast(x, "float32")
    z = cast(z, "float32") if z.dtype != "float32" else z
    if label_smoothing > 0:
        z = binary.add(binary.mul(z, 1.0 - label_smoothing), label_smoothing / z.shape[-1])
    losses = _softmax_cross_entropy_with_logits(z, x)
    return compute_weighted_loss(losses, _weights(weights, "softmax_cross_entropy"), reduction)
