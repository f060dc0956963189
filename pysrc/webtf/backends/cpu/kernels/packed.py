"""Convolution as fixed-point arithmetic on Python big ints: the cpu backend's fast path for float32 convs.

One channel plane (a stride phase of the zero-padded input) is rounded to integers and packed into one
Python int, 64 bits per pixel ("slot"), so one C-level bigint multiply scales every pixel by one weight and a
right shift by whole slots moves the plane by a filter tap. An output channel is then a sum of
(integer weight x shifted plane) big ints: a handful of interpreter steps per weight instead of one per
output element (about 10x faster than per-output dot products on CPython).

Numbers: x is rounded to A bits below max|x| and each output channel's weights to at most 29 bits, with the
scales chosen from the weights' L1 norm so that every slot's sum stays below 2**61 (no carries). The error is
about 2**-28 of max|x| * sum|w| per output, below float32's own accumulation error. Conversions use the float
bit trick: the bits of (v + 1.5 * 2**(52 - k)) are that constant's bits plus round(v * 2**k), and back.
Non-finite inputs are left to the float path (`conv_packed` returns None). A filter's quantized weights are
made once per filter buffer (`_filter_plan`). The output is returned as its packed sums (lazy.py: decoded to
float32 on first read, with a fused relu / relu6 on the float32 bits); an input that is such an output gives
its planes from the sums (`_packed_planes`) instead of a pass over float32 values.
"""

from __future__ import annotations

import math
import operator
import sys
import weakref
from array import array
from collections.abc import Sequence
from itertools import repeat

from ....backend_util import ConvInfo
from .lazy import BASE, PackedOutput, ones, rows

_ADD, _MUL = operator.add, operator.mul
_LITTLE = sys.byteorder == "little"
_HALF = 1 << 63
_STRIP_SIGN = bytes(v & 0x7F for v in range(256))
_BIT7 = bytes(v >> 7 for v in range(256))


def _equal_table(v: int) -> bytes:
    """A bytes.translate table mapping v to 1 and every other byte to 0."""
    return bytes(v) + b"\x01" + bytes(255 - v)


def _bits(v: float) -> int:
    """The IEEE-754 bits of a positive double as an int."""
    return int.from_bytes(array("d", [v]).tobytes(), "little")


def _taps(info: ConvInfo, wq: int) -> list[tuple[tuple[int, int], int]]:
    """Per filter tap (row-major): its stride phase (py, px) and its shift in slots on a phase grid wq wide."""
    sh, sw, dh, dw = info.stride_height, info.stride_width, info.dilation_height, info.dilation_width
    taps = []
    for i in range(info.filter_height):
        for j in range(info.filter_width):
            qy, py = divmod(i * dh, sh)
            qx, px = divmod(j * dw, sw)
            taps.append(((py, px), qy * wq + qx))
    return taps


