"""Creation ops: tensor, scalar, zeros, ones, fill, *_like, range, linspace, eye, random, variable, clone."""

from __future__ import annotations

import builtins
import random as _random
from array import array
from collections.abc import Sequence
from typing import Any

from .. import kernel_names as kn
from ..dtypes import TYPECODE, check_dtype
from ..engine import ENGINE
from ..shapes import fmt, size_of
from ..tensor import Tensor, Variable
from .cast import cast
from .op import TensorLike, convert_to_tensor, make_tensor, op

__all__ = [
    "tensor", "scalar", "zeros", "ones", "fill", "zeros_like", "ones_like", "range", "linspace", "eye",
    "random_uniform", "random_normal", "truncated_normal", "variable", "clone",
]  # fmt: skip


def _shape(shape: Sequence[int], op_name: str) -> tuple[int, ...]:
    out = tuple(int(d) for d in shape)
    if any(d < 0 for d in out):
        raise ValueError(f"Error in {op_name}: shape {fmt(out)} has a negative dimension")
    return out


def tensor(values: TensorLike, shape: Sequence[int] | None = None, dtype: str | None = None) -> Tensor:
    """A tensor from nested lists, numbers, array.array or (on the host) numpy arrays."""
    if isinstance(values, Tensor):
        values = values.data_sync()
    return make_tensor(values, shape, dtype, "tensor")


def scalar(value: float | int | bool, dtype: str | None = None) -> Tensor:
    """A rank-0 tensor."""
    if isinstance(value, (list, tuple)):
        raise ValueError("Error in scalar: value must be a number or bool, not a list")
    return make_tensor(value, (), dtype, "scalar")


def _filled(shape: tuple[int, ...], value: Any, dtype: str, op_name: str) -> Tensor:
    check_dtype(dtype, op_name)
    code = TYPECODE[dtype]
    v = float(value) if dtype == "float32" else int(value)
    return ENGINE.make_tensor(array(code, [v]) * size_of(shape), shape, dtype)


def zeros(shape: Sequence[int], dtype: str = "float32") -> Tensor:
    """A tensor of zeros."""
    return _filled(_shape(shape, "zeros"), 0, dtype, "zeros")


def ones(shape: Sequence[int], dtype: str = "float32") -> Tensor:
    """A tensor of ones."""
    return _filled(_shape(shape, "ones"), 1, dtype, "ones")


def fill(shape: Sequence[int], value: float | int | bool, dtype: str | None = None) -> Tensor:
    """A tensor of `shape` filled with `value` (kernel Fill)."""
    if dtype is None:
        dtype = "bool" if isinstance(value, bool) else "int32" if isinstance(value, int) else "float32"
    check_dtype(dtype, "fill")
    return ENGINE.run_kernel(kn.Fill, (), {"shape": _shape(shape, "fill"), "value": value, "dtype": dtype})


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
    if step == 0:
        raise ValueError("Error in range: step cannot be 0")
    check_dtype(dtype, "range")
    return ENGINE.run_kernel(kn.Range, (), {"start": start, "stop": stop, "step": step, "dtype": dtype})


def linspace(start: float, stop: float, num: int) -> Tensor:
    """`num` evenly spaced float32 values from start to stop inclusive (kernel LinSpace)."""
    if num <= 0:
        raise ValueError(f"Error in linspace: num must be positive, got {num}")
    return ENGINE.run_kernel(kn.LinSpace, (), {"start": start, "stop": stop, "num": int(num)})


def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: Sequence[int] | None = None,
    dtype: str = "float32",
) -> Tensor:
    """An identity matrix (optionally batched)."""
    cols = num_rows if num_columns is None else num_columns
    if num_rows < 0 or cols < 0:
        raise ValueError(f"Error in eye: num_rows ({num_rows}) and num_columns ({cols}) must be >= 0")
    check_dtype(dtype, "eye")
    one = 1.0 if dtype == "float32" else 1
    flat = array(TYPECODE[dtype], [0]) * (num_rows * cols)
    for i in builtins.range(min(num_rows, cols)):
        flat[i * cols + i] = one
    batch = tuple(batch_shape or ())
    return ENGINE.make_tensor(flat * size_of(batch), (*batch, num_rows, cols), dtype)


def _rng(seed: int | None) -> _random.Random:
    return _random.Random(seed) if seed is not None else _random.Random()


def random_uniform(
    shape: Sequence[int],
    minval: float = 0,
    maxval: float = 1,
    dtype: str = "float32",
    seed: int | None = None,
) -> Tensor:
    """Uniform random values in [minval, maxval); the same seed gives the same values."""
    shape = _shape(shape, "random_uniform")
    check_dtype(dtype, "random_uniform")
    rng, n = _rng(seed), size_of(shape)
    if dtype == "int32":
        lo, hi = int(minval), int(maxval)
        flat = array("i", [rng.randrange(lo, hi) for _ in builtins.range(n)])
    else:
        flat = array("f", [rng.uniform(minval, maxval) for _ in builtins.range(n)])
    return ENGINE.make_tensor(flat, shape, dtype)


def random_normal(
    shape: Sequence[int], mean: float = 0, stddev: float = 1, dtype: str = "float32", seed: int | None = None
) -> Tensor:
    """Normally distributed random values; the same seed gives the same values."""
    shape = _shape(shape, "random_normal")
    if dtype not in ("float32", "int32"):
        raise TypeError(f"Error in random_normal: unsupported dtype '{dtype}'")
    rng, n = _rng(seed), size_of(shape)
    vals = [rng.gauss(mean, stddev) for _ in builtins.range(n)]
    flat = array("f", vals) if dtype == "float32" else array("i", [round(v) for v in vals])
    return ENGINE.make_tensor(flat, shape, dtype)


def truncated_normal(
    shape: Sequence[int], mean: float = 0, stddev: float = 1, dtype: str = "float32", seed: int | None = None
) -> Tensor:
    """Normal values re-drawn when more than two standard deviations from the mean."""
    shape = _shape(shape, "truncated_normal")
    rng, n = _rng(seed), size_of(shape)
    vals = []
    while len(vals) < n:
        v = rng.gauss(0.0, 1.0)
        if abs(v) <= 2.0:
            vals.append(mean + stddev * v)
    return ENGINE.make_tensor(array("f", vals), shape, "float32")


def variable(
    initial_value: TensorLike, trainable: bool = True, name: str | None = None, dtype: str | None = None
) -> Variable:
    """A mutable Variable initialized from a tensor or value (cast to `dtype` when given), registered under
    its name; tf.variable_grads differentiates the trainable ones."""
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
