"""GLSL kernels of complex64 tensors (interleaved (re, im) floats): Complex, Real, Imag, ComplexAbs, FFT, IFFT,
and the complex paths of Add / Sub / Multiply / Cast / Concat that TF.js's webgl runs on the GPU too
(shaders/Complex.glsl; OP_<name> selects the function)."""

from __future__ import annotations

import math
from typing import Any

from .... import kernel_names as kn
from ....shapes import broadcast_shapes
from ...base import TensorInfo
from .common import GENERAL, broadcast_ints, size_of

_COMPLEX_BINARY = {"Add": "CADD", "Sub": "CSUB", "Multiply": "CMUL"}


def _run(
    backend: Any, op: str, inputs: tuple, samplers: tuple, shape: tuple, dtype: str, ints=(), floats=(), defines=()
) -> TensorInfo:  # noqa: ANN001
    key = ("Complex", op, defines)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Complex", samplers, len(ints), len(floats), (f"OP_{op}", *defines)
    )
    size = size_of(shape) * (2 if dtype == "complex64" else 1)
    return backend.run(prog, inputs, tuple(shape), dtype, ints, floats, size)


def complex_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    re, im = inputs["real"], inputs["imag"]
    return _run(backend, "Complex", (re, im), ("RE", "IM"), re.shape, "complex64")


def _part(component: int) -> Any:
    def part(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["input"]
        return _run(backend, "Part", (x,), ("X",), x.shape, "float32", (component,))

    return part


def complex_abs(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    x = inputs["x"]
    return _run(backend, "ComplexAbs", (x,), ("X",), x.shape, "float32")


def _fft(inverse: bool) -> Any:
    def fft(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["input"]
        n = x.shape[-1]
        if n == 0:
            return _run(backend, "FFT", (x,), ("X",), x.shape, "complex64", (1,), (0.0, 1.0))
        step = (2 if inverse else -2) * math.pi / n
        return _run(
            backend, "FFT", (x,), ("X",), x.shape, "complex64", (n,), (step, 1 / n if inverse else 1.0)
        )

    return fft


def complex_binary(backend: Any, a: Any, b: Any, op: str) -> TensorInfo:
    """Add / Sub / Multiply with a complex64 operand (a real one reads as x + 0i), broadcasting."""
    out_shape = a.shape if a.shape == b.shape else broadcast_shapes(a.shape, b.shape, op)
    rank, ints = broadcast_ints((a, b), out_shape, (GENERAL, GENERAL))
    pairs = tuple(f"{n}_COMPLEX {str(t.dtype == 'complex64').lower()}" for n, t in (("A", a), ("B", b)))
    defines = (_COMPLEX_BINARY[op], f"RANK {rank}", *pairs)
    return _run(backend, "Binary", (a, b), ("A", "B"), out_shape, "complex64", ints, (), defines)


def from_real(backend: Any, x: Any) -> TensorInfo:
    """A real tensor as complex64 pairs (x, 0) (Cast to complex64)."""
    return _run(backend, "FromReal", (x,), ("X",), x.shape, "complex64")


def real_part(backend: Any, x: Any) -> TensorInfo:
    """The float32 real parts of a complex64 tensor (Real; Cast from complex64 casts them, as TF.js)."""
    return _run(backend, "Part", (x,), ("X",), x.shape, "float32", (0,))


KERNELS = {
    kn.Complex: complex_,
    kn.Real: _part(0),
    kn.Imag: _part(1),
    kn.ComplexAbs: complex_abs,
    kn.FFT: _fft(False),
    kn.IFFT: _fft(True),
}
