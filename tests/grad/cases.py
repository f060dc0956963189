"""The gradient case table: one line per kernel (or variant) with a webtf lambda, the same function in TF.js
and numpy, and the inputs. Host and page tests run the same table.

    case("Add/broadcast", "lambda a, b: tf.add(a, b)", lambda a, b: a + b, r(2, 3), r(3),
         js="(a, b) => tf.add(a, b)")

`tf.grads(f)(xs, dy)` is taken with respect to the float inputs (or those listed in `wrt`; the others are
passed to f as constants) with a random dy of f's output shape. The oracles: central finite differences of
the numpy function in float64 (always), and TF.js 4.22's own tf.grads in the page (when `js` is given:
None where TF.js 4.22 has no gradient for a kernel on the path, or a wrong one). `only` limits a case to
some page backends (kernels only webgl has). Other branches add their kernels' cases to CASES.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

RNG = np.random.default_rng(12)
F32 = np.float32


@dataclass(frozen=True)
class Case:
    """One gradient check."""

    name: str
    py: str
    np: Callable[..., Any]
    inputs: tuple[np.ndarray, ...]
    js: str | None = None
    wrt: tuple[int, ...] | None = None
    only: tuple[str, ...] | None = None

    @property
    def wrt_indices(self) -> tuple[int, ...]:
        """The inputs differentiated: `wrt`, or every float input."""
        if self.wrt is not None:
            return self.wrt
        return tuple(i for i, x in enumerate(self.inputs) if x.dtype == F32)


CASES: list[Case] = []


def case(name: str, py: str, np_f: Callable[..., Any], *inputs: np.ndarray, **options: Any) -> None:
    """Add a case to CASES."""
    CASES.append(Case(name, py, np_f, tuple(inputs), **options))


def r(*shape: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    """Uniform float32 values in [lo, hi)."""
    return RNG.uniform(lo, hi, size=shape).astype(F32)


def away(*shape: int, gap: float = 0.2) -> np.ndarray:
    """float32 values with gap <= |x| < 1 + gap and random signs (clear of kinks at 0)."""
    return (RNG.choice([-1.0, 1.0], size=shape) * RNG.uniform(gap, 1.0 + gap, size=shape)).astype(F32)


def ints(values: Any) -> np.ndarray:
    """An int32 array."""
    return np.array(values, dtype=np.int32)


def bools(values: Any) -> np.ndarray:
    """A bool array."""
    return np.array(values, dtype=bool)


def dy_for(c: Case) -> np.ndarray:
    """The dy of a case: deterministic uniform values of the output's shape."""
    out = np.asarray(c.np(*(x.astype(np.float64) if x.dtype == F32 else x for x in c.inputs)))
    seed = sum(map(ord, c.name))
    return np.random.default_rng(seed).uniform(0.5, 1.5, size=out.shape).astype(F32)


def finite_differences(c: Case, dy: np.ndarray, eps: float = 1e-6) -> list[np.ndarray]:
    """d sum(f(x) * dy) / dx for each differentiated input, by central differences in float64."""
    args = [x.astype(np.float64) if x.dtype == F32 else x for x in c.inputs]
    w = dy.astype(np.float64)
    grads = []
    for i in c.wrt_indices:
        base = args[i].astype(np.float64)
        g = np.zeros(base.shape)
        for j in np.ndindex(base.shape):
            values = []
            for step in (eps, -eps):
                moved = base.copy()
                moved[j] += step
                values.append(float(np.sum(np.asarray(c.np(*args[:i], moved, *args[i + 1 :])) * w)))
            g[j] = (values[0] - values[1]) / (2 * eps)
        grads.append(g)
    return grads


def spec(a: np.ndarray) -> dict[str, Any]:
    """A JSON-able tensor spec (values, shape, dtype) for the runners."""
    dtype = {"f": "float32", "i": "int32", "b": "bool"}[a.dtype.kind]
    return {"values": a.ravel().tolist(), "shape": list(a.shape), "dtype": dtype}


def payload(cases: list[Case]) -> list[dict[str, Any]]:
    """The cases as the runners take them."""
    return [
        {
            "name": c.name,
            "py": c.py,
            "js": c.js,
            "inputs": [spec(x) for x in c.inputs],
            "wrt": list(c.wrt_indices),
            "dy": spec(dy_for(c)),
        }
        for c in cases
    ]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _pads(size: int, f: int, s: int, d: int, pad: Any) -> tuple[int, int, int]:
    """(pad before, pad after, output size) along one axis (TF's 'same' / 'valid' / a number / explicit)."""
    eff = (f - 1) * d + 1
    if pad == "same":
        out = -(-size // s)
        total = max(0, (out - 1) * s + eff - size)
        return total // 2, total - total // 2, out
    before, after = (0, 0) if pad == "valid" else (pad, pad) if isinstance(pad, int) else pad
    return before, after, (size + before + after - eff) // s + 1


def _windows(x: np.ndarray, fh: int, fw: int, strides: Any, pad: Any, dil: int = 1, fill: float = 0.0) -> Any:
    """Per filter tap (r, s): x at that tap for every output pixel, [b, oh, ow, c] (padding = fill)."""
    (sh, sw), pads = (strides, strides) if isinstance(strides, int) else strides, (pad, pad)
    if isinstance(pad, list):
        pads = (tuple(pad[1]), tuple(pad[2]))
    top, bottom, oh = _pads(x.shape[1], fh, sh, dil, pads[0])
    left, right, ow = _pads(x.shape[2], fw, sw, dil, pads[1])
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)
    rows, cols = (oh - 1) * sh + 1, (ow - 1) * sw + 1
    for r in range(fh):
        for c in range(fw):
            yield r, c, xp[:, r * dil : r * dil + rows : sh, c * dil : c * dil + cols : sw]


def _conv(x: np.ndarray, f: np.ndarray, strides: Any, pad: Any, dil: int = 1, depthwise: bool = False) -> Any:
    out = 0.0
    for r, c, win in _windows(x, f.shape[0], f.shape[1], strides, pad, dil):
        part = win[..., None] * f[r, c] if depthwise else win @ f[r, c]
        out = out + (part.reshape(*win.shape[:3], -1) if depthwise else part)
    return out


