"""Element-wise binary ops with NumPy-style broadcasting: arithmetic, comparisons, logical ops, add_n, where.

Dtypes follow TF.js makeTypesMatch: mixed operands are upcast (bool < int32 < float32) with Cast; a Python
number or list next to a tensor is made directly in the upcast dtype. Arithmetic treats bool as int32.
div of two int32 tensors is floor_div, and floor_div always returns int32 (as TF.js). Comparisons give bool;
logical ops need bool inputs. Errors name the op and both shapes.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dtypes import infer_dtype, upcast
from ..engine import ENGINE
from ..shapes import broadcast_shapes, fmt
from ..tensor import Tensor
from .cast import cast
from .creation import zeros_like
from .op import TensorLike, convert_bool_only, convert_list, convert_to_tensor, op

__all__ = [
    "add", "sub", "mul", "div", "div_no_nan", "floor_div", "mod", "pow", "maximum", "minimum",
    "squared_difference", "atan2", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "add_n", "where",
]  # fmt: skip


def _literal_dtype(x: TensorLike, other: str) -> str | None:
    if isinstance(x, Tensor) or x is None:
        return None
    return upcast(other, infer_dtype(x))


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
            broadcast_shapes(a.shape, b.shape, op_name)
        return a, b
    if isinstance(a, Tensor) or not isinstance(b, Tensor):
        ta = convert_to_tensor(a, "a", op_name)
        tb = convert_to_tensor(b, "b", op_name, _literal_dtype(b, ta.dtype))
    else:
        tb = convert_to_tensor(b, "b", op_name)
        ta = convert_to_tensor(a, "a", op_name, _literal_dtype(a, tb.dtype))
    dtype = upcast(ta.dtype, tb.dtype)
    if bool_as_int and dtype == "bool":
        dtype = "int32"
    if ta.dtype != dtype:
        ta = cast(ta, dtype)
    if tb.dtype != dtype:
        tb = cast(tb, dtype)
    broadcast_shapes(ta.shape, tb.shape, op_name)
    return ta, tb


def _binary(kernel: str, a: TensorLike, b: TensorLike, op_name: str, bool_as_int: bool = True) -> Tensor:
    ta, tb = convert_pair(a, b, op_name, bool_as_int)
    return ENGINE.run_kernel(kernel, {"a": ta, "b": tb})


def _logical(kernel: str, a: TensorLike, b: TensorLike, op_name: str) -> Tensor:
    ta, tb = convert_bool_only(a, "a", op_name), convert_bool_only(b, "b", op_name)
    broadcast_shapes(ta.shape, tb.shape, op_name)
    return ENGINE.run_kernel(kernel, {"a": ta, "b": tb})


@op
def add(a: TensorLike, b: TensorLike) -> Tensor:
    """a + b element-wise with broadcasting (kernel Add)."""
    return _binary("Add", a, b, "add")


@op
def sub(a: TensorLike, b: TensorLike) -> Tensor:
    """a - b element-wise with broadcasting (kernel Sub)."""
    return _binary("Sub", a, b, "sub")


@op
def mul(a: TensorLike, b: TensorLike) -> Tensor:
    """a * b element-wise with broadcasting (kernel Multiply)."""
    return _binary("Multiply", a, b, "mul")


@op
def div(a: TensorLike, b: TensorLike) -> Tensor:
    """a / b (kernel RealDiv; FloorDiv when both are int32, as TF.js): x / 0 = +-inf, 0 / 0 = nan."""
    ta, tb = convert_pair(a, b, "div")
    kernel = "FloorDiv" if ta.dtype == "int32" else "RealDiv"
    return ENGINE.run_kernel(kernel, {"a": ta, "b": tb})


@op
def div_no_nan(a: TensorLike, b: TensorLike) -> Tensor:
    """a / b, but 0 where b == 0 (composite, as TF.js: div, equal, where)."""
    ta, tb = convert_pair(a, b, "div_no_nan")
    quotient = div(ta, tb)
    return where(equal(tb, 0), zeros_like(quotient), quotient)


@op
def floor_div(a: TensorLike, b: TensorLike) -> Tensor:
    """floor(a / b) as int32, whatever the input dtype (kernel FloorDiv, as TF.js); x // 0 = 0."""
    return _binary("FloorDiv", a, b, "floor_div")


@op
def mod(a: TensorLike, b: TensorLike) -> Tensor:
    """Remainder with the sign of the divisor, like Python's % (kernel Mod); int32 x % 0 = 0."""
    return _binary("Mod", a, b, "mod")


