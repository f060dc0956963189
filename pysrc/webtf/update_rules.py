"""The optimizer update kernels (ApplyAdam, ...): one element-wise rule each, written once and compiled by
every backend (cpu to Python, wasm to a JS loop over the heap, webgl to GLSL).

A kernel takes the variable's value, its gradient and the optimizer's slots (inputs named `value`, `grad`
and the rule's slot names, all float32 of one shape) plus the rule's scalars as float attrs, and returns
the new value and the new slots, in that order. A rule is a list of assignments `name = expression`, run
per element in order; names are the inputs (an input reassigned is its new value from then on), the
scalars and earlier results. Expressions use + - * /, unary minus, float literals, sqrt, abs and max
(NaN-propagating, as JS Math.max). The formulas are TF.js's optimizers' (tfjs-core optimizers/*.ts), with
its per-step scalars (bias corrections, decayed rates) folded into one scalar computed by the optimizer.
"""

from __future__ import annotations

import ast
from typing import NamedTuple


class UpdateRule(NamedTuple):
    """One update kernel: slot inputs (also outputs after value), float scalars and the assignments."""

    slots: tuple[str, ...]
    scalars: tuple[str, ...]
    steps: tuple[tuple[str, str], ...]

    @property
    def inputs(self) -> tuple[str, ...]:
        """Input names in order: value, grad, slots."""
        return ("value", "grad", *self.slots)

    @property
    def outputs(self) -> tuple[str, ...]:
        """Output names in order: value, slots (each the name's last value)."""
        return ("value", *self.slots)


def _rule(slots: str, scalars: str, *steps: str) -> UpdateRule:
    pairs = tuple(tuple(s.strip() for s in step.split("=", 1)) for step in steps)
    return UpdateRule(tuple(slots.split()), tuple(scalars.split()), pairs)  # type: ignore[arg-type]


RULES: dict[str, UpdateRule] = {
    "ApplyGradientDescent": _rule("", "lr", "value = value - lr * grad"),
    "ApplyMomentum": _rule(
        "accum", "lr momentum", "accum = momentum * accum + grad", "value = value - lr * accum"
    ),
    "ApplyNesterovMomentum": _rule(
        "accum",
        "lr momentum",
        "accum = momentum * accum + grad",
        "value = value - lr * (grad + accum * momentum)",
    ),
    "ApplyRMSProp": _rule(
        "ms mom",
        "lr decay momentum epsilon",
        "ms = ms * decay + grad * grad * (1.0 - decay)",
        "mom = mom * momentum + grad * lr / sqrt(ms + epsilon)",
        "value = value - mom",
    ),
    "ApplyCenteredRMSProp": _rule(
        "ms mom mg",
        "lr decay momentum epsilon",
        "ms = ms * decay + grad * grad * (1.0 - decay)",
        "mg = mg * decay + grad * (1.0 - decay)",
        "mom = mom * momentum + grad * lr / sqrt(ms - (mg * mg + epsilon))",
        "value = value - mom",
    ),
    # correction1, correction2: 1 - beta1 ** t and 1 - beta2 ** t at step t (1, 2, ...)
    "ApplyAdam": _rule(
        "m v",
        "lr beta1 beta2 epsilon correction1 correction2",
        "m = m * beta1 + grad * (1.0 - beta1)",
        "v = v * beta2 + grad * grad * (1.0 - beta2)",
        "value = value - lr * (m / correction1) / (sqrt(v / correction2) + epsilon)",
    ),
    # TF.js scales each update by the accumulator of squared gradients as it was before this step
    "ApplyAdadelta": _rule(
        "accum_grad accum_var",
        "lr rho epsilon",
        "update = sqrt(accum_var + epsilon) / sqrt(accum_grad + epsilon) * grad",
        "accum_grad = accum_grad * rho + grad * grad * (1.0 - rho)",
        "accum_var = accum_var * rho + update * update * (1.0 - rho)",
        "value = value - lr * update",
    ),
    # rate: lr / ((1 + decay * (t - 1)) * (1 - beta1 ** t)) at step t
    "ApplyAdaMax": _rule(
        "m u",
        "rate beta1 beta2 epsilon",
        "m = m * beta1 + grad * (1.0 - beta1)",
        "u = max(u * beta2, abs(grad))",
        "value = value - rate * (m / (u + epsilon))",
    ),
    "ApplyAdagrad": _rule(
        "accum",
        "lr epsilon",
        "accum = accum + grad * grad",
        "value = value - lr * (grad / sqrt(accum + epsilon))",
    ),
}

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_FUNCTIONS = ("sqrt", "abs", "max")


def render(
    expression: str, functions: dict[str, str], number: str = "{!r}", divide: str = "({} / {})"
) -> str:
    """The expression fully parenthesized, with functions renamed by `functions` (sqrt -> Math.sqrt, ...),
    literals formatted by `number` and divisions by `divide`; raises ValueError outside the rules' language."""

    def emit(node: ast.expr) -> str:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return divide.format(emit(node.left), emit(node.right))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return f"({emit(node.left)} {_OPS[type(node.op)]} {emit(node.right)})"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{emit(node.operand)})"
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Constant) and type(node.value) is float:
            return number.format(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
            return f"{functions[node.func.id]}({', '.join(emit(a) for a in node.args)})"
        raise ValueError(f"update rule: unsupported expression {ast.unparse(node)!r} in {expression!r}")

    return emit(ast.parse(expression, mode="eval").body)
