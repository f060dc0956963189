"""cpu kernels of complex64 tensors: Complex, Real, Imag, ComplexAbs, FFT, IFFT (interleaved re, im storage)."""

from __future__ import annotations

import math
from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util.spectral import fft_rows
from ...base import TensorInfo


def complex_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    re, im = backend.values(inputs["real"]), backend.values(inputs["imag"])
    out = array("f", bytes(8 * len(re)))
    out[0::2] = array("f", re)
    out[1::2] = array("f", im)
    return backend.output(out, inputs["real"].shape, "complex64")


def _part(offset: int) -> Any:
    def part(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["input"]
        return backend.output(backend.values(x)[offset::2], x.shape, "float32")

    return part


def complex_abs(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    x = inputs["x"]
    v = backend.values(x)
    return backend.output(array("f", map(math.hypot, v[0::2], v[1::2])), x.shape, "float32")


def _fft(inverse: bool) -> Any:
    def fft(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["input"]
        n = x.shape[-1] if x.shape else 1
        return backend.output(fft_rows(backend.values(x), n, inverse), x.shape, "complex64")

    return fft


KERNELS = {
    kn.Complex: complex_,
    kn.Real: _part(0),
    kn.Imag: _part(1),
    kn.ComplexAbs: complex_abs,
    kn.FFT: _fft(False),
    kn.IFFT: _fft(True),
}