def _conv_transpose(x: np.ndarray, f: np.ndarray, out_shape: tuple, stride: int, pad: str) -> Any:
    """conv2d_transpose: each pixel of x spread through the filter, the forward conv's padding cropped."""
    b, h, w, c = out_shape
    top, _, oh = _pads(h, f.shape[0], stride, 1, pad)
    left, _, ow = _pads(w, f.shape[1], stride, 1, pad)
    rows, cols = (oh - 1) * stride + 1, (ow - 1) * stride + 1
    acc = np.zeros((b, rows + f.shape[0] + h, cols + f.shape[1] + w, c))
    for r in range(f.shape[0]):
        for k in range(f.shape[1]):
            acc[:, r : r + rows : stride, k : k + cols : stride] += x @ f[r, k].T
    return acc[:, top : top + h, left : left + w]


def _pool(x: np.ndarray, size: int, strides: int, pad: Any, is_max: bool) -> Any:
    taps = np.stack([w for _, _, w in _windows(x, size, size, strides, pad, fill=np.nan)])
    return np.nanmax(taps, 0) if is_max else np.nanmean(taps, 0)


def _resize_matrix(n_in: int, n_out: int, align: bool, half: bool, bilinear: bool) -> np.ndarray:
    """[n_out, n_in]: the forward resize along one axis (TF.js's source coordinates)."""
    ratio = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        if bilinear:
            src = ratio * (o + 0.5) - 0.5 if half else ratio * o
            lo, hi = max(0, math.floor(src)), min(n_in - 1, math.ceil(src))
            m[o, lo] += 1 - (src - lo)
            m[o, hi] += src - lo
        else:
            src = ratio * (o + 0.5) if half else ratio * o
            m[o, max(0, min(n_in - 1, math.floor(src + 0.5) if align else math.floor(src)))] = 1
    return m


def _resize(x: np.ndarray, size: tuple[int, int], align: bool, half: bool, bilinear: bool) -> Any:
    wy = _resize_matrix(x.shape[1], size[0], align, half, bilinear)
    wx = _resize_matrix(x.shape[2], size[1], align, half, bilinear)
    return np.einsum("oh,bhwc,pw->bopc", wy, x, wx)


_erf = np.vectorize(math.erf)
SELU = (1.0507009873554805, 1.7580993408473766)

# The table is data, one case per line where it fits: the formatter leaves it alone.
# fmt: off
# ---- unary -------------------------------------------------------------------------------------
case("Abs", "lambda x: tf.abs(x)", np.abs, away(2, 3), js="x => tf.abs(x)")
case("Acos", "lambda x: tf.acos(x)", np.arccos, r(2, 3, lo=-0.9, hi=0.9), js="x => tf.acos(x)")
case("Asin", "lambda x: tf.asin(x)", np.arcsin, r(2, 3, lo=-0.9, hi=0.9), js="x => tf.asin(x)")
case("Atan", "lambda x: tf.atan(x)", np.arctan, r(2, 3, lo=-3, hi=3), js="x => tf.atan(x)")
case("Cos", "lambda x: tf.cos(x)", np.cos, r(2, 3, lo=-3, hi=3), js="x => tf.cos(x)")
case("Cosh", "lambda x: tf.cosh(x)", np.cosh, r(2, 3, lo=-2, hi=2), js="x => tf.cosh(x)")
case("Sin", "lambda x: tf.sin(x)", np.sin, r(2, 3, lo=-3, hi=3), js="x => tf.sin(x)")
case("Sinh", "lambda x: tf.sinh(x)", np.sinh, r(2, 3, lo=-2, hi=2), js="x => tf.sinh(x)")
case("Tan", "lambda x: tf.tan(x)", np.tan, r(2, 3, lo=-1.2, hi=1.2), js="x => tf.tan(x)")
case("Tanh", "lambda x: tf.tanh(x)", np.tanh, r(2, 3, lo=-2, hi=2), js="x => tf.tanh(x)")
case("Erf", "lambda x: tf.erf(x)", _erf, r(2, 3, lo=-2, hi=2), js="x => tf.erf(x)")
case("Exp", "lambda x: tf.exp(x)", np.exp, r(2, 3, lo=-2, hi=2), js="x => tf.exp(x)")
case("Expm1", "lambda x: tf.expm1(x)", np.expm1, r(2, 3, lo=-2, hi=2), js="x => tf.expm1(x)")
case("Log", "lambda x: tf.log(x)", np.log, r(2, 3, lo=0.2, hi=3), js="x => tf.log(x)")
case("Log1p", "lambda x: tf.log1p(x)", np.log1p, r(2, 3, lo=-0.5, hi=3), js="x => tf.log1p(x)")
case("Neg", "lambda x: tf.neg(x)", np.negative, r(2, 3), js="x => tf.neg(x)")
case("Reciprocal", "lambda x: tf.reciprocal(x)", np.reciprocal, away(2, 3, gap=0.5), js="x => tf.reciprocal(x)")
case("Relu", "lambda x: tf.relu(x)", lambda x: np.maximum(x, 0), away(2, 3), js="x => tf.relu(x)")
case(
    "Relu6",
    "lambda x: tf.relu6(x)",
    lambda x: np.clip(x, 0, 6),
    np.array([[-1.5, 0.5, 3.0], [5.5, 6.5, 9.0]], F32),
    js="x => tf.relu6(x)",
)
case(
    "LeakyRelu",
    "lambda x: tf.leaky_relu(x, 0.3)",
    lambda x: np.where(x > 0, x, 0.3 * x),
    away(2, 3),
    js="x => tf.leakyRelu(x, 0.3)",
)
case("Rsqrt", "lambda x: tf.rsqrt(x)", lambda x: x**-0.5, r(2, 3, lo=0.3, hi=3), js="x => tf.rsqrt(x)")
case(
    "Selu",
    "lambda x: tf.selu(x)",
    lambda x: np.where(x >= 0, SELU[0] * x, SELU[1] * np.expm1(x)),
    away(2, 3),
    js="x => tf.selu(x)",
)
case("Sigmoid", "lambda x: tf.sigmoid(x)", _sigmoid, r(2, 3, lo=-3, hi=3), js="x => tf.sigmoid(x)")
case("Softplus", "lambda x: tf.softplus(x)", lambda x: np.logaddexp(0, x), r(2, 3, lo=-3, hi=3),
     js="x => tf.softplus(x)")
