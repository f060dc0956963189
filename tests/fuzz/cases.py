"""Fuzz cases per op family: hypothesis strategies that draw one op call (shapes, dtypes, argument values,
adversarial ones included) together with what it must give: numpy's result, or INVALID (the call must raise
a clean error naming the op), or ANY (either is fine: the reference cannot tell).

A case is an expression over named numpy inputs, so the same case runs on the host and in the page through
the op harness (tests/harness/runner.py); `problem` judges the outcome the harness reports. Sizes stay small
(at most a few hundred elements), and huge arguments are among the adversarial values: an op must refuse
them at once, never try.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

from tests.ops.conftest import _spec, _to_numpy
from tests.ops.test_conv import ref_conv2d, ref_depthwise
from tests.ops.test_image import ref_bilinear, ref_nearest
from tests.ops.test_pool import ref_pool
from tests.ops.test_scan_sort import ref_scan, ref_top_k
from tests.ops.test_softmax import ref_softmax

INVALID, ANY = "INVALID", "ANY"
NP = {"float32": np.float32, "int32": np.int32, "bool": np.bool_}
LIMIT = 1 << 28  # the host's and wasm's max_elements (webgl's is the same under SwiftShader)
CLEAN_ERRORS = ("ValueError", "TypeError")
NAN, INF = float("nan"), float("inf")


@dataclass
class Case:
    """One op call: `expr` over `inputs`; `expected` is numpy's result (an array or a list), INVALID or ANY."""

    op: str
    expr: str
    inputs: dict[str, np.ndarray] = field(default_factory=dict)
    expected: Any = ANY
    tol: float = 1e-5

    def payload(self) -> dict[str, Any]:
        """The op harness's payload for this call."""
        return {"expr": self.expr, "setup": None, "inputs": {k: _spec(v) for k, v in self.inputs.items()}}

    def __repr__(self) -> str:
        shapes = {k: (v.dtype.name, v.shape) for k, v in self.inputs.items()}
        return f"Case({self.expr!r}, inputs={shapes})"


def problem(case: Case, res: dict[str, Any], tol: float) -> str | None:
    """What is wrong with the harness result `res` of `case` (None when it is right)."""
    if res["leaked"]:
        return f"leaked {res['leaked']} tensors ({res['error'] or 'no error'})"
    err = res["error"]
    if err:
        if err["type"] not in CLEAN_ERRORS:
            return f"raised {err['type']}: {err['message']}"
        if f"Error in {case.op}" not in err["message"]:
            return f"the error does not name {case.op}: {err['type']}: {err['message']}"
        if case.expected is not INVALID and case.expected is not ANY:
            return f"raised {err['type']}: {err['message']}; numpy gives {case.expected!r}"
        return None
    if case.expected is INVALID:
        return f"returned {res['out']} for a call that must fail"
    if case.expected is ANY:
        return None
    try:
        _compare(_to_numpy(res["out"]), case.expected, max(tol, case.tol))
    except AssertionError as e:
        return f"wrong result: {e}"
    return None


def _compare(out: Any, ref: Any, tol: float) -> None:
    if isinstance(ref, (list, tuple)):
        assert isinstance(out, list) and len(out) == len(ref), (out, ref)
        for o, r in zip(out, ref, strict=True):
            _compare(o, r, tol)
        return
    ref = np.asarray(ref)
    assert out.dtype == ref.dtype and out.shape == ref.shape, (
        f"{out.dtype}{out.shape} != {ref.dtype}{ref.shape}"
    )
    if ref.dtype == np.float32:
        np.testing.assert_allclose(out, ref, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(out, ref)


# ---- building blocks --------------------------------------------------------------------------------------
def lit(v: Any) -> str:
    """A Python literal for v (nan and inf included)."""
    if isinstance(v, float) and not math.isfinite(v):
        return f"float({str(v)!r})"
    if isinstance(v, list):
        return "[" + ", ".join(map(lit, v)) + "]"
    if isinstance(v, tuple):
        return "(" + "".join(lit(x) + ", " for x in v) + ")"
    return repr(v)


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


JUNK = st.sampled_from([None, "a", 1.5, -1, 2**31, 2**64, True, [], [1, [2]], NAN, INF])
SPECIAL = [NAN, INF, -INF, 0.0, -0.0, 1e30, -3e9]


def shapes(min_rank: int = 0, max_rank: int = 3, max_dim: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(0, max_dim), min_size=min_rank, max_size=max_rank).map(tuple)


def nonempty(min_rank: int = 1, max_rank: int = 3) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(1, 4), min_size=min_rank, max_size=max_rank).map(tuple)


@st.composite
def arrays(draw: Any, shape: Any = None, dtype: Any = None, special: bool = True) -> np.ndarray:
    """A small array: float32 (with NaN, inf and huge values now and then), int32 or bool."""
    shape = draw(shapes()) if shape is None else shape
    dtype = draw(st.sampled_from(list(NP))) if dtype is None else dtype
    n = math.prod(shape)
    if dtype == "float32":
        plain = st.floats(-4, 4, width=32)
        values = draw(
            st.lists(
                st.one_of(plain, plain, st.sampled_from(SPECIAL)) if special else plain,
                min_size=n,
                max_size=n,
            )
        )
    elif dtype == "int32":
        values = draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n))
    else:
        values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(values, NP[dtype]).reshape(shape)


