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
    """TF.js's remaining chained methods whose argument order differs from the op's (class-surface parity)."""
    reshape, image = ns["reshape"], ns["image"]
    Tensor.as1d = lambda self: reshape(self, (self.size,))  # type: ignore[attr-defined]
    Tensor.as2d = lambda self, rows, columns: reshape(self, (rows, columns))  # type: ignore[attr-defined]
    Tensor.as3d = lambda self, rows, columns, depth: reshape(self, (rows, columns, depth))  # type: ignore[attr-defined]
    Tensor.as4d = lambda self, rows, columns, depth, depth2: reshape(  # type: ignore[attr-defined]
        self, (rows, columns, depth, depth2)
    )
    Tensor.as5d = lambda self, rows, columns, depth, depth2, depth3: reshape(  # type: ignore[attr-defined]
        self, (rows, columns, depth, depth2, depth3)
    )
    Tensor.reshape_as = lambda self, x: reshape(self, x.shape)  # type: ignore[attr-defined]
    Tensor.concat = lambda self, x, axis=0: ns["concat"](  # type: ignore[attr-defined]
        [self, *(x if isinstance(x, (list, tuple)) else [x])], axis
    )
    Tensor.stack = lambda self, x, axis=0: ns["stack"](  # type: ignore[attr-defined]
        [self, *(x if isinstance(x, (list, tuple)) else [x])], axis
    )
    Tensor.where = lambda self, condition, x: ns["where"](condition, self, x)  # type: ignore[attr-defined]
    from .pool_more import pool  # ops' "pool" is the module of that name

    Tensor.pool = pool  # type: ignore[attr-defined]
    Tensor.resize_bilinear = image.resize_bilinear  # type: ignore[attr-defined]
    Tensor.resize_nearest_neighbor = image.resize_nearest_neighbor  # type: ignore[attr-defined]
    Tensor.variable = lambda self, trainable=True, name=None, dtype=None: ns["variable"](  # type: ignore[attr-defined]
        self, trainable, name, dtype
    )
    Tensor.buffer_sync = lambda self: ns["buffer"](self.shape, self.dtype, self.data_sync())  # type: ignore[attr-defined]

    async def buffer(self: Tensor) -> Any:
        return ns["buffer"](self.shape, self.dtype, await self.data())

    Tensor.buffer = buffer  # type: ignore[attr-defined]