case("Sqrt", "lambda x: tf.sqrt(x)", np.sqrt, r(2, 3, lo=0.3, hi=3), js="x => tf.sqrt(x)")
case("Square", "lambda x: tf.square(x)", np.square, r(2, 3), js="x => tf.square(x)")
case("Square/int32 x", "lambda x: tf.square(x)", np.square, ints([[1, -2], [3, 0]]), wrt=(0,),
     js="x => tf.square(x)")
case(
    "ClipByValue",
    "lambda x: tf.clip_by_value(x, -0.5, 0.5)",
    lambda x: np.clip(x, -0.5, 0.5),
    np.array([[-0.9, -0.3, 0.1], [0.4, 0.7, -0.6]], F32),
    js="x => tf.clipByValue(x, -0.5, 0.5)",
)
case("Step/Sign/Round/Floor/Ceil (zero)",
     "lambda x: tf.add_n([tf.step(x), tf.sign(x), tf.round(x), tf.floor(x), tf.ceil(x), x])",
     lambda x: (x > 0) + np.sign(x) + np.round(x) + np.floor(x) + np.ceil(x) + x,
     away(2, 3, gap=0.1) * 2.2,
     js="x => tf.addN([tf.step(x), tf.sign(x), tf.round(x), tf.floor(x), tf.ceil(x), x])")
case(
    "IsNan/IsFinite/IsInf (zero)",
    "lambda x: x * tf.cast(tf.is_finite(x), 'float32') + tf.cast(tf.is_nan(x), 'float32')"
    " + tf.cast(tf.is_inf(x), 'float32')",
    lambda x: x * np.isfinite(x) + np.isnan(x) + np.isinf(x),
    r(2, 3),
    js="x => x.mul(tf.isFinite(x).toFloat()).add(tf.isNaN(x).toFloat()).add(tf.isInf(x).toFloat())",
)
case("Cast/to int32 (zero)", "lambda x: tf.cast(x, 'int32') * x", lambda x: np.trunc(x) * x, r(2, 3, lo=-3, hi=3))
case("Cast/int32 to float32", "lambda x: tf.cast(x, 'float32') * 2.5", lambda x: x * 2.5, ints([1, -2]), wrt=(0,),
     js="x => tf.cast(x, 'float32').mul(2.5)")
case("Identity", "lambda x: tf.clone(x) * x", lambda x: x * x, r(2, 3), js="x => tf.clone(x).mul(x)")
case("ZerosLike/OnesLike", "lambda x: x * tf.ones_like(x) + tf.zeros_like(x)", lambda x: x, r(2, 3),
     js="x => x.mul(tf.onesLike(x)).add(tf.zerosLike(x))")
case("LogicalNot", "lambda x: tf.where(tf.logical_not(x > 0), x, x * 2)", lambda x: np.where(x > 0, 2 * x, x),
     away(2, 3))

# ---- binary ------------------------------------------------------------------------------------
case("Add/broadcast", "lambda a, b: tf.add(a, b)", np.add, r(2, 3), r(3), js="(a, b) => tf.add(a, b)")
case("Sub/broadcast", "lambda a, b: a - b", np.subtract, r(2, 1), r(3), js="(a, b) => tf.sub(a, b)")
case("Multiply/broadcast", "lambda a, b: a * b", np.multiply, r(2, 3), r(2, 1), js="(a, b) => tf.mul(a, b)")
case("Multiply/scalar", "lambda a, b: tf.mul(a, b)", np.multiply, r(2, 3), r(), js="(a, b) => tf.mul(a, b)")
case("Multiply/same input", "lambda a: a * a * a", lambda a: a**3, r(2, 3), js="a => a.mul(a).mul(a)")
case("RealDiv/broadcast", "lambda a, b: a / b", np.divide, r(2, 3), away(3, gap=0.5), js="(a, b) => tf.div(a, b)")
case("Pow", "lambda a, b: tf.pow(a, b)", np.power, r(2, 3, lo=0.5, hi=2), r(2, 3), js="(a, b) => tf.pow(a, b)")
case("Pow/broadcast", "lambda a, b: a ** b", np.power, r(2, 3, lo=0.5, hi=2), r(3), js="(a, b) => tf.pow(a, b)")
case("Maximum", "lambda a, b: tf.maximum(a, b)", np.maximum, r(2, 3), r(2, 3), js="(a, b) => tf.maximum(a, b)")
case("Maximum/broadcast", "lambda a, b: tf.maximum(a, b)", np.maximum, r(2, 3), r(3))
case("Minimum", "lambda a, b: tf.minimum(a, b)", np.minimum, r(2, 3), r(2, 3), js="(a, b) => tf.minimum(a, b)")
case("Minimum/broadcast", "lambda a, b: tf.minimum(a, b)", np.minimum, r(1, 3), r(2, 1))
case("SquaredDifference", "lambda a, b: tf.squared_difference(a, b)", lambda a, b: (a - b) ** 2, r(2, 3), r(2, 3),
     js="(a, b) => tf.squaredDifference(a, b)")
case("SquaredDifference/broadcast", "lambda a, b: tf.squared_difference(a, b)", lambda a, b: (a - b) ** 2, r(2, 3),
     r(3))
case("Atan2/broadcast", "lambda a, b: tf.atan2(a, b)", np.arctan2, r(2, 3), away(3), js="(a, b) => tf.atan2(a, b)")
case("Mod", "lambda a, b: tf.mod(a, b)", np.mod, r(2, 3, lo=0.1, hi=3), r(2, 3, lo=0.7, hi=1.3),
     js="(a, b) => tf.mod(a, b)")
case("FloorDiv (zero)", "lambda a, b: tf.cast(tf.floor_div(a, b), 'float32') + a", lambda a, b: np.floor(a / b) + a,
     r(2, 3, lo=0.1, hi=3), r(2, 3, lo=0.7, hi=1.3))