def dtype_of(x: np.ndarray) -> str:
    return {"f": "float32", "i": "int32", "b": "bool"}[x.dtype.kind]


def upcast(a: str, b: str) -> str:
    order = ["bool", "int32", "float32"]
    return order[max(order.index(a), order.index(b))]


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """numpy references of NaN, inf and empty inputs: no warnings (their results are what is compared)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def f32(x: Any) -> np.ndarray:
    with quiet():
        return np.asarray(x, np.float64).astype(np.float32)


def to_int32(v: float) -> int:
    """An Int32Array's conversion (TF.js's cast): truncate, wrap modulo 2**32, NaN and inf as 0."""
    return 0 if not math.isfinite(v) else (int(v) + 2**31) % 2**32 - 2**31


def py_dtype(values: list[Any]) -> str | None:
    """webtf's inferred dtype of flat Python values (None: some value is not a number or bool)."""
    types = {type(v) for v in values}
    if not types <= {bool, int, float}:
        return None
    return "float32" if float in types or not types else "int32" if int in types else "bool"


def convert(values: list[Any], dtype: str) -> list[Any] | None:
    """Values stored as `dtype` the way webtf converts Python values, None where it must refuse them."""
    if py_dtype(values) is None:
        return None
    if dtype == "bool":
        return [bool(v) for v in values]
    if dtype == "int32":
        if any(isinstance(v, float) and not (math.isfinite(v) and v.is_integer()) for v in values):
            return None
        ints = [int(v) for v in values]
        return ints if all(-(2**31) <= v < 2**31 for v in ints) else None
    return values


def valid_shape(shape: Any) -> bool:
    return (
        isinstance(shape, (list, tuple))
        and all(is_int(d) and 0 <= d < 2**31 for d in shape)
        and len(shape) <= 64
        and math.prod(shape) <= LIMIT
    )


def nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    return np.array(flat, dtype=object).reshape(shape).tolist() if shape else flat[0]


# ---- creation ---------------------------------------------------------------------------------------------
LEAVES = {
    "int": st.integers(-100, 100),
    "bigint": st.integers(-(2**40), 2**40),
    "float": st.floats(width=32),
    "bool": st.booleans(),
    "junk": st.sampled_from(["a", None, 1j]),
}


@st.composite
def tensor_case(draw: Any) -> Case:
    """tf.tensor of nested lists mixing ints, floats, bools (and junk), optionally ragged, with a dtype or not."""
    shape = draw(shapes(0, 3))
    kinds = draw(st.lists(st.sampled_from(sorted(LEAVES)), min_size=1, max_size=2))
    flat = draw(
        st.lists(st.one_of(*[LEAVES[k] for k in kinds]), min_size=math.prod(shape), max_size=math.prod(shape))
    )
    dtype = draw(st.sampled_from([None, None, "float32", "int32", "bool", "bogus"]))
    values = nest(flat, shape) if flat or not shape else np.zeros(shape).tolist()
    shape = np.shape(values)  # a list cannot hold dims after a 0: [[], []] is [2, 0] whatever was drawn
    ragged = len(shape) > 1 and shape[0] > 1 and shape[1] > 0 and draw(st.booleans())
    if ragged:
        values[0] = values[0][:-1]
    expr = f"tf.tensor({lit(values)}, dtype={dtype!r})"
    if dtype in (None, "string") and flat and all(isinstance(v, str) for v in flat) and not ragged:
        return Case("tensor", expr, expected=np.array(flat, object).reshape(shape))  # a string tensor, as TF.js
    inferred = py_dtype(flat)
    target = dtype or inferred
    stored = None if target not in NP else convert(flat, target)
    if ragged or inferred is None or stored is None:
        return Case("tensor", expr, expected=INVALID)
    return Case("tensor", expr, expected=np.array(stored, NP[target]).reshape(shape))


SHAPE_ARGS = st.one_of(
    shapes().map(list),
    shapes(),
    st.sampled_from([[-1, 2], [2.5], None, "ab", [2**40, 2**40], [[2]], 5, [True]]),
)


