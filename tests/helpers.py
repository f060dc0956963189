"""Helpers shared by the test modules: seeded random inputs, comparisons with numpy oracles, and the JS that
loads TF.js (the page tests' oracle) into the page."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

NAN, INF = float("nan"), float("inf")

# Statements for the body of an async JS function run by page.evaluate: load vendor/tfjs/tf.min.js once.
LOAD_TFJS_JS = """
  if (!window.tf) {
    await new Promise((ok, fail) => {
      const s = document.createElement("script");
      s.src = "vendor/tfjs/tf.min.js"; s.onload = ok; s.onerror = () => fail(new Error("no tf.min.js"));
      document.head.appendChild(s);
    });
  }
"""


class Rand:
    """Seeded random inputs. Each test module makes its own, so what it draws never depends on which other
    modules run."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def normal(self, *shape: int, scale: float = 1.0) -> np.ndarray:
        """float32 values from a normal distribution with standard deviation `scale`."""
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def uniform(self, *shape: int, lo: float = -3.0, hi: float = 3.0) -> np.ndarray:
        """float32 values uniform in [lo, hi)."""
        return self.rng.uniform(lo, hi, size=shape).astype(np.float32)

    def ints(self, *shape: int, lo: int = -100, hi: int = 100) -> np.ndarray:
        """int32 values uniform in [lo, hi)."""
        return self.rng.integers(lo, hi, size=shape).astype(np.int32)

    def of(self, shape: Any, dtype: str = "float32", lo: int = -100, hi: int = 100) -> np.ndarray:
        """Values of `dtype`: normal float32, int32 in [lo, hi), or fair bools."""
        if dtype == "int32":
            return self.ints(*shape, lo=lo, hi=hi)
        if dtype == "bool":
            return self.rng.random(shape) < 0.5
        return self.normal(*shape)


def f32(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def i32(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def close(out: np.ndarray, ref: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """A float32 result equal to a float64 reference within tolerance (NaN where the reference has NaN)."""
    assert out.dtype == np.float32, out.dtype
    np.testing.assert_allclose(out, np.asarray(ref, dtype=np.float64), rtol=rtol, atol=atol, equal_nan=True)


def exact(out: np.ndarray, ref: Any, dtype: Any) -> None:
    """A result of `dtype` equal to the reference value for value."""
    assert out.dtype == dtype, out.dtype
    np.testing.assert_array_equal(out, ref)


def same(out: np.ndarray, ref: Any) -> None:
    """The same dtype, shape and values as the reference."""
    ref = np.asarray(ref)
    assert out.dtype == ref.dtype, (out.dtype, ref.dtype)
    assert out.shape == ref.shape, (out.shape, ref.shape)
    np.testing.assert_array_equal(out, ref)


def raises(cls: type[BaseException], message: str) -> Any:
    """pytest.raises matching `message` literally."""
    return pytest.raises(cls, match=re.escape(message))


def pair(v: Any) -> tuple[int, int]:
    """(v, v) for an int, else v as a tuple (strides, dilations, window sizes)."""
    return (v, v) if isinstance(v, int) else tuple(v)


def window_geometry(
    size: int, f: int, s: int, d: int, pad: Any, mode: str | None = None, axis: int = 0
) -> tuple[int, int, int]:
    """(pad_before, pad_after, out_size) of a conv / pool window (size f, stride s, dilation d) along one
    spatial axis (0: height, 1: width), from the TF padding definitions and TF.js's dim rounding modes."""
    eff = (f - 1) * d + 1
    if pad == "same":
        out = math.ceil(size / s)
        total = max(0, (out - 1) * s + eff - size)
        return total // 2, total - total // 2, out
    if pad == "valid":
        return 0, 0, max(0, math.ceil((size - eff + 1) / s))
    before, after = (pad, pad) if isinstance(pad, int) else pad[1 + axis]
    v = (size - eff + before + after) / s + 1
    rounding = {
        None: math.trunc,
        "floor": math.floor,
        "ceil": math.ceil,
        "round": lambda t: math.floor(t + 0.5),
    }
    return before, after, rounding[mode](v)


def ref_activation(
    x: np.ndarray, activation: str | None, alpha: Any = None, leaky: float = 0.2
) -> np.ndarray:
    """numpy reference of the fused ops' activations."""
    if activation == "relu":
        return np.maximum(x, 0)
    if activation == "relu6":
        return np.clip(x, 0, 6)
    if activation == "elu":
        return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))
    if activation == "prelu":
        return np.where(x < 0, alpha * x, x)
    if activation == "leakyrelu":
        return np.where(x < 0, leaky * x, x)
    if activation == "sigmoid":
        return 1 / (1 + np.exp(-x))
    return x
