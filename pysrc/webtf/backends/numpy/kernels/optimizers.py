"""numpy kernels for the optimizer updates (ApplyAdam, ...; contracts in webtf/update_rules.py): each rule
compiled once into one Python function over whole arrays, computing in float64 and rounding to float32 on
store, as the cpu kernels do (x / 0 gives +-inf or nan, sqrt of a negative nan, max propagates nan)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ....update_rules import RULES, UpdateRule, render
from ...base import TensorInfo

_FUNCTIONS = {"sqrt": "_np.sqrt", "abs": "_np.abs", "max": "_np.maximum"}


def compile_rule(name: str, rule: UpdateRule) -> Callable[..., tuple[np.ndarray, ...]]:
    """f(*input arrays, *scalars) -> the output arrays: the rule's assignments as array expressions."""
    lines = [f"def {name}({', '.join((*rule.inputs, *rule.scalars))}):"]
    lines += [f"    {target} = {render(expr, _FUNCTIONS)}" for target, expr in rule.steps]
    lines.append(f"    return {', '.join(rule.outputs)},")
    namespace: dict[str, Any] = {"_np": np}
    exec(compile("\n".join(lines), f"<update rule {name}>", "exec"), namespace)
    return namespace[name]


def _kernel(name: str, rule: UpdateRule) -> Callable[..., list[TensorInfo]]:
    update = compile_rule(name, rule)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
        arrays = [backend.nd(inputs[n]).astype(np.float64) for n in rule.inputs]
        outs = update(*arrays, *(float(attrs[s]) for s in rule.scalars))
        return [backend.make(out, "float32") for out in outs]

    kernel.__name__ = kernel.__qualname__ = f"numpy_{name}"
    kernel.__doc__ = f"{name}: the update rule of update_rules.RULES over whole arrays."
    return kernel


KERNELS: dict[str, Any] = {name: _kernel(name, rule) for name, rule in RULES.items()}
