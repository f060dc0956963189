"""Relu and Relu6 of float32 buffers on their bits: the whole buffer as one Python int, 32 bits per value.

A handful of C-level big-int operations replaces a Python-level pass over the values. The magnitude bits m of a
float32 order like its value, and m + K (m < 2**31, K < 2**31) sets bit 31 of its slot without carrying into the
next exactly when m >= 2**31 - K: that gives the per-slot tests nonzero, nan and > 6 at once for every value.
Semantics as the list helpers in activation.py: nan stays nan, -0.0 stays -0.0, relu6 clamps at 6.0.
"""

from __future__ import annotations

import sys
from array import array

_LITTLE = sys.byteorder == "little"
_SIX = 0x40C00000  # the bits of 6.0
#: buffers shorter than this go through the list helpers (the int set-up costs more than it saves)
MIN_SIZE = 64
_CONSTS: dict[tuple[int, bool], tuple[int, ...]] = {}


def _consts(n: int, six: bool) -> tuple[int, ...]:
    """Per-slot constants for n slots (kept for the last two sizes up to 1 M values: models repeat theirs): 1 at
    bit 0, the magnitude mask, the nan threshold, bit 31 and, for relu6, the > 6 threshold and 6.0's bits."""
    got = _CONSTS.get((n, six))
    if got is None:
        if len(_CONSTS) >= 2:
            _CONSTS.pop(next(iter(_CONSTS)))
        ones = int.from_bytes((array("I", [1]) * n).tobytes(), "little")
        got = (ones, ones * 0x7FFFFFFF, ones * 0x007FFFFF, ones << 31)
        if six:
            got += (ones * (0x7FFFFFFF - _SIX), ones * _SIX)
        if n <= 1 << 20:
            _CONSTS[(n, six)] = got
    return got


def relu_f32(values: array, six: bool = False) -> array | None:
    """max(v, 0) (min(max(v, 0), 6) when `six`) of float32 `values`; None when this host is big-endian."""
    if not _LITTLE:
        return None
    n = len(values)
    ones, mag, nan_at, top, *more = _consts(n, six)
    x = int.from_bytes(values.tobytes(), "little")
    m = x & mag
    not_nan = ~(m + nan_at)  # bit 31 set where m <= 0x7F800000 (not nan)
    kill = x & (m + mag) & not_nan & top  # sign set, nonzero, not nan
    drop = (kill << 1) - (kill >> 31)  # all 32 bits of each such slot
    if more:
        above, six_bits = more
        big = ~x & (m + above) & not_nan & top  # sign clear, above 6, not nan
        clamp = (big << 1) - (big >> 31)
        x = (x & ~(drop | clamp)) | (clamp & six_bits)
    else:
        x &= ~drop
    out = array("f")
    out.frombytes(x.to_bytes(4 * n, "little"))
    return out
