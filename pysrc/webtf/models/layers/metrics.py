"""Keras-style losses and metrics of tfjs-layers (losses.ts, metrics.ts): fn(y_true, y_pred) -> per-sample values.

Each reduces over the last axis only (the caller takes the mean over the batch), unlike tf.losses' Reduction.
Probabilities are clipped to [epsilon, 1 - epsilon] with the backend's epsilon, as TF.js does. `get_loss` and
`get_metric` resolve TF.js's camelCase names, their snake_case spellings and callables; `tf.metrics` exports them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ... import ops
from ...engine import ENGINE
from ...ops.op import TensorLike, convert_to_tensor, op
from ...shapes import fmt
from ...tensor import Tensor

LossFn = Callable[[Tensor, Tensor], Tensor]

__all__ = [
    "binary_accuracy", "binary_crossentropy", "categorical_accuracy", "categorical_crossentropy",
    "categorical_hinge", "cosine_proximity", "get_loss", "get_metric", "hinge", "kullback_leibler_divergence",
    "log_cosh", "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "mean_squared_logarithmic_error", "poisson", "precision", "recall", "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy", "squared_hinge", "snake",
]  # fmt: skip


def _eps() -> float:
    return ENGINE.backend.epsilon()


def _pair(
    y_true: TensorLike, y_pred: TensorLike, name: str, same_shape: bool = True
) -> tuple[Tensor, Tensor]:
    a = convert_to_tensor(y_true, "y_true", name)
    b = convert_to_tensor(y_pred, "y_pred", name)
    if same_shape and a.shape != b.shape:
        raise ValueError(
            f"Error in {name}: y_true shape {fmt(a.shape)} and y_pred shape {fmt(b.shape)} must match"
        )
    return a, b


# ---------------------------------------------------------------------------------------------- losses


@op
def mean_squared_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """mean((y_pred - y_true)^2) over the last axis."""
    a, b = _pair(y_true, y_pred, "mean_squared_error")
    return ops.mean(ops.square(ops.sub(b, a)), -1)


@op
def mean_absolute_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """mean(|y_pred - y_true|) over the last axis."""
    a, b = _pair(y_true, y_pred, "mean_absolute_error")
    return ops.mean(ops.abs(ops.sub(b, a)), -1)


@op
def mean_absolute_percentage_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """100 * mean(|(y_true - y_pred) / max(|y_true|, eps)|) over the last axis."""
    a, b = _pair(y_true, y_pred, "mean_absolute_percentage_error")
    diff = ops.div(ops.sub(a, b), ops.clip_by_value(ops.abs(a), _eps(), math.inf))
    return ops.mul(ops.scalar(100.0), ops.mean(ops.abs(diff), -1))


@op
def mean_squared_logarithmic_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """mean((log(1 + y_pred) - log(1 + y_true))^2) over the last axis, both clipped below at eps."""
    a, b = _pair(y_true, y_pred, "mean_squared_logarithmic_error")
    one = ops.scalar(1.0)
    la = ops.log(ops.add(ops.clip_by_value(a, _eps(), math.inf), one))
    lb = ops.log(ops.add(ops.clip_by_value(b, _eps(), math.inf), one))
    return ops.mean(ops.square(ops.sub(lb, la)), -1)


@op
def squared_hinge(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """mean(max(1 - y_true * y_pred, 0)^2) over the last axis."""
    a, b = _pair(y_true, y_pred, "squared_hinge")
    return ops.mean(ops.square(ops.relu(ops.sub(ops.scalar(1.0), ops.mul(a, b)))), -1)


@op
def hinge(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """mean(max(1 - y_true * y_pred, 0)) over the last axis."""
    a, b = _pair(y_true, y_pred, "hinge")
    return ops.mean(ops.relu(ops.sub(ops.scalar(1.0), ops.mul(a, b))), -1)


@op
def categorical_hinge(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """max(0, 1 + max((1 - y_true) * y_pred) - sum(y_true * y_pred)) over the last axis."""
    a, b = _pair(y_true, y_pred, "categorical_hinge")
    pos = ops.sum(ops.mul(a, b), -1)
    neg = ops.max(ops.mul(ops.sub(ops.scalar(1.0), a), b), -1)
    return ops.relu(ops.add(ops.scalar(1.0), ops.sub(neg, pos)))


@op
def log_cosh(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """mean(log(cosh(y_pred - y_true))) over the last axis, in the overflow-free form x + softplus(-2x) - log 2."""
    a, b = _pair(y_true, y_pred, "log_cosh")
    x = ops.sub(b, a)
    value = ops.sub(ops.add(x, ops.softplus(ops.mul(ops.scalar(-2.0), x))), ops.scalar(math.log(2.0)))
    return ops.mean(value, -1)


@op
def categorical_crossentropy(y_true: TensorLike, y_pred: TensorLike, from_logits: bool = False) -> Tensor:
    """-sum(y_true * log(p)) over the last axis; p = y_pred rescaled to sum to 1 (or softmax of logits),
    clipped to [eps, 1 - eps]."""
    a, b = _pair(y_true, y_pred, "categorical_crossentropy")
    p = ops.softmax(b) if from_logits else ops.div(b, ops.sum(b, -1, True))
    p = ops.clip_by_value(p, _eps(), 1 - _eps())
    return ops.neg(ops.sum(ops.mul(a, ops.log(p)), -1))


@op
def sparse_categorical_crossentropy(
    y_true: TensorLike, y_pred: TensorLike, from_logits: bool = False
) -> Tensor:
    """categorical_crossentropy with integer class labels (shape of y_pred without its last axis, or with 1)."""
    a, b = _pair(y_true, y_pred, "sparse_categorical_crossentropy", same_shape=False)
    labels = ops.cast(ops.floor(ops.reshape(a, [-1])), "int32")
    target = ops.reshape(ops.one_hot(labels, b.shape[-1]), list(b.shape))
    return categorical_crossentropy(ops.cast(target, b.dtype), b, from_logits)


@op
def binary_crossentropy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """mean of the sigmoid cross entropy of y_true and logit(clip(y_pred, eps, 1 - eps)) over the last axis."""
    a, b = _pair(y_true, y_pred, "binary_crossentropy")
    p = ops.clip_by_value(b, _eps(), 1 - _eps())
    logits = ops.log(ops.div(p, ops.sub(ops.scalar(1.0), p)))
    value = ops.add(
        ops.sub(ops.relu(logits), ops.mul(logits, a)), ops.log1p(ops.exp(ops.neg(ops.abs(logits))))
    )
    return ops.mean(value, -1)


@op
def kullback_leibler_divergence(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [eps, 1]."""
    a, b = _pair(y_true, y_pred, "kullback_leibler_divergence")
    a = ops.clip_by_value(a, _eps(), 1.0)
    b = ops.clip_by_value(b, _eps(), 1.0)
    return ops.sum(ops.mul(a, ops.log(ops.div(a, b))), -1)


