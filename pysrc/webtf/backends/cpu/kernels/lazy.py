"""A packed convolution's output kept as its fixed-point sums until something reads it (`PackedOutput`).

The cpu backend stores a float32 conv output from the packed path (packed.py) in this form: its float32 values
are decoded on the first read (`materialize`, what every kernel but a packed conv gets through
`CpuBackend.values`), while a packed conv reading it takes its input planes straight from the sums
(`rounded`): a few big-int operations per channel instead of the two per-value passes of float32 -> fixed
point and back. Relu / Relu6 of such an output and the Add of two of them (a residual block) stay packed
too (`then`, `plus`). A conv or Add reading it takes the values before their float32 rounding (the exact
sums with bias and relu / relu6, rounded once to the conv's input grid or to the float32 sum): a difference
far below the packed conv's own error bound (packed.py).

Sums: per image and output channel one int of oh x wq 64-bit slots (rows wq wide; the columns past ow are
cut at the end), slot = 2**63 + S with S = value * 2**kt (|S| < 2**61). `offsets` holds what turns the
decoded doubles (value + offset) into values: the bias when it did not fit the integers.
"""

from __future__ import annotations

import functools
import operator
from array import array
from collections.abc import Callable
from itertools import repeat
from typing import Any

from .activation import apply_activation
from .bits import relu_f32

_SUB = operator.sub
_HALF = 1 << 63
_LOW63 = _HALF - 1
#: the slot value of 0 in the planes `rounded` makes: every slot stays positive, far from both ends
BASE = 1 << 62


def ones(n: int) -> int:
    """The packed int with a 1 in each of n 64-bit slots."""
    return int.from_bytes((array("q", [1]) * n).tobytes(), "little")


def _full(bit63: int) -> int:
    """All 64 bits of each slot whose bit 63 is set in `bit63` (which has no other bits)."""
    return (bit63 << 1) - (bit63 >> 63)


