"""Element-wise unary ops: basic math, transcendental functions, activations, tests and logical_not.

Dtypes: bool inputs are cast to int32 first. abs, neg, square, sign, relu, relu6, floor, ceil, round,
clip_by_value and step keep int32 / float32; the transcendental ops (exp, log, sqrt, sigmoid, tanh, sin, erf,
...), elu, selu, softplus, leaky_relu and prelu give float32; is_nan / is_finite / is_inf give bool.
Math follows float32 TF.js: log(-1) and sqrt(-1) are nan, exp(1000) is inf; nothing raises.
"""

from __future__ import annotations

from ..engine import ENGINE
from ..shapes import broadcast_shapes
from ..tensor import Tensor
from .cast import cast
from .op import TensorLike, convert_bool_only, convert_to_tensor, op

__all__ = [
    "abs", "neg", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square", "reciprocal", "sigmoid", "tanh",
    "relu", "relu6", "elu", "selu", "leaky_relu", "prelu", "softplus", "floor", "ceil", "round", "sign",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "erf", "is_nan", "is_finite", "is_inf",
    "logical_not", "clip_by_value", "step",
]  # fmt: skip


def _convert_bool_as_int(x: TensorLike, arg: str, op_name: str) -> Tensor:
    """convert_to_tensor for math ops: bool tensors become int32 (0 / 1)."""
    t = convert_to_tensor(x, arg, op_name)
    return cast(t, "int32") if t.dtype == "bool" else t


def _unary(kernel: str, x: TensorLike, op_name: str, attrs: dict | None = None) -> Tensor:
    return ENGINE.run_kernel(kernel, {"x": _convert_bool_as_int(x, "x", op_name)}, attrs)


def _number(value: object, arg: str, op_name: str) -> float:
    if isinstance(value, bool) or not hasattr(value, "__float__"):
        raise TypeError(f"Error in {op_name}: {arg} must be a number, but got {value!r}")
    return value if isinstance(value, int) else float(value)  # type: ignore[arg-type]


@op
def abs(x: TensorLike) -> Tensor:  # noqa: A001
    """|x| element-wise (kernel Abs); int32 stays int32."""
    return _unary("Abs", x, "abs")


@op
def neg(x: TensorLike) -> Tensor:
    """-x element-wise (kernel Neg)."""
    return _unary("Neg", x, "neg")


@op
def exp(x: TensorLike) -> Tensor:
    """e ** x element-wise (kernel Exp); float32 output, overflow gives inf."""
    return _unary("Exp", x, "exp")


@op
def expm1(x: TensorLike) -> Tensor:
    """e ** x - 1 element-wise, accurate near 0 (kernel Expm1)."""
    return _unary("Expm1", x, "expm1")


@op
def log(x: TensorLike) -> Tensor:
    """Natural logarithm (kernel Log): log(0) = -inf, log(x < 0) = nan."""
    return _unary("Log", x, "log")


@op
def log1p(x: TensorLike) -> Tensor:
    """log(1 + x), accurate near 0 (kernel Log1p)."""
    return _unary("Log1p", x, "log1p")


@op
def sqrt(x: TensorLike) -> Tensor:
    """Square root (kernel Sqrt): sqrt(x < 0) = nan."""
    return _unary("Sqrt", x, "sqrt")


@op
def rsqrt(x: TensorLike) -> Tensor:
    """1 / sqrt(x) (kernel Rsqrt): rsqrt(0) = inf."""
    return _unary("Rsqrt", x, "rsqrt")


@op
def square(x: TensorLike) -> Tensor:
    """x * x element-wise (kernel Square); int32 stays int32."""
    return _unary("Square", x, "square")


@op
def reciprocal(x: TensorLike) -> Tensor:
    """1 / x (kernel Reciprocal): 1 / 0 = inf."""
    return _unary("Reciprocal", x, "reciprocal")


@op
def sigmoid(x: TensorLike) -> Tensor:
    """1 / (1 + e ** -x) (kernel Sigmoid)."""
    return _unary("Sigmoid", x, "sigmoid")


@op
def tanh(x: TensorLike) -> Tensor:
    """Hyperbolic tangent (kernel Tanh)."""
    return _unary("Tanh", x, "tanh")


@op
def relu(x: TensorLike) -> Tensor:
    """max(x, 0) (kernel Relu); int32 stays int32."""
    return _unary("Relu", x, "relu")


@op
def relu6(x: TensorLike) -> Tensor:
    """min(max(x, 0), 6) (kernel Relu6); int32 stays int32."""
    return _unary("Relu6", x, "relu6")


@op
def elu(x: TensorLike) -> Tensor:
    """x for x >= 0, e ** x - 1 below (kernel Elu)."""
    return _unary("Elu", x, "elu")


@op
def selu(x: TensorLike) -> Tensor:
    """Scaled elu: scale * x for x >= 0, scale * alpha * (e ** x - 1) below (kernel Selu)."""
    return _unary("Selu", x, "selu")


