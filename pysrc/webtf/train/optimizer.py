"""The base of tf.train's optimizers (tfjs-core optimizers/optimizer.ts): minimize, apply_gradients, slots.

A subclass names its update kernel (update_rules.py) and its slots, and gives the kernel's scalars for the
next step. apply_gradients runs, per variable, that one kernel on the value, the gradient and the slots,
and assigns the results; everything runs in one scope, so nothing but the new values outlives it.
Slots are non-trainable Variables (counted by tf.memory()), made on a variable's first update, named
`<variable name>/<suffix>` in get_weights() as TF.js names them, and freed by dispose(). They are keyed
by the variable's name (TF.js keys them by position in the gradient list; the results are the same).
"""

from __future__ import annotations

import inspect
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ..engine import ENGINE
from ..gradients import variable_grads
from ..ops.creation import fill, scalar
from ..ops.op import op
from ..shapes import fmt
from ..tensor import Tensor, Variable
from ..update_rules import RULES


class NamedTensor(NamedTuple):
    """A tensor with a name: get_weights() returns these, apply_gradients and set_weights accept them."""

    name: str
    tensor: Tensor


def _named(items: Any, what: str) -> list[tuple[str, Any]]:
    """(name, tensor) pairs from a dict, or a list of NamedTensors, (name, tensor) pairs or {name, tensor}."""
    if isinstance(items, Mapping):
        return list(items.items())
    if isinstance(items, (list, tuple)):
        pairs = []
        for item in items:
            if isinstance(item, Mapping) and "name" in item:
                pairs.append((item["name"], item.get("tensor")))
            elif isinstance(item, tuple) and len(item) == 2:
                pairs.append((item[0], item[1]))
            else:
                raise TypeError(f"{what}: expected NamedTensors or (name, tensor) pairs, got {item!r}")
        return pairs
    raise TypeError(
        f"{what}: expected a dict of name -> tensor or a list of NamedTensors, got {type(items).__name__}"
    )


def number(value: Any, arg: str, where: str) -> float:
    """value as a float, or a TypeError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {arg} must be a number, got {value!r}")
    return float(value)


def _camel(arg: str) -> str:
    """TF.js's camelCase name of a snake_case argument (learning_rate -> learningRate)."""
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), arg)


