"""Element-wise binary ops with NumPy-style broadcasting: arithmetic, comparisons, logical ops, add_n, where.

Dtypes follow TF.js makeTypesMatch: mixed operands are upcast (bool < int32 < float32) with Cast; a Python
number or list next to a tensor is made directly in the upcast dtype. Arithmetic treats bool as int32.
div of two int32 tensors is floor_div, and floor_div always returns int32 (as TF.js). Comparisons give bool;
logical ops need bool inputs. Errors name the op and both shapes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Protocol

from .. import kernel_names as kn
from ..dtypes import infer_dtype, upcast
from ..engine import ENGINE
from ..shapes import broadcast_shapes, fmt
from ..tensor import Tensor
from .cast import cast
from .checks import broadcast_output, check_alike, check_size
from .creation import zeros_like
from .op import TensorLike, convert_bool_only, convert_list, convert_to_tensor, named_op, op

__all__ = [
    "add", "sub", "mul", "div", "div_no_nan", "floor_div", "mod", "pow", "maximum", "minimum",
    "squared_difference", "atan2", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "add_n", "where",
]  # fmt: skip


class BinaryOp(Protocol):
    """The type of the ops _binary_op, _compare_op and _logical_op make."""

    def __call__(self, a: TensorLike, b: TensorLike) -> Tensor: ...


def _literal_dtype(x: TensorLike, other: str, op_name: str, arg: str) -> str | None:
    if isinstance(x, Tensor) or x is None:
        return None
    return upcast(other, infer_dtype(x, op_name, arg))


def convert_pair(
    a: TensorLike, b: TensorLike, op_name: str, bool_as_int: bool = True
) -> tuple[Tensor, Tensor]:
    """Both operands as tensors of one dtype (upcast like TF.js makeTypesMatch) with broadcastable shapes."""
    if (
        type(a) is Tensor
        and type(b) is Tensor
        and a.dtype == b.dtype != "bool"
        and not (a.is_disposed_internal or b.is_disposed_internal)
    ):  # the common case: two live tensors of one numeric dtype
        if a.shape != b.shape:
            broadcast_output(a.shape, b.shape, op_name)
        return a, b
    if isinstance(a, Tensor) or not isinstance(b, Tensor):
        ta = convert_to_tensor(a, "a", op_name)
        tb = convert_to_tensor(b, "b", op_name, _literal_dtype(b, ta.dtype, op_name, "b"))
    else:
        tb = convert_to_tensor(b, "b", op_name)
        ta = convert_to_tensor(a, "a", op_name, _literal_dtype(a, tb.dtype, op_name, "a"))
    dtype = upcast(ta.dtype, tb.dtype)
    if bool_as_int and dtype == "bool":
        dtype = "int32"
    if ta.dtype != dtype:
        ta = cast(ta, dtype)
    if tb.dtype != dtype:
        tb = cast(tb, dtype)
    broadcast_output(ta.shape, tb.shape, op_name)
    return ta, tb


def _binary_op(kernel: str, name: str, doc: str, bool_as_int: bool = True) -> BinaryOp:
    """The op `name` (docstring `doc`): a and b made one dtype and broadcast (convert_pair), then `kernel`."""

    def binary_op(a: TensorLike, b: TensorLike) -> Tensor:
        ta, tb = convert_pair(a, b, name, bool_as_int)
        return ENGINE.run_kernel(kernel, {"a": ta, "b": tb})

    scoped = named_op(binary_op, name, doc)

    @functools.wraps(scoped)
    def fast_binary_op(a: TensorLike, b: TensorLike) -> Tensor:
        if (
            type(a) is Tensor
            and type(b) is Tensor
            and a.dtype == b.dtype != "bool"
            and not (a.is_disposed_internal or b.is_disposed_internal)
        ):  # nothing to convert, so the kernel's output is the only tensor made: no scope needed
            if a.shape != b.shape:
                broadcast_output(a.shape, b.shape, name)
                return ENGINE.run_kernel(kernel, {"a": a, "b": b})
            return ENGINE.run_fast(kernel, a, b)
        return scoped(a, b)

    return fast_binary_op


def _compare_op(kernel: str, name: str, doc: str) -> BinaryOp:
    """A comparison: as _binary_op, with bool operands compared as bool."""
    return _binary_op(kernel, name, doc, bool_as_int=False)


def _logical_op(kernel: str, name: str, doc: str) -> BinaryOp:
    """The op `name` (docstring `doc`) on two bool tensors that broadcast together, running `kernel`."""

    def logical_op(a: TensorLike, b: TensorLike) -> Tensor:
        ta, tb = convert_bool_only(a, "a", name), convert_bool_only(b, "b", name)
        broadcast_output(ta.shape, tb.shape, name)
        return ENGINE.run_kernel(kernel, {"a": ta, "b": tb})

    return named_op(logical_op, name, doc)


add = _binary_op(kn.Add, "add", "a + b element-wise with broadcasting (kernel Add).")
sub = _binary_op(kn.Sub, "sub", "a - b element-wise with broadcasting (kernel Sub).")
mul = _binary_op(kn.Multiply, "mul", "a * b element-wise with broadcasting (kernel Multiply).")


@op
def div(a: TensorLike, b: TensorLike) -> Tensor:
    """a / b (kernel RealDiv; FloorDiv when both are int32, as TF.js): x / 0 = +-inf, 0 / 0 = nan."""
    ta, tb = convert_pair(a, b, "div")
    if ta.dtype == "complex64":  # TF.js's RealDiv takes no complex64 on any backend
        raise TypeError("Error in div: complex64 tensors are not supported (TF.js's RealDiv kernel takes none)")
    kernel = kn.FloorDiv if ta.dtype == "int32" else kn.RealDiv
    return ENGINE.run_kernel(kernel, {"a": ta, "b": tb})


@op
def div_no_nan(a: TensorLike, b: TensorLike) -> Tensor:
    """a / b, but 0 where b == 0 (composite, as TF.js: div, equal, where)."""
    ta, tb = convert_pair(a, b, "div_no_nan")
    quotient = div(ta, tb)
    return where(equal(tb, 0), zeros_like(quotient), quotient)


floor_div = _binary_op(
    kn.FloorDiv,
    "floor_div",
    "floor(a / b) as int32, whatever the input dtype (kernel FloorDiv, as TF.js); x // 0 = 0.",
)
mod = _binary_op(
    kn.Mod, "mod", "Remainder with the sign of the divisor, like Python's % (kernel Mod); int32 x % 0 = 0."
)
pow = _binary_op(
    kn.Pow, "pow", "a ** b (kernel Pow); int32 ** int32 stays int32 (fractional results truncate)."
)
maximum = _binary_op(
    kn.Maximum,
    "maximum",
    "Element-wise max, nan if either is nan (kernel Maximum); bool is compared as int32.",
)
minimum = _binary_op(
    kn.Minimum,
    "minimum",
    "Element-wise min, nan if either is nan (kernel Minimum); bool is compared as int32.",
)
squared_difference = _binary_op(
    kn.SquaredDifference, "squared_difference", "(a - b) ** 2 element-wise (kernel SquaredDifference)."
)
atan2 = _binary_op(
    kn.Atan2, "atan2", "The angle of the point (b, a), in (-pi, pi] (kernel Atan2); float32 output."
)
equal = _compare_op(kn.Equal, "equal", "a == b element-wise (kernel Equal); bool output.")
not_equal = _compare_op(kn.NotEqual, "not_equal", "a != b element-wise (kernel NotEqual); bool output.")
less = _compare_op(kn.Less, "less", "a < b element-wise (kernel Less); bool output.")
less_equal = _compare_op(kn.LessEqual, "less_equal", "a <= b element-wise (kernel LessEqual); bool output.")
greater = _compare_op(kn.Greater, "greater", "a > b element-wise (kernel Greater); bool output.")
greater_equal = _compare_op(
    kn.GreaterEqual, "greater_equal", "a >= b element-wise (kernel GreaterEqual); bool output."
)
logical_and = _logical_op(kn.LogicalAnd, "logical_and", "a and b on bool tensors (kernel LogicalAnd).")
logical_or = _logical_op(kn.LogicalOr, "logical_or", "a or b on bool tensors (kernel LogicalOr).")
logical_xor = _logical_op(
    kn.NotEqual,
    "logical_xor",
    "a xor b on bool tensors (kernel NotEqual on bools; TF.js composes and / or / not).",
)


@op
def add_n(tensors: Sequence[TensorLike]) -> Tensor:
    """The element-wise sum of a list of tensors of one shape and dtype (kernel AddN)."""
    ts = convert_list(tensors, "tensors", "add_n")
    if not ts:
        raise ValueError("Error in add_n: must pass at least one tensor")
    check_alike(
        ts,
        "Error in add_n: all tensors must have the same shape, but tensors[0] has shape {first_shape} and "
        "tensors[{i}] has shape {shape}",
        "Error in add_n: all tensors must have the same dtype, but tensors[0] is {first_dtype} and tensors[{i}] "
        "is {dtype}",
    )
    if ts[0].dtype == "bool":
        ts = [cast(t, "int32") for t in ts]
    return ENGINE.run_kernel(kn.AddN, ts)


@op
def where(condition: TensorLike, a: TensorLike, b: TensorLike) -> Tensor:
    """a where condition is true, else b; the three shapes broadcast together (kernel Select)."""
    c = convert_bool_only(condition, "condition", "where")
    ta, tb = convert_pair(a, b, "where", False)
    try:
        out = broadcast_shapes(broadcast_shapes(c.shape, ta.shape, "where"), tb.shape, "where")
    except ValueError:
        raise ValueError(
            f"Error in where: condition, a and b could not be broadcast together with shapes "
            f"{fmt(c.shape)}, {fmt(ta.shape)} and {fmt(tb.shape)}"
        ) from None
    check_size(out, "where")
    return ENGINE.run_kernel(kn.Select, {"condition": c, "t": ta, "e": tb})