class PackedOutput:
    """A float32 NHWC conv output (shape (batch, oh, ow, o)) as the packed sums of every output channel."""

    __slots__ = ("sums", "kts", "offsets", "oh", "ow", "wq", "o", "activation", "alpha", "_fixed", "_max_e")

    def __init__(
        self, sums: list[list[int]], kts: list[int], offsets: list[float], oh: int, ow: int, wq: int,
        activation: str, alpha: float,
    ) -> None:  # fmt: skip
        self.sums, self.kts, self.offsets = sums, kts, offsets
        self.oh, self.ow, self.wq, self.o = oh, ow, wq, len(kts)
        self.activation, self.alpha = activation, alpha
        self._fixed: list[list[int]] | None = None  # the sums after relu / relu6 (_clamped)
        self._max_e: int | None = None

    def fits(self, shape: tuple[int, ...]) -> bool:
        """Whether a tensor of `shape` reads this output in its own layout (a reshape shares the buffer)."""
        return (len(self.sums), self.oh, self.ow, self.o) == tuple(shape)

    @property
    def nbytes(self) -> int:
        """The float32 bytes it stands for."""
        return 4 * len(self.sums) * self.oh * self.ow * self.o

    def then(self, activation: str) -> PackedOutput | None:
        """This output followed by relu or relu6 (sharing the sums), or None after another activation."""
        if self.activation not in ("linear", "relu", "relu6"):
            return None
        if self.activation == "relu6" or (activation == "relu" and self.activation == "relu"):
            activation = self.activation
        return PackedOutput(
            self.sums, self.kts, self.offsets, self.oh, self.ow, self.wq, activation, self.alpha
        )

    def materialize(self) -> array:
        """The float32 values (NHWC, flat), as the packed conv has always returned them."""
        oh, ow, wq, o = self.oh, self.ow, self.wq, self.o
        n_dec = oh * wq
        per_image = n_dec * o
        ones_ = ones(n_dec)
        low, exps = ones_ * ((1 << 52) - 1), {}
        clamp = self.activation in ("relu", "relu6")
        out = array("f", bytes(4 * len(self.sums) * per_image))
        for b, sums in enumerate(self.sums):
            for j, t in enumerate(sums):
                kt = self.kts[j]
                exp = exps.get(kt)
                if exp is None:
                    exp = exps[kt] = (ones_ << 52) * (1087 - kt)
                dec = array("d")
                dec.frombytes((((t >> 12) & low) | exp).to_bytes(8 * n_dec, "little"))
                vals = map(_SUB, dec, repeat(self.offsets[j]))
                if not clamp and self.activation != "linear":
                    vals = apply_activation(list(vals), self.activation, None, self.alpha)
                out[b * per_image + j : (b + 1) * per_image : o] = array("f", vals)
        if wq != ow:
            view, row, keep = memoryview(out.tobytes()), 4 * wq * o, 4 * ow * o
            out = array("f")
            out.frombytes(b"".join(view[r * row : r * row + keep] for r in range(len(self.sums) * oh)))
        return relu_f32(out, self.activation == "relu6") if clamp else out

    def _clamped(self) -> list[list[int]] | None:
        """The sums after relu / relu6 (still slot = 2**63 + S), or None when a bias lives in the offsets or
        the activation is another one."""
        if self._fixed is None:
            act = self.activation
            if act not in ("linear", "relu", "relu6") or min(self.kts, default=0) < 0 or any(
                off != 1.5 * 2.0 ** (64 - kt) for off, kt in zip(self.offsets, self.kts, strict=True)
            ):
                return None
            ones_ = ones(self.oh * self.wq)
            top = ones_ << 63
            fixed = []
            for sums in self.sums:
                row = []
                for t, kt in zip(sums, self.kts, strict=True):
                    if act != "linear":
                        neg = top ^ (t & top)  # bit 63 clear: S < 0
                        t = (t & ~_full(neg)) | neg
                        six = 6 << max(kt, 0)
                        if act == "relu6" and six < 1 << 61:
                            big = (t - (six + 1) * ones_) & top  # S > 6 * 2**kt
                            t = (t & ~_full(big)) | ((big >> 63) * (_HALF + six))
                    row.append(t)
                fixed.append(row)
            self._fixed = fixed
        return self._fixed

    def max_exponent(self) -> int | None:
        """math.frexp(max |v|)[1] over the unrounded values, or None when `rounded` does not apply (a bias in
        the offsets, another activation, or values beyond float32's range: float32 makes them inf)."""
        if self._max_e is None:
            fixed = self._clamped()
            if fixed is None:
                return None
            oh, ow, wq = self.oh, self.ow, self.wq
            ones_ = ones(oh * wq)
            top = ones_ << 63
            valid = ones(ow) * ((1 << 64) - 1)
            valid = int.from_bytes((valid.to_bytes(8 * ow, "little") + bytes(8 * (wq - ow))) * oh, "little")
            low = ones_ * _LOW63
            groups: dict[int, int] = {}  # kt -> the magnitudes of its channels or-ed together
            for sums in fixed:
                for t, kt in zip(sums, self.kts, strict=True):
                    neg = (top ^ (t & top)) >> 63  # 1 where S < 0
                    mag = (((t & low) ^ (neg * _LOW63)) + neg) & valid  # |S|: negatives' low bits flipped, + 1
                    groups[kt] = groups.get(kt, 0) | mag
            max_e = None
            for kt, acc in groups.items():
                n = oh * wq
                while n > 1:  # or of all the slots: fold the halves
                    h = n // 2
                    acc = (acc >> (64 * (n - h))) | (acc & ((1 << (64 * (n - h))) - 1))
                    n -= h
                if acc:
                    max_e = max(acc.bit_length() - kt, max_e if max_e is not None else -(1 << 30))
            self._max_e = 0 if max_e is None else max_e  # all zeros: as packed._max_exponent
        return None if self._max_e > 128 else self._max_e

    def rounded(self, b: int, k: int) -> list[int]:
        """Image b's values rounded to multiples of 2**-k, per channel as slots BASE + round(v * 2**k) in this
        output's layout (rows wq wide: the columns past ow hold garbage). Needs max_exponent() not None."""
        fixed = self._clamped()
        assert fixed is not None
        ones_ = ones(self.oh * self.wq)
        out = []
        for t, kt in zip(fixed[b], self.kts, strict=True):
            d = kt - k
            if d > 0:
                v, zero = _shift(t, d, ones_)
                v += (BASE - zero) * ones_
            else:
                v = ((t - _HALF * ones_) << -d) + BASE * ones_
            out.append(v)
        return out

    def plus(self, other: PackedOutput) -> PackedOutput | None:
        """self + other (of one shape) as packed sums, each channel on the coarser grid of the two halved, so
        the sum is rounded once (to float32 when read); None where either is not readable as sums."""
        fa, fb = self._clamped(), other._clamped()
        if fa is None or fb is None:
            return None
        oh, ow = self.oh, self.ow
        ones_ = ones(oh * ow)
        kts = [min(ka, kb) - 1 for ka, kb in zip(self.kts, other.kts, strict=True)]
        sums = []
        for ta, tb in zip(fa, fb, strict=True):
            chans = []
            for a, b, ka, kb, kt in zip(
                self._cut(ta), other._cut(tb), self.kts, other.kts, kts, strict=True
            ):  # fmt: skip
                (va, za), (vb, zb) = _shift(a, ka - kt, ones_), _shift(b, kb - kt, ones_)
                chans.append(va + vb + (_HALF - za - zb) * ones_)
            sums.append(chans)
        offsets = [1.5 * 2.0 ** (64 - kt) for kt in kts]
        return PackedOutput(sums, kts, offsets, oh, ow, ow, "linear", self.alpha)

    def _cut(self, sums: list[int]) -> list[int]:
        """One image's channel sums without the columns past ow (rows ow wide)."""
        if self.wq == self.ow:
            return sums
        return [rows(t, self.oh, self.wq, self.ow) for t in sums]