@op
def leaky_relu(x: TensorLike, alpha: float = 0.2) -> Tensor:
    """x for x >= 0, alpha * x below (kernel LeakyRelu, attr alpha)."""
    return _unary("LeakyRelu", x, "leaky_relu", {"alpha": _number(alpha, "alpha", "leaky_relu")})


@op
def prelu(x: TensorLike, alpha: TensorLike) -> Tensor:
    """x for x >= 0, alpha * x below, with alpha broadcast against x (kernel Prelu)."""
    tx, ta = _convert_bool_as_int(x, "x", "prelu"), _convert_bool_as_int(alpha, "alpha", "prelu")
    broadcast_shapes(tx.shape, ta.shape, "prelu")
    return ENGINE.run_kernel("Prelu", {"x": tx, "alpha": ta})


@op
def softplus(x: TensorLike) -> Tensor:
    """log(1 + e ** x), without overflow (kernel Softplus)."""
    return _unary("Softplus", x, "softplus")


@op
def floor(x: TensorLike) -> Tensor:
    """Largest integer <= x (kernel Floor); int32 stays int32."""
    return _unary("Floor", x, "floor")


@op
def ceil(x: TensorLike) -> Tensor:
    """Smallest integer >= x (kernel Ceil); int32 stays int32."""
    return _unary("Ceil", x, "ceil")


@op
def round(x: TensorLike) -> Tensor:  # noqa: A001
    """Nearest integer, halves to even (kernel Round): round(2.5) = 2, round(3.5) = 4."""
    return _unary("Round", x, "round")


@op
def sign(x: TensorLike) -> Tensor:
    """-1, 0 or 1 by the sign of x, 0 for nan (kernel Sign); int32 stays int32."""
    return _unary("Sign", x, "sign")


@op
def sin(x: TensorLike) -> Tensor:
    """Sine (kernel Sin)."""
    return _unary("Sin", x, "sin")


@op
def cos(x: TensorLike) -> Tensor:
    """Cosine (kernel Cos)."""
    return _unary("Cos", x, "cos")


@op
def tan(x: TensorLike) -> Tensor:
    """Tangent (kernel Tan)."""
    return _unary("Tan", x, "tan")


@op
def asin(x: TensorLike) -> Tensor:
    """Inverse sine (kernel Asin): nan outside [-1, 1]."""
    return _unary("Asin", x, "asin")


@op
def acos(x: TensorLike) -> Tensor:
    """Inverse cosine (kernel Acos): nan outside [-1, 1]."""
    return _unary("Acos", x, "acos")


@op
def atan(x: TensorLike) -> Tensor:
    """Inverse tangent (kernel Atan)."""
    return _unary("Atan", x, "atan")


@op
def sinh(x: TensorLike) -> Tensor:
    """Hyperbolic sine (kernel Sinh)."""
    return _unary("Sinh", x, "sinh")


@op
def cosh(x: TensorLike) -> Tensor:
    """Hyperbolic cosine (kernel Cosh)."""
    return _unary("Cosh", x, "cosh")


@op
def erf(x: TensorLike) -> Tensor:
    """Gauss error function (kernel Erf)."""
    return _unary("Erf", x, "erf")


@op
def is_nan(x: TensorLike) -> Tensor:
    """True where x is nan (kernel IsNan); bool output."""
    return ENGINE.run_kernel("IsNan", {"x": convert_to_tensor(x, "x", "is_nan")})


@op
def is_finite(x: TensorLike) -> Tensor:
    """True where x is neither nan nor +-inf (kernel IsFinite); bool output."""
    return ENGINE.run_kernel("IsFinite", {"x": convert_to_tensor(x, "x", "is_finite")})


@op
def is_inf(x: TensorLike) -> Tensor:
    """True where x is +inf or -inf (kernel IsInf); bool output."""
    return ENGINE.run_kernel("IsInf", {"x": convert_to_tensor(x, "x", "is_inf")})


@op
def logical_not(x: TensorLike) -> Tensor:
    """not x on a bool tensor (kernel LogicalNot)."""
    return ENGINE.run_kernel("LogicalNot", {"x": convert_bool_only(x, "x", "logical_not")})


@op
def clip_by_value(x: TensorLike, clip_value_min: float, clip_value_max: float) -> Tensor:
    """x clipped to [clip_value_min, clip_value_max], nan kept (kernel ClipByValue); dtype kept."""
    lo = _number(clip_value_min, "clip_value_min", "clip_by_value")
    hi = _number(clip_value_max, "clip_value_max", "clip_by_value")
    if lo > hi:
        raise ValueError(
            f"Error in clip_by_value: clip_value_min ({lo}) must be less than or equal to "
            f"clip_value_max ({hi})"
        )
    return _unary("ClipByValue", x, "clip_by_value", {"clip_value_min": lo, "clip_value_max": hi})


@op
def step(x: TensorLike, alpha: float = 0.0) -> Tensor:
    """1 where x > 0, alpha elsewhere, nan kept (kernel Step, attr alpha); dtype kept."""
    return _unary("Step", x, "step", {"alpha": _number(alpha, "alpha", "step")})
