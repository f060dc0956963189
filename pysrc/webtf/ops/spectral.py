"""complex64 ops and tf.spectral / tf.signal: complex, real, imag, fft, ifft, rfft, irfft, frame, windows, stft."""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from types import SimpleNamespace

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .binary import mul
from .checks import check_size, int_arg, number_arg
from .creation import fill, tensor, zeros, zeros_like
from .op import TensorLike, convert_to_tensor, op
from .shape import concat, reshape, reverse
from .slicing import slice

__all__ = ["complex", "real", "imag", "fft", "ifft", "rfft", "irfft", "cosine_window", "spectral", "signal"]


def _typed(x: TensorLike, arg: str, op_name: str, dtype: str) -> Tensor:
    t = convert_to_tensor(x, arg, op_name)
    if t.dtype != dtype:
        raise TypeError(f"Error in {op_name}: argument '{arg}' must be {dtype}, but got {t.dtype}")
    return t


@op
def complex(real: TensorLike, imag: TensorLike) -> Tensor:  # noqa: A001
    """A complex64 tensor from its real and imaginary float32 parts (kernel Complex)."""
    re = convert_to_tensor(real, "real", "complex", "float32")
    im = convert_to_tensor(imag, "imag", "complex", "float32")
    if re.shape != im.shape:
        raise ValueError(
            f"Error in complex: real and imag shapes, {fmt(re.shape)} and {fmt(im.shape)}, must match"
        )
    re, im = (t if t.dtype == "float32" else t.cast("float32") for t in (re, im))
    return ENGINE.run_kernel(kn.Complex, {"real": re, "imag": im})


@op
def real(input: TensorLike) -> Tensor:  # noqa: A002
    """The real parts of a complex64 tensor (kernel Real); a real tensor's own values."""
    x = convert_to_tensor(input, "input", "real")
    if x.dtype != "complex64":
        return x.cast("float32")
    return ENGINE.run_kernel(kn.Real, {"input": x})


@op
def imag(input: TensorLike) -> Tensor:  # noqa: A002
    """The imaginary parts of a complex64 tensor (kernel Imag); zeros for a real tensor."""
    x = convert_to_tensor(input, "input", "imag")
    if x.dtype != "complex64":
        return zeros(x.shape)
    return ENGINE.run_kernel(kn.Imag, {"input": x})


def _transform(kernel: str, name: str) -> Callable[[TensorLike], Tensor]:
    def transform(input: TensorLike) -> Tensor:  # noqa: A002
        x = _typed(input, "input", name, "complex64")
        if x.rank == 0:
            raise ValueError(f"Error in {name}: input must have rank at least 1, but got a scalar")
        return ENGINE.run_kernel(kernel, {"input": x})

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = (
        f"The {'inverse ' if kernel == kn.IFFT else ''}DFT over the innermost dim (kernel {kernel})."
    )
    return op(transform)


fft = _transform(kn.FFT, "fft")
ifft = _transform(kn.IFFT, "ifft")


@op
def rfft(input: TensorLike, fft_length: int | None = None) -> Tensor:  # noqa: A002
    """The DFT of a real float32 signal over its innermost dim: the fft_length // 2 + 1 non-redundant terms."""
    x = _typed(input, "input", "rfft", "float32")
    if x.rank == 0:
        raise ValueError("Error in rfft: input must have rank at least 1, but got a scalar")
    n = x.shape[-1]
    if fft_length is None and n == 0:
        raise ValueError(
            f"Error in rfft: the innermost dim of input (shape {fmt(x.shape)}) must not be empty"
        )
    if fft_length is not None:
        length = int_arg(fft_length, "fft_length", "rfft", 1)
        check_size([*x.shape[:-1], length], "rfft")
        if length < n:
            x = slice(x, [0] * x.rank, [*x.shape[:-1], length])
        elif length > n:
            x = concat([x, zeros([*x.shape[:-1], length - n])], x.rank - 1)
        n = length
    spectrum = fft(complex(x, zeros_like(x)))
    half = n // 2 + 1
    kept = slice(spectrum, [0] * x.rank, [*x.shape[:-1], half])
    return kept


