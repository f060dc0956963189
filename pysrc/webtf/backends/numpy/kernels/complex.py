"""numpy kernels of complex64 tensors (np.complex64 buffers): Complex, Real, Imag, ComplexAbs, FFT, IFFT."""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import kernel_names as kn
from ...base import TensorInfo


def complex_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    out = np.empty(inputs["real"].shape, np.complex64)
    out.real, out.imag = backend.nd(inputs["real"]), backend.nd(inputs["imag"])
    return backend.make(out)


def real(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    return backend.make(np.ascontiguousarray(backend.nd(inputs["input"]).real))


def imag(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    return backend.make(np.ascontiguousarray(backend.nd(inputs["input"]).imag))


def complex_abs(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    return backend.make(np.abs(backend.nd(inputs["x"])).astype(np.float32))


def fft(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    return backend.make(np.fft.fft(backend.nd(inputs["input"]), axis=-1).astype(np.complex64))


def ifft(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    return backend.make(np.fft.ifft(backend.nd(inputs["input"]), axis=-1).astype(np.complex64))


KERNELS = {
    kn.Complex: complex_,
    kn.Real: real,
    kn.Imag: imag,
    kn.ComplexAbs: complex_abs,
    kn.FFT: fft,
    kn.IFFT: ifft,
}
