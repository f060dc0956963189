"""GLSL kernels for the optimizer updates (ApplyAdam, ...; contracts in update_rules.py): each rule written
into shaders/ApplyUpdate.glsl as vec4 arithmetic, one program (and one draw) per output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ....update_rules import RULES, UpdateRule, render
from ...base import TensorInfo

_FUNCTIONS = {"sqrt": "sqrt", "abs": "abs", "max": "max"}


def glsl_holes(rule: UpdateRule, output: str) -> dict[str, str]:
    """The holes of shaders/ApplyUpdate.glsl for the program that returns `output`."""
    temps = sorted({target for target, _ in rule.steps} - set(rule.inputs))
    body = [f"float {s} = uF[{k}];" for k, s in enumerate(rule.scalars)]
    body += [f"vec4 {x} = texel({x.upper()}, t);" for x in rule.inputs]
    body += [f"vec4 {x};" for x in temps]
    body += [f"{target} = {render(expr, _FUNCTIONS)};" for target, expr in rule.steps]
    return {
        "SAMPLERS": "\n".join(f"uniform sampler2D {x.upper()};" for x in rule.inputs),
        "BODY": "\n".join(f"  {line}" for line in body),
        "RESULT": output,
    }


def _kernel(name: str, rule: UpdateRule) -> Callable[..., list[TensorInfo]]:
    samplers = [x.upper() for x in rule.inputs]

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
        value = inputs["value"]
        tensors = [inputs[x] for x in rule.inputs]
        floats = [float(attrs[s]) for s in rule.scalars]
        outs = []
        for output in rule.outputs:
            key = ("ApplyUpdate", name, output)
            prog = backend.programs.get(key) or backend.programs.build(
                key, "ApplyUpdate", samplers, 0, len(floats), (), glsl_holes(rule, output)
            )
            outs.append(backend.run(prog, tensors, value.shape, "float32", (), floats, value.size))
        return outs

    kernel.__name__ = kernel.__qualname__ = f"webgl_{name}"
    kernel.__doc__ = f"{name}: the update rule of update_rules.RULES in GLSL, one draw per output."
    return kernel


KERNELS: dict[str, Any] = {name: _kernel(name, rule) for name, rule in RULES.items()}
