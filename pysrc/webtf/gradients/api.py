"""tf.grad, tf.grads, tf.value_and_grad(s), tf.variable_grads and tf.custom_grad (tfjs-core gradients.ts)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..engine import ENGINE
from ..ops.op import TensorLike, convert_to_tensor
from ..shapes import fmt
from ..tensor import Tensor, Variable
from .tape import NO_PATH, TapeNode, gradients, scoped

__all__ = [
    "custom_grad",
    "dispose_variables",
    "grad",
    "grads",
    "value_and_grad",
    "value_and_grads",
    "variable_grads",
]


class ValueAndGrad(NamedTuple):
    """What value_and_grad(f)(x) returns: f(x) and df/dx."""

    value: Tensor
    grad: Tensor


class ValueAndGrads(NamedTuple):
    """What value_and_grads(f)(xs) and variable_grads(f) return: f's value and the gradients."""

    value: Tensor
    grads: Any  # list[Tensor] (value_and_grads) or dict[str, Tensor | None] (variable_grads)


def _check_function(f: Any, api: str) -> None:
    if not callable(f):
        raise TypeError(f"The f passed in {api}(f) must be a function")


def _all_grads(
    f: Callable[..., Tensor], xs: list[Tensor], dy: Tensor | None, call: str, returned: str
) -> tuple[Tensor, list[Tensor]]:
    """(f(*xs), gradients) with TF.js's checks; `call` and `returned` name the call in the dy error."""
    message = f"The shape of dy passed in {call} must match the shape returned by {returned}"
    value, gs = gradients(lambda: f(*xs), xs, dy, dy_error=message)
    if any(g is None for g in gs):
        raise ValueError(NO_PATH)
    return value, gs  # type: ignore[return-value]


def _dy(dy: TensorLike | None, api: str) -> Tensor | None:
    return None if dy is None else convert_to_tensor(dy, "dy", api)


def _tensor_or_none(t: Any, what: str) -> Tensor | None:
    if t is not None and not isinstance(t, Tensor):
        raise TypeError(f"The {what} must be a tensor")
    return t


def grad(f: Callable[[Tensor], Tensor]) -> Callable[..., Tensor]:
    """g(x, dy=None) -> the gradient of f at x (f's output weighted by dy, ones by default), shaped like x."""
    _check_function(f, "grad")

    def g(x: TensorLike, dy: TensorLike | None = None) -> Tensor:
        def run() -> Tensor:
            xs, tdy = [convert_to_tensor(x, "x", "tf.grad")], _dy(dy, "tf.grad")
            return _all_grads(f, xs, tdy, "grad(f)(x, dy)", "f(x)")[1][0]

        return scoped(run)

    return g


def grads(f: Callable[..., Tensor]) -> Callable[..., list[Tensor]]:
    """g(xs, dy=None) -> the gradients of f(*xs) with respect to each of xs, as a list."""
    _check_function(f, "grads")

    def g(xs: Sequence[TensorLike], dy: TensorLike | None = None) -> list[Tensor]:
        if not isinstance(xs, (list, tuple)):
            raise TypeError("The args passed in grads(f)(args) must be a list of Tensors or TensorLikes")

        def run() -> list[Tensor]:
            txs = [convert_to_tensor(x, f"args[{i}]", "tf.grads") for i, x in enumerate(xs)]
            return _all_grads(f, txs, _dy(dy, "tf.grads"), "grads(f)([x1,...], dy)", "f([x1,...])")[1]

        return scoped(run)

    return g


def value_and_grad(f: Callable[[Tensor], Tensor]) -> Callable[..., ValueAndGrad]:
    """g(x, dy=None) -> ValueAndGrad(value=f(x), grad=df/dx); x must be a Tensor."""
    _check_function(f, "value_and_grad")

    def g(x: Tensor, dy: Tensor | None = None) -> ValueAndGrad:
        if not isinstance(x, Tensor):
            raise TypeError("The x passed in value_and_grad(f)(x) must be a tensor")
        tdy = _tensor_or_none(dy, "dy passed in value_and_grad(f)(x, dy)")

        def run() -> ValueAndGrad:
            value, gs = _all_grads(f, [x], tdy, "value_and_grad(f)(x, dy)", "f(x)")
            return ValueAndGrad(value, gs[0])

        return scoped(run)

    return g


def value_and_grads(f: Callable[..., Tensor]) -> Callable[..., ValueAndGrads]:
    """g(xs, dy=None) -> ValueAndGrads(value=f(*xs), grads=[df/dx for x in xs]); xs must be Tensors."""
    _check_function(f, "value_and_grads")

    def g(xs: Sequence[Tensor], dy: Tensor | None = None) -> ValueAndGrads:
        if not isinstance(xs, (list, tuple)) or not all(isinstance(x, Tensor) for x in xs):
            raise TypeError("The args passed in value_and_grads(f)(args) must be a list of tensors")
        tdy = _tensor_or_none(dy, "dy passed in value_and_grads(f)(args, dy)")

        def run() -> ValueAndGrads:
            call = "value_and_grads(f)([x1,...], dy)"
            return ValueAndGrads(*_all_grads(f, list(xs), tdy, call, "f([x1,...])"))

        return scoped(run)

    return g