@st.composite
def creation_case(draw: Any) -> Case:
    """zeros / ones / fill / eye / range / linspace with shapes, counts and values good and bad."""
    op = draw(st.sampled_from(["zeros", "ones", "fill", "eye", "range", "linspace"]))
    if op in ("zeros", "ones", "fill"):
        shape = draw(SHAPE_ARGS)
        if op == "fill":
            value = draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5, width=32), st.booleans(), JUNK))
            dtype = draw(st.sampled_from([None, "float32", "int32", "bool", "bogus"]))
            expr = f"tf.fill({lit(shape)}, {lit(value)}, {dtype!r})"
            target = dtype or py_dtype([value])
            stored = convert([value], target) if target in NP else None
        else:
            dtype = draw(st.sampled_from(["float32", "int32", "bool", "bogus"]))
            expr, target, stored = f"tf.{op}({lit(shape)}, {dtype!r})", dtype, [1 if op == "ones" else 0]
        if not valid_shape(shape) or target not in NP or stored is None:
            return Case(op, expr, expected=INVALID)
        return Case(op, expr, expected=np.full(tuple(shape), stored[0], NP[target]))
    if op == "eye":
        n = draw(st.one_of(st.integers(0, 4), JUNK, st.just(10**6)))
        m = draw(st.one_of(st.none(), st.integers(0, 4), JUNK))
        batch = draw(st.sampled_from([None, [2], [-1], [1.5], []]))
        expr = f"tf.eye({lit(n)}, {lit(m)}, {lit(batch)})"
        cols = n if m is None else m
        if not (is_int(n) and is_int(cols) and n >= 0 and cols >= 0 and valid_shape(batch or [])):
            return Case(op, expr, expected=INVALID)
        if n * cols > LIMIT:
            return Case(op, expr, expected=INVALID)
        return Case(
            op, expr, expected=np.broadcast_to(np.eye(n, cols, dtype=np.float32), (*(batch or []), n, cols))
        )
    if op == "range":
        number = st.one_of(st.integers(-20, 20), st.floats(-20, 20, width=32))
        start, stop = (
            draw(st.one_of(number, number, JUNK)),
            draw(st.one_of(number, number, JUNK, st.just(1e10))),
        )
        step = draw(st.one_of(st.sampled_from([1, 2, -1, 0.5, -3, 0]), JUNK))
        dtype = draw(st.sampled_from(["float32", "int32", "bool"]))
        expr = f"tf.range({lit(start)}, {lit(stop)}, {lit(step)}, {dtype!r})"
        if (
            not all(is_number(v) and math.isfinite(v) for v in (start, stop, step))
            or step == 0
            or dtype == "bool"
        ):
            return Case(op, expr, expected=INVALID)
        n = max(0, math.ceil((stop - start) / step))
        if n > LIMIT:
            return Case(op, expr, expected=INVALID)
        vals = [start + i * step for i in range(n)]
        if dtype == "int32" and not all(-(2**31) <= int(v) < 2**31 for v in vals):
            return Case(op, expr, expected=INVALID)
        return Case(
            op, expr, expected=np.array([int(v) for v in vals] if dtype == "int32" else vals, NP[dtype])
        )
    start, stop = draw(st.floats(-9, 9, width=32)), draw(st.floats(-9, 9, width=32))
    num = draw(st.one_of(st.integers(-1, 6), JUNK, st.just(10**10)))
    expr = f"tf.linspace({lit(start)}, {lit(stop)}, {lit(num)})"
    if not (is_int(num) and 0 < num <= LIMIT):
        return Case(op, expr, expected=INVALID)
    return Case(op, expr, expected=f32(np.linspace(start, stop, num)), tol=1e-5)


# ---- unary and cast ---------------------------------------------------------------------------------------
def _keep(fn: Any) -> Any:
    """A reference that keeps int32 / float32 (bool computes as int32)."""

    def ref(x: np.ndarray) -> np.ndarray:
        if x.dtype == np.bool_:
            x = x.astype(np.int32)
        with quiet():
            out = fn(x.astype(np.float64))
        if x.dtype != np.int32:
            return f32(out)
        return np.array([to_int32(v) for v in np.ravel(out)], np.int32).reshape(
            np.shape(out)
        )  # as Int32Array

    return ref


def _float(fn: Any) -> Any:
    def ref(x: np.ndarray) -> np.ndarray:
        with quiet():
            return f32(fn(x.astype(np.float64)))

    return ref


UNARY = {
    "abs": _keep(np.abs),
    "neg": _keep(np.negative),
    "square": _keep(np.square),
    "relu": _keep(lambda x: np.where(x < 0, 0, x)),
    "floor": _keep(np.floor),
    "ceil": _keep(np.ceil),
    "sign": _keep(lambda x: np.nan_to_num(np.sign(x))),
    "exp": _float(np.exp),
    "log": _float(np.log),
    "sqrt": _float(np.sqrt),
    "sigmoid": _float(lambda x: 1 / (1 + np.exp(-x))),
    "tanh": _float(np.tanh),
    "is_nan": lambda x: np.isnan(x.astype(np.float64)),
    "is_finite": lambda x: np.isfinite(x.astype(np.float64)),
    "logical_not": lambda x: np.logical_not(x) if x.dtype == np.bool_ else INVALID,
}


@st.composite
def unary_case(draw: Any) -> Case:
    """Element-wise unary ops (and clip_by_value, leaky_relu with their scalar arguments) on any dtype."""
    op = draw(st.sampled_from([*sorted(UNARY), "clip_by_value", "leaky_relu"]))
    x = draw(arrays())
    if op == "clip_by_value":
        lo = draw(st.one_of(st.integers(-3, 3), JUNK))
        hi = draw(st.one_of(st.integers(-3, 3), JUNK))
        expr = f"tf.clip_by_value(x, {lit(lo)}, {lit(hi)})"
        if not (is_number(lo) and is_number(hi)) or not lo <= hi:  # NaN bounds fail the check, as in TF.js
            return Case(op, expr, {"x": x}, INVALID)
        return Case(op, expr, {"x": x}, _keep(lambda v: np.where(np.isnan(v), v, np.clip(v, lo, hi)))(x))
    if op == "leaky_relu":
        alpha = draw(st.one_of(st.floats(0, 1, width=32), JUNK))
        expr = f"tf.leaky_relu(x, {lit(alpha)})"
        if not is_number(alpha):
            return Case(op, expr, {"x": x}, INVALID)
        xf = x.astype(np.float64)
        with quiet():
            ref = np.where(xf < 0, alpha * xf, xf)
        return Case(op, expr, {"x": x}, f32(ref))
    ref = UNARY[op](x)
    return Case(op, f"tf.{op}(x)", {"x": x}, ref if isinstance(ref, str) else np.asarray(ref), tol=1e-5)


