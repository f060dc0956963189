"""Creation ops: tensor, scalar, zeros, ones, fill, *_like, range, linspace, eye, random, variable, clone."""

from __future__ import annotations

import builtins
import math
import random as _random
from array import array
from collections.abc import Sequence
from typing import Any

from .. import kernel_names as kn
from ..dtypes import TYPECODE, check_dtype, infer_dtype
from ..engine import ENGINE
from ..shapes import size_of
from ..tensor import Tensor, Variable
from .cast import cast
from .checks import check_size, count_arg, dtype_arg, int_arg, number_arg, output_shape, shape_arg
from .op import TensorLike, convert_to_tensor, holds_strings, make_tensor, op, string_tensor, typed_values

__all__ = [
    "tensor", "scalar", "zeros", "ones", "fill", "zeros_like", "ones_like", "range", "linspace", "eye",
    "random_uniform", "random_normal", "truncated_normal", "variable", "clone",
]  # fmt: skip


def tensor(values: TensorLike, shape: Sequence[int] | None = None, dtype: str | None = None) -> Tensor:
    """A tensor from nested lists, numbers, array.array or (on the host) numpy arrays; str values (or
    dtype='string') make a string tensor."""
    if isinstance(values, Tensor):
        values = values.data_sync()
    if (dtype is None and holds_strings(values)) or (type(dtype) is str and dtype == "string"):
        return string_tensor(values, shape, "tensor")
    return make_tensor(values, shape, dtype, "tensor")


def scalar(value: float | int | bool, dtype: str | None = None) -> Tensor:
    """A rank-0 tensor."""
    if isinstance(value, (list, tuple)):
        raise ValueError("Error in scalar: value must be a number or bool, not a list")
    return make_tensor(value, (), dtype, "scalar")


def _filled(shape: Any, value: Any, dtype: str, op_name: str) -> Tensor:
    shape = output_shape(shape, "shape", op_name)
    check_dtype(dtype, op_name)
    return ENGINE.make_tensor(typed_values([value], dtype, op_name, "value") * size_of(shape), shape, dtype)


def zeros(shape: Sequence[int], dtype: str = "float32") -> Tensor:
    """A tensor of zeros."""
    return _filled(shape, 0, dtype, "zeros")


def ones(shape: Sequence[int], dtype: str = "float32") -> Tensor:
    """A tensor of ones."""
    return _filled(shape, 1, dtype, "ones")


def fill(shape: Sequence[int], value: float | int | bool, dtype: str | None = None) -> Tensor:
    """A tensor of `shape` filled with `value` (kernel Fill)."""
    shape = output_shape(shape, "shape", "fill")
    if dtype is None:
        dtype = infer_dtype(value, "fill", "value")
    check_dtype(dtype, "fill")
    typed_values([value], dtype, "fill", "value")  # refuses None, strings and values dtype cannot hold
    return ENGINE.run_kernel(kn.Fill, (), {"shape": shape, "value": value, "dtype": dtype})


@op
def zeros_like(x: TensorLike) -> Tensor:
    """Zeros with the shape and dtype of x (kernel ZerosLike)."""
    return ENGINE.run_kernel(kn.ZerosLike, {"x": convert_to_tensor(x, "x", "zeros_like")})


@op
def ones_like(x: TensorLike) -> Tensor:
    """Ones with the shape and dtype of x (kernel OnesLike)."""
    return ENGINE.run_kernel(kn.OnesLike, {"x": convert_to_tensor(x, "x", "ones_like")})


def range(start: float, stop: float | None = None, step: float = 1, dtype: str = "float32") -> Tensor:  # noqa: A001
    """Evenly spaced values in [start, stop) (kernel Range); range(n) counts from 0."""
    if stop is None:
        start, stop = 0, start
    start, stop = number_arg(start, "start", "range"), number_arg(stop, "stop", "range")
    step = number_arg(step, "step", "range")
    if step == 0:
        raise ValueError("Error in range: step cannot be 0")
    if not all(map(math.isfinite, (start, stop, step))):
        raise ValueError(f"Error in range: start ({start}), stop ({stop}) and step ({step}) must be finite")
    dtype_arg(dtype, "range", ("float32", "int32"))
    n = max(0, math.ceil((stop - start) / step))
    check_size((n,), "range")
    if (
        dtype == "int32"
        and n
        and not all(-(2**31) <= int(v) < 2**31 for v in (start, start + (n - 1) * step))
    ):
        raise ValueError(f"Error in range: values from {start} by {step} to {stop} do not fit int32")
    return ENGINE.run_kernel(kn.Range, (), {"start": start, "stop": stop, "step": step, "dtype": dtype})


def linspace(start: float, stop: float, num: int) -> Tensor:
    """`num` evenly spaced float32 values from start to stop inclusive (kernel LinSpace)."""
    start, stop = number_arg(start, "start", "linspace"), number_arg(stop, "stop", "linspace")
    num = count_arg(num, "num", "linspace")
    if num <= 0:
        raise ValueError(f"Error in linspace: num must be positive, got {num}")
    check_size((num,), "linspace")
    return ENGINE.run_kernel(kn.LinSpace, (), {"start": start, "stop": stop, "num": num})


