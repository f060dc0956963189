"""The string kernels' shared math (tfjs-backend-cpu's *_impl): FarmHash Fingerprint64 buckets, regex
rewrites, splits and n-grams, on lists of str (hashed and split as their UTF-8 bytes, as TF.js does)."""

from __future__ import annotations

import re
from collections.abc import Sequence

_M = (1 << 64) - 1
_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _u64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i : i + 8], "little")


def _u32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i : i + 4], "little")


def _rot(v: int, r: int) -> int:
    return v if r == 0 else ((v >> r) | (v << (64 - r))) & _M


def _mix(v: int) -> int:
    return v ^ (v >> 47)


def _len16(u: int, v: int, mul: int) -> int:
    a = _mix(((u ^ v) * mul) & _M)
    b = _mix(((v ^ a) * mul) & _M)
    return (b * mul) & _M


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _u64(s, i), _u64(s, i + 8), _u64(s, i + 16), _u64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def _short(s: bytes, n: int) -> int:
    mul = (_K2 + 2 * n) & _M
    if n >= 8:
        a = (_u64(s, 0) + _K2) & _M
        b = _u64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _len16(c, d, mul)
    if n >= 4:
        return _len16(((_u32(s, 0) << 3) + n) & _M, _u32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _medium(s: bytes, n: int) -> int:
    mul = (_K2 + 2 * n) & _M
    a = (_u64(s, 0) * (_K1 if n <= 32 else _K2)) & _M
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M
    d = (_u64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _len16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    if n <= 32:
        return z
    e = (_u64(s, 16) * mul) & _M
    f = _u64(s, 24)
    g = ((y + _u64(s, n - 32)) * mul) & _M
    h = ((z + _u64(s, n - 24)) * mul) & _M
    return _len16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M, (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def fingerprint64(s: bytes) -> int:
    """FarmHash's Fingerprint64 of `s` (unsigned 64-bit), the hash TF and TF.js bucket strings with."""
    n = len(s)
    if n <= 16:
        return _short(s, n)
    if n <= 64:
        return _medium(s, n)
    seed = 81
    x, y = seed, (seed * _K1 + 113) & _M
    z = (_mix((y * _K2 + 113) & _M) * _K2) & _M
    v, w = (0, 0), (0, 0)
    x = (x * _K2 + _u64(s, 0)) & _M
    end = ((n - 1) >> 6) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _u64(s, i + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v[1] + _u64(s, i + 48)) & _M, 42) * _K1) & _M
        x ^= w[1]
        y = (y + v[0] + _u64(s, i + 40)) & _M
        z = (_rot((z + w[0]) & _M, 33) * _K1) & _M
        v = _weak32(s, i, (v[1] * _K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _u64(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = (_K1 + ((z & 0xFF) << 1)) & _M
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _M
    v0 = (v[0] + w0) & _M
    w0 = (w0 + v0) & _M
    v, w = (v0, v[1]), (w0, w[1])
    x = (_rot((x + y + v[0] + _u64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v[1] + _u64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _u64(s, i + 40)) & _M
    z = (_rot((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, i, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _u64(s, i + 16)) & _M)
    z, x = x, z
    return _len16((_len16(v[0], w[0], mul) + _mix(y) * _K0 + z) & _M, (_len16(v[1], w[1], mul) + x) & _M, mul)


def hash_buckets(values: Sequence[str], num_buckets: int) -> list[int]:
    """Fingerprint64 of each string's UTF-8 bytes modulo num_buckets."""
    return [fingerprint64(v.encode()) % num_buckets for v in values]


_GROUP = re.compile(r"\$(\d+|\$|&)")


def regex_replace(values: Sequence[str], pattern: str, rewrite: str, replace_global: bool) -> list[str]:
    """Each string with matches of `pattern` replaced by `rewrite` (JS's $1 / $& / $$ groups), every match
    or only the first."""
    rx = re.compile(pattern)

    def expand(m: re.Match[str]) -> str:
        def group(g: re.Match[str]) -> str:
            k = g.group(1)
            return "$" if k == "$" else m.group(0) if k == "&" else (m.group(int(k)) or "")

        return _GROUP.sub(group, rewrite)

    return [rx.sub(expand, v, count=0 if replace_global else 1) for v in values]


def _tokens(s: str, delimiter: str, skip_empty: bool) -> list[str]:
    if not s:
        return []
    if not delimiter:
        return list(s)
    if len(delimiter) == 1:
        parts = s.split(delimiter)
    else:
        parts = re.split("[" + re.escape(delimiter) + "]", s)
    return [p for p in parts if p] if skip_empty else parts


def split_strings(
    values: Sequence[str], delimiter: str, skip_empty: bool
) -> tuple[list[int], list[str], tuple[int, int]]:
    """Tokens of each string split at any character of `delimiter` (every character when empty), as a
    sparse [batch, max tokens] tensor: flat (row, col) indices, values, dense shape."""
    indices: list[int] = []
    tokens: list[str] = []
    widest = 0
    for row, s in enumerate(values):
        parts = _tokens(s, delimiter, skip_empty)
        for col in range(len(parts)):
            indices += (row, col)
        tokens += parts
        widest = max(widest, len(parts))
    return indices, tokens, (len(values), widest)


def n_grams(
    data: Sequence[str],
    splits: Sequence[int],
    separator: str,
    widths: Sequence[int],
    left_pad: str,
    right_pad: str,
    pad_width: int,
    preserve_short: bool,
    limit: int,
) -> tuple[list[str], list[int]]:
    """The n-grams of each row data[splits[i]:splits[i + 1]] for every width (padded with pad_width pads,
    width - 1 when pad_width is -1), and the splits of the result."""
    out: list[str] = []
    out_splits = [0]
    for start, stop in zip(splits, splits[1:], strict=False):
        row = list(data[start:stop])
        before = len(out)
        for w in widths:
            p = min(pad_width, w - 1) if pad_width >= 0 else w - 1
            if (len(row) + 2 * p) * w > limit:  # the n-grams' tokens
                raise ValueError(f"Error in string_n_grams: n-grams of width {w} would be too large to build")
            padded = [left_pad] * p + row + [right_pad] * p
            out += [separator.join(padded[k : k + w]) for k in range(max(0, len(padded) - w + 1))]
        if preserve_short and len(out) == before and row:
            p = max(pad_width, 0)
            out.append(separator.join([left_pad] * p + row + [right_pad] * p))
        out_splits.append(len(out))
    return out, out_splits
