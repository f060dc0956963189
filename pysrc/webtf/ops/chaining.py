"""Chaining (t.square().log()) and Python operators on Tensor, bound from the ops (as TF.js's chained API)."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor

_OPERATORS = {
    "__add__": ("add", False),
    "__radd__": ("add", True),
    "__sub__": ("sub", False),
    "__rsub__": ("sub", True),
    "__mul__": ("mul", False),
    "__rmul__": ("mul", True),
    "__truediv__": ("div", False),
    "__rtruediv__": ("div", True),
    "__floordiv__": ("floor_div", False),
    "__rfloordiv__": ("floor_div", True),
    "__mod__": ("mod", False),
    "__rmod__": ("mod", True),
    "__pow__": ("pow", False),
    "__rpow__": ("pow", True),
    "__matmul__": ("mat_mul", False),
    "__rmatmul__": ("mat_mul", True),
    "__lt__": ("less", False),
    "__le__": ("less_equal", False),
    "__gt__": ("greater", False),
    "__ge__": ("greater_equal", False),
    "__eq__": ("equal", False),
    "__ne__": ("not_equal", False),
    "__and__": ("logical_and", False),
    "__or__": ("logical_or", False),
}
_UNARY = {"__neg__": "neg", "__abs__": "abs", "__invert__": "logical_not"}

#: ops that take the tensor as their first argument and become Tensor methods.
_NOT_METHODS = {
    "tensor", "scalar", "zeros", "ones", "fill", "range", "linspace", "eye", "random_uniform",
    "random_normal", "truncated_normal", "variable", "add_n", "concat", "stack", "where",
}  # fmt: skip
# issue 15 (ops-math): creators and ops whose first argument is not the tensor
_NOT_METHODS |= {
    "tensor1d", "tensor2d", "tensor3d", "tensor4d", "tensor5d", "tensor6d", "buffer", "meshgrid", "einsum",
    "scatter_nd", "concat1d", "concat2d", "concat3d", "concat4d", "broadcast_args", "rand",
    "random_standard_normal", "random_uniform_int", "random_gamma", "search_sorted", "lower_bound", "upper_bound",
    "moving_average", "basic_lstm_cell", "multi_rnn_cell", "next_frame", "setdiff1d_async", "in_top_k_async",
}  # fmt: skip


def _binary(fn: Any, reflected: bool) -> Any:
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


def bind(namespace: dict[str, Any]) -> None:
    """Attach ops from `namespace` to Tensor as methods and operators."""
    for name, fn in namespace.items():
        if (
            callable(fn)
            and not name.startswith("_")
            and name not in _NOT_METHODS
            and not isinstance(fn, type)
        ):
            if not hasattr(Tensor, name) or name in ("abs",):
                setattr(Tensor, name, fn)
    for dunder, (name, reflected) in _OPERATORS.items():
        if name in namespace:
            setattr(Tensor, dunder, _binary(namespace[name], reflected))
    for dunder, name in _UNARY.items():
        if name in namespace:
            setattr(Tensor, dunder, namespace[name])
    cast = namespace["cast"]
    Tensor.as_type = cast  # type: ignore[attr-defined]
    Tensor.to_float = lambda self: cast(self, "float32")  # type: ignore[attr-defined]
    Tensor.to_int = lambda self: cast(self, "int32")  # type: ignore[attr-defined]
    Tensor.to_bool = lambda self: cast(self, "bool")  # type: ignore[attr-defined]
    if "reshape" in namespace:
        reshape = namespace["reshape"]
        Tensor.flatten = lambda self: reshape(self, (self.size,))  # type: ignore[attr-defined]
        Tensor.as_scalar = lambda self: reshape(self, ())  # type: ignore[attr-defined]
    _bind_tfjs_methods(namespace)


def _bind_tfjs_methods(ns: dict[str, Any]) -> None:
    """TF.js's remaining chained methods whose argument order differs from the op's (class-surface parity);
    each only where its ops are in the build (a custom build may leave them out)."""
    reshape, concat, stack, where = ns.get("reshape"), ns.get("concat"), ns.get("stack"), ns.get("where")
    variable, buffer = ns.get("variable"), ns.get("buffer")
    image, more = ns.get("image"), ns.get("pool_more")  # ops' "pool" is a module: the op is in pool_more
    methods: dict[str, Any] = {}
    if reshape is not None:
        methods.update(
            as1d=lambda self: reshape(self, (self.size,)),
            as2d=lambda self, rows, columns: reshape(self, (rows, columns)),
            as3d=lambda self, rows, columns, depth: reshape(self, (rows, columns, depth)),
            as4d=lambda self, rows, columns, depth, depth2: reshape(self, (rows, columns, depth, depth2)),
            as5d=lambda self, rows, columns, depth, depth2, depth3: reshape(
                self, (rows, columns, depth, depth2, depth3)
            ),
            reshape_as=lambda self, x: reshape(self, x.shape),
        )
    if concat is not None:
        methods["concat"] = lambda self, x, axis=0: concat([self, *(x if isinstance(x, (list, tuple)) else [x])], axis)
    if stack is not None:
        methods["stack"] = lambda self, x, axis=0: stack([self, *(x if isinstance(x, (list, tuple)) else [x])], axis)
    if where is not None:
        methods["where"] = lambda self, condition, x: where(condition, self, x)
    if variable is not None:
        methods["variable"] = lambda self, trainable=True, name=None, dtype=None: variable(self, trainable, name, dtype)
    if buffer is not None:
        methods["buffer_sync"] = lambda self: buffer(self.shape, self.dtype, self.data_sync())

        async def buffer_async(self: Tensor) -> Any:
            return buffer(self.shape, self.dtype, await self.data())

        methods["buffer"] = buffer_async
    if callable(getattr(more, "pool", None)):
        methods["pool"] = more.pool  # type: ignore[union-attr]
    for name in ("resize_bilinear", "resize_nearest_neighbor"):
        if callable(getattr(image, name, None)):
            methods[name] = getattr(image, name)
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
