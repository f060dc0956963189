"""The tape (tfjs-core's tape.ts): kernel calls recorded while a gradient is computed, and backprop.

While `gradients(f, xs)` runs f, the engine hands every kernel call to `Tape.record`, which appends a
node (kernel name, inputs, attrs, outputs) and keeps the tensors the kernel's gradient needs (its
GradConfig's inputs_to_save / outputs_to_save) as kept clones, so the tidy scopes of the ops inside f
cannot free them. Backprop walks the nodes between xs and y in reverse, calls each kernel's gradient
and sums the gradients of a tensor used twice. The tape's clones are freed when the outermost gradient
call ends, even when f raises. A gradient computed inside f (a higher-order gradient) records its
backprop on the same tape, and each clone is an Identity node, so its gradient can be taken again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import kernel_names as kn
from ..engine import ENGINE
from ..ops.binary import add
from ..ops.creation import clone, ones, zeros
from ..shapes import fmt
from ..tensor import Tensor
from .registry import GradFunc, get_gradient

NO_PATH = (
    "Cannot compute gradient of y=f(x) with respect to x. Make sure that the f you passed encloses all "
    "operations that lead from x to y."
)


@dataclass(eq=False, slots=True)
class TapeNode:
    """One recorded kernel call; grad_func is None when the kernel has no registered gradient."""

    kernel_name: str
    inputs: dict[str, Tensor]
    attrs: dict[str, Any]
    outputs: list[Tensor]
    saved: list[Any]
    grad_func: GradFunc | None


def identity_grad(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """The gradient of Identity (and of the tape's saved clones): dy itself."""
    return {"x": lambda: clone(dy)}


def named_inputs(inputs: Any) -> dict[str, Tensor]:
    """A kernel's inputs by name; a variadic kernel's list is keyed "0", "1", ... (absent inputs dropped)."""
    if isinstance(inputs, dict):
        return {k: v for k, v in inputs.items() if isinstance(v, Tensor)}
    return {str(i): t for i, t in enumerate(inputs) if isinstance(t, Tensor)}


class Tape:
    """The kernel calls of one (outermost) gradient computation, oldest first."""

    def __init__(self) -> None:
        self.nodes: list[TapeNode] = []
        self._held: list[Tensor] = []

    def save(self, t: Tensor | None) -> Tensor | None:
        """A kept clone of t that lives until the tape is disposed, recorded as an Identity node."""
        if t is None:
            return None
        c = Tensor(t.shape, t.dtype, ENGINE.share_data(t.data_id), ENGINE.next_tensor_id())
        ENGINE.track(c)
        c.kept = True
        if ENGINE._recording is not None:  # a recorded training step reads t where the gradients read c
            ENGINE._recording.append(("alias", c, t))
        self._held.append(c)
        self.nodes.append(TapeNode(kn.Identity, {"x": t}, {}, [c], [], identity_grad))
        return c

    def record(self, name: str, inputs: Any, attrs: dict[str, Any], out: Any) -> None:
        """Called by the engine after each kernel call while this tape is active."""
        named = named_inputs(inputs)
        outputs = [out] if isinstance(out, Tensor) else list(out)
        config = get_gradient(name)
        if config is None:
            self.nodes.append(TapeNode(name, named, attrs, outputs, [], None))
            return
        if config.save_all_inputs:
            saved = [self.save(t) for t in named.values()]
        else:
            saved = [self.save(named.get(n)) for n in config.inputs_to_save]
        self.nodes.append(TapeNode(name, named, attrs, outputs, saved, config.grad_func))
        saved += [self.save(o) for o, keep in zip(outputs, config.outputs_to_save, strict=False) if keep]

    def add(self, node: TapeNode) -> None:
        """Append a node made outside the engine (custom_grad)."""
        self.nodes.append(node)

    def dispose(self) -> None:
        """Free the tensors the tape holds."""
        for t in self._held:
            t.dispose()
        self._held.clear()
        self.nodes.clear()


def path(nodes: list[TapeNode], xs: list[Tensor], y: Tensor) -> list[tuple[TapeNode, dict[str, Tensor]]]:
    """The nodes that depend on some x and lead to y, in tape order, each with its inputs that depend on xs."""
    from_x = {x.id for x in xs}
    forward = []
    for node in nodes:
        if any(t.id in from_x for t in node.inputs.values()):
            from_x.update(o.id for o in node.outputs)
            forward.append(node)
    to_y = {y.id}
    found = []
    for node in reversed(forward):
        if any(o.id in to_y for o in node.outputs):
            to_y.update(t.id for t in node.inputs.values())
            found.append((node, {k: t for k, t in node.inputs.items() if t.id in from_x}))
    found.reverse()
    return found


def scoped(fn: Callable[[], Any]) -> Any:
    """fn() in its own scope (tidy): tensors it makes are freed unless returned, also when it raises."""
    engine = ENGINE
    engine.start_scope()
    try:
        result = fn()
    except BaseException:
        engine.end_scope(None)
        raise
    engine.end_scope(result)
    return result


def backprop(
    nodes: list[tuple[TapeNode, dict[str, Tensor]]], xs: list[Tensor], y: Tensor, dy: Tensor
) -> list[Tensor | None]:
    """The gradients of y (seeded with dy) with respect to xs, walking `nodes` in reverse.

    A tensor's gradient is complete when the node that made it is reached (all its readers come later on
    the tape): it is passed to that node's gradient and then freed; partial sums are freed once added.
    """
    grads: dict[int, Tensor] = {y.id: dy}
    for node, inputs in reversed(nodes):
        dys = [grads.pop(o.id, None) for o in node.outputs]
        if node.grad_func is None:
            raise LookupError(
                f"Cannot compute gradient: no gradient is registered for kernel '{node.kernel_name}' "
                f"(tf.register_gradient adds one)"
            )
        filled = [zeros(o.shape) if d is None else d for o, d in zip(node.outputs, dys, strict=True)]
        thunks = node.grad_func(filled if len(filled) > 1 else filled[0], node.saved, node.attrs)
        for name, x in inputs.items():
            if name not in thunks:
                raise ValueError(
                    f"Cannot backprop through input '{name}' of kernel '{node.kernel_name}'. Available "
                    f"gradients found: {', '.join(thunks)}"
                )
            mark = ENGINE.next_tensor_id()
            dx = scoped(thunks[name])
            _check(node.kernel_name, name, dx, x)
            if dx.id < mark:  # not made by the thunk (dy, a saved tensor, ...): own a copy to free alone
                dx = clone(dx)
            prev = grads.get(x.id)
            if prev is None:
                grads[x.id] = dx
            else:
                grads[x.id] = add(prev, dx)
                prev.dispose()
                dx.dispose()
        for d in filled:
            if d is not dy:
                d.dispose()
    return [grads.get(x.id) for x in xs]


def _check(kernel: str, name: str, dx: Any, x: Tensor) -> None:
    if not isinstance(dx, Tensor):
        raise TypeError(
            f"Error in gradient for op {kernel}. The gradient of input '{name}' must be a Tensor, "
            f"but got {type(dx).__name__}"
        )
    if dx.dtype != "float32":
        raise TypeError(
            f"Error in gradient for op {kernel}. The gradient of input '{name}' must have 'float32' dtype, "
            f"but has '{dx.dtype}'"
        )
    if dx.shape != x.shape:
        raise ValueError(
            f"Error in gradient for op {kernel}. The gradient of input '{name}' has shape {fmt(dx.shape)}, "
            f"which does not match the shape of the input {fmt(x.shape)}"
        )


def gradients(
    f: Callable[[], Any],
    xs: list[Tensor],
    dy: Tensor | None = None,
    allow_no_gradients: bool = False,
    dy_error: str = "The shape of dy must match the shape of y = f(x)",
) -> tuple[Tensor, list[Tensor | None]]:
    """Run f on a tape and backprop: (y, [dy/dx for x in xs]) (tfjs-core's ENGINE.gradients).

    Call it inside a scope: y and the gradients are made there, and an error leaves them to that scope.
    Only the outermost call owns (and at its end frees) the tape; nested calls record on it. `dy_error`
    starts the error raised when dy's shape is not y's.
    """
    if not xs:
        raise ValueError("gradients() received an empty list of xs.")
    if dy is not None and dy.dtype != "float32":
        raise TypeError(f"dy must have 'float32' dtype, but has '{dy.dtype}'")
    outer = ENGINE.use_tape(None)
    tape = outer if outer is not None else Tape()
    try:
        ENGINE.use_tape(tape)
        try:
            y = scoped(f)
        finally:
            ENGINE.use_tape(outer)
        if not isinstance(y, Tensor):
            raise TypeError(f"The result y returned by f() must be a tensor, but got {type(y).__name__}")
        if dy is not None and dy.shape != y.shape:
            raise ValueError(f"{dy_error}. Shapes {fmt(y.shape)} and {fmt(dy.shape)} must match")
        nodes = path(tape.nodes, xs, y)
        if not nodes and not allow_no_gradients:
            raise ValueError(NO_PATH)
        seed = ones(y.shape) if dy is None else dy
        grads = scoped(lambda: backprop(nodes, xs, y, seed))
        return y, grads
    finally:
        if outer is None:
            tape.dispose()