def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: Sequence[int] | None = None,
    dtype: str = "float32",
) -> Tensor:
    """An identity matrix (optionally batched)."""
    rows = count_arg(num_rows, "num_rows", "eye")
    cols = rows if num_columns is None else count_arg(num_columns, "num_columns", "eye")
    batch = () if batch_shape is None else shape_arg(batch_shape, "batch_shape", "eye")
    check_dtype(dtype, "eye")
    check_size((*batch, rows, cols), "eye")
    one = 1.0 if dtype == "float32" else 1
    flat = array(TYPECODE[dtype], [0]) * (rows * cols)
    for i in builtins.range(min(rows, cols)):
        flat[i * cols + i] = one
    return ENGINE.make_tensor(flat * size_of(batch), (*batch, rows, cols), dtype)


def _rng(seed: int | None, op_name: str) -> _random.Random:
    ENGINE.note("random")  # a captured model run must not replay these values
    return _random.Random(int_arg(seed, "seed", op_name)) if seed is not None else _random.Random()


def _random_args(
    shape: Any, a: Any, b: Any, names: tuple[str, str], dtype: Any, op_name: str
) -> tuple[tuple[int, ...], float, float]:
    """Checked shape, distribution parameters and dtype (float32 or int32, as TF.js) of a random op."""
    shape = output_shape(shape, "shape", op_name)
    dtype_arg(dtype, op_name, ("float32", "int32"))
    return shape, number_arg(a, names[0], op_name), number_arg(b, names[1], op_name)


def random_uniform(
    shape: Sequence[int],
    minval: float = 0,
    maxval: float = 1,
    dtype: str = "float32",
    seed: int | None = None,
) -> Tensor:
    """Uniform random values in [minval, maxval); the same seed gives the same values."""
    return uniform(shape, minval, maxval, dtype, seed, "random_uniform")


def uniform(shape: Any, minval: Any, maxval: Any, dtype: Any, seed: Any, op_name: str) -> Tensor:
    """random_uniform for the op `op_name` (its errors name that op)."""
    shape, lo, hi = _random_args(shape, minval, maxval, ("minval", "maxval"), dtype, op_name)
    rng, n = _rng(seed, op_name), size_of(shape)
    if dtype == "int32":
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"Error in {op_name}: minval ({minval}) and maxval ({maxval}) must be finite")
        lo, hi = int(lo), int(hi)
        if hi - lo <= 1:  # as TF.js: a range of at most one value is refused
            raise ValueError(
                f"Error in {op_name}: maxval ({maxval}) - minval ({minval}) must be more than 1 for dtype int32"
            )
        flat = array("i", [rng.randrange(lo, hi) for _ in builtins.range(n)])
    else:
        flat = array("f", [rng.uniform(lo, hi) for _ in builtins.range(n)])
    return ENGINE.make_tensor(flat, shape, dtype)


def _normal(values: list[float], dtype: str) -> array:
    return array("f", values) if dtype == "float32" else array("i", map(round, values))


def random_normal(
    shape: Sequence[int], mean: float = 0, stddev: float = 1, dtype: str = "float32", seed: int | None = None
) -> Tensor:
    """Normally distributed random values; the same seed gives the same values."""
    return normal(shape, mean, stddev, dtype, seed, "random_normal")


def normal(shape: Any, mean: Any, stddev: Any, dtype: Any, seed: Any, op_name: str) -> Tensor:
    """random_normal for the op `op_name` (its errors name that op)."""
    shape, mean, stddev = _random_args(shape, mean, stddev, ("mean", "stddev"), dtype, op_name)
    rng, n = _rng(seed, op_name), size_of(shape)
    return ENGINE.make_tensor(
        _normal([rng.gauss(mean, stddev) for _ in builtins.range(n)], dtype), shape, dtype
    )


def truncated_normal(
    shape: Sequence[int], mean: float = 0, stddev: float = 1, dtype: str = "float32", seed: int | None = None
) -> Tensor:
    """Normal values re-drawn when more than two standard deviations from the mean."""
    shape, mean, stddev = _random_args(shape, mean, stddev, ("mean", "stddev"), dtype, "truncated_normal")
    rng, n = _rng(seed, "truncated_normal"), size_of(shape)
    vals = []
    while len(vals) < n:
        v = rng.gauss(0.0, 1.0)
        if abs(v) <= 2.0:
            vals.append(mean + stddev * v)
    return ENGINE.make_tensor(_normal(vals, dtype), shape, dtype)


def variable(
    initial_value: TensorLike, trainable: bool = True, name: str | None = None, dtype: str | None = None
) -> Variable:
    """A mutable Variable initialized from a tensor or value (cast to `dtype` when given), registered under
    its name; tf.variable_grads differentiates the trainable ones."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"Error in variable: argument 'name' must be a string, but got {type(name).__name__}")
    init = convert_to_tensor(initial_value, "initial_value", "variable", dtype)
    if dtype is not None and init.dtype != dtype:
        init = cast(init, dtype)
    try:
        return Variable(init, trainable, name)
    finally:
        if init is not initial_value:
            init.dispose()


@op
def clone(x: TensorLike) -> Tensor:
    """A new tensor sharing x's values (kernel Identity)."""
    return ENGINE.run_kernel(kn.Identity, {"x": convert_to_tensor(x, "x", "clone")})