def _shift(t: int, d: int, ones_: int) -> tuple[int, int]:
    """Slots 2**63 + S (d >= 1) as slots z + round(S / 2**d), and z (2**(63 - d); 0 once every value rounds to
    0). The slots of `ones_` only."""
    if d >= 63:
        return 0, 0
    return ((t + (1 << (d - 1)) * ones_) >> d) & (ones_ * ((1 << (64 - d)) - 1)), 1 << (63 - d)


def rows(t: int, h: int, wq: int, w: int, head: bytes = b"", sep: bytes = b"", tail: bytes = b"") -> int:
    """The first w slots of each of the h rows (wq slots) of t, joined by `sep`, between `head` and `tail`."""
    n = 8 * wq
    view = memoryview(t.to_bytes(n * h, "little"))
    return int.from_bytes(head + sep.join([view[r * n : r * n + 8 * w] for r in range(h)]) + tail, "little")


def from_values(values: array, shape: tuple[int, ...], max_e: int) -> PackedOutput:
    """Finite float32 NHWC `values` (|v| < 2**max_e) as packed sums, on the grid 2**-(50 - max_e): exact
    for all but the values 2**26 times below the largest. Rounded by the float bit trick (packed.py)."""
    b, h, w, c = shape
    kt = 50 - max_e
    magic = 1.5 * 2.0 ** (52 - kt)
    doubles = array("d", map(operator.add, values, repeat(magic)))
    n = h * w
    shift = (int.from_bytes(array("d", [magic]).tobytes(), "little") - _HALF) * ones(n)
    sums = [
        [int.from_bytes(doubles[i * n * c + ch : (i + 1) * n * c : c].tobytes(), "little") - shift for ch in range(c)]
        for i in range(b)
    ]
    return PackedOutput(sums, [kt] * c, [1.5 * 2.0 ** (64 - kt)] * c, h, w, w, "linear", 0.2)


def packed_add(kernel: Callable[..., Any], max_exponent: Callable[[array], int | None]) -> Callable[..., Any]:
    """The Add kernel `kernel`, keeping the sum of a packed conv output and another one or a float32 tensor of
    the same shape packed (PackedOutput.plus) where the backend stores them; `max_exponent` is packed.py's."""

    def add(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        a, b = inputs["a"], inputs["b"]
        if a.shape == b.shape and getattr(backend, "packed_outputs", False):
            pa, pb = backend.data.get(a.data_id), backend.data.get(b.data_id)
            if pa.__class__ is PackedOutput or pb.__class__ is PackedOutput:
                if pa.__class__ is not PackedOutput:
                    pa, pb = pb, pa
                if not pa.fits(a.shape) or (pb.__class__ is PackedOutput and not pb.fits(a.shape)):
                    return kernel(backend, inputs, attrs)
                if isinstance(pb, array) and pb.typecode == "f" and len(a.shape) == 4:
                    max_e = max_exponent(pb)
                    pb = None if max_e is None else from_values(pb, a.shape, max_e)
                total = pa.plus(pb) if pb.__class__ is PackedOutput else None
                if total is not None:
                    return backend.output(total, a.shape, "float32")
        return kernel(backend, inputs, attrs)

    return functools.update_wrapper(add, kernel)  # keeps its fast / float_fn / for_dtypes
