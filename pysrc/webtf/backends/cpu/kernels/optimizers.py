"""cpu kernels for the optimizer updates (ApplyAdam, ...; contracts in update_rules.py): each rule compiled
once into a Python loop over the flat buffers, computing in float64 and rounding to float32 on store.

Two versions per rule: a fast one with Python's `/` and math.sqrt, and one with JS semantics (x / 0 gives
+-inf or nan, sqrt of a negative gives nan) that runs only when the fast one raises.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from typing import Any

from ....update_rules import RULES, UpdateRule, render
from ...base import TensorInfo
from .binary import _js_div

_RAISES = (ZeroDivisionError, OverflowError, ValueError)


def _js_max(a: float, b: float) -> float:
    return a if a > b or a != a else b


def _js_sqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0 else math.nan


def compile_rule(name: str, rule: UpdateRule, js_semantics: bool) -> Callable[..., tuple[list[float], ...]]:
    """f(*input buffers, *scalars) -> one list per output: the rule as a Python loop (source made once)."""
    functions = {"sqrt": "_js_sqrt" if js_semantics else "_sqrt", "abs": "abs", "max": "_js_max"}
    divide = "_js_div({}, {})" if js_semantics else "({} / {})"
    buffers = [f"_{n}" for n in rule.inputs]
    lines = [f"def {name}({', '.join(buffers + list(rule.scalars))}):"]
    lines += [f"    _out{k} = []; _add{k} = _out{k}.append" for k in range(len(rule.outputs))]
    lines.append(f"    for {', '.join(rule.inputs)} in zip({', '.join(buffers)}):")
    lines += [f"        {target} = {render(expr, functions, divide=divide)}" for target, expr in rule.steps]
    lines += [f"        _add{k}({n})" for k, n in enumerate(rule.outputs)]
    lines.append(f"    return {', '.join(f'_out{k}' for k in range(len(rule.outputs)))},")
    namespace: dict[str, Any] = {
        "_sqrt": math.sqrt,
        "_js_sqrt": _js_sqrt,
        "_js_max": _js_max,
        "_js_div": _js_div,
    }
    exec(compile("\n".join(lines), f"<update rule {name}>", "exec"), namespace)
    return namespace[name]


def _kernel(name: str, rule: UpdateRule) -> Callable[..., list[TensorInfo]]:
    fast, safe = compile_rule(name, rule, False), compile_rule(name, rule, True)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
        buffers = [backend.values(inputs[n]) for n in rule.inputs]
        scalars = [float(attrs[s]) for s in rule.scalars]
        try:
            outs = fast(*buffers, *scalars)
        except _RAISES:
            outs = safe(*buffers, *scalars)
        shape = inputs["value"].shape
        return [backend.output(array("f", out), shape, "float32") for out in outs]

    kernel.__name__ = kernel.__qualname__ = f"cpu_{name}"
    kernel.__doc__ = f"{name}: the update rule of update_rules.RULES as a Python loop."
    return kernel


KERNELS: dict[str, Any] = {name: _kernel(name, rule) for name, rule in RULES.items()}