def _planes(
    qd: array, b: int, info: ConvInfo, fill: float, hq: int, wq: int, phases: set, row: int, c: int = 0
) -> dict[tuple[int, int], list[int]]:
    """Per needed stride phase (py, px), each channel's plane of hq x wq slots as a packed int: slot (qy, qx)
    holds the padded input at row qy * sh + py, column qx * sw + px. Only the slots are built, never the whole
    padded input, so a stride far larger than the input costs nothing. `qd` holds the slots' bits as
    doubles or ints (NHWC, rows `row` values apart; `c` channels when not info's)."""
    h, w, c = info.in_height, info.in_width, c or info.in_channels
    sh, sw = info.stride_height, info.stride_width
    top, left = info.pad_top, info.pad_left
    base = b * h * row
    out: dict[tuple[int, int], list[int]] = {}
    for py, px in phases:
        plane = array(qd.typecode, [fill]) * (hq * wq * c)
        q0 = max(0, -(-(left - px) // sw))  # the slot columns that fall inside the input: [q0, q1)
        q1 = min(wq, -(-(left + w - px) // sw))
        n = q1 - q0
        for qy in range(hq if n > 0 else 0):
            r = qy * sh + py - top
            if not 0 <= r < h:
                continue
            src = base + r * row + (q0 * sw + px - left) * c
            dst = (qy * wq + q0) * c
            if sw == 1:
                plane[dst : dst + n * c] = qd[src : src + n * c]
            else:
                for ch in range(c):
                    plane[dst + ch : dst + n * c : c] = qd[
                        src + ch : src + ch + (n - 1) * sw * c + 1 : sw * c
                    ]
        out[(py, px)] = [int.from_bytes(plane[ch::c].tobytes(), "little") for ch in range(c)]
    return out


def _packed_planes(
    xv: PackedOutput, b: int, k: int, info: ConvInfo, hq: int, wq: int, phases: set
) -> dict[tuple[int, int], list[int]]:
    """What _planes makes, from a packed conv output rounded to multiples of 2**-k, one channel at a time."""
    chans = xv.rounded(b, k)
    h, w, n = xv.oh, xv.ow, 8 * xv.wq
    if (info.stride_height, info.stride_width) == (1, 1):  # one phase: pad and cut each channel's rows
        top, left = info.pad_top, info.pad_left
        if (top, left, hq, wq, xv.wq) == (0, 0, h, w, w):
            return {(0, 0): chans}
        fill = BASE.to_bytes(8, "little")
        head, sep = fill * (top * wq + left), fill * (wq - w)
        tail = fill * (hq * wq - (top + h - 1) * wq - left - w)
        return {(0, 0): [rows(v, h, xv.wq, w, head, sep, tail) for v in chans]}
    out: dict[tuple[int, int], list[int]] = {p: [] for p in phases}
    for v in chans:
        src = array("Q")
        src.frombytes(v.to_bytes(n * h, "little"))
        for p, plane in _planes(src, 0, info, BASE, hq, wq, phases, xv.wq, 1).items():
            out[p] += plane
    return out


Plan = tuple[int, list[tuple[array, int, int]]]
#: id(filter values) -> (weak reference to them, (depthwise, c, o, taps), plan or None): backend buffers are
#: never written in place (a write stores a new array), so a live array's plan stays valid; it dies with it.
_PLANS: dict[int, tuple[weakref.ref, tuple, Plan | None]] = {}


def _forget(ref: weakref.ref, key: int) -> None:
    hit = _PLANS.get(key)
    if hit is not None and hit[0] is ref:
        del _PLANS[key]


def _filter_plan(fv: array, depthwise: bool, c: int, o: int, taps_n: int) -> Plan | None:
    """The quantized weights of filter values fv (made once per filter buffer), or None if any is inf / nan."""
    shape = (depthwise, c, o, taps_n)
    hit = _PLANS.get(id(fv))
    if hit is not None and hit[0]() is fv and hit[1] == shape:
        return hit[2]
    plan: Plan | None = None
    if math.isfinite(sum(fv)):
        if depthwise:
            mult = o // c
            columns = [fv[ch * mult + m :: c * mult].tolist() for ch in range(c) for m in range(mult)]
        else:  # each output channel's weights in (channel, tap) order
            columns = [fv[j::o].tolist() for j in range(o)]
            if taps_n > 1:
                columns = [[col[t * c + ch] for ch in range(c) for t in range(taps_n)] for col in columns]
        plan = _quantize_weights(columns)
    key = id(fv)
    _PLANS[key] = (weakref.ref(fv, lambda ref: _forget(ref, key)), shape, plan)
    return plan


def _quantize_weights(columns: list[list[float]]) -> Plan:
    """The input's bit budget A and, per output channel, (integer weights, their sum, their scale exponent)."""
    stats = []
    for ws in columns:
        em = math.frexp(max(map(abs, ws), default=0.0))[1]
        el = math.frexp(math.fsum(map(abs, ws)))[1]
        stats.append((em, el))
    spread = max((el - em for em, el in stats), default=0)
    bits = max(1, min(30, (61 - spread) // 2))
    out = []
    for ws, (em, el) in zip(columns, stats, strict=True):
        e = min(29 - em, 61 - bits - el)
        wi = array("i", map(round, map(_MUL, ws, repeat(2.0**e))))
        out.append((wi, sum(wi), e))
    return bits, out


def _max_exponent(xv: array) -> int | None:
    """math.frexp(max |v|)[1] of float32 values, or None if any is inf / nan.

    Read from the bytes without a pass of Python floats: the top byte of each value (sign cleared) holds the
    exponent's upper 7 bits, and the low exponent bit decides among those at the maximum (memchr scans).
    """
    raw = xv.tobytes()
    hi = raw[3::4].translate(_STRIP_SIGN)
    top = next(v for v in range(127, -1, -1) if v in hi)
    odd = int.from_bytes(hi.translate(_equal_table(top)), "little") & int.from_bytes(
        raw[2::4].translate(_BIT7), "little"
    )
    biased = 2 * top + (odd != 0)
    if biased == 255:
        return None
    if biased == 0:  # zeros and subnormals: rare, read them as floats
        return math.frexp(max(map(abs, xv)))[1]
    return biased - 126


def _decode(acc: int, ones_: int, base_sum: int, kt: int, bias: float) -> tuple[int, float]:
    """A packed output channel as slots 2**63 + value * 2**kt (the slots of `ones_`, no more), and the offset
    that turns the doubles decoded from them (lazy.py) into values. `base_sum` is the constant every slot
    carries from the inputs' offsets; the bias is added on the integers when it fits, else to the offset."""
    bias_int = round(bias * 2.0**kt)
    fits = abs(bias_int) < 1 << 61
    t = (acc + (_HALF - base_sum + (bias_int if fits else 0)) * ones_) & (ones_ * 0xFFFFFFFFFFFFFFFF)
    return t, 1.5 * 2.0 ** (64 - kt) - (0.0 if fits else bias)


def conv_packed(
    xv: array | PackedOutput,
    fv: array,
    info: ConvInfo,
    depthwise: bool,
    bias: Sequence[float] | None = None,
    activation: str = "linear",
    leakyrelu_alpha: float = 0.2,
) -> PackedOutput | None:
    """Conv2D / depthwise conv of float32 NHWC `xv` with filter `fv`, plus a per-channel bias and activation.

    `xv` is float32 values or another packed conv's output whose max_exponent() is not None. Returns the
    output as packed sums (`.materialize()` gives the float32 values), or None when this path does not apply
    (non-finite values, big-endian host). `activation` must not be 'prelu' (its weights need the output
    layout; apply it afterwards).
    """
    packed_in = isinstance(xv, PackedOutput)
    if not _LITTLE or not (packed_in or xv) or not fv or (bias and not math.isfinite(sum(bias))):
        return None
    c, o, taps_n = info.in_channels, info.out_channels, info.filter_height * info.filter_width
    plan = _filter_plan(fv, depthwise, c, o, taps_n)
    max_e = xv.max_exponent() if packed_in else _max_exponent(xv)  # type: ignore[union-attr, arg-type]
    if plan is None or max_e is None:
        return None
    bits, wcols = plan
    mult = o // c
    k = bits - max_e
    if packed_in:
        base = fill = BASE
    else:
        fill = 1.5 * 2.0 ** (52 - k)  # v + fill has round(v * 2**k) in its low bits
        base = _bits(fill)
        qd, row = array("d", map(_ADD, xv, repeat(fill))), info.in_width * c

    sh, sw = info.stride_height, info.stride_width
    oh, ow = info.out_height, info.out_width
    hq = -(-max(info.pad_top + info.in_height, (oh - 1) * sh + info.effective_filter_height) // sh)
    wq = -(-max(info.pad_left + info.in_width, (ow - 1) * sw + info.effective_filter_width) // sw)
    taps = _taps(info, wq)
    phases = {p for p, _ in taps}
    ones_ = ones(oh * wq)  # the output rows decode wq wide; the columns past ow are cut when materialized
    # channels per chunk of shifted planes kept at once (about 16 MB of big ints)
    chunk = max(1, (1 << 21) // max(1, hq * wq * taps_n))
    sums, kts, offsets = [], [], []
    for b in range(info.batch):
        if packed_in:
            planes = _packed_planes(xv, b, k, info, hq, wq, phases)  # type: ignore[arg-type]
        else:
            planes = _planes(qd, b, info, fill, hq, wq, phases, row)
        acc = [0] * o
        for c0 in range(0, c, 1 if depthwise else chunk):
            c1 = min(c, c0 + (1 if depthwise else chunk))
            shifted = [
                planes[p][ch] >> (64 * s) if s else planes[p][ch] for ch in range(c0, c1) for p, s in taps
            ]
            if depthwise:
                for j in range(c0 * mult, c1 * mult):
                    acc[j] = sum(map(_MUL, wcols[j][0], shifted))
            else:
                part = slice(c0 * taps_n, c1 * taps_n)
                for j in range(o):
                    acc[j] = sum(map(_MUL, wcols[j][0][part], shifted), acc[j])
        for j in range(o):
            _, wsum, e = wcols[j]
            t, offset = _decode(acc[j], ones_, base * wsum, k + e, bias[j] if bias is not None else 0.0)
            acc[j] = t
            if b == 0:
                kts.append(k + e)
                offsets.append(offset)
        sums.append(acc)
    return PackedOutput(sums, kts, offsets, oh, ow, wq, activation, leakyrelu_alpha)