case("Prelu", "lambda x, alpha: tf.prelu(x, alpha)", lambda x, a: np.where(x > 0, x, a * x), away(2, 3), r(3),
     js="(x, a) => tf.prelu(x, a)")
case("Select", "lambda c, a, b: tf.where(c, a, b)", np.where, bools([[1, 0, 0], [1, 1, 0]]), r(2, 3), r(2, 3),
     js="(c, a, b) => tf.where(c, a, b)")
case("Select/broadcast", "lambda c, a, b: tf.where(c, a, b)", np.where, bools([[1], [0]]), r(3), r(2, 3))
case("AddN", "lambda a, b: tf.add_n([a, b, a])", lambda a, b: 2 * a + b, r(2, 3), r(2, 3),
     js="(a, b) => tf.addN([a, b, a])")
case("GreaterEqual", "lambda a, b: tf.where(tf.greater_equal(a, b), a, b)", np.maximum, r(2, 3), r(2, 3),
     js="(a, b) => tf.where(tf.greaterEqual(a, b), a, b)")
case(
    "Equal/NotEqual/Less/LessEqual/Greater (zero)",
    "lambda a, b: tf.where(tf.logical_or(tf.logical_and(tf.less(a, b), tf.less_equal(a, b)), tf.equal(a, b)), a, b)"
    " + tf.where(tf.logical_and(tf.greater(a, b), tf.not_equal(a, b)), a, b)",
    lambda a, b: np.where(a < b, a, b) + np.where(a > b, a, b),
    r(2, 3),
    r(2, 3),
)

# ---- reductions, scans, softmax ----------------------------------------------------------------
case("Sum/axis", "lambda x: tf.sum(x, 1)", lambda x: x.sum(1), r(2, 3), js="x => tf.sum(x, 1)")
case("Sum/all", "lambda x: tf.sum(x)", np.sum, r(2, 3, 2), js="x => tf.sum(x)")
case("Mean/keep_dims", "lambda x: tf.mean(x, 0, True)", lambda x: x.mean(0, keepdims=True), r(2, 3),
     js="x => tf.mean(x, 0, true)")
case("Mean/axes", "lambda x: tf.mean(x, [0, 2])", lambda x: x.mean((0, 2)), r(2, 3, 2), js="x => tf.mean(x, [0, 2])")
case("Max", "lambda x: tf.max(x, -1)", lambda x: x.max(-1), r(2, 3), js="x => tf.max(x, -1)")
case("Min", "lambda x: tf.min(x, [0, 1])", lambda x: x.min((0, 1)), r(2, 3, 2), js="x => tf.min(x, [0, 1])")
case("Prod/axis", "lambda x: tf.prod(x, 1)", lambda x: x.prod(1), r(2, 3), js="x => tf.prod(x, 1)")
case("Prod/axes with a zero", "lambda x: tf.prod(x, [0, 2])", lambda x: x.prod((0, 2)),
     np.array([[[0.5, 2.0], [0.0, 3.0]], [[1.5, -1.0], [2.0, 0.5]]], F32), js="x => tf.prod(x, [0, 2])")
case("All/Any (zero)", "lambda x: tf.where(tf.logical_and(tf.all(x > -2, 1, True), tf.any(x > 0, 1, True)), x, -x)",
     lambda x: x, r(2, 3))
case("ArgMax/ArgMin/GatherV2 indices (zero)",
     "lambda x: tf.gather(x, tf.arg_max(x, 1)) + tf.gather(x, tf.arg_min(x, 0), 1)",
     lambda x: x[x.argmax(1)] + x[:, x.argmin(0)], r(3, 3))
case("Cumsum", "lambda x: tf.cumsum(x, 1)", lambda x: x.cumsum(1), r(2, 3), js="x => tf.cumsum(x, 1)")
case("Cumsum/exclusive reverse axis 0", "lambda x: tf.cumsum(x, 0, True, True)",
     lambda x: np.flip(np.flip(x, 0).cumsum(0), 0) - x, r(3, 2))
case("Cumprod", "lambda x: tf.cumprod(x, 1)", lambda x: x.cumprod(1), away(2, 3))
case("Cumprod/exclusive reverse", "lambda x: tf.cumprod(x, 1, True, True)",
     lambda x: np.flip(np.flip(x, 1).cumprod(1), 1) / x, away(2, 3))
case("Softmax", "lambda x: tf.softmax(x)", _softmax, r(2, 4, lo=-2, hi=2), js="x => tf.softmax(x)")
case("LogSoftmax", "lambda x: tf.log_softmax(x)", lambda x: np.log(_softmax(x)), r(2, 4, lo=-2, hi=2),
     js="x => tf.logSoftmax(x)")
case("log_sum_exp", "lambda x: tf.log_sum_exp(x, 1)", lambda x: np.log(np.exp(x).sum(1)), r(2, 3),
     js="x => tf.logSumExp(x, 1)")

# ---- matmul ------------------------------------------------------------------------------------
for ta in (False, True):
    for tb in (False, True):
        a, b = r(*((3, 2) if ta else (2, 3))), r(*((4, 3) if tb else (3, 4)))
        case(f"BatchMatMul/ta={ta},tb={tb}", f"lambda a, b: tf.mat_mul(a, b, {ta}, {tb})",
             lambda a, b, ta=ta, tb=tb: (a.T if ta else a) @ (b.T if tb else b), a, b,
             js=f"(a, b) => tf.matMul(a, b, {str(ta).lower()}, {str(tb).lower()})")
case("BatchMatMul/batched", "lambda a, b: a @ b", np.matmul, r(2, 2, 3), r(2, 3, 2), js="(a, b) => tf.matMul(a, b)")
case("BatchMatMul/broadcast batch", "lambda a, b: a @ b", np.matmul, r(2, 1, 2, 3), r(3, 3, 2))
for act, fn, js in (
    ("linear", lambda z: z, True),
    ("relu", lambda z: np.maximum(z, 0), True),
    ("relu6", lambda z: np.clip(z, 0, 6), False),
    ("sigmoid", _sigmoid, False),
    ("leakyrelu", lambda z: np.where(z > 0, z, 0.2 * z), False),
):
    case(f"_FusedMatMul/{act}", f"lambda a, b, bias: tf.fused.mat_mul(a, b, bias=bias, activation='{act}')",
         lambda a, b, bias, fn=fn: fn(a @ b + bias), r(2, 3), r(3, 4), r(4),
         js=f"(a, b, bias) => tf.fused.matMul({{a, b, bias, activation: '{act}'}})" if js else None)
