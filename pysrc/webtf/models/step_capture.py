"""Capture and replay of a training step (LayersModel fit / train_on_batch): forward, gradients and the
optimizer's update recorded once per input signature, later steps replayed as kernel calls (models/capture.py)
with no op layer, tape, gradient functions or scopes.

A step differs from a model run in its state: it assigns new values to variables (the weights, the
optimizer's slots, a batch norm's moving statistics), and its update kernel takes per-step numbers (the
learning rate, Adam's bias corrections). The recording notes each assign (Variable.assign); a kernel reading
a variable after its assign reads the assigned value, and each variable's last value is an output of the
replay, assigned when it ends. The update kernel's numbers come from optimizer.scalars() before each replay.
Variables are read at replay time, so weights set between steps (set_weights, a callback) are used.
Replays run the recorded kernels exactly (no folding or fusion: weights change every step) from Python.

Not captured (the step always runs the normal way): a step with random values (dropout, noise layers), one
that read a value of the step (data-dependent), one that assigned a variable a value it did not compute, the
optimizer's first step (it makes the slots), and any step while profiling, timing, taping or debugging.
The Python functions of a step (custom losses and metrics) run when it is recorded, not when it replays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..tensor import Tensor, Variable
from .capture import STATS, Capture, _substitute, _tensors, hooks_active, recorded, signature

_MISSING = object()
_MAX_DROPS = 3  # recordings of one signature dropped before its steps always run the normal way


class StepCapture:
    """One recorded training step: the capture of its kernels, the variables it assigns (their last values
    are the capture's outputs after the step's own) and the update kernels' attrs refreshed per replay."""

    __slots__ = ("capture", "n_out", "variables", "scalars")

    def __init__(self, capture: Capture, n_out: int, variables: list[Variable], scalars: list[dict]) -> None:
        self.capture, self.n_out, self.variables, self.scalars = capture, n_out, variables, scalars

    @staticmethod
    def build(
        feeds: list[Tensor], log: list[Any], result: list[Tensor], start_id: int, update_kernel: str
    ) -> StepCapture | None:
        """The capture of a step's recording (ENGINE.record_kernels) whose outputs are `result`, or None."""
        current: dict[int, Tensor] = {}  # id(variable) -> the value assigned to it last
        variables: dict[int, Variable] = {}
        before: dict[int, int] = {}  # id(variable) -> its data id when the step began
        resolved = []
        for entry in log:
            if entry[0] == "alias":  # a tensor sharing another's buffer (the tape's saved tensors)
                _, twin, t = entry
                current[id(twin)] = current.get(id(t), t)
                continue
            if entry[0] == "assign":
                _, variable, value, old = entry
                if value.id < start_id:
                    return None  # a value the step did not compute
                current[id(variable)] = value
                variables[id(variable)] = variable
                before.setdefault(id(variable), old)
                continue
            if len(entry) == 4 and current:  # a kernel: read what each variable holds at this point
                name, inputs, attrs, outs = entry
                if any(id(t) in current for t in _tensors(inputs.values() if isinstance(inputs, dict) else inputs)):
                    entry = (name, _substitute(inputs, current), attrs, outs)
            resolved.append(entry)
        finals = [current[k] for k in variables]
        outs = [*result, *finals]
        if len({id(t) for t in outs}) != len(outs):
            return None
        ends = [v.data_id for v in variables.values()]
        for v in variables.values():  # the capture reads the weights' buffers as the step found them
            v.data_id = before[id(v)]
        try:
            capture = Capture.build(feeds, resolved, outs, start_id, optimize=False)
        finally:
            for v, data_id in zip(variables.values(), ends, strict=True):
                v.data_id = data_id
        if capture is None or min(capture.result, default=len(feeds)) < len(feeds) + len(capture.externals):
            return None  # (an output that is a feed or a weight)
        capture.compiled = False  # weights move every step: the Python replay (no compiled program)
        scalars = {id(e[2]): e[2] for e in log if len(e) == 4 and e[0] == update_kernel}
        return StepCapture(capture, len(result), list(variables.values()), list(scalars.values()))

    def run(self, feeds: list[Tensor], numbers: dict[str, float]) -> list[Tensor] | None:
        """The step's outputs for new feeds, its variables assigned; None when the capture no longer applies."""
        for attrs in self.scalars:
            attrs.update(numbers)
        outs = self.capture.run(feeds)
        if outs is None:
            return None
        for variable, value in zip(self.variables, outs[self.n_out :], strict=True):
            variable.assign(value)
            value.dispose()
        return outs[: self.n_out]


def captured_step(
    captures: dict[Any, Any],
    feeds: Sequence[Tensor],
    watched: Sequence[Tensor],
    optimizer: Any,
    step: Callable[[], list[Tensor]],
) -> list[Tensor]:
    """step() (one training step on `feeds` updating `watched` with `optimizer`) recorded for its signature the
    first time, replayed from `captures` later; the normal way where it cannot be (see the module docstring).
    A capture that stops applying (a weight or slot it reads was disposed, e.g. by optimizer.set_weights) is
    recorded again at the next step, _MAX_DROPS times at most."""
    feeds = list(feeds)
    if hooks_active() or not all(w.name in optimizer._slots for w in watched):
        return step()
    sig = (signature(feeds), id(optimizer), *[id(w) for w in watched])
    got = captures.get(sig, _MISSING)
    if got is None:
        return step()
    if got is not _MISSING:
        outs = got.run(feeds, optimizer.scalars())
        if outs is not None:
            optimizer.iterations += 1
            STATS["replayed"] += 1
            return outs
        STATS["dropped"] += 1
        drops = captures[("drops", sig)] = captures.get(("drops", sig), 0) + 1
        if drops < _MAX_DROPS:
            del captures[sig]
        else:
            captures[sig] = None
        return step()
    outs, log, start = recorded(step)
    made = captures[sig] = StepCapture.build(feeds, log, outs, start, optimizer.kernel)
    STATS["captured" if made is not None else "refused"] += 1
    return outs
