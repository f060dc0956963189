"""Element-wise activation helpers on flat sequences, shared by the unary kernels and the fused-op epilogue.

Every helper takes a flat sequence of Python numbers (array.array or list) and returns a new list; the caller
stores it (array('f', ...) rounds to float32 and turns out-of-range values into +-inf). The fast paths run
entirely in C (`map` over builtins); a helper that can raise (math.exp overflow, math.log domain) falls back
to a per-element safe version that returns inf / nan like float32 math in TF.js.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Sequence
from itertools import cycle, repeat
from typing import Any

from ....backend_util import apply_fused_activation

_INF = math.inf
_NAN = math.nan


def safe_map(fn: Callable[[float], float], values: Sequence[Any], safe: Callable[[float], float]) -> list:
    """list(map(fn, values)) at C speed; if fn raises (overflow, domain), redo it with the safe `safe`."""
    try:
        return list(map(fn, values))
    except (ValueError, OverflowError):
        return list(map(safe, values))


def safe_exp(v: float) -> float:
    """exp that returns inf on overflow instead of raising."""
    try:
        return math.exp(v)
    except OverflowError:
        return _INF


def exp(values: Sequence[float]) -> list:
    """e ** v for each value (overflow -> inf)."""
    return safe_map(math.exp, values, safe_exp)


def sigmoid(values: Sequence[float]) -> list:
    """1 / (1 + exp(-v)) for each value, without overflow."""
    one = repeat(1.0)
    try:
        denominators = map(operator.add, one, map(math.exp, map(operator.neg, values)))
        return list(map(operator.truediv, one, denominators))
    except OverflowError:
        # below -700 the sigmoid is under 1e-304 (0 in float32): clamp there and keep the C-level formula
        low = [v if v > -700.0 or v != v else -700.0 for v in values]
        denominators = map(operator.add, one, map(math.exp, map(operator.neg, low)))
        return list(map(operator.truediv, one, denominators))


# The comprehensions below beat map(max, ...) (builtin max parses its arguments on every call).


def relu(values: Sequence[Any], zero: Any = 0.0) -> list:
    """max(v, 0) for each value (nan stays nan); pass zero=0 to keep int values ints."""
    return [zero if v < 0 else v for v in values]


def relu6(values: Sequence[Any], zero: Any = 0.0, six: Any = 6.0) -> list:
    """min(max(v, 0), 6) for each value (nan stays nan)."""
    return [zero if v < 0 else (six if v > 6 else v) for v in values]


def _elu1(v: float) -> float:
    return v if v >= 0 else math.expm1(v)


def elu(values: Sequence[float]) -> list:
    """v for v >= 0, exp(v) - 1 below (nan stays nan)."""
    return list(map(_elu1, values))


def leaky_relu(values: Sequence[float], alpha: float = 0.2) -> list:
    """v for v >= 0, alpha * v below."""
    return [v * alpha if v < 0 else v for v in values]


def prelu(values: Sequence[float], weights: Iterable[float]) -> list:
    """v for v >= 0, w * v below, with w read from `weights` in step with `values`."""
    return [v * w if v < 0 else v for v, w in zip(values, weights, strict=False)]


def _weights_iter(weights: Any, n: int) -> Iterable[float]:
    """Weights aligned with n output values: an iterator as is; a shorter sequence repeats (channels last)."""
    if not hasattr(weights, "__len__"):
        return weights
    m = len(weights)
    if m == n:
        return weights
    if m == 1:
        return repeat(weights[0])
    if m == 0 or n % m:
        raise ValueError(f"prelu weights of size {m} cannot be broadcast to an output of size {n}")
    return cycle(weights)


_FNS: dict[str, Callable[..., list]] = {
    "relu": relu,
    "relu6": relu6,
    "elu": elu,
    "sigmoid": sigmoid,
    "leakyrelu": leaky_relu,
    "prelu": lambda values, weights: prelu(values, _weights_iter(weights, len(values))),
}


def apply_activation(
    values: Sequence[float],
    activation: str | None,
    prelu_weights: Any = None,
    leakyrelu_alpha: float = 0.2,
) -> Any:
    """Apply a TF.js fused activation to flat float values and return them (a new list unless 'linear').

    `prelu_weights` is needed for 'prelu': an iterator already broadcast to the output (read in step with
    `values`), or a flat sequence that is either the output's size or repeats along it (per-channel weights
    of a channels-last output have the size of the last dimension).
    """
    return apply_fused_activation(values, activation, _FNS, prelu_weights, leakyrelu_alpha)