case("_FusedMatMul/prelu transposed", "lambda a, b, bias, w: tf.fused.mat_mul(a, b, True, False, bias, 'prelu', w)",
     lambda a, b, bias, w: (lambda z: np.where(z > 0, z, w * z))(a.T @ b + bias), r(3, 2), r(3, 4), r(2, 1),
     r(4))

# ---- shapes ------------------------------------------------------------------------------------
case("Reshape", "lambda x: tf.reshape(x, [3, 2])", lambda x: x.reshape(3, 2), r(2, 3), js="x => tf.reshape(x, [3, 2])")
case("ExpandDims/squeeze", "lambda x: tf.squeeze(tf.expand_dims(x, 1)) * tf.expand_dims(x, 0)",
     lambda x: x * x[None], r(2, 3), js="x => tf.squeeze(tf.expandDims(x, 1)).mul(tf.expandDims(x, 0))")
case("Transpose", "lambda x: tf.transpose(x, [1, 2, 0])", lambda x: x.transpose(1, 2, 0), r(2, 3, 2),
     js="x => tf.transpose(x, [1, 2, 0])")
case("Concat", "lambda a, b: tf.concat([a, b, a], 1)", lambda a, b: np.concatenate([a, b, a], 1), r(2, 1), r(2, 3),
     js="(a, b) => tf.concat([a, b, a], 1)")
case("Pack", "lambda a, b: tf.stack([a, b], 1)", lambda a, b: np.stack([a, b], 1), r(2, 3), r(2, 3),
     js="(a, b) => tf.stack([a, b], 1)")
case("Unpack/one output used", "lambda x: tf.unstack(x, 1)[2]", lambda x: x[:, 2], r(2, 3),
     js="x => tf.unstack(x, 1)[2]")
case("SplitV", "lambda x: tf.mul(*tf.split(x, 2, 0))", lambda x: x[:2] * x[2:], r(4, 3),
     js="x => tf.mul(...tf.split(x, 2, 0))")
case("SplitV/sizes", "lambda x: tf.split(x, [1, -1], 1)[1]", lambda x: x[:, 1:], r(2, 3),
     js="x => tf.split(x, [1, -1], 1)[1]")
case("Tile", "lambda x: tf.tile(x, [2, 3])", lambda x: np.tile(x, (2, 3)), r(2, 3), js="x => tf.tile(x, [2, 3])")
case("Tile/rank 3", "lambda x: tf.tile(x, [1, 2, 2])", lambda x: np.tile(x, (1, 2, 2)), r(2, 1, 2),
     js="x => tf.tile(x, [1, 2, 2])")
case("broadcast_to", "lambda x: tf.broadcast_to(x, [2, 2, 3])", lambda x: np.broadcast_to(x, (2, 2, 3)), r(2, 1),
     js="x => tf.broadcastTo(x, [2, 2, 3])")
case("Reverse", "lambda x: tf.reverse(x, [0, 2])", lambda x: x[::-1, :, ::-1], r(2, 2, 3),
     js="x => tf.reverse(x, [0, 2])")
case("FlipLeftRight", "lambda x: tf.image.flip_left_right(x)", lambda x: x[:, :, ::-1], r(1, 2, 3, 2))
case("DepthToSpace", "lambda x: tf.depth_to_space(x, 2)",
     lambda x: x.reshape(1, 2, 1, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5).reshape(1, 4, 2, 2), r(1, 2, 1, 8))
case("DepthToSpace/NCHW", "lambda x: tf.depth_to_space(x, 2, 'NCHW')",
     lambda x: x.reshape(1, 2, 2, 2, 2, 1).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 2), r(1, 8, 2, 1))
case("SpaceToBatchND", "lambda x: tf.space_to_batch_nd(x, [2, 2], [[0, 0], [1, 1]])",
     lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0))).reshape(1, 1, 2, 2, 2, 1).transpose(2, 4, 0, 1, 3, 5)
     .reshape(4, 1, 2, 1), r(1, 2, 2, 1), js="x => tf.spaceToBatchND(x, [2, 2], [[0, 0], [1, 1]])")
case("BatchToSpaceND", "lambda x: tf.batch_to_space_nd(x, [2, 1], [[0, 1], [0, 0]])",
     lambda x: x.reshape(2, 1, 2, 3, 1).transpose(1, 2, 0, 3, 4).reshape(1, 4, 3, 1)[:, :3], r(2, 2, 3, 1),
     js="x => tf.batchToSpaceND(x, [2, 1], [[0, 1], [0, 0]])")

# ---- slicing, padding, gathering ---------------------------------------------------------------
case("Slice", "lambda x: tf.slice(x, [1, 0], [1, 2])", lambda x: x[1:2, 0:2], r(3, 3),
     js="x => tf.slice(x, [1, 0], [1, 2])")
case("StridedSlice", "lambda x: tf.strided_slice(x, [0, 1], [3, 4], [2, 2])", lambda x: x[0:3:2, 1:4:2], r(3, 4))
case("StridedSlice/negative stride", "lambda x: tf.strided_slice(x, [-1, 3], [0, 0], [-1, -2])",
     lambda x: x[-1:0:-1, 3:0:-2], r(3, 5))
case("StridedSlice/shrink, new axis", "lambda x: tf.strided_slice(x, [1, 0, 0], [2, 0, 3], [1, 1, 3], "
     "shrink_axis_mask=1, new_axis_mask=2, end_mask=2)", lambda x: x[1, None, :3:3], r(3, 5))
case("StridedSlice/ellipsis", "lambda x: tf.strided_slice(x, [0, 1], [0, 3], [1, 1], ellipsis_mask=1)",
     lambda x: x[..., 1:3], r(2, 2, 4))