class Optimizer:
    """What every optimizer shares; subclasses set `kernel`, `slot_suffixes` and `scalars()`."""

    class_name = "Optimizer"
    kernel = ""
    slot_suffixes: tuple[str, ...] = ()
    slot_initial_value = 0.0

    def __init__(self) -> None:
        self.iterations = 0
        self._slots: dict[str, list[NamedTensor]] = {}

    def scalars(self) -> dict[str, float]:
        """The update kernel's scalars for the next step (self.iterations steps were taken so far)."""
        raise NotImplementedError

    def set_numbers(self, **values: float | None) -> None:
        """Set each value as an attribute, checked to be a number; an `epsilon` of None becomes the
        backend's epsilon() (TF.js reads it when the optimizer is made)."""
        for arg, value in values.items():
            if arg == "epsilon" and value is None:
                value = ENGINE.backend.epsilon()
            setattr(self, arg, number(value, arg, self.class_name))

    # ---- training ---------------------------------------------------------------------------------
    def minimize(
        self, f: Callable[[], Tensor], return_cost: bool = False, var_list: Sequence[Variable] | None = None
    ) -> Tensor | None:
        """Compute f's gradients with respect to var_list (every trainable variable by default) and apply
        them; return f's value when return_cost, else free it."""
        value, grads = self.compute_gradients(f, var_list)
        try:
            if var_list is not None:
                self.apply_gradients([(v.name, grads.get(v.name)) for v in var_list])
            else:
                self.apply_gradients(grads)
        except BaseException:
            value.dispose()
            raise
        finally:
            for g in grads.values():
                if g is not None:
                    g.dispose()
        if return_cost:
            return value
        value.dispose()
        return None

    def compute_gradients(self, f: Callable[[], Tensor], var_list: Sequence[Variable] | None = None) -> Any:
        """ValueAndGrads(value=f(), grads={variable name: gradient}) (tf.variable_grads)."""
        return variable_grads(f, var_list)

    @op
    def apply_gradients(self, variable_gradients: Any) -> None:
        """Update each named variable with its gradient: a dict name -> tensor, or a list of NamedTensors
        (a None gradient skips its variable, whose slots are still made). All are checked before any update."""
        pairs = [(name, self._variable(name), grad) for name, grad in _named(variable_gradients, self._where)]
        for name, variable, grad in pairs:
            if grad is not None:
                self._check(name, variable, grad)
            slots = self._slots.get(name)
            if slots and slots[0].tensor.shape != variable.shape:
                raise ValueError(
                    f"{self._where}: variable '{name}' has shape {fmt(variable.shape)}, but this optimizer's "
                    f"slots for it have shape {fmt(slots[0].tensor.shape)} (a new variable under an old name?)"
                )
        scalars, kernel, slot_inputs = self.scalars(), self.kernel, RULES[self.kernel].slots
        for name, variable, grad in pairs:
            slots = self._slots.get(name) or self._make_slots(name, variable)
            if grad is None:
                continue
            inputs = {"value": variable, "grad": grad}
            for key, slot in zip(slot_inputs, slots, strict=True):
                inputs[key] = slot.tensor
            outs = ENGINE.run_kernel(kernel, inputs, scalars)
            variable.assign(outs[0])
            for slot, out in zip(slots, outs[1:], strict=True):
                slot.tensor.assign(out)  # type: ignore[attr-defined]
            for out in outs:
                out.dispose()
        self.iterations += 1

    @property
    def _where(self) -> str:
        return f"{self.class_name}.apply_gradients"

    def _variable(self, name: str) -> Variable:
        variable = ENGINE.registered_variables.get(name)
        if variable is None:
            raise ValueError(f"{self._where}: no variable named '{name}' is registered")
        if variable.dtype != "float32":
            raise TypeError(f"{self._where}: variable '{name}' must be float32, but is {variable.dtype}")
        return variable  # type: ignore[return-value]

    def _check(self, name: str, variable: Tensor, grad: Any) -> None:
        if not isinstance(grad, Tensor):
            raise TypeError(
                f"{self._where}: the gradient of '{name}' must be a tensor, got {type(grad).__name__}"
            )
        if grad.shape != variable.shape or grad.dtype != "float32":
            raise ValueError(
                f"{self._where}: the gradient of '{name}' has shape {fmt(grad.shape)} "
                f"and dtype {grad.dtype}, the variable has shape {fmt(variable.shape)} and dtype float32"
            )

    def _make_slots(self, name: str, variable: Tensor) -> list[NamedTensor]:
        slots = [
            NamedTensor(f"{name}/{suffix}", Variable(fill(variable.shape, self.slot_initial_value), False))
            for suffix in self.slot_suffixes
        ]
        self._slots[name] = slots
        return slots

    # ---- state ------------------------------------------------------------------------------------
    def get_weights(self) -> list[NamedTensor]:
        """[iter (int32 scalar, new), then each slot kind's Variables in the order the variables were
        first updated] as TF.js orders them; the slots are the optimizer's own (not copies)."""
        weights = [NamedTensor("iter", scalar(self.iterations, "int32"))]
        for k in range(len(self.slot_suffixes)):
            weights += [slots[k] for slots in self._slots.values()]
        return weights

    async def set_weights(self, weight_values: Any) -> None:
        """Restore what get_weights() returned (iter first, then the slots as it orders them); the slots
        become new Variables holding the given tensors' values, and the current slots are freed."""
        where = f"{self.class_name}.set_weights"
        pairs = _named(weight_values, where)
        if not pairs or not isinstance(pairs[0][1], Tensor):
            raise ValueError(f"{where}: expected the iterations ('iter') tensor first")
        iterations = int((await pairs[0][1].data())[0])
        rest, kinds = pairs[1:], len(self.slot_suffixes)
        if (kinds == 0 and rest) or (kinds and len(rest) % kinds):
            expected = ", ".join(self.slot_suffixes) or "none"
            raise ValueError(
                f"{where}: got {len(rest)} slot tensors, expected a multiple of {kinds} ({expected})"
            )
        count = len(rest) // kinds if kinds else 0
        slots: dict[str, list[NamedTensor]] = {}
        for j in range(count):
            group = [rest[k * count + j] for k in range(kinds)]
            first_name, suffix = group[0][0], "/" + self.slot_suffixes[0]
            key = first_name[: -len(suffix)] if first_name.endswith(suffix) else first_name
            slots[key] = [NamedTensor(n, Variable(t, False)) for n, t in group]
        self.dispose()
        self._slots = slots
        self.iterations = iterations

    def dispose(self) -> None:
        """Free the slot variables."""
        for slots in self._slots.values():
            for slot in slots:
                slot.tensor.dispose()
        self._slots = {}

    # ---- serialization ----------------------------------------------------------------------------
    @classmethod
    def config_args(cls) -> list[str]:
        """The constructor's arguments in order (each kept as the attribute of its name): what get_config
        saves and from_config passes back."""
        return [name for name in inspect.signature(cls.__init__).parameters if name != "self"]

    def get_class_name(self) -> str:
        """The serialization class name ('SGD', 'Adam', ...), as TF.js getClassName."""
        return self.class_name

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments under TF.js's config keys, their camelCase names (learningRate, ...)."""
        return {_camel(arg): getattr(self, arg) for arg in self.config_args()}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Optimizer:
        """A new optimizer from a get_config() dict (missing keys take the constructor's defaults)."""
        return cls(**{arg: config[_camel(arg)] for arg in cls.config_args() if _camel(arg) in config})
