"""The discrete Fourier transform of interleaved complex rows (the FFT / IFFT kernels' shared math)."""

from __future__ import annotations

import cmath
from array import array
from collections.abc import Sequence


def _dft(x: list[complex], sign: int) -> list[complex]:
    n = len(x)
    if n <= 1:
        return list(x)
    if n & (n - 1) == 0:  # radix-2 for powers of two
        even, odd = _dft(x[0::2], sign), _dft(x[1::2], sign)
        out = [0j] * n
        for k in range(n // 2):
            t = cmath.exp(sign * 2j * cmath.pi * k / n) * odd[k]
            out[k], out[k + n // 2] = even[k] + t, even[k] - t
        return out
    w = [cmath.exp(sign * 2j * cmath.pi * k / n) for k in range(n)]
    return [sum(x[j] * w[(j * k) % n] for j in range(n)) for k in range(n)]


def fft_rows(values: Sequence[float], n: int, inverse: bool) -> array:
    """The DFT (or inverse DFT, scaled by 1/n) of each row of `n` complex values, stored as interleaved
    (re, im) float32 pairs."""
    out = array("f", bytes(4 * len(values)))
    if n == 0:
        return out
    re, im = values[0::2], values[1::2]
    scale = 1 / n if inverse else 1.0
    for start in range(0, len(re), n):
        row = _dft(
            [complex(r, i) for r, i in zip(re[start : start + n], im[start : start + n], strict=False)],
            1 if inverse else -1,
        )
        out[2 * start : 2 * (start + n) : 2] = array("f", [v.real * scale for v in row])
        out[2 * start + 1 : 2 * (start + n) : 2] = array("f", [v.imag * scale for v in row])
    return out
