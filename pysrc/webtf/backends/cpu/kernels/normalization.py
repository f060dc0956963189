"""Normalization kernels: FusedBatchNorm (parameters read modulo their size, as TF.js), LRN and LRNGrad."""

from __future__ import annotations

import math
from array import array
from typing import Any

from .... import kernel_names as kn
from ...base import TensorInfo


def fused_batch_norm(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FusedBatchNorm: offset + (x - mean) * scale / sqrt(variance + eps), each parameter cycled."""
    x = inputs["x"]
    xs = backend.values(x)
    mean, var = backend.values(inputs["mean"]), backend.values(inputs["variance"])
    off = backend.values(inputs["offset"]) if inputs.get("offset") is not None else (0.0,)
    scale = backend.values(inputs["scale"]) if inputs.get("scale") is not None else (1.0,)
    eps = float(attrs.get("variance_epsilon", 0.001))
    nm, nv, no, ns = len(mean), len(var), len(off), len(scale)
    out = array("f", bytes(4 * len(xs)))
    for i, v in enumerate(xs):
        num, s = (v - mean[i % nm]) * scale[i % ns], var[i % nv] + eps
        out[i] = off[i % no] + (
            num / math.sqrt(s) if s > 0 else _js_div(num, math.sqrt(s) if s == 0 else math.nan)
        )
    return backend.output(out, x.shape, "float32")


def _js_div(a: float, b: float) -> float:
    """a / b with JS's results for b = 0 or NaN."""
    if b != b or a != a or a == 0:
        return math.nan
    return math.copysign(math.inf, a) if b == 0 else a / b


def _windows(size: int, channels: int, radius: int, end_extra: int) -> Any:
    """(offset, first, last) channel windows of every element of a channels-last tensor."""
    for offset in range(size):
        c = offset % channels
        base = offset - c
        yield offset, base + max(0, c - radius), base + min(channels - 1 + end_extra, c + radius + end_extra)


def _pow(base: float, e: float) -> float:
    """base ** e as JS's Math.pow: NaN for a negative base to a fractional power, inf for 0 to a negative one."""
    try:
        out = base**e
    except (ZeroDivisionError, OverflowError):
        return math.inf
    return out if isinstance(out, float) else math.nan


def lrn(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LRN: x / (bias + alpha * sum of x**2 over depth_radius channels around) ** beta."""
    x = inputs["x"]
    xs = backend.values(x)
    radius, bias = int(attrs["depth_radius"]), float(attrs["bias"])
    alpha, beta = float(attrs["alpha"]), float(attrs["beta"])
    out = array("f", bytes(4 * len(xs)))
    for i, lo, hi in _windows(len(xs), x.shape[-1], radius, 0):
        total = sum(v * v for v in xs[lo : hi + 1])
        out[i] = xs[i] * _pow(bias + alpha * total, -beta)
    return backend.output(out, x.shape, "float32")


def lrn_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LRNGrad: the gradient of LRN at x (its output y) for dy."""
    x, y, dy = (backend.values(inputs[k]) for k in ("x", "y", "dy"))
    radius, bias = int(attrs["depth_radius"]), float(attrs["bias"])
    alpha, beta = float(attrs["alpha"]), float(attrs["beta"])
    out = [0.0] * len(dy)
    for i, lo, end in _windows(len(dy), inputs["dy"].shape[-1], radius, 1):
        norm = alpha * sum(v * v for v in x[lo:end]) + bias
        for k in range(lo, end):
            d = -2 * alpha * beta * x[k] * y[i] / norm
            if k == i:
                d += _pow(norm, -beta)
            out[k] += d * dy[i]
    return backend.output(array("f", out), inputs["dy"].shape, "float32")


KERNELS: dict[str, Any] = {kn.FusedBatchNorm: fused_batch_norm, kn.LRN: lrn, kn.LRNGrad: lrn_grad}