@op
def pow(a: TensorLike, b: TensorLike) -> Tensor:  # noqa: A001
    """a ** b (kernel Pow); int32 ** int32 stays int32 (fractional results truncate)."""
    return _binary("Pow", a, b, "pow")


@op
def maximum(a: TensorLike, b: TensorLike) -> Tensor:
    """Element-wise max, nan if either is nan (kernel Maximum); bool is compared as int32."""
    return _binary("Maximum", a, b, "maximum")


@op
def minimum(a: TensorLike, b: TensorLike) -> Tensor:
    """Element-wise min, nan if either is nan (kernel Minimum); bool is compared as int32."""
    return _binary("Minimum", a, b, "minimum")


@op
def squared_difference(a: TensorLike, b: TensorLike) -> Tensor:
    """(a - b) ** 2 element-wise (kernel SquaredDifference)."""
    return _binary("SquaredDifference", a, b, "squared_difference")


@op
def atan2(a: TensorLike, b: TensorLike) -> Tensor:
    """The angle of the point (b, a), in (-pi, pi] (kernel Atan2); float32 output."""
    return _binary("Atan2", a, b, "atan2")


@op
def equal(a: TensorLike, b: TensorLike) -> Tensor:
    """a == b element-wise (kernel Equal); bool output."""
    return _binary("Equal", a, b, "equal", False)


@op
def not_equal(a: TensorLike, b: TensorLike) -> Tensor:
    """a != b element-wise (kernel NotEqual); bool output."""
    return _binary("NotEqual", a, b, "not_equal", False)


@op
def less(a: TensorLike, b: TensorLike) -> Tensor:
    """a < b element-wise (kernel Less); bool output."""
    return _binary("Less", a, b, "less", False)


@op
def less_equal(a: TensorLike, b: TensorLike) -> Tensor:
    """a <= b element-wise (kernel LessEqual); bool output."""
    return _binary("LessEqual", a, b, "less_equal", False)


@op
def greater(a: TensorLike, b: TensorLike) -> Tensor:
    """a > b element-wise (kernel Greater); bool output."""
    return _binary("Greater", a, b, "greater", False)


@op
def greater_equal(a: TensorLike, b: TensorLike) -> Tensor:
    """a >= b element-wise (kernel GreaterEqual); bool output."""
    return _binary("GreaterEqual", a, b, "greater_equal", False)


@op
def logical_and(a: TensorLike, b: TensorLike) -> Tensor:
    """a and b on bool tensors (kernel LogicalAnd)."""
    return _logical("LogicalAnd", a, b, "logical_and")


@op
def logical_or(a: TensorLike, b: TensorLike) -> Tensor:
    """a or b on bool tensors (kernel LogicalOr)."""
    return _logical("LogicalOr", a, b, "logical_or")


@op
def logical_xor(a: TensorLike, b: TensorLike) -> Tensor:
    """a xor b on bool tensors (kernel NotEqual on bools; TF.js composes and / or / not)."""
    return _logical("NotEqual", a, b, "logical_xor")


@op
def add_n(tensors: Sequence[TensorLike]) -> Tensor:
    """The element-wise sum of a list of tensors of one shape and dtype (kernel AddN)."""
    ts = convert_list(tensors, "tensors", "add_n")
    if not ts:
        raise ValueError("Error in add_n: must pass at least one tensor")
    first = ts[0]
    for i, t in enumerate(ts[1:], 1):
        if t.shape != first.shape:
            raise ValueError(
                f"Error in add_n: all tensors must have the same shape, but tensors[0] has shape "
                f"{fmt(first.shape)} and tensors[{i}] has shape {fmt(t.shape)}"
            )
        if t.dtype != first.dtype:
            raise TypeError(
                f"Error in add_n: all tensors must have the same dtype, but tensors[0] is {first.dtype} "
                f"and tensors[{i}] is {t.dtype}"
            )
    if first.dtype == "bool":
        ts = [cast(t, "int32") for t in ts]
    return ENGINE.run_kernel("AddN", ts)


@op
def where(condition: TensorLike, a: TensorLike, b: TensorLike) -> Tensor:
    """a where condition is true, else b; the three shapes broadcast together (kernel Select)."""
    c = convert_bool_only(condition, "condition", "where")
    ta, tb = convert_pair(a, b, "where", False)
    try:
        broadcast_shapes(broadcast_shapes(c.shape, ta.shape, "where"), tb.shape, "where")
    except ValueError:
        raise ValueError(
            f"Error in where: condition, a and b could not be broadcast together with shapes "
            f"{fmt(c.shape)}, {fmt(ta.shape)} and {fmt(tb.shape)}"
        ) from None
    return ENGINE.run_kernel("Select", {"condition": c, "t": ta, "e": tb})