@op
def irfft(input: TensorLike) -> Tensor:  # noqa: A002
    """The real inverse of rfft over the innermost dim: 2 * (n - 1) values per row (TF.js's shapes: rows
    flattened to [batch, n_out], rank 3 kept)."""
    x = _typed(input, "input", "irfft", "complex64")
    if x.rank == 0:
        raise ValueError("Error in irfft: input must have rank at least 1, but got a scalar")
    n = x.shape[-1]
    batch = x.size // n if n else 0
    rows = reshape(x, [batch, n])
    if n > 2:  # the conjugate-symmetric half the rfft left out
        re, im = real(rows), imag(rows)
        mirror = reverse(slice(re, [0, 1], [batch, n - 2]), 1)
        mirror_im = mul(reverse(slice(im, [0, 1], [batch, n - 2]), 1), -1)
        rows = complex(concat([re, mirror], 1), concat([im, mirror_im], 1))
    out = real(ifft(rows))
    if x.rank == 3 and x.shape[0] != 0:
        out = reshape(out, [x.shape[0], out.shape[0] // x.shape[0], out.shape[1]])
    return out


def _window(window_length: int, a: float, b: float, name: str) -> Tensor:
    n = int_arg(window_length, "window_length", name, 0)
    check_size([n], name)
    a, b = number_arg(a, "a", name), number_arg(b, "b", name)
    even = 1 - n % 2
    denom = n + even - 1
    values = array("f", [a - b * math.cos(2.0 * math.pi * i / denom) if denom else a - b for i in range(n)])
    return tensor(values, [n], "float32")


def cosine_window(window_length: int, a: float, b: float) -> Tensor:
    """The window a - b * cos(2 pi i / (N - 1)) (N + 1 for an even length, periodic), float32."""
    return _window(window_length, a, b, "cosine_window")


def hann_window(window_length: int) -> Tensor:
    """The Hann window of `window_length` (float32)."""
    return _window(window_length, 0.5, 0.5, "hann_window")


def hamming_window(window_length: int) -> Tensor:
    """The Hamming window of `window_length` (float32)."""
    return _window(window_length, 0.54, 0.46, "hamming_window")


@op
def frame(
    signal: TensorLike, frame_length: int, frame_step: int, pad_end: bool = False, pad_value: float = 0
) -> Tensor:
    """Frames of `frame_length` taken every `frame_step` from a 1-D signal, [frames, frame_length]; with
    pad_end, the last frames are padded with `pad_value`."""
    x = convert_to_tensor(signal, "signal", "frame")
    length = int_arg(frame_length, "frame_length", "frame", 1)
    step = int_arg(frame_step, "frame_step", "frame", 1)
    if x.rank != 1:
        raise ValueError(f"Error in frame: signal must be 1-D, but got shape {fmt(x.shape)}")
    frames, start = [], 0
    while start + length <= x.size:
        frames.append(slice(x, [start], [length]))
        start += step
    while pad_end and start < x.size:
        pad = start + length - x.size
        frames.append(concat([slice(x, [start], [length - pad]), fill([pad], pad_value, x.dtype)]))
        start += step
    if not frames:
        return zeros([0, length], x.dtype)
    return reshape(concat(frames), [len(frames), length])


@op
def stft(
    signal: TensorLike,
    frame_length: int,
    frame_step: int,
    fft_length: int | None = None,
    window_fn: Callable[[int], Tensor] = hann_window,
) -> Tensor:
    """The short-time Fourier transform: rfft of windowed frames (fft_length: the enclosing power of two)."""
    length = int_arg(frame_length, "frame_length", "stft", 1)
    frame_step = int_arg(frame_step, "frame_step", "stft", 1)
    if fft_length is None:
        fft_length = 1 << (length - 1).bit_length()
    frames = frame(signal, length, frame_step)
    return rfft(mul(frames, window_fn(length)), fft_length)


#: tf.spectral and tf.signal, as TF.js's namespaces
spectral = SimpleNamespace(fft=fft, ifft=ifft, rfft=rfft, irfft=irfft)
signal = SimpleNamespace(hamming_window=hamming_window, hann_window=hann_window, frame=frame, stft=stft)
