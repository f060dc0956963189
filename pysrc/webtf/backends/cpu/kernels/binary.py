"""cpu kernels for element-wise binary math, comparisons, logical ops, AddN and Select, with broadcasting.

Inputs, attrs and output dtypes: webtf.kernel_names. Division by zero never raises: int32 FloorDiv and Mod by
0 give 0 (what JS stores for nan / inf in an Int32Array). Select broadcasts its three inputs here (TF.js 4.x
broadcasts in the op).
"""

from __future__ import annotations

import math
import operator
from array import array
from collections.abc import Callable
from typing import Any

from .... import kernel_names as kn
from ....backend_util.elements import complex_binary
from ....shapes import broadcast_shapes
from ...base import TensorInfo, new_data_id
from .broadcast import operand, to_typed
from .lazy import packed_add
from .packed import _max_exponent

_INF, _NAN = math.inf, math.nan
_RAISES = (ZeroDivisionError, OverflowError, ValueError)


def _operands(backend: Any, a: Any, b: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    if a.shape == b.shape:  # nothing to broadcast
        return backend.values(a), backend.values(b)
    return operand(backend.values(a), a.shape, shape), operand(backend.values(b), b.shape, shape)


def _js_div(a: Any, b: Any) -> float:
    """a / b as JS computes it: division by zero gives +-inf, or nan for 0 / 0 and nan / 0."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def _js_floor_div(a: Any, b: Any) -> Any:
    q = _js_div(a, b)
    return math.floor(q) if math.isfinite(q) else 0


def _int_floor_div(a: int, b: int) -> int:
    return a // b if b else 0


def _int_mod(a: int, b: int) -> int:
    return a % b if b else 0


def _js_mod(a: float, b: float) -> float:
    """TF.js Mod: the JS remainder, moved to the sign of the divisor when the signs differ."""
    try:
        rem = math.fmod(a, b)
        if (a < 0 and b < 0) or (a >= 0 and b >= 0):
            return rem
        return math.fmod(rem + b, b)
    except ValueError:  # x % 0 and inf % y are nan in JS
        return _NAN


def _js_pow(a: Any, b: Any) -> float:
    """Math.pow: nan / +-inf instead of exceptions, and nan for 1 ** +-inf and 1 ** nan."""
    if b != b or (b in (_INF, -_INF) and abs(a) == 1):
        return _NAN
    try:
        return math.pow(a, b)
    except ValueError:  # 0 ** negative, or negative ** non-integer
        if a == 0:
            odd = b == int(b) and int(b) % 2 == 1
            return math.copysign(_INF, a) if odd else _INF
        return _NAN
    except OverflowError:
        odd = b == int(b) and int(b) % 2 == 1
        return -_INF if a < 0 and odd else _INF


def _kernel(
    fn: Callable[[Any, Any], Any],
    safe: Callable[[Any, Any], Any] | None = None,
    out_dtype: str | None = None,
    int_fn: Callable[[Any, Any], Any] | None = None,
    int_safe: Callable[[Any, Any], Any] | None = None,
    complex_of: str | None = None,
) -> Callable[..., TensorInfo]:
    """A broadcasting kernel: map(fn) at C speed, redone with `safe` (per element) if fn raises.

    int_fn / int_safe replace fn / safe when the inputs are int32 (or bool). `complex_of` names the kernel (of
    COMPLEX_BINARY) whose complex64 operands it routes itself (so for_dtypes adds no wrapper).
    """

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        a, b = inputs["a"], inputs["b"]
        if complex_of is not None and (a.dtype == "complex64" or b.dtype == "complex64"):
            return complex_binary(KERNELS, complex_of)(backend, inputs, attrs)
        sa = a.shape
        shape = sa if sa == b.shape and type(sa) is tuple else broadcast_shapes(sa, b.shape, "broadcast")
        is_int = a.dtype != "float32"
        f, s = (int_fn or fn, int_safe or safe) if is_int else (fn, safe)
        dtype = out_dtype or a.dtype
        try:
            out = to_typed(map(f, *_operands(backend, a, b, shape)), dtype)
        except _RAISES:
            if s is None:
                raise
            out = to_typed(map(s, *_operands(backend, a, b, shape)), dtype)
        return backend.output(out, shape, dtype)

    def fast(backend: Any, a: Any, b: Any) -> int | None:
        """The kernel on two float32 tensors of one shape held here (Engine.run_fast), else None. One frame:
        the values and the new buffer are this backend's `data` entries (values and store, inline)."""
        data = backend.data
        va, vb = data.get(a.data_id), data.get(b.data_id)
        if va is None or vb is None or a.dtype != "float32":  # None: on another backend (the kernel moves it)
            return None
        try:
            out = array("f", map(fn, va, vb))
        except (*_RAISES, TypeError):  # (TypeError: a conv output still packed, kernels/lazy.py)
            return None
        data_id = new_data_id()
        data[data_id] = out
        return data_id

    kernel.for_dtypes = complex_of is not None  # type: ignore[attr-defined]
    if out_dtype in (None, "float32"):  # float32 in, float32 out
        kernel.fast = fast  # type: ignore[attr-defined]
        kernel.float_fn = fn  # type: ignore[attr-defined]  # (webgl's forwarded fast variant maps it too)
    return kernel


def _extremum(greater: bool) -> Callable[..., TensorInfo]:
    """Maximum / Minimum: nan if either is nan (as JS Math.max), unlike Python's max."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        a, b = inputs["a"], inputs["b"]
        shape = broadcast_shapes(a.shape, b.shape, "maximum" if greater else "minimum")
        pairs = zip(*_operands(backend, a, b, shape), strict=False)
        if greater:
            vals = [x if x > y or x != x else y for x, y in pairs]
        else:
            vals = [x if x < y or x != x else y for x, y in pairs]
        return backend.output(to_typed(vals, a.dtype), shape, a.dtype)

    return kernel


def floor_div(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FloorDiv: floor(a / b) computed in float64, always int32 (as TF.js); x // 0 -> 0."""
    a, b = inputs["a"], inputs["b"]
    shape = broadcast_shapes(a.shape, b.shape, "floor_div")
    if a.dtype != "float32":
        try:
            vals = list(map(operator.floordiv, *_operands(backend, a, b, shape)))
        except ZeroDivisionError:
            vals = list(map(_int_floor_div, *_operands(backend, a, b, shape)))
    else:
        try:
            vals = list(map(math.floor, map(operator.truediv, *_operands(backend, a, b, shape))))
        except _RAISES:
            vals = list(map(_js_floor_div, *_operands(backend, a, b, shape)))
    return backend.output(to_typed(vals, "int32"), shape, "int32")


def pow_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Pow: Math.pow in float64 (int32 results truncate and wrap; overflow -> inf -> 0 for int32)."""
    a, b = inputs["a"], inputs["b"]
    shape = broadcast_shapes(a.shape, b.shape, "pow")
    fn = math.pow if all(map(math.isfinite, backend.values(b))) else _js_pow
    try:
        vals = list(map(fn, *_operands(backend, a, b, shape)))
    except _RAISES:
        vals = list(map(_js_pow, *_operands(backend, a, b, shape)))
    return backend.output(to_typed(vals, a.dtype), shape, a.dtype)


def squared_difference(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """SquaredDifference: (a - b) ** 2."""
    a, b = inputs["a"], inputs["b"]
    shape = broadcast_shapes(a.shape, b.shape, "squared_difference")
    d = list(map(operator.sub, *_operands(backend, a, b, shape)))
    return backend.output(to_typed(map(operator.mul, d, d), a.dtype), shape, a.dtype)


def add_n(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AddN: the element-wise sum of a list of same-shape, same-dtype tensors."""
    first = inputs[0]
    if len(inputs) == 1:
        return TensorInfo(first.data_id, first.shape, first.dtype)
    acc: Any = backend.values(first)
    for t in inputs[1:]:
        acc = list(map(operator.add, acc, backend.values(t)))
    return backend.output(to_typed(acc, first.dtype), first.shape, first.dtype)


def select(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Select: t where condition else e; the three shapes broadcast together."""
    c, t, e = inputs["condition"], inputs["t"], inputs["e"]
    shape = broadcast_shapes(broadcast_shapes(c.shape, t.shape, "where"), e.shape, "where")
    cs = operand(backend.values(c), c.shape, shape)
    ts = operand(backend.values(t), t.shape, shape)
    es = operand(backend.values(e), e.shape, shape)
    # (e, t)[c] picks t for a true (1) condition: zip + getitem keep the loop in C
    out = array(backend.values(t).typecode, map(operator.getitem, zip(es, ts, strict=False), cs))
    return backend.output(out, shape, t.dtype)


KERNELS: dict[str, Any] = {
    kn.Add: _kernel(operator.add, complex_of=kn.Add),
    kn.Sub: _kernel(operator.sub, complex_of=kn.Sub),
    kn.Multiply: _kernel(operator.mul, complex_of=kn.Multiply),
    kn.RealDiv: _kernel(operator.truediv, _js_div, "float32"),
    kn.FloorDiv: floor_div,
    kn.Mod: _kernel(_js_mod, None, None, operator.mod, _int_mod),
    kn.Pow: pow_,
    kn.Maximum: _extremum(True),
    kn.Minimum: _extremum(False),
    kn.SquaredDifference: squared_difference,
    kn.Atan2: _kernel(math.atan2, None, "float32"),
    kn.Equal: _kernel(operator.eq, None, "bool"),
    kn.NotEqual: _kernel(operator.ne, None, "bool"),
    kn.Less: _kernel(operator.lt, None, "bool"),
    kn.LessEqual: _kernel(operator.le, None, "bool"),
    kn.Greater: _kernel(operator.gt, None, "bool"),
    kn.GreaterEqual: _kernel(operator.ge, None, "bool"),
    kn.LogicalAnd: _kernel(operator.and_, None, "bool"),
    kn.LogicalOr: _kernel(operator.or_, None, "bool"),
    kn.LogicalXor: _kernel(operator.xor, None, "bool"),
    kn.AddN: add_n,
    kn.Select: select,
}
# a sum of two packed conv outputs stays packed on the cpu backend (lazy.py)
KERNELS[kn.Add] = packed_add(KERNELS[kn.Add], _max_exponent)