def variable_grads(f: Callable[[], Tensor], var_list: Sequence[Variable] | None = None) -> ValueAndGrads:
    """ValueAndGrads(value=f(), grads={variable name: gradient}) for the trainable variables of var_list
    (all registered variables by default); f must return a scalar. Non-trainable variables named in
    var_list map to None."""
    _check_function(f, "variable_grads")
    if var_list is not None and not (
        isinstance(var_list, (list, tuple)) and all(isinstance(v, Variable) for v in var_list)
    ):
        raise TypeError("The var_list passed in variable_grads(f, var_list) must be a list of variables")
    candidates = list(ENGINE.registered_variables.values()) if var_list is None else list(var_list)
    trainable = [v for v in candidates if v.trainable]  # type: ignore[attr-defined]
    if not trainable:
        raise ValueError(
            f"variable_grads() expects at least one of the input variables to be trainable, but none of the "
            f"{len(candidates)} variables is trainable."
        )

    def run() -> ValueAndGrads:
        value, gs = gradients(f, trainable, None, allow_no_gradients=True)
        if all(g is None for g in gs):
            raise ValueError(
                "Cannot find a connection between any variable and the result of the loss function y=f(x). "
                "Please make sure the operations that use variables are inside the function f passed to "
                "minimize()."
            )
        if value.rank != 0:
            raise ValueError(
                f"The f passed in variable_grads(f) must return a scalar, but it returned a rank-{value.rank} "
                f"tensor (shape {fmt(value.shape)})"
            )
        named: dict[str, Tensor | None] = {
            v.name: g for v, g in zip(trainable, gs, strict=True) if g is not None
        }
        if var_list is not None:
            named.update({v.name: None for v in var_list if not v.trainable})
        return ValueAndGrads(value, named)

    return scoped(run)


def custom_grad(f: Callable[..., dict[str, Any]]) -> Callable[..., Tensor]:
    """A function of tensors with its own gradient: f(*inputs, save) returns {"value": y, "grad_func":
    grad_func}, and grad_func(dy, saved) returns one gradient per input (saved: what f passed to save)."""
    _check_function(f, "custom_grad")

    def run(*inputs: Tensor) -> Tensor:
        if not all(isinstance(t, Tensor) for t in inputs):
            raise TypeError("The args passed in custom_grad(f)(x1, x2,...) must all be tensors")
        tape = ENGINE.use_tape(None)  # the forward pass is one node on the tape, its kernels are not
        saved: list[Tensor | None] = []

        def save(tensors: Sequence[Tensor]) -> None:
            if tape is not None:
                saved[:] = [tape.save(t) for t in tensors]

        try:
            res = scoped(lambda: _checked_result(f(*inputs, save)))
        finally:
            ENGINE.use_tape(tape)
        value, grad_func = res["value"], res["grad_func"]
        if tape is not None:
            named = {str(i): t for i, t in enumerate(inputs)}
            tape.add(TapeNode("CustomGradient", named, {}, [value], saved, _grad_map(grad_func, len(inputs))))
        return value

    return run


def _checked_result(res: Any) -> Any:
    if not isinstance(res, dict) or not isinstance(res.get("value"), Tensor):
        raise TypeError(
            "The function f passed in custom_grad(f) must return a dict where `obj['value']` is a tensor"
        )
    if not callable(res.get("grad_func")):
        raise TypeError(
            "The function f passed in custom_grad(f) must return a dict where `obj['grad_func']` is a function."
        )
    return res


def _grad_map(grad_func: Callable[..., Any], n: int) -> Callable[..., dict[str, Callable[[], Tensor]]]:
    def grad_map(dy: Tensor, saved: list[Any], attrs: dict[str, Any]) -> dict[str, Callable[[], Tensor]]:
        res = grad_func(dy, saved)
        gs = list(res) if isinstance(res, (list, tuple)) else [res]
        if len(gs) != n:
            raise ValueError(
                "The function f passed in custom_grad(f) must return a dict where `obj['grad_func']` is a "
                f"function that returns the same number of tensors as inputs passed to f(...): {n}, got {len(gs)}"
            )
        if not all(isinstance(g, Tensor) for g in gs):
            raise TypeError(
                "The function f passed in custom_grad(f) must return a dict where `obj['grad_func']` is a "
                "function that returns a list of only tensors."
            )
        return {str(i): (lambda g=g: g) for i, g in enumerate(gs)}

    return grad_map


def dispose_variables() -> None:
    """Dispose every registered variable (TF.js tf.disposeVariables)."""
    ENGINE.dispose_variables()