@st.composite
def cast_case(draw: Any) -> Case:
    """cast between every pair of dtypes, NaN, inf and values past int32 included."""
    x = draw(arrays())
    dtype = draw(st.sampled_from([*NP, "bogus", None]))
    expr = f"tf.cast(x, {dtype!r})"
    if dtype not in NP:
        return Case("cast", expr, {"x": x}, INVALID)
    if dtype == "int32" and x.dtype == np.float32:
        ref = np.array([to_int32(float(v)) for v in x.ravel()], np.int32).reshape(x.shape)
    elif dtype == "bool":
        ref = x != 0
    else:
        ref = x.astype(NP[dtype])
    return Case("cast", expr, {"x": x}, ref)


# ---- binary -----------------------------------------------------------------------------------------------
ARITH = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "squared_difference": lambda a, b: (a - b) ** 2,
    "div": None,
}
COMPARE = {"equal": np.equal, "less": np.less, "greater_equal": np.greater_equal}
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or}


@st.composite
def broadcastable(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with `shape` (some dims made 1, some leading ones dropped), or any shape."""
    if draw(st.integers(0, 4)) == 0:
        return draw(shapes())
    dims = [d if draw(st.booleans()) else 1 for d in shape]
    return tuple(dims[draw(st.integers(0, len(dims))) :])


@st.composite
def binary_case(draw: Any) -> Case:
    """Binary ops on two tensors that may or may not broadcast, or a tensor and a Python literal."""
    op = draw(st.sampled_from(sorted({**ARITH, **COMPARE, **LOGICAL})))
    a = draw(arrays(dtype="bool" if op in LOGICAL and draw(st.booleans()) else None))
    b_shape = draw(broadcastable(a.shape))
    literal = draw(st.integers(0, 3)) == 0
    if literal:
        b_value = draw(st.one_of(st.integers(-9, 9), st.floats(-9, 9, width=32), st.booleans(), JUNK))
        if draw(st.booleans()) and b_shape:
            flat = draw(
                st.lists(
                    st.one_of(st.integers(-9, 9), st.floats(-9, 9, width=32)),
                    min_size=math.prod(b_shape),
                    max_size=math.prod(b_shape),
                )
            )
            b_value = nest(flat, b_shape) if flat else np.zeros(b_shape).tolist()
        expr, inputs = f"tf.{op}(a, {lit(b_value)})", {"a": a}
        flat_b = list(np.array(b_value, dtype=object).ravel()) if isinstance(b_value, list) else [b_value]
        b_dtype = py_dtype(flat_b)
        try:
            b = None if b_dtype is None else np.array(b_value, dtype=object)
        except ValueError:
            b = None
        if b is None or b.dtype != object or any(isinstance(v, list) for v in b.ravel()):
            return Case(op, expr, inputs, INVALID)
        dtype = upcast(dtype_of(a), b_dtype)
        if op in LOGICAL:
            dtype = "bool"
        stored = convert(flat_b, dtype)
        if stored is None or (op in LOGICAL and a.dtype != np.bool_):
            return Case(op, expr, inputs, INVALID)
        b = np.array(stored, NP[dtype]).reshape(b.shape)
    else:
        b = draw(arrays(shape=b_shape, dtype="bool" if op in LOGICAL and draw(st.booleans()) else None))
        expr, inputs = f"tf.{op}(a, b)", {"a": a, "b": b}
        if op in LOGICAL and (a.dtype != np.bool_ or b.dtype != np.bool_):
            return Case(op, expr, inputs, INVALID)
    try:
        out_shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return Case(op, expr, inputs, INVALID)
    dtype = upcast(dtype_of(a), dtype_of(b))
    if op in LOGICAL or op in COMPARE:
        fn = {**COMPARE, **LOGICAL}[op]
        cmp_a, cmp_b = a.astype(NP[dtype]), b.astype(NP[dtype])
        return Case(op, expr, inputs, np.broadcast_to(fn(cmp_a, cmp_b), out_shape))
    if dtype == "bool":
        dtype = "int32"
    x, y = a.astype(np.float64), b.astype(np.float64)
    with quiet():
        if op == "div":
            ref = (
                np.where(y == 0, 0, np.floor_divide(x, np.where(y == 0, 1, y))) if dtype == "int32" else x / y
            )
        else:
            ref = ARITH[op](x, y)
    ref = np.broadcast_to(ref, out_shape)
    return Case(op, expr, inputs, ref.astype(np.int32) if dtype == "int32" else f32(ref))


# ---- reductions, scans, sorting, softmax ------------------------------------------------------------------
REDUCE = ["sum", "mean", "max", "min", "prod", "any", "all", "arg_max", "arg_min"]
AXES = st.one_of(st.none(), st.integers(-4, 3), st.lists(st.integers(-4, 3), max_size=3), JUNK)


def _axes(axis: Any, rank: int) -> tuple[int, ...] | None:
    """Normalized axes, or None when `axis` is invalid for `rank`."""
    if axis is None:
        return tuple(range(rank))
    items = axis if isinstance(axis, list) else [axis]
    if not all(is_int(a) and -rank <= a < rank for a in items):
        return None
    out = sorted({a % rank for a in items})
    return tuple(out) if len(out) == len(items) else None


@st.composite
def reduce_case(draw: Any) -> Case:
    """Reductions over axis specs good and bad, with keep_dims."""
    op = draw(st.sampled_from(REDUCE))
    x = draw(arrays())
    axis, keep = draw(AXES), draw(st.booleans())
    if op.startswith("arg"):
        expr = f"tf.{op}(x, {lit(axis)})"
        if not is_int(axis) or not -x.ndim <= axis < x.ndim:
            return Case(op, expr, {"x": x}, INVALID if axis is not None else ANY)
        if x.shape[axis] == 0 or (x.dtype == np.float32 and np.isnan(x).any()) or x.dtype == np.bool_:
            return Case(op, expr, {"x": x}, ANY)
        fn = np.argmax if op == "arg_max" else np.argmin
        return Case(op, expr, {"x": x}, fn(x, axis).astype(np.int32))
    expr = f"tf.{op}(x, {lit(axis)}, {keep})"
    axes = _axes(axis, x.ndim)
    if axes is None:
        return Case(op, expr, {"x": x}, INVALID)
    empty = any(x.shape[a] == 0 for a in axes)
    if op in ("any", "all"):
        ref = (np.any if op == "any" else np.all)(x != 0, axis=axes, keepdims=keep)
        return Case(op, expr, {"x": x}, np.asarray(ref))
    if op in ("max", "min") and (empty or x.dtype == np.bool_):
        return Case(op, expr, {"x": x}, ANY)
    xf = x.astype(np.float64)
    fn = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}[op]
    with quiet():
        ref = fn(xf, axis=axes, keepdims=keep)
    if op == "mean" or x.dtype == np.float32:
        return Case(op, expr, {"x": x}, f32(ref), tol=1e-4)
    return Case(op, expr, {"x": x}, np.asarray(ref).astype(np.int32))


@st.composite
def scan_sort_case(draw: Any) -> Case:
    """cumsum / cumprod with axis, exclusive and reverse; top_k with k good and bad; softmax along dims."""
    op = draw(st.sampled_from(["cumsum", "cumprod", "top_k", "softmax"]))
    x = draw(
        arrays(
            shape=draw(st.one_of(nonempty(), shapes())),
            dtype=draw(st.sampled_from(["float32", "int32"])),
            special=False,
        )
    )
    if op in ("cumsum", "cumprod"):
        axis, exclusive, reverse = (
            draw(st.one_of(st.integers(-x.ndim, max(0, x.ndim - 1)), st.integers(-3, 3), JUNK)),
            draw(st.booleans()),
            draw(st.booleans()),
        )
        expr = f"tf.{op}(x, {lit(axis)}, {exclusive}, {reverse})"
        if not is_int(axis) or not -x.ndim <= axis < x.ndim:
            return Case(op, expr, {"x": x}, INVALID)
        ref = ref_scan(x, axis, exclusive, reverse, op == "cumprod") if x.size else x
        return Case(op, expr, {"x": x}, f32(ref) if x.dtype == np.float32 else ref.astype(np.int32), tol=1e-4)
    if op == "top_k":
        k = draw(st.one_of(st.integers(0, x.shape[-1] if x.ndim else 0), st.integers(-1, 5), JUNK))
        expr = f"tuple(tf.top_k(x, {lit(k)}))"
        if x.ndim == 0 or not is_int(k) or not 0 <= k <= x.shape[-1]:
            return Case(op, expr, {"x": x}, INVALID)
        values, indices = ref_top_k(x, k)
        return Case(op, expr, {"x": x}, [values, indices.astype(np.int32)])
    dim = draw(st.one_of(st.just(-1), st.integers(-3, 3), JUNK))
    expr = f"tf.softmax(x, {lit(dim)})"
    if x.ndim == 0 or not is_int(dim) or not -x.ndim <= dim < x.ndim or dim % x.ndim != x.ndim - 1:
        return Case(op, expr, {"x": x}, INVALID)
    with quiet():
        return Case(op, expr, {"x": x}, f32(ref_softmax(x) if x.size else x), tol=1e-5)


# ---- shape and slicing ops --------------------------------------------------------------------------------
@st.composite
def shape_case(draw: Any) -> Case:
    """reshape / transpose / expand_dims / squeeze / tile / reverse / concat / stack with good and bad args."""
    op = draw(
        st.sampled_from(
            ["reshape", "transpose", "expand_dims", "squeeze", "tile", "reverse", "concat", "stack"]
        )
    )
    x = draw(arrays(special=False))
    r, inputs = x.ndim, {"x": x}
    if op == "reshape":
        size = x.size
        good = st.permutations([*x.shape, 1]).map(list)
        shape = draw(
            st.one_of(
                good,
                good.map(lambda s: [-1, *s[1:]] if s else s),
                st.lists(st.integers(-2, 5), max_size=4),
                st.just([2**64, 0]),
                JUNK,
            )
        )
        expr = f"tf.reshape(x, {lit(shape)})"
        if (
            not isinstance(shape, list)
            or not all(is_int(d) for d in shape)
            or sum(d == -1 for d in shape) > 1
        ):
            return Case(op, expr, inputs, INVALID)
        if any(d < -1 or d >= 2**31 for d in shape):
            return Case(op, expr, inputs, INVALID)
        known = math.prod(d for d in shape if d != -1)
        if -1 in shape:
            if known == 0 or size % known:
                return Case(op, expr, inputs, INVALID)
            shape = [size // known if d == -1 else d for d in shape]
        return Case(op, expr, inputs, x.reshape(shape) if math.prod(shape) == size else INVALID)
    if op == "transpose":
        perm = draw(
            st.one_of(st.none(), st.permutations(list(range(r))), st.lists(st.integers(-1, 3), max_size=3))
        )
        expr = f"tf.transpose(x, {lit(perm)})"
        if perm is not None and sorted(perm) != list(range(r)):
            return Case(op, expr, inputs, INVALID)
        return Case(op, expr, inputs, np.transpose(x, perm))
    if op == "expand_dims":
        axis = draw(st.one_of(st.integers(-5, 4), JUNK))
        expr = f"tf.expand_dims(x, {lit(axis)})"
        ok = is_int(axis) and -(r + 1) <= axis <= r
        return Case(op, expr, inputs, np.expand_dims(x, axis) if ok else INVALID)
    if op == "squeeze":
        axis = draw(AXES)
        expr = f"tf.squeeze(x, {lit(axis)})"
        if axis is None or axis == []:
            return Case(op, expr, inputs, x.reshape([d for d in x.shape if d != 1]))
        axes = _axes(axis, r)
        if axes is None or any(x.shape[a] != 1 for a in axes):
            return Case(op, expr, inputs, INVALID)
        return Case(op, expr, inputs, np.squeeze(x, axes))
    if op == "tile":
        reps = draw(
            st.one_of(
                st.lists(st.integers(0, 3), min_size=r, max_size=r),
                st.lists(st.integers(-1, 3), max_size=4),
                st.just([10**5] * r),
                JUNK,
            )
        )
        expr = f"tf.tile(x, {lit(reps)})"
        ok = isinstance(reps, list) and len(reps) == r and all(is_int(n) and n >= 0 for n in reps)
        if not ok or math.prod(d * n for d, n in zip(x.shape, reps, strict=True)) > LIMIT:
            return Case(op, expr, inputs, INVALID)
        return Case(op, expr, inputs, np.tile(x, reps) if r else x)
    if op == "reverse":
        axis = draw(AXES)
        expr = f"tf.reverse(x, {lit(axis)})"
        axes = _axes(axis, r)
        return Case(op, expr, inputs, np.flip(x, axes) if axes is not None else INVALID)
    other = draw(arrays(shape=draw(st.one_of(st.just(x.shape), shapes())), special=False))
    axis = draw(st.one_of(st.integers(-4, 3), JUNK))
    expr, inputs = f"tf.{op}([x, y], {lit(axis)})", {"x": x, "y": other}
    if op == "stack":
        ok = is_int(axis) and -(r + 1) <= axis <= r and x.shape == other.shape and x.dtype == other.dtype
        return Case(op, expr, inputs, np.stack([x, other], axis) if ok else INVALID)
    ok = r > 0 and is_int(axis) and -r <= axis < r and other.ndim == r
    if not ok or any(i != axis % r and x.shape[i] != other.shape[i] for i in range(r)):
        return Case(op, expr, inputs, INVALID)
    dtype = NP[upcast(dtype_of(x), dtype_of(other))]
    return Case(op, expr, inputs, np.concatenate([x.astype(dtype), other.astype(dtype)], axis))


@st.composite
def slicing_case(draw: Any) -> Case:
    """slice / pad / gather / one_hot with begins, sizes, paddings and indices in and out of range."""
    op = draw(st.sampled_from(["slice", "pad", "gather", "one_hot"]))
    x = draw(arrays(special=False))
    r, inputs = x.ndim, {"x": x}
    if op == "slice":
        begin = draw(
            st.one_of(
                st.lists(st.integers(0, 2), max_size=r), st.lists(st.integers(-1, 4), max_size=r + 1), JUNK
            )
        )
        size = draw(
            st.one_of(
                st.lists(st.integers(-1, 2), max_size=r),
                st.lists(st.integers(-2, 4), max_size=r + 1),
                st.none(),
            )
        )
        expr = f"tf.slice(x, {lit(begin)}, {lit(size)})"
        ints = isinstance(begin, list) and all(map(is_int, begin))
        if not ints or r == 0 or len(begin) > r or (size is not None and len(size) > r):
            return Case(op, expr, inputs, ANY if is_int(begin) else INVALID)
        b = begin + [0] * (r - len(begin))
        s = (size or []) + [-1] * (r - len(size or []))
        if any(
            not 0 <= bi <= d or si < -1 or (si != -1 and bi + si > d)
            for bi, si, d in zip(b, s, x.shape, strict=True)
        ):
            return Case(op, expr, inputs, INVALID)
        index = tuple(slice(bi, d if si == -1 else bi + si) for bi, si, d in zip(b, s, x.shape, strict=True))
        return Case(op, expr, inputs, x[index])
    if op == "pad":
        pairs = draw(
            st.one_of(
                st.lists(st.lists(st.integers(-1, 3), min_size=2, max_size=2), min_size=r, max_size=r),
                st.just([[0, 10**5]] * r),
                JUNK,
            )
        )
        value = draw(st.one_of(st.integers(-3, 3), st.floats(-3, 3, width=32), JUNK))
        expr = f"tf.pad(x, {lit(pairs)}, {lit(value)})"
        ok = (
            r > 0
            and isinstance(pairs, list)
            and len(pairs) == r
            and all(
                isinstance(p, list) and len(p) == 2 and all(is_int(v) and v >= 0 for v in p) for p in pairs
            )
        )
        if not ok or not (is_number(value) or isinstance(value, bool)):
            return Case(op, expr, inputs, INVALID)
        if math.prod(d + lo + hi for d, (lo, hi) in zip(x.shape, pairs, strict=True)) > LIMIT:
            return Case(op, expr, inputs, INVALID)
        stored = convert([value], dtype_of(x))
        if stored is None:
            return Case(op, expr, inputs, INVALID)
        return Case(op, expr, inputs, np.pad(x, pairs, constant_values=np.array(stored[0], x.dtype)))
    if op == "gather":
        indices = draw(
            st.lists(st.one_of(st.integers(-1, 4), st.integers(0, 3), st.floats(0, 3, width=32)), max_size=4)
        )
        axis = draw(st.one_of(st.integers(-3, 2), JUNK))
        expr = f"tf.gather(x, {lit(indices)}, {lit(axis)})"
        ok = r > 0 and is_int(axis) and -r <= axis < r and py_dtype(indices) != "bool"
        if not ok or convert(indices, "int32") is None:
            return Case(op, expr, inputs, INVALID)
        idx = [int(i) for i in indices]
        if any(not 0 <= i < x.shape[axis] for i in idx):
            return Case(op, expr, inputs, INVALID)
        return Case(op, expr, inputs, np.take(x, np.array(idx, int), axis))
    depth = draw(st.one_of(st.integers(0, 5), JUNK, st.just(10**9)))
    idx = draw(arrays(dtype="int32", special=False))
    expr, inputs = f"tf.one_hot(i, {lit(depth)})", {"i": idx}
    if not is_int(depth) or not 2 <= depth < 2**31 or idx.size * depth > LIMIT:
        return Case(op, expr, inputs, INVALID)
    if not idx.size:
        return Case(op, expr, inputs, np.zeros((*idx.shape, depth), np.int32))
    return Case(op, expr, inputs, (idx[..., None] == np.arange(depth)).astype(np.int32))


# ---- matmul, convolutions, pooling, resizing --------------------------------------------------------------
@st.composite
def matmul_case(draw: Any) -> Case:
    """mat_mul with matching or mismatched inner sizes, batch dims and transposes, any dtype."""
    m, k, n = draw(st.integers(0, 4)), draw(st.integers(0, 4)), draw(st.integers(0, 4))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    batch_a, batch_b = draw(st.sampled_from([(), (2,), (1,)])), draw(st.sampled_from([(), (2,), (3,)]))
    k2 = k if draw(st.integers(0, 4)) else draw(st.integers(0, 4))
    dtype = draw(st.sampled_from(["float32", "float32", "int32", "bool"]))
    a = draw(arrays(shape=(*batch_a, *((k, m) if ta else (m, k))), dtype=dtype, special=False))
    b = draw(arrays(shape=(*batch_b, *((n, k2) if tb else (k2, n))), dtype=dtype, special=False))
    expr, inputs = f"tf.mat_mul(a, b, {ta}, {tb})", {"a": a, "b": b}
    if dtype == "bool" or k != k2:
        return Case("mat_mul", expr, inputs, INVALID)
    try:
        np.broadcast_shapes(batch_a, batch_b)
    except ValueError:
        return Case("mat_mul", expr, inputs, INVALID)
    ref = np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b).astype(
        np.float64
    )
    return Case("mat_mul", expr, inputs, ref.astype(np.int32) if dtype == "int32" else f32(ref), tol=1e-4)


_NAMED_PADS = st.sampled_from(["same", "valid", "same", "valid", "full", None])
PADS = st.one_of(
    _NAMED_PADS,
    _NAMED_PADS,
    _NAMED_PADS,
    st.integers(-1, 2),
    st.lists(st.integers(0, 2), min_size=4, max_size=4).map(lambda p: [[0, 0], p[:2], p[2:], [0, 0]]),
)


def _pair(v: Any) -> tuple[int, int] | None:
    if is_int(v):
        return v, v
    return tuple(v) if isinstance(v, list) and len(v) == 2 and all(map(is_int, v)) else None  # type: ignore[return-value]


def _conv_ok(x: np.ndarray, fh: int, fw: int, strides: Any, dilations: Any, pad: Any) -> bool:
    """webtf's conv / pool argument rules: positive strides and dilations (not both > 1), a known pad, and a
    window that fits the input padded by a 'valid' or explicit pad."""
    s, d = _pair(strides), _pair(dilations)
    if s is None or d is None or min(s + d) <= 0 or (max(s) > 1 and max(d) > 1) or fh <= 0 or fw <= 0:
        return False
    if pad not in ("same", "valid") and not (is_int(pad) and pad >= 0) and not isinstance(pad, list):
        return False
    eff = ((fh - 1) * d[0] + 1, (fw - 1) * d[1] + 1)
    if pad == "same":
        return True
    pads = (0, 0, 0, 0) if pad == "valid" else (pad,) * 4 if is_int(pad) else (*pad[1], *pad[2])
    return x.shape[1] + pads[0] + pads[1] >= eff[0] and x.shape[2] + pads[2] + pads[3] >= eff[1]


@st.composite
def conv_case(draw: Any) -> Case:
    """conv2d / depthwise_conv2d / max_pool / avg_pool over strides (huge ones too), pads and filters that may
    be larger than the input or empty."""
    op = draw(st.sampled_from(["conv2d", "depthwise_conv2d", "max_pool", "avg_pool"]))
    x = draw(
        arrays(
            shape=(
                draw(st.integers(1, 2)),
                draw(st.integers(1, 6)),
                draw(st.integers(1, 6)),
                draw(st.integers(1, 3)),
            ),
            dtype="float32",
            special=False,
        )
    )
    fh, fw = (
        draw(st.sampled_from([1, 2, 3, 1, 2, 3, 4, 9, 0])),
        draw(st.sampled_from([1, 2, 3, 1, 2, 3, 4, 9, 0])),
    )
    strides = draw(
        st.one_of(
            st.just(1), st.integers(1, 3), st.integers(1, 7), st.sampled_from([[1, 2], 100000, 0, -1, 1.5])
        )
    )
    dilations = draw(st.sampled_from([1, 1, 1, 1, 2, [1, 2]])) if op.endswith("conv2d") else 1
    pad = draw(PADS)
    if op.endswith("pool"):
        expr, inputs = f"tf.{op}(x, {lit([fh, fw])}, {lit(strides)}, {lit(pad)})", {"x": x}
        if not _conv_ok(x, fh, fw, strides, 1, pad):
            return Case(op, expr, inputs, INVALID)
        if pad not in ("same", "valid"):  # a window wholly in the padding: TF.js gives -inf / NaN there
            return Case(op, expr, inputs, ANY)
        with quiet():
            ref = ref_pool(x, [fh, fw], strides, pad, np.nanmax if op == "max_pool" else np.nanmean)
        return Case(op, expr, inputs, f32(ref), tol=1e-5)
    out_c = draw(st.sampled_from([1, 2, 1, 2, 0]))
    f = draw(arrays(shape=(fh, fw, x.shape[3], out_c), dtype="float32", special=False))
    expr, inputs = f"tf.{op}(x, f, {lit(strides)}, {lit(pad)}, 'NHWC', {lit(dilations)})", {"x": x, "f": f}
    if f.size == 0 or not _conv_ok(x, fh, fw, strides, dilations, pad):
        return Case(op, expr, inputs, INVALID)
    ref_fn = ref_conv2d if op == "conv2d" else ref_depthwise
    return Case(op, expr, inputs, f32(ref_fn(x, f, strides, pad, dilations)), tol=1e-4)


@st.composite
def resize_case(draw: Any) -> Case:
    """resize_bilinear / resize_nearest_neighbor to sizes good, empty, huge and malformed."""
    op = draw(st.sampled_from(["resize_bilinear", "resize_nearest_neighbor"]))
    x = draw(
        arrays(
            shape=(1, draw(st.integers(0, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 2))),
            dtype="float32",
            special=False,
        )
    )
    size = draw(
        st.one_of(
            st.lists(st.integers(0, 5), min_size=2, max_size=2),
            st.sampled_from([[-1, 2], [1.5, 2], [2], None, [10**5, 10**5]]),
        )
    )
    align, half = draw(st.booleans()), draw(st.booleans())
    expr, inputs = f"tf.image.{op}(x, {lit(size)}, {align}, {half})", {"x": x}
    ok = isinstance(size, list) and len(size) == 2 and all(is_int(v) and v >= 0 for v in size)
    if not ok or (align and half) or math.prod(size) > LIMIT:
        return Case(op, expr, inputs, INVALID)
    if x.shape[1] == 0:
        return Case(op, expr, inputs, INVALID if math.prod(size) else ANY)
    if 0 in size:
        return Case(op, expr, inputs, np.zeros((1, *size, x.shape[3]), np.float32))
    ref = (ref_bilinear if op == "resize_bilinear" else ref_nearest)(x, tuple(size), align, half)
    return Case(op, expr, inputs, f32(ref), tol=1e-4)


FAMILIES: dict[str, st.SearchStrategy[Case]] = {
    "tensor": tensor_case(),
    "creation": creation_case(),
    "unary": unary_case(),
    "cast": cast_case(),
    "binary": binary_case(),
    "reduce": reduce_case(),
    "scan_sort": scan_sort_case(),
    "shape": shape_case(),
    "slicing": slicing_case(),
    "matmul": matmul_case(),
    "conv": conv_case(),
    "resize": resize_case(),
}
