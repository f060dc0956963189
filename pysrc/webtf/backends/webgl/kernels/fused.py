"""The fused-op epilogue (bias + activation) of _FusedMatMul, FusedConv2D and FusedDepthwiseConv2D.

In GLSL (shaders/epilogue.glsl) when the bias and prelu weights are read as `i % size` (a scalar, or a shape
that is a suffix of the output's, e.g. per-channel); otherwise the kernel runs unfused and the tail runs
as separate element-wise kernels with full broadcasting.
"""

from __future__ import annotations

from typing import Any

from ...base import TensorInfo
from .common import ACTIVATIONS, is_suffix
from .elementwise import _View, binary, unary

_UNARY_ACT = {"relu": "Relu", "relu6": "Relu6", "elu": "Elu", "sigmoid": "Sigmoid"}


class Epilogue:
    """What a fused kernel adds to its program: samplers, defines, ints (sizes) and floats (alpha)."""

    __slots__ = ("inputs", "samplers", "defines", "ints", "floats", "key", "fused", "bias", "prelu", "activation",
                 "alpha")  # fmt: skip

    def __init__(self, inputs: Any, attrs: dict[str, Any], out_shape: tuple[int, ...]) -> None:
        bias, prelu = inputs.get("bias"), inputs.get("prelu_activation_weights")
        activation = attrs.get("activation") or "linear"
        if activation not in ACTIVATIONS:
            raise ValueError(f"Unknown fused activation '{activation}'")
        if activation == "prelu" and prelu is None:
            raise ValueError("activation 'prelu' needs prelu weights")
        self.bias, self.prelu, self.activation = bias, prelu if activation == "prelu" else None, activation
        self.alpha = float(attrs.get("leakyrelu_alpha", 0.2))
        self.fused = all(t is None or is_suffix(t.shape, out_shape) for t in (self.bias, self.prelu))
        self.inputs: tuple = ()
        self.samplers: tuple = ()
        self.defines: list[str] = []
        if self.fused:
            self.defines = [ACTIVATIONS[activation]]
            if self.bias is not None:
                self.inputs += (self.bias,)
                self.samplers += ("Bias",)
                self.defines.append("BIAS")
            if self.prelu is not None:
                self.inputs += (self.prelu,)
                self.samplers += ("Alpha",)
                self.defines.append("PRELU")
        else:
            self.defines = ["ACT_LINEAR"]
        self.ints = (
            self.bias.size if self.fused and self.bias is not None else 1,
            self.prelu.size if self.fused and self.prelu is not None else 1,
        )
        self.floats = (self.alpha,)
        self.key = tuple(self.defines)

    def finish(self, backend: Any, info: TensorInfo) -> TensorInfo:
        """The kernel's result after the unfused tail (a no-op when the program did it)."""
        if self.fused:
            return info
        out = info
        if self.bias is not None:
            nxt = binary(backend, _View(out.data_id, out.shape, out.dtype), self.bias, "Add", out.dtype)
            backend.temp(out)
            out = nxt
        if self.activation == "linear":
            return out
        view = _View(out.data_id, out.shape, out.dtype)
        if self.activation == "prelu":
            nxt = binary(backend, view, self.prelu, "Prelu", out.dtype)
        elif self.activation == "leakyrelu":
            nxt = unary(backend, view, "LeakyRelu", out.dtype, (self.alpha,))
        else:
            nxt = unary(backend, view, _UNARY_ACT[self.activation], out.dtype)
        backend.temp(out)
        return nxt
