"""What every op shares: a tidy scope per op call, and conversion of arguments to tensors."""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable
from typing import Any, TypeVar

from ..dtypes import TYPECODE, check_dtype, dtype_of_types, infer_dtype
from ..engine import ENGINE
from ..shapes import fmt, size_of
from ..tensor import Tensor
from .checks import MAX_RANK, check_size, shape_arg

F = TypeVar("F", bound=Callable[..., Any])
TensorLike = Any  # Tensor | number | bool | nested lists | array.array | numpy array on the host


def op(fn: F) -> F:
    """Run an op in its own scope (as TF.js op() does): temporaries it makes are freed, even on error."""
    engine = ENGINE

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        engine.start_scope()
        try:
            result = fn(*args, **kwargs)
        except BaseException:
            engine.end_scope(None)
            raise
        engine.end_scope(result)
        return result

    return wrapper  # type: ignore[return-value]


def _flatten(value: Any, shape: list[int], depth: int, out: list[Any], op: str, arg: str) -> None:
    if depth == len(shape):
        if isinstance(value, (list, tuple)):
            raise ValueError(f"Error in {op}: argument '{arg}' is ragged: expected a number at depth {depth}")
        out.append(value)
        return
    if not isinstance(value, (list, tuple)) or len(value) != shape[depth]:
        got = len(value) if isinstance(value, (list, tuple)) else "a number"
        raise ValueError(
            f"Error in {op}: argument '{arg}' is ragged: expected {shape[depth]} elements at depth {depth}, got {got}"
        )
    if depth == len(shape) - 1 and not any(isinstance(v, (list, tuple)) for v in value):
        out.extend(value)
        return
    for v in value:
        _flatten(v, shape, depth + 1, out, op, arg)


def infer_shape(value: Any, op: str = "tensor", arg: str = "values") -> list[int]:
    """The shape of a nested list (from its first elements); at most MAX_RANK levels deep."""
    shape = []
    while isinstance(value, (list, tuple)):
        if len(shape) == MAX_RANK:
            raise ValueError(
                f"Error in {op}: argument '{arg}' is nested more than {MAX_RANK} levels deep; a tensor has at "
                f"most {MAX_RANK} dims"
            )
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return shape


def to_flat(value: Any, dtype: str, op: str, arg: str) -> tuple[array, tuple[int, ...]]:
    """Convert a Python value (number, nested list, array.array, numpy array) to a flat typed array + shape."""
    code = TYPECODE[dtype]
    if isinstance(value, array):
        return (value if value.typecode == code else array(code, _coerce(value, dtype))), (len(value),)
    if hasattr(value, "shape") and hasattr(value, "ravel"):  # numpy on the host
        flat = value.ravel().tolist()
        return array(code, _coerce(flat, dtype)), tuple(int(d) for d in value.shape)
    if isinstance(value, (list, tuple)):
        shape = infer_shape(value, op, arg)
        flat: list[Any] = []
        _flatten(value, shape, 0, flat, op, arg)
        return typed_values(flat, dtype, op, arg), tuple(shape)
    if isinstance(value, (int, float, bool)) or hasattr(value, "__float__"):
        return typed_values([value], dtype, op, arg), ()
    raise TypeError(
        f"Error in {op}: argument '{arg}' must be a Tensor or a TensorLike, but got {type(value).__name__}"
    )


def typed_values(values: list[Any], dtype: str, op: str, arg: str) -> array:
    """Flat Python numbers as a typed array of `dtype`, refusing what would change a value silently: strings and
    None, floats that are not integers for int32, ints beyond int32's range."""
    source = dtype_of_types(set(map(type, values)), op, arg)
    fraction = None
    try:
        if dtype == "bool":
            return array("B", map(bool, values))
        if dtype == "int32" and source == "float32":
            fraction = next((v for v in values if not float(v).is_integer()), None)
            if fraction is None:
                return array("i", map(int, values))
        else:
            return array(TYPECODE[dtype], values)
    except OverflowError:
        limit = (-(2**31), 2**31 - 1) if dtype == "int32" else (-(3.4e38), 3.4e38)
        bad = next((v for v in values if not limit[0] <= v <= limit[1]), "a value")
        raise ValueError(
            f"Error in {op}: argument '{arg}' holds {bad!r}, which {dtype} cannot hold"
            + (" (pass dtype='float32' to store it as a float)" if dtype == "int32" else "")
        ) from None
    except (TypeError, ValueError) as e:  # e.g. a tensor of several values where a number belongs
        raise TypeError(f"Error in {op}: argument '{arg}' must hold numbers or bools ({e})") from None
    raise ValueError(
        f"Error in {op}: argument '{arg}' must hold integers to be int32, but holds {fraction!r}"
    )


