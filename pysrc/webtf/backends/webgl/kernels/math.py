"""GLSL kernels of issue 15's math share: FusedBatchNorm, Diag and BitwiseAnd (shaders/<Kernel>.glsl)."""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ...base import TensorInfo
from .common import size_of


def _program(
    backend: Any, kernel: str, samplers: tuple[str, ...], ni: int, nf: int = 0, ints: bool = False
) -> Any:
    key = (kernel, ints)
    return backend.programs.get(key) or backend.programs.build(key, kernel, samplers, ni, nf, int_output=ints)


def fused_batch_norm(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FusedBatchNorm: shaders/FusedBatchNorm.glsl (absent offset / scale bind mean, size 0)."""
    x, mean = inputs["x"], inputs["mean"]
    off, scale = inputs.get("offset"), inputs.get("scale")
    prog = _program(backend, "FusedBatchNorm", ("X", "M", "V", "O", "S"), 4, 1)
    sizes = (
        mean.size,
        inputs["variance"].size,
        off.size if off is not None else 0,
        scale.size if scale is not None else 0,
    )
    texes = (
        x,
        mean,
        inputs["variance"],
        off if off is not None else mean,
        scale if scale is not None else mean,
    )
    eps = float(attrs.get("variance_epsilon", 0.001))
    return backend.run(prog, texes, x.shape, "float32", sizes, (eps,))


def diag(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Diag: shaders/Diag.glsl."""
    x = inputs["x"]
    prog = _program(backend, "Diag", ("X",), 1, 0, x.dtype == "int32")
    return backend.run(prog, (x,), (*x.shape, *x.shape), x.dtype, (size_of(x.shape),))


def bitwise_and(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BitwiseAnd: shaders/BitwiseAnd.glsl."""
    a, b = inputs["a"], inputs["b"]
    prog = _program(backend, "BitwiseAnd", ("A", "B"), 0, 0, True)
    return backend.run(prog, (a, b), a.shape, "int32")


KERNELS: dict[str, Any] = {kn.FusedBatchNorm: fused_batch_norm, kn.Diag: diag, kn.BitwiseAnd: bitwise_and}