case("PadV2", "lambda x: tf.pad(x, [[1, 0], [2, 1]], 3.0)", lambda x: np.pad(x, ((1, 0), (2, 1)), constant_values=3),
     r(2, 3), js="x => tf.pad(x, [[1, 0], [2, 1]], 3)")
case("MirrorPad/reflect", "lambda x: tf.mirror_pad(x, [[1, 1], [2, 1]], 'reflect')",
     lambda x: np.pad(x, ((1, 1), (2, 1)), mode="reflect"), r(3, 3))
case("MirrorPad/symmetric", "lambda x: tf.mirror_pad(x, [[0, 2], [1, 0]], 'symmetric')",
     lambda x: np.pad(x, ((0, 2), (1, 0)), mode="symmetric"), r(2, 3))
case("GatherV2", "lambda x, i: tf.gather(x, i)", lambda x, i: x[i], r(3, 2), ints([2, 0, 2, 2]),
     js="(x, i) => tf.gather(x, i)")
case("GatherV2/axis 1, 2-D indices", "lambda x, i: tf.gather(x, i, 1)", lambda x, i: x[:, i], r(2, 3, 2),
     ints([[1, 1], [0, 2]]), js="(x, i) => tf.gather(x, i, 1)")
case("GatherV2/batch_dims", "lambda x, i: tf.gather(x, i, 1, 1)",
     lambda x, i: np.stack([x[k][i[k]] for k in range(2)]), r(2, 3, 2), ints([[2, 2, 0], [1, 0, 1]]),
     js="(x, i) => tf.gather(x, i, 1, 1)")
case("GatherNd", "lambda x, i: tf.gather_nd(x, i)", lambda x, i: x[tuple(i.T)], r(3, 2, 2),
     ints([[2, 1], [0, 0], [2, 1]]))
case("OneHot", "lambda x: tf.one_hot(tf.arg_max(x, 1), 3, 1.0, 0.0, 'float32') * x",
     lambda x: np.eye(3)[x.argmax(1)] * x, r(2, 3), js="x => tf.oneHot(tf.argMax(x, 1), 3).mul(x)")
case("TopK", "lambda x: tf.top_k(x, 2).values", lambda x: -np.sort(-x, -1)[..., :2], r(2, 4))
case("NonMaxSuppressionV3 (zero)/V4", "lambda b, s: tf.gather(b, tf.image.non_max_suppression(b, s, 2)) * "
     "tf.reshape(tf.gather(s, tf.image.non_max_suppression_padded(b, s, 2)['selected_indices']), [2, 1])",
     lambda b, s: b[[0, 2]] * s[[0, 2]][:, None],
     np.array([[0, 0, 1, 1], [0, 0, 0.9, 1], [2, 2, 3, 3]], F32), np.array([0.9, 0.8, 0.7], F32))
case("NonMaxSuppressionV5", "lambda b, s: tf.image.non_max_suppression_with_score(b, s, 2)['selected_scores']",
     lambda b, s: s[[0, 2]], np.array([[0, 0, 1, 1], [0, 0, 0.9, 1], [2, 2, 3, 3]], F32),
     np.array([0.9, 0.8, 0.7], F32))
# ---- convolution, pooling, resizing ------------------------------------------------------------
# (TF.js 4.22 has no gradient for: fused activations other than relu, dilated convs, and its AvgPoolGrad
# divides clipped windows by the full window size; its ResizeBilinearGrad ignores half_pixel_centers and
# transposes non-square images: those cases check against numpy only)
case("Conv2D/same stride 2", "lambda x, f: tf.conv2d(x, f, 2, 'same')", lambda x, f: _conv(x, f, 2, "same"),
     r(2, 5, 5, 2), r(3, 3, 2, 3), js="(x, f) => tf.conv2d(x, f, 2, 'same')")
case("Conv2D/explicit pad, rank 3", "lambda x, f: tf.conv2d(x, f, [2, 1], [[0, 0], [1, 2], [0, 1], [0, 0]])",
     lambda x, f: _conv(x[None], f, (2, 1), [[0, 0], [1, 2], [0, 1], [0, 0]])[0], r(6, 5, 3), r(2, 3, 3, 2),
     js="(x, f) => tf.conv2d(x, f, [2, 1], [[0, 0], [1, 2], [0, 1], [0, 0]])")
case("Conv2D/valid 1x1", "lambda x, f: tf.conv2d(x, f, 1, 'valid')", lambda x, f: _conv(x, f, 1, "valid"),
     r(2, 3, 3, 3), r(1, 1, 3, 4), js="(x, f) => tf.conv2d(x, f, 1, 'valid')")
case("Conv2DBackpropInput (conv2d_transpose)", "lambda x, f: tf.conv2d_transpose(x, f, [1, 6, 5, 2], 2, 'same')",
     lambda x, f: _conv_transpose(x, f, (1, 6, 5, 2), 2, "same"),
     r(1, 3, 3, 3), r(3, 3, 2, 3), js="(x, f) => tf.conv2dTranspose(x, f, [1, 6, 5, 2], 2, 'same')")
case("DepthwiseConv2dNative", "lambda x, f: tf.depthwise_conv2d(x, f, 1, 'same')",
     lambda x, f: _conv(x, f, 1, "same", depthwise=True), r(1, 5, 4, 2), r(3, 3, 2, 2),
     js="(x, f) => tf.depthwiseConv2d(x, f, 1, 'same')")
case("DepthwiseConv2dNative/stride 2 valid", "lambda x, f: tf.depthwise_conv2d(x, f, 2, 'valid')",
     lambda x, f: _conv(x, f, 2, "valid", depthwise=True), r(2, 6, 5, 3), r(2, 3, 3, 1),
     js="(x, f) => tf.depthwiseConv2d(x, f, 2, 'valid')")
case("DepthwiseConv2dNative/dilated", "lambda x, f: tf.depthwise_conv2d(x, f, 1, 'same', 'NHWC', 2)",
     lambda x, f: _conv(x, f, 1, "same", 2, True), r(1, 6, 6, 2), r(2, 2, 2, 1))
