"""wasm kernels for the optimizer updates (ApplyAdam, ...; contracts in update_rules.py): each rule compiled
once into a JS loop over the tensors' heap blocks (the binary has no such export), computing in float64 and
rounding to float32 on store, with JS's own division, Math.sqrt and Math.max."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ....update_rules import RULES, UpdateRule, render
from ...base import TensorInfo

_FUNCTIONS = {"sqrt": "Math.sqrt", "abs": "Math.abs", "max": "Math.max"}


def js_source(rule: UpdateRule) -> str:
    """`(memory) => (n, input pointers..., output pointers..., scalars...) => ...` for backend.heap_function."""
    inputs, outputs = rule.inputs, rule.outputs
    params = ["n", *(f"p_{x}" for x in inputs), *(f"o_{k}" for k in range(len(outputs))), *rule.scalars]
    views = [f"const {x.upper()} = F(p_{x});" for x in inputs]
    views += [f"const O{k} = F(o_{k});" for k in range(len(outputs))]
    temps = sorted({target for target, _ in rule.steps} - set(inputs))
    body = [f"let {', '.join(f'{x} = {x.upper()}[i]' for x in inputs)};"]
    body += [f"let {', '.join(temps)};"] if temps else []
    body += [f"{target} = {render(expr, _FUNCTIONS)};" for target, expr in rule.steps]
    body += [f"O{k}[i] = {x};" for k, x in enumerate(outputs)]
    return "\n".join(
        [
            f"(memory) => ({', '.join(params)}) => {{",
            "  const F = (p) => new Float32Array(memory.buffer, p, n);",
            *(f"  {line}" for line in views),
            "  for (let i = 0; i < n; i++) {",
            *(f"    {line}" for line in body),
            "  }",
            "}",
        ]
    )


def _kernel(name: str, rule: UpdateRule) -> Callable[..., list[TensorInfo]]:
    source = js_source(rule)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
        value = inputs["value"]
        outs = [backend.make_output(value.shape, "float32") for _ in rule.outputs]
        if value.size:
            backend.heap_function(source)(
                value.size,
                *(backend.pointer(inputs[x]) for x in rule.inputs),
                *(backend.pointer(o) for o in outs),
                *(float(attrs[s]) for s in rule.scalars),
            )
        return outs

    kernel.__name__ = kernel.__qualname__ = f"wasm_{name}"
    kernel.__doc__ = f"{name}: the update rule of update_rules.RULES as a JS loop over the heap."
    return kernel


KERNELS: dict[str, Any] = {name: _kernel(name, rule) for name, rule in RULES.items()}
