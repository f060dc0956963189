"""wasm kernels on the binary's morphology, normalization and sampling exports, float32: Dilation2D and its
backprops, LRN, LRNGrad, FusedBatchNorm and Multinomial (contracts: cpu/kernels/pool_more.py,
normalization.py, random.py).

The Dilation2D exports start each window's maximum at FLT_MIN (the smallest positive float32, not the
lowest), so they run only when every x + filter sum is above it (min(x) + min(filter), checked natively);
otherwise the cpu kernel does. Multinomial draws from its own generator (std::mt19937 seeded with the seed's
float32 bits, as TF.js's wasm backend): the same distribution as the cpu kernel, not the same samples.
"""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ....backend_util import compute_conv_info
from ...base import TensorInfo
from .common import Kernel, cpu, min_sum_above_flt_min, nonempty, with_fallbacks
from .nn import softmax


def _dilation(name: str) -> Kernel:
    """Dilation2D {x, filter} or a backprop {x, filter, dy} (output of x's / filter's shape)."""
    fallback = cpu(name)
    target = {kn.Dilation2DBackpropInput: "x", kn.Dilation2DBackpropFilter: "filter"}.get(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x, f = inputs["x"], inputs["filter"]
        fh, fw, c = f.shape
        info = compute_conv_info(
            x.shape, (fh, fw, c, c), attrs["strides"], attrs.get("dilations", 1), attrs["pad"]
        )
        shape = info.out_shape if target is None else inputs[target].shape
        tensors = (x, f) if target is None else (x, f, inputs["dy"])
        if not all(nonempty(t.shape) for t in tensors) or not min_sum_above_flt_min(backend, x, f):
            return fallback(backend, inputs, attrs)
        if target is not None and inputs["dy"].dtype != "float32":
            return fallback(backend, inputs, attrs)
        _, sh, sw, dh, dw, top, left = info.window[1:]
        geometry = (
            "float32", info.batch, c, x.shape[1], x.shape[2], info.out_height, info.out_width, sh, sw, dh, dw,
            fh, fw, top, left,
        )  # fmt: skip
        out = backend.make_output(shape, "float32")
        if target is None:
            backend.abi.Dilation2D(x, f, out, *geometry)
        else:
            getattr(backend.abi, name)(x, f, inputs["dy"], out, *geometry)
        return out

    kernel.__doc__ = f"{name}: the binary's {name} where every window's maximum is above FLT_MIN."
    return kernel


def _float32(*tensors: Any) -> bool:
    return all(t.dtype == "float32" for t in tensors)


def lrn(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LRN {x} attrs depth_radius, bias, alpha, beta: the binary's LRN (float32)."""
    x = inputs["x"]
    if not _float32(x):
        return cpu(kn.LRN)(backend, inputs, attrs)
    out = backend.make_output(x.shape, "float32")
    if nonempty(x.shape):
        radius, bias, alpha, beta = (attrs[k] for k in ("depth_radius", "bias", "alpha", "beta"))
        backend.abi.LRN(x, out, x.shape[-1], int(radius), bias, alpha, beta)
    return out


def lrn_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LRNGrad {x, y, dy}: the binary's LRNGrad (float32)."""
    x, y, dy = inputs["x"], inputs["y"], inputs["dy"]
    if not _float32(x, y, dy):
        return cpu(kn.LRNGrad)(backend, inputs, attrs)
    out = backend.make_output(dy.shape, "float32")
    if nonempty(dy.shape):
        radius, bias, alpha, beta = (attrs[k] for k in ("depth_radius", "bias", "alpha", "beta"))
        backend.abi.LRNGrad(x, y, dy, out, dy.shape[-1], int(radius), bias, alpha, beta)
    return out


def fused_batch_norm(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FusedBatchNorm {x, mean, variance, offset?, scale?}: the binary's FusedBatchNorm (float32; each
    parameter cycled over x's elements)."""
    x = inputs["x"]
    params = [inputs.get(k) for k in ("mean", "variance", "offset", "scale")]
    given = [t for t in params if t is not None]
    if not _float32(x, *given) or not all(nonempty(t.shape) for t in given):
        return cpu(kn.FusedBatchNorm)(backend, inputs, attrs)
    out = backend.make_output(x.shape, "float32")
    if nonempty(x.shape):
        eps = float(attrs.get("variance_epsilon", 0.001))
        backend.abi.FusedBatchNorm(x, *params, eps, out)
    return out


def multinomial(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Multinomial {logits} attrs num_samples, seed, normalized: the binary's Multinomial on the softmax of
    logits (or on them when normalized)."""
    logits = inputs["logits"]
    if not _float32(logits) or len(logits.shape) != 2 or not logits.shape[1]:
        return cpu(kn.Multinomial)(backend, inputs, attrs)
    batch, events = logits.shape
    n = int(attrs["num_samples"])
    probs = logits if attrs.get("normalized") else softmax(backend, {"logits": logits}, {})
    out = backend.make_output((batch, n), "int32")
    if batch and n and events:
        backend.abi.Multinomial(probs, batch, events, n, float(attrs["seed"]), out)
    if probs is not logits:
        backend.dispose_data(probs.data_id)
    return out


KERNELS: dict[str, Kernel] = with_fallbacks(
    {
        kn.Dilation2D: _dilation(kn.Dilation2D),
        kn.Dilation2DBackpropInput: _dilation(kn.Dilation2DBackpropInput),
        kn.Dilation2DBackpropFilter: _dilation(kn.Dilation2DBackpropFilter),
        kn.LRN: lrn,
        kn.LRNGrad: lrn_grad,
        kn.FusedBatchNorm: fused_batch_norm,
        kn.Multinomial: multinomial,
    }
)