@op
def poisson(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """mean(y_pred - y_true * log(y_pred + eps)) over the last axis."""
    a, b = _pair(y_true, y_pred, "poisson")
    log_pred = ops.log(ops.add(ops.scalar(_eps()), b))
    return ops.mean(ops.sub(b, ops.mul(a, log_pred)), -1)


def l2_normalize(x: Tensor, axis: int = -1) -> Tensor:
    """x / its L2 norm along `axis` (at least sqrt(epsilon)), as tfjs-layers's l2Normalize."""
    norm = ops.sqrt(ops.maximum(ops.sum(ops.square(x), axis, True), ops.scalar(_eps())))
    return ops.div(x, norm)


@op
def cosine_proximity(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """-sum(normalize(y_true) * normalize(y_pred)) over the last axis."""
    a, b = _pair(y_true, y_pred, "cosine_proximity")
    return ops.neg(ops.sum(ops.mul(l2_normalize(a), l2_normalize(b)), -1))


# --------------------------------------------------------------------------------------------- metrics


@op
def binary_accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """Share of entries where (y_pred > 0.5) equals y_true, over the last axis."""
    a, b = _pair(y_true, y_pred, "binary_accuracy")
    guess = ops.cast(ops.greater(b, ops.scalar(0.5)), a.dtype)
    return ops.mean(ops.cast(ops.equal(a, guess), "float32"), -1)


@op
def categorical_accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """1 where argmax(y_true) equals argmax(y_pred) over the last axis, else 0."""
    a, b = _pair(y_true, y_pred, "categorical_accuracy")
    return ops.cast(ops.equal(ops.arg_max(a, -1), ops.arg_max(b, -1)), "float32")


@op
def sparse_categorical_accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """1 where the integer label equals argmax(y_pred) over the last axis, else 0."""
    a, b = _pair(y_true, y_pred, "sparse_categorical_accuracy", same_shape=False)
    labels = ops.cast(ops.reshape(a, [-1]), "int32")
    guess = ops.reshape(ops.arg_max(b, -1), [-1])
    return ops.reshape(ops.cast(ops.equal(labels, guess), "float32"), list(b.shape[:-1]))


def _counts(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(true positives, predicted positives or actual positives' complement) helpers for precision/recall."""
    guess = ops.cast(ops.greater(b, ops.scalar(0.5)), "float32")
    return ops.sum(ops.mul(a, guess)), guess


@op
def precision(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """true positives / predicted positives (threshold 0.5), 0 when nothing is predicted positive."""
    a, b = _pair(y_true, y_pred, "precision")
    tp, guess = _counts(ops.cast(a, "float32"), b)
    total = ops.sum(guess)
    return ops.where(ops.greater(total, ops.scalar(0.0)), ops.div(tp, total), ops.scalar(0.0))


@op
def recall(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """true positives / actual positives (threshold 0.5), 0 when there are no actual positives."""
    a, b = _pair(y_true, y_pred, "recall")
    a = ops.cast(a, "float32")
    tp, _ = _counts(a, b)
    total = ops.sum(a)
    return ops.where(ops.greater(total, ops.scalar(0.0)), ops.div(tp, total), ops.scalar(0.0))


# ----------------------------------------------------------------------------------------------- names


def snake(name: str) -> str:
    """TF.js's camelCase name in snake_case (meanSquaredError -> mean_squared_error)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


_LOSSES: dict[str, LossFn] = {
    f.__name__: f  # type: ignore[misc]
    for f in (
        mean_squared_error, mean_absolute_error, mean_absolute_percentage_error, mean_squared_logarithmic_error,
        squared_hinge, hinge, categorical_hinge, log_cosh, categorical_crossentropy,
        sparse_categorical_crossentropy, binary_crossentropy, kullback_leibler_divergence, poisson,
        cosine_proximity,
    )
}  # fmt: skip
_ALIASES = {
    "mse": "mean_squared_error", "mae": "mean_absolute_error", "mape": "mean_absolute_percentage_error",
    "msle": "mean_squared_logarithmic_error", "kld": "kullback_leibler_divergence", "cosine": "cosine_proximity",
    "logcosh": "log_cosh",
}  # fmt: skip
_METRICS: dict[str, LossFn] = {
    **_LOSSES,
    **{
        f.__name__: f  # type: ignore[misc]
        for f in (binary_accuracy, categorical_accuracy, sparse_categorical_accuracy, precision, recall)
    },
}


def _resolve(value: Any, table: dict[str, LossFn], what: str, arg: str) -> LossFn:
    if callable(value):
        return value  # type: ignore[no-any-return]
    if not isinstance(value, str):
        raise TypeError(f"compile: {arg} must be a {what} name or a function, got {value!r}")
    key = snake(value)
    key = _ALIASES.get(key, key)
    fn = table.get(key)
    if fn is None:
        known = ", ".join(sorted(table))
        raise ValueError(f"compile: unknown {what} '{value}' in {arg} (known: {known})")
    return fn


def get_loss(value: Any, arg: str = "loss") -> LossFn:
    """A loss function from a TF.js name ('meanSquaredError'), its snake_case or alias ('mse'), or a callable."""
    return _resolve(value, _LOSSES, "loss", arg)


def get_metric(value: Any, arg: str = "metrics") -> LossFn:
    """A metric function by name (any loss is also a metric) or a callable."""
    return _resolve(value, _METRICS, "metric", arg)
