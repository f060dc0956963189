"""Gradients by kernel name (tfjs-core's gradients/): one GradConfig per kernel, built from ops."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: grad_func(dy, saved, attrs) -> {input name: thunk returning that input's gradient}. `dy` is the
#: gradient of the kernel's output (a list for multi-output kernels); `saved` holds the inputs named in
#: inputs_to_save (all inputs, in order, with save_all_inputs) followed by the outputs flagged in
#: outputs_to_save. Variadic inputs (Concat, Pack, AddN) are keyed by position: "0", "1", ...
GradFunc = Callable[[Any, list[Any], dict[str, Any]], dict[str, Callable[[], Any]]]


@dataclass(frozen=True)
class GradConfig:
    """How to differentiate one kernel (TF.js GradConfig)."""

    kernel_name: str
    grad_func: GradFunc
    inputs_to_save: tuple[str, ...] = ()
    outputs_to_save: tuple[bool, ...] = ()
    save_all_inputs: bool = False


_GRADIENTS: dict[str, GradConfig] = {}


def register_gradient(config: GradConfig) -> None:
    """Register (or replace, with a warning in TF.js; silently here) the gradient of a kernel."""
    _GRADIENTS[config.kernel_name] = config


def unregister_gradient(kernel_name: str) -> None:
    """Remove the gradient of a kernel (TF.js only warns when none was registered; so does nothing here)."""
    _GRADIENTS.pop(kernel_name, None)


def get_gradient(kernel_name: str) -> GradConfig | None:
    """The gradient registered for a kernel, or None."""
    return _GRADIENTS.get(kernel_name)


def registered_gradients() -> dict[str, GradConfig]:
    """Every registered gradient (kernel name -> config)."""
    return dict(_GRADIENTS)
