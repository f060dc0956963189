"""What every op shares: a tidy scope per op call, and conversion of arguments to tensors."""

from __future__ import annotations

import functools
import math
from array import array
from collections.abc import Callable
from typing import Any, TypeVar

from ..dtypes import BYTES_PER_ELEMENT, TYPECODE, check_dtype, dtype_of_types, infer_dtype, leaf_types
from ..engine import ENGINE
from ..interop import dtype_of, np_dtype, numpy_or_none, to_int32
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
    """Convert a Python value (number, nested list, array.array) to a flat typed array + shape."""
    code = TYPECODE[dtype]
    if isinstance(value, array):
        return (value if value.typecode == code else array(code, _coerce(value, dtype))), (len(value),)
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
        if dtype == "complex64":  # real values: imaginary parts 0, interleaved
            out = array("f", bytes(8 * len(values)))
            out[0::2] = array("f", values)
            return out
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


# ---- the buffer protocol: numpy arrays and scalars, memoryview, bytes-like objects, array.array ----------


def is_buffer(value: Any) -> bool:
    """True for values read through the buffer protocol (numpy arrays and scalars, memoryview, bytes-like)."""
    return isinstance(value, (array, memoryview, bytes, bytearray)) or hasattr(value, "__array_interface__")


#: memoryview formats (native, one character) and the webtf dtype they give, for hosts without numpy
_FORMAT_DTYPE = {**dict.fromkeys("fde", "float32"), **dict.fromkeys("bBhHiIlLqQnN", "int32"), "?": "bool"}


def _as_ndarray(np: Any, value: Any) -> Any:
    return np.frombuffer(value, np.uint8) if isinstance(value, (bytes, bytearray)) else np.asarray(value)


def _format_dtype(mv: memoryview, op: str, arg: str) -> str:
    fmt = mv.format.lstrip("@")
    if fmt not in _FORMAT_DTYPE:
        raise TypeError(
            f"Error in {op}: argument '{arg}' has buffer format '{mv.format}'; expected a number format"
        )
    return _FORMAT_DTYPE[fmt]


def buffer_dtype(value: Any, op: str, arg: str) -> str:
    """The dtype TF.js infers for a buffer's element type: float kinds -> float32, integers -> int32, bool."""
    np = numpy_or_none()
    if np is None:
        return _format_dtype(memoryview(value), op, arg)
    return dtype_of(_as_ndarray(np, value).dtype.kind, f"Error in {op}: argument '{arg}'")


def buffer_values(value: Any, dtype: str, op: str, arg: str) -> tuple[array, tuple[int, ...]]:
    """A buffer's values as a flat typed array of `dtype` in one copy, and its shape.

    Casts follow TF.js's typed arrays: float64 -> float32 rounds, to int32 truncates and wraps (nan -> 0),
    to bool is x != 0. Without numpy (the page) a memoryview is read directly: formats of the same layout
    are copied as bytes, others converted element by element in C.
    """
    np = numpy_or_none()
    if np is None:
        return _memoryview_values(memoryview(value), dtype, op, arg)
    nd = _as_ndarray(np, value)
    dtype_of(nd.dtype.kind, f"Error in {op}: argument '{arg}'")
    out = array(TYPECODE[dtype], bytes(nd.size * BYTES_PER_ELEMENT[dtype]))
    if nd.size:
        view = np.frombuffer(out, np_dtype(np, dtype)).reshape(nd.shape)
        if dtype == "bool":
            np.not_equal(nd, 0, out=view)
        elif dtype == "int32" and nd.dtype.kind == "f":
            view[...] = to_int32(np, nd)
        else:
            with np.errstate(over="ignore"):  # float64 beyond float32's range rounds to +-inf
                np.copyto(view, nd, casting="unsafe")
    return out, tuple(int(d) for d in nd.shape)


def _memoryview_values(mv: memoryview, dtype: str, op: str, arg: str) -> tuple[array, tuple[int, ...]]:
    fmt = mv.format.lstrip("@")
    _format_dtype(mv, op, arg)
    shape = tuple(mv.shape or ())
    raw = mv.cast("B") if mv.c_contiguous else memoryview(mv.tobytes())
    code = TYPECODE[dtype]
    out = array(code)
    if (fmt == code and dtype != "bool") or (fmt == "?" and dtype == "bool"):  # the same layout: one byte copy
        out.frombytes(raw)
        return out, shape
    values = raw.cast(fmt).tolist()
    if dtype == "int32" and fmt in "fde":  # truncate toward zero; nan and inf store as 0
        values = [int(v) if math.isfinite(v) else 0 for v in values]
    try:
        return array(code, _coerce(values, dtype) if dtype != "int32" else values), shape
    except OverflowError:  # integers beyond int32 wrap like an Int32Array
        return array(code, [(v + 2**31) % 2**32 - 2**31 for v in values]), shape


def make_tensor(
    value: Any, shape: Any = None, dtype: str | None = None, op: str = "tensor", arg: str = "values"
) -> Tensor:
    """Create a tracked tensor from Python values, optionally reshaped to `shape` and cast to `dtype`."""
    if type(dtype) is str and dtype == "string":  # (a Tensor passed as dtype must not compare with ==)
        return string_tensor(value, shape, op, arg)
    buffer = not isinstance(value, (int, float, list, tuple)) and is_buffer(value)
    if dtype is None:
        if isinstance(value, array):
            dtype = "float32" if value.typecode in "fd" else "int32"
        elif buffer:
            dtype = buffer_dtype(value, op, arg)
        else:
            dtype = infer_dtype(value, op, arg)
    check_dtype(dtype, op)
    if buffer and not (isinstance(value, array) and value.typecode == TYPECODE[dtype]):
        flat, inferred = buffer_values(value, dtype, op, arg)
    else:  # an array.array of the dtype's typecode is adopted as it is (as TF.js adopts a typed array)
        flat, inferred = to_flat(value, dtype, op, arg)
    if shape is not None:
        shape = shape_arg(shape, "shape", op)
        if size_of(shape) != len(flat) // (2 if dtype == "complex64" else 1):
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


def holds_strings(value: Any) -> bool:
    """True for a str or a nested list holding one (what TF.js makes a string tensor of; bytes stay a
    buffer of uint8 values)."""
    if isinstance(value, str):
        return True
    return isinstance(value, (list, tuple)) and str in leaf_types(value)


def string_tensor(value: Any, shape: Any, op: str, arg: str = "values") -> Tensor:
    """A string tensor from a str or a nested list of them (bytes inside are decoded as UTF-8)."""
    if isinstance(value, (str, bytes)):
        flat, inferred = [value], ()
    else:
        inferred = tuple(infer_shape(value, op, arg))
        flat = []
        _flatten(value, list(inferred), 0, flat, op, arg)
    bad = [type(v).__name__ for v in flat if not isinstance(v, (str, bytes))]
    if bad:
        raise TypeError(f"Error in {op}: argument '{arg}' of a string tensor holds {bad[0]}, not str")
    flat = [v.decode() if isinstance(v, bytes) else v for v in flat]
    if shape is not None:
        shape = shape_arg(shape, "shape", op)
        if size_of(shape) != len(flat):
            if len(flat) != 1 or inferred:
                raise ValueError(
                    f"Error in {op}: based on the provided shape, {fmt(shape)}, the tensor should have "
                    f"{size_of(shape)} values but has {len(flat)}"
                )
            flat = flat * size_of(shape)
    return ENGINE.make_tensor(flat, tuple(shape) if shape is not None else inferred, "string")