for act, fn in (("linear", lambda z: z), ("relu", lambda z: np.maximum(z, 0)), ("relu6", lambda z: np.clip(z, 0, 6)),
                ("elu", lambda z: np.where(z >= 0, z, np.expm1(np.minimum(z, 0)))), ("sigmoid", _sigmoid),
                ("leakyrelu", lambda z: np.where(z > 0, z, 0.2 * z))):
    js = f"(x, f, b) => tf.fused.conv2d({{x, filter: f, strides: 1, pad: 'same', bias: b, activation: '{act}'}})"
    case(f"FusedConv2D/{act}", f"lambda x, f, b: tf.fused.conv2d(x, f, 1, 'same', bias=b, activation='{act}')",
         lambda x, f, b, fn=fn: fn(_conv(x, f, 1, "same") + b), r(1, 4, 4, 2), r(3, 3, 2, 3), r(3),
         js=js if act in ("linear", "relu") else None)
case("FusedConv2D/prelu, leakyrelu < 0",
     "lambda x, f, b, w: tf.fused.conv2d(x, f, 2, 'valid', bias=b, activation='prelu', prelu_activation_weights=w)"
     " + tf.fused.conv2d(x, f, 2, 'valid', bias=b, activation='leakyrelu', leakyrelu_alpha=-0.3)",
     lambda x, f, b, w: (lambda z: np.where(z > 0, z, w * z) + np.where(z > 0, z, -0.3 * z))(_conv(x, f, 2, "valid")
     + b), r(1, 5, 5, 2), r(3, 3, 2, 3), r(1, 1, 1, 3), r(3))
case("FusedDepthwiseConv2D/relu", "lambda x, f, b: tf.fused.depthwise_conv2d(x, f, 1, 'valid', bias=b, activation="
     "'relu')", lambda x, f, b: np.maximum(_conv(x, f, 1, "valid", depthwise=True) + b, 0), r(1, 5, 5, 2),
     r(3, 3, 2, 2), r(4), js="(x, f, b) => tf.fused.depthwiseConv2d({x, filter: f, strides: 1, pad: 'valid', "
     "bias: b, activation: 'relu'})")
case("MaxPool/same 3x3 stride 2", "lambda x: tf.max_pool(x, 3, 2, 'same')", lambda x: _pool(x, 3, 2, "same", True),
     r(2, 5, 6, 2), js="x => tf.maxPool(x, 3, 2, 'same')")
case("MaxPool/valid 2x2", "lambda x: tf.max_pool(x, 2, 2, 'valid')", lambda x: _pool(x, 2, 2, "valid", True),
     r(2, 5, 4, 3), js="x => tf.maxPool(x, 2, 2, 'valid')")
case("AvgPool/valid 2x2", "lambda x: tf.avg_pool(x, 2, 2, 'valid')", lambda x: _pool(x, 2, 2, "valid", False),
     r(2, 4, 5, 3), js="x => tf.avgPool(x, 2, 2, 'valid')")
case("AvgPool/same 3x3 stride 2 (clipped windows)", "lambda x: tf.avg_pool(x, 3, 2, 'same')",
     lambda x: _pool(x, 3, 2, "same", False), r(1, 5, 6, 2))
case("ResizeBilinear/square", "lambda x: tf.image.resize_bilinear(x, [7, 7])",
     lambda x: _resize(x, (7, 7), False, False, True), r(1, 4, 4, 2), js="x => tf.image.resizeBilinear(x, [7, 7])")
case("ResizeBilinear/non-square, half pixel", "lambda x: tf.image.resize_bilinear(x, [5, 7], False, True)",
     lambda x: _resize(x, (5, 7), False, True, True), r(2, 3, 4, 2))
case("ResizeBilinear/align corners", "lambda x: tf.image.resize_bilinear(x, [3, 7], True)",
     lambda x: _resize(x, (3, 7), True, False, True), r(1, 5, 3, 1))
case("ResizeNearestNeighbor/square", "lambda x: tf.image.resize_nearest_neighbor(x, [6, 6])",
     lambda x: _resize(x, (6, 6), False, False, False), r(1, 4, 4, 2),
     js="x => tf.image.resizeNearestNeighbor(x, [6, 6])")
case("ResizeNearestNeighbor/non-square, align corners", "lambda x: tf.image.resize_nearest_neighbor(x, [5, 7], True)",
     lambda x: _resize(x, (5, 7), True, False, False), r(2, 3, 4, 2))
case("Elu", "lambda x: tf.elu(x)", lambda x: np.where(x >= 0, x, np.expm1(np.minimum(x, 0))), away(2, 3),
     js="x => tf.elu(x)")
# fmt: on


# ---- conv1d and the 3-D kernels (Conv3D, Conv3DBackpropInputV2, MaxPool3D, AvgPool3D) ----
def _windows3d(x: np.ndarray, window: tuple, strides: Any, pad: Any, fill: float = 0.0) -> Any:
    """Per filter tap (i, j, k): x at that tap for every output position [b, od, oh, ow, c]."""
    st = (strides,) * 3 if isinstance(strides, int) else strides
    geo = [_pads(n, w, s, 1, pad) for n, w, s in zip(x.shape[1:4], window, st, strict=True)]
    xp = np.pad(x, ((0, 0), *((b, a + 8) for b, a, _ in geo), (0, 0)), constant_values=fill)
    (sd, sh, sw), (od, oh, ow) = st, [g[2] for g in geo]
    for i, j, k in np.ndindex(*window):
        yield (i, j, k), xp[:, i : i + od * sd : sd, j : j + oh * sh : sh, k : k + ow * sw : sw]


def _conv3d(x: np.ndarray, f: np.ndarray, strides: Any, pad: Any) -> Any:
    return sum(win @ f[t] for t, win in _windows3d(x, f.shape[:3], strides, pad))


def _pool3d(x: np.ndarray, size: int, strides: int, pad: Any, is_max: bool) -> Any:
    taps = np.stack([w for _, w in _windows3d(x, (size,) * 3, strides, pad, fill=np.nan)])
    return np.nanmax(taps, 0) if is_max else np.nanmean(taps, 0)


def _conv3d_transpose(x: np.ndarray, f: np.ndarray, out_shape: tuple, strides: Any, pad: Any) -> Any:
    """conv3d's adjoint: the matrix of conv3d over the basis of its input space, transposed, times x."""
    n = int(np.prod(out_shape))
    cols = np.stack([_conv3d(u, f, strides, pad).ravel() for u in np.eye(n).reshape(n, *out_shape)])
    return (cols @ x.ravel()).reshape(out_shape)


