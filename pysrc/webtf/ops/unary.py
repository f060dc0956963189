"""Element-wise unary ops: basic math, transcendental functions, activations, tests and logical_not.

Dtypes: bool inputs are cast to int32 first. abs, neg, square, sign, relu, relu6, floor, ceil, round,
clip_by_value and step keep int32 / float32; the transcendental ops (exp, log, sqrt, sigmoid, tanh, sin, erf,
...), elu, selu, softplus, leaky_relu and prelu give float32; is_nan / is_finite / is_inf give bool.
Math follows float32 TF.js: log(-1) and sqrt(-1) are nan, exp(1000) is inf; nothing raises.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol

from .. import kernel_names as kn
from ..engine import ENGINE
from ..tensor import Tensor
from .cast import cast
from .checks import broadcast_output, number_arg
from .op import TensorLike, convert_bool_only, convert_to_tensor, named_op, op

__all__ = [
    "abs", "neg", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square", "reciprocal", "sigmoid", "tanh",
    "relu", "relu6", "elu", "selu", "leaky_relu", "prelu", "softplus", "floor", "ceil", "round", "sign",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "erf", "is_nan", "is_finite", "is_inf",
    "logical_not", "clip_by_value", "step",
    "acosh", "asinh", "atanh", "log_sigmoid",
]  # fmt: skip


class UnaryOp(Protocol):
    """The type of the ops _unary_op makes."""

    def __call__(self, x: TensorLike) -> Tensor: ...


_AS_IS = frozenset(("float32", "int32"))  # dtypes _convert_bool_as_int passes as they are


def _convert_bool_as_int(x: TensorLike, arg: str, op_name: str) -> Tensor:
    """convert_to_tensor for math ops: bool tensors become int32 (0 / 1)."""
    t = convert_to_tensor(x, arg, op_name)
    return cast(t, "int32") if t.dtype == "bool" else t


def _unary(kernel: str, x: TensorLike, op_name: str, attrs: dict | None = None) -> Tensor:
    return ENGINE.run_kernel(kernel, {"x": _convert_bool_as_int(x, "x", op_name)}, attrs)


def _unary_op(
    kernel: str, name: str, doc: str, convert: Callable[[TensorLike, str, str], Tensor] = _convert_bool_as_int
) -> UnaryOp:
    """The op `name` (docstring `doc`): `kernel` on x converted by `convert` (by default bool as int32)."""

    def unary_op(x: TensorLike) -> Tensor:
        return ENGINE.run_kernel(kernel, {"x": convert(x, "x", name)})

    scoped = named_op(unary_op, name, doc)
    if convert is not _convert_bool_as_int:
        return scoped

    @functools.wraps(scoped)
    def fast_unary_op(x: TensorLike) -> Tensor:
        if type(x) is Tensor and x.dtype in _AS_IS and not x.is_disposed_internal:
            return ENGINE.run_fast(kernel, x)  # nothing to convert: no scope needed
        return scoped(x)

    return fast_unary_op


abs = _unary_op(kn.Abs, "abs", "|x| element-wise (kernel Abs); int32 stays int32.")
def _convert_real(x: TensorLike, arg: str, op_name: str) -> Tensor:
    """_convert_bool_as_int, refusing complex64 (TF.js's Neg kernel takes none on any backend)."""
    t = _convert_bool_as_int(x, arg, op_name)
    if t.dtype == "complex64":
        raise TypeError(f"Error in {op_name}: complex64 tensors are not supported (TF.js's Neg kernel takes none)")
    return t


neg = _unary_op(kn.Neg, "neg", "-x element-wise (kernel Neg).", _convert_real)
exp = _unary_op(kn.Exp, "exp", "e ** x element-wise (kernel Exp); float32 output, overflow gives inf.")
expm1 = _unary_op(kn.Expm1, "expm1", "e ** x - 1 element-wise, accurate near 0 (kernel Expm1).")
log = _unary_op(kn.Log, "log", "Natural logarithm (kernel Log): log(0) = -inf, log(x < 0) = nan.")
log1p = _unary_op(kn.Log1p, "log1p", "log(1 + x), accurate near 0 (kernel Log1p).")
sqrt = _unary_op(kn.Sqrt, "sqrt", "Square root (kernel Sqrt): sqrt(x < 0) = nan.")
rsqrt = _unary_op(kn.Rsqrt, "rsqrt", "1 / sqrt(x) (kernel Rsqrt): rsqrt(0) = inf.")
square = _unary_op(kn.Square, "square", "x * x element-wise (kernel Square); int32 stays int32.")
reciprocal = _unary_op(kn.Reciprocal, "reciprocal", "1 / x (kernel Reciprocal): 1 / 0 = inf.")
sigmoid = _unary_op(kn.Sigmoid, "sigmoid", "1 / (1 + e ** -x) (kernel Sigmoid).")
tanh = _unary_op(kn.Tanh, "tanh", "Hyperbolic tangent (kernel Tanh).")
relu = _unary_op(kn.Relu, "relu", "max(x, 0) (kernel Relu); int32 stays int32.")
relu6 = _unary_op(kn.Relu6, "relu6", "min(max(x, 0), 6) (kernel Relu6); int32 stays int32.")
elu = _unary_op(kn.Elu, "elu", "x for x >= 0, e ** x - 1 below (kernel Elu).")
selu = _unary_op(
    kn.Selu, "selu", "Scaled elu: scale * x for x >= 0, scale * alpha * (e ** x - 1) below (kernel Selu)."
)


@op
def leaky_relu(x: TensorLike, alpha: float = 0.2) -> Tensor:
    """x for x >= 0, alpha * x below (kernel LeakyRelu, attr alpha)."""
    return _unary(kn.LeakyRelu, x, "leaky_relu", {"alpha": number_arg(alpha, "alpha", "leaky_relu")})


@op
def prelu(x: TensorLike, alpha: TensorLike) -> Tensor:
    """x for x >= 0, alpha * x below, with alpha broadcast against x (kernel Prelu)."""
    tx, ta = _convert_bool_as_int(x, "x", "prelu"), _convert_bool_as_int(alpha, "alpha", "prelu")
    broadcast_output(tx.shape, ta.shape, "prelu")
    return ENGINE.run_kernel(kn.Prelu, {"x": tx, "alpha": ta})


softplus = _unary_op(kn.Softplus, "softplus", "log(1 + e ** x), without overflow (kernel Softplus).")
floor = _unary_op(kn.Floor, "floor", "Largest integer <= x (kernel Floor); int32 stays int32.")
ceil = _unary_op(kn.Ceil, "ceil", "Smallest integer >= x (kernel Ceil); int32 stays int32.")
round = _unary_op(
    kn.Round, "round", "Nearest integer, halves to even (kernel Round): round(2.5) = 2, round(3.5) = 4."
)
sign = _unary_op(kn.Sign, "sign", "-1, 0 or 1 by the sign of x, 0 for nan (kernel Sign); int32 stays int32.")
sin = _unary_op(kn.Sin, "sin", "Sine (kernel Sin).")
cos = _unary_op(kn.Cos, "cos", "Cosine (kernel Cos).")
tan = _unary_op(kn.Tan, "tan", "Tangent (kernel Tan).")
asin = _unary_op(kn.Asin, "asin", "Inverse sine (kernel Asin): nan outside [-1, 1].")
acos = _unary_op(kn.Acos, "acos", "Inverse cosine (kernel Acos): nan outside [-1, 1].")
atan = _unary_op(kn.Atan, "atan", "Inverse tangent (kernel Atan).")
sinh = _unary_op(kn.Sinh, "sinh", "Hyperbolic sine (kernel Sinh).")
cosh = _unary_op(kn.Cosh, "cosh", "Hyperbolic cosine (kernel Cosh).")
erf = _unary_op(kn.Erf, "erf", "Gauss error function (kernel Erf).")
is_nan = _unary_op(kn.IsNan, "is_nan", "True where x is nan (kernel IsNan); bool output.", convert_to_tensor)
is_finite = _unary_op(
    kn.IsFinite,
    "is_finite",
    "True where x is neither nan nor +-inf (kernel IsFinite); bool output.",
    convert_to_tensor,
)
is_inf = _unary_op(
    kn.IsInf, "is_inf", "True where x is +inf or -inf (kernel IsInf); bool output.", convert_to_tensor
)
logical_not = _unary_op(
    kn.LogicalNot, "logical_not", "not x on a bool tensor (kernel LogicalNot).", convert_bool_only
)


@op
def clip_by_value(x: TensorLike, clip_value_min: float, clip_value_max: float) -> Tensor:
    """x clipped to [clip_value_min, clip_value_max], nan kept (kernel ClipByValue); dtype kept."""
    lo = number_arg(clip_value_min, "clip_value_min", "clip_by_value")
    hi = number_arg(clip_value_max, "clip_value_max", "clip_by_value")
    if not lo <= hi:  # a NaN bound fails it too, as TF.js's assert does
        raise ValueError(
            f"Error in clip_by_value: clip_value_min ({lo}) must be less than or equal to "
            f"clip_value_max ({hi})"
        )
    return _unary(kn.ClipByValue, x, "clip_by_value", {"clip_value_min": lo, "clip_value_max": hi})


@op
def step(x: TensorLike, alpha: float = 0.0) -> Tensor:
    """1 where x > 0, alpha elsewhere, nan kept (kernel Step, attr alpha); dtype kept."""
    return _unary(kn.Step, x, "step", {"alpha": number_arg(alpha, "alpha", "step")})


acosh = _unary_op(kn.Acosh, "acosh", "Inverse hyperbolic cosine (kernel Acosh): nan below 1.")
asinh = _unary_op(kn.Asinh, "asinh", "Inverse hyperbolic sine (kernel Asinh).")
atanh = _unary_op(kn.Atanh, "atanh", "Inverse hyperbolic tangent (kernel Atanh): +-inf at +-1, nan beyond.")


@op
def log_sigmoid(x: TensorLike) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), without overflow (composite, as TF.js's logSigmoid)."""
    t = _convert_bool_as_int(x, "x", "log_sigmoid")
    return neg(softplus(neg(t)))