def _coerce(values: Any, dtype: str) -> Any:
    if dtype == "float32":
        return [float(v) for v in values]
    if dtype == "int32":
        return [int(v) for v in values]
    return [1 if v else 0 for v in values]


def make_tensor(
    value: Any, shape: Any = None, dtype: str | None = None, op: str = "tensor", arg: str = "values"
) -> Tensor:
    """Create a tracked tensor from Python values, optionally reshaped to `shape` and cast to `dtype`."""
    if dtype is None:
        if isinstance(value, array):
            dtype = "float32" if value.typecode in "fd" else "int32"
        else:
            dtype = infer_dtype(value, op, arg)
    check_dtype(dtype, op)
    flat, inferred = to_flat(value, dtype, op, arg)
    if shape is not None:
        shape = shape_arg(shape, "shape", op)
        if size_of(shape) != len(flat):
            if len(flat) == 1 and not inferred:
                check_size(shape, op)
                flat = flat * size_of(shape)
            else:
                raise ValueError(
                    f"Error in {op}: based on the provided shape, {fmt(shape)}, the tensor should have "
                    f"{size_of(shape)} values but has {len(flat)}"
                )
    else:
        shape = inferred
    return ENGINE.make_tensor(flat, shape, dtype)


def convert_to_tensor(x: TensorLike, arg: str, op: str, dtype: str | None = None) -> Tensor:
    """A Tensor for op argument `arg`: tensors pass through (if not disposed), other values are converted."""
    if isinstance(x, Tensor):
        if x.is_disposed_internal:
            raise ValueError(
                f"Error in {op}: argument '{arg}' is a disposed tensor (id {x.id}, shape {fmt(x.shape)})"
            )
        return x
    if x is None:
        raise TypeError(f"Error in {op}: argument '{arg}' must be a Tensor or a TensorLike, but got None")
    return make_tensor(x, None, dtype, op, arg)


def convert_non_bool(x: TensorLike, arg: str, op: str, dtype: str | None = None) -> Tensor:
    """convert_to_tensor, refusing bool tensors (for ops that compute on float32 or int32)."""
    t = convert_to_tensor(x, arg, op, dtype)
    if t.dtype == "bool":
        raise TypeError(f"Error in {op}: argument '{arg}' has dtype bool; expected float32 or int32")
    return t


def convert_bool_only(x: TensorLike, arg: str, op: str) -> Tensor:
    """A bool tensor for `arg` (values are parsed as bool); TypeError for a tensor of another dtype."""
    t = convert_to_tensor(x, arg, op, None if isinstance(x, Tensor) else "bool")
    if t.dtype != "bool":
        raise TypeError(f"Error in {op}: argument '{arg}' must be a bool tensor, but got {t.dtype}")
    return t


def convert_list(xs: Any, arg: str, op: str) -> list[Tensor]:
    """Convert a list of TensorLikes (for variadic ops such as concat)."""
    if not isinstance(xs, (list, tuple)):
        raise TypeError(
            f"Error in {op}: argument '{arg}' must be a list of tensors, but got {type(xs).__name__}"
        )
    return [convert_to_tensor(x, f"{arg}[{i}]", op) for i, x in enumerate(xs)]


def named_op(fn: F, name: str, doc: str) -> F:
    """`fn` as the op `name` with docstring `doc`, run in its own scope (for ops made by a factory)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return op(fn)