# fmt: off
case("Conv1D (via Conv2D)", "lambda x, f: tf.conv1d(x, f, 2, 'same')",
     lambda x, f: _conv(x[:, None], f[None], (1, 2), "same")[:, 0], r(2, 7, 2), r(3, 2, 3),
     js="(x, f) => tf.conv1d(x, f, 2, 'same')")
case("Conv3D/same stride [1, 2, 1]", "lambda x, f: tf.conv3d(x, f, [1, 2, 1], 'same')",
     lambda x, f: _conv3d(x, f, (1, 2, 1), "same"), r(1, 3, 4, 3, 2), r(2, 3, 2, 2, 2),
     js="(x, f) => tf.conv3d(x, f, [1, 2, 1], 'same')")
case("Conv3D/valid, rank 4", "lambda x, f: tf.conv3d(x, f, 1, 'valid')",
     lambda x, f: _conv3d(x[None], f, 1, "valid")[0], r(3, 3, 4, 2), r(2, 2, 3, 2, 2),
     js="(x, f) => tf.conv3d(x, f, 1, 'valid')")
case("Conv3DBackpropInputV2 (conv3d_transpose)",
     "lambda x, f: tf.conv3d_transpose(x, f, [1, 4, 3, 4, 2], 2, 'same')",
     lambda x, f: _conv3d_transpose(x, f, (1, 4, 3, 4, 2), 2, "same"), r(1, 2, 2, 2, 3), r(2, 2, 3, 2, 3))
case("MaxPool3D/valid 2 stride 2", "lambda x: tf.max_pool3d(x, 2, 2, 'valid')",
     lambda x: _pool3d(x, 2, 2, "valid", True), r(2, 4, 4, 2, 2), js="x => tf.maxPool3d(x, 2, 2, 'valid')")
case("AvgPool3D/valid 2 stride 1", "lambda x: tf.avg_pool3d(x, 2, 1, 'valid')",
     lambda x: _pool3d(x, 2, 1, "valid", False), r(1, 3, 3, 4, 2), js="x => tf.avgPool3d(x, 2, 1, 'valid')")
case("AvgPool3D/same 3 stride 2 (clipped windows)", "lambda x: tf.avg_pool3d(x, 3, 2, 'same')",
     lambda x: _pool3d(x, 3, 2, "same", False), r(1, 3, 4, 3, 1))
# ---- issue 15 (ops-math) ---------------------------------------------------------------------------------
# fmt: off
case("Acosh", "lambda x: tf.acosh(x)", np.arccosh, r(2, 3, lo=1.2, hi=3.0), js="x => tf.acosh(x)")
case("Asinh", "lambda x: tf.asinh(x)", np.arcsinh, r(2, 3, lo=-2.0, hi=2.0), js="x => tf.asinh(x)")
case("Atanh", "lambda x: tf.atanh(x)", np.arctanh, r(2, 3, lo=-0.8, hi=0.8), js="x => tf.atanh(x)")
case("log_sigmoid", "lambda x: tf.log_sigmoid(x)", lambda x: -np.logaddexp(0, -x), r(2, 3, lo=-3.0, hi=3.0),
     js="x => tf.logSigmoid(x)")
# fmt: on
# fmt: off
case("FusedBatchNorm/1-D params", "lambda x, m, v, o, s: tf.batch_norm(x, m, v, o, s, 0.01)",
     lambda x, m, v, o, s: (x - m) * s / np.sqrt(v + 0.01) + o, r(2, 3, 4), r(4), r(4, lo=0.5, hi=1.5), r(4), r(4),
     js="(x, m, v, o, s) => tf.batchNorm(x, m, v, o, s, 0.01)")
case("FusedBatchNorm/full params, no scale", "lambda x, m, v, o: tf.batch_norm(x, m, v, o)",
     lambda x, m, v, o: (x - m) / np.sqrt(v + 0.001) + o, r(3, 4), r(3, 4), r(3, 4, lo=0.5, hi=1.5), r(3, 4))


def _lrn(x, radius, bias, alpha, beta):
    c = x.shape[-1]
    sq = np.stack([np.sum(x[..., max(0, i - radius):i + radius + 1] ** 2, -1) for i in range(c)], -1)
    return x / (bias + alpha * sq) ** beta


case("LRN", "lambda x: tf.local_response_normalization(x, 2, 1.5, 0.3, 0.75)",
     lambda x: _lrn(x, 2, 1.5, 0.3, 0.75), r(1, 2, 3, 6), js="x => tf.localResponseNormalization(x, 2, 1.5, 0.3, 0.75)")
# fmt: on
# fmt: off
case("UnsortedSegmentSum", "lambda x, ids: tf.unsorted_segment_sum(x, ids, 3)",
     lambda x, ids: np.stack([x[ids == k].sum(0) for k in range(3)]), r(5, 2), ints([2, 0, 2, -1, 1]),
     js="(x, ids) => tf.unsortedSegmentSum(x, ids, 3)")
# fmt: on
# fmt: off


def _dilation(x, f, stride, dil):
    fh, fw, _ = f.shape
    eh, ew = (fh - 1) * dil + 1, (fw - 1) * dil + 1
    oh, ow = (x.shape[1] - eh) // stride + 1, (x.shape[2] - ew) // stride + 1
    out = np.full((x.shape[0], oh, ow, x.shape[3]), -np.inf)
    for ky in range(fh):
        for kx in range(fw):
            y0, x0 = ky * dil, kx * dil
            win = x[:, y0: y0 + (oh - 1) * stride + 1: stride, x0: x0 + (ow - 1) * stride + 1: stride]
            out = np.maximum(out, win + f[ky, kx])
    return out


case("Dilation2D", "lambda x, f: tf.dilation2d(x, f, 1, 'valid', 2)", lambda x, f: _dilation(x, f, 1, 2),
     r(1, 5, 5, 2), r(2, 2, 2), js="(x, f) => tf.dilation2d(x, f, 1, 'valid', 2)")
# fmt: on
