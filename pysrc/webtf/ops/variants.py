"""Rank-checked variants (tensor1d..tensor6d, concat1d.., pad1d.., reverse1d.., slice1d..), meshgrid,
ensure_shape, print, and buffer / TensorBuffer (a mutable host buffer that becomes a tensor)."""

from __future__ import annotations

import builtins
import inspect
from array import array
from collections.abc import Sequence
from typing import Any

from ..dtypes import TYPECODE
from ..engine import ENGINE
from ..shapes import fmt, size_of, strides_of
from ..tensor import Tensor
from .checks import axis_arg, dtype_arg, flag_arg, is_int, output_shape, shape_arg
from .creation import tensor
from .op import TensorLike, convert_to_tensor, make_tensor, op
from .shape import concat, reshape, reverse, tile
from .slicing import pad, slice

__all__ = [
    "tensor1d", "tensor2d", "tensor3d", "tensor4d", "tensor5d", "tensor6d",
    "concat1d", "concat2d", "concat3d", "concat4d", "pad1d", "pad2d", "pad3d", "pad4d",
    "reverse1d", "reverse2d", "reverse3d", "reverse4d", "slice1d", "slice2d", "slice3d", "slice4d",
    "meshgrid", "ensure_shape", "print", "buffer", "TensorBuffer",
]  # fmt: skip


def _tensor_nd(rank: int) -> Any:
    name = f"tensor{rank}d"

    def tensor_nd(values: TensorLike, shape: Sequence[int] | None = None, dtype: str | None = None) -> Tensor:
        if shape is not None and len(shape_arg(shape, "shape", name)) != rank:
            raise ValueError(
                f"Error in {name}: {name}() requires shape to have {rank} numbers, but got {shape}"
            )
        t = (
            make_tensor(values, shape, dtype, name)
            if not isinstance(values, Tensor)
            else tensor(values, shape, dtype)
        )
        if t.rank != rank:
            t.dispose()
            need = "a flat array" if rank == 1 else f"a rank-{rank} nested list, or a flat array with a shape"
            raise ValueError(f"Error in {name}: {name}() requires values to be {need}, but got rank {t.rank}")
        return t

    if rank == 1:

        def tensor1d(values: TensorLike, dtype: str | None = None) -> Tensor:
            return tensor_nd(values, None, dtype)

        fn: Any = tensor1d
    else:
        fn = tensor_nd
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"A rank-{rank} tensor (tensor() with a rank check)."
    return fn


tensor1d, tensor2d, tensor3d, tensor4d, tensor5d, tensor6d = (_tensor_nd(r) for r in builtins.range(1, 7))


def _ranked(fn: Any, rank: int, verb: str) -> Any:
    name = f"{verb}{rank}d"
    signature = inspect.signature(fn)

    def variant(x: TensorLike, *args: Any, **kwargs: Any) -> Tensor:
        try:
            signature.bind(x, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"Error in {name}: {e}") from None
        t = convert_to_tensor(x, "x", name)
        if t.rank != rank:
            raise ValueError(f"Error in {name}: x must be rank {rank} but got rank {t.rank}.")
        return fn(t, *args, **kwargs)

    variant.__name__ = variant.__qualname__ = name
    variant.__doc__ = f"{verb} of a rank-{rank} tensor (the rank is checked)."
    return op(variant)


def _concat_nd(rank: int) -> Any:
    name = f"concat{rank}d"

    def concat_nd(tensors: Sequence[TensorLike], axis: int = 0) -> Tensor:
        if not isinstance(tensors, (list, tuple)) or not tensors:
            raise TypeError(f"Error in {name}: argument 'tensors' must be a non-empty list of tensors")
        ts = [convert_to_tensor(t, f"tensors[{i}]", name) for i, t in enumerate(tensors)]
        for i, t in enumerate(ts):
            if t.rank != rank:
                raise ValueError(f"Error in {name}: tensors[{i}] must be rank {rank} but got rank {t.rank}.")
        return concat(ts, axis_arg(axis, rank, name) if rank > 1 else 0)

    concat_nd.__name__ = concat_nd.__qualname__ = name
    concat_nd.__doc__ = f"concat of rank-{rank} tensors."
    return op(concat_nd)


def _pad_nd(rank: int) -> Any:
    name = f"pad{rank}d"

    def pad_nd(x: TensorLike, paddings: Sequence[Any], constant_value: float = 0) -> Tensor:
        pairs = [paddings] if rank == 1 else list(paddings)
        if len(pairs) != rank or any(not isinstance(p, (list, tuple)) or len(p) != 2 for p in pairs):
            raise ValueError(f"Error in {name}: invalid number of paddings. Must be length of {rank} pairs.")
        return pad(x, pairs, constant_value)

    return _ranked(pad_nd, rank, "pad")


def _slice_nd(rank: int) -> Any:
    def slice_nd(x: Tensor, begin: Any, size: Any = None) -> Tensor:
        return slice(x, begin, size)

    return _ranked(slice_nd, rank, "slice")


def _reverse_nd(rank: int) -> Any:
    def reverse_nd(x: Tensor, axis: Any = None) -> Tensor:
        return reverse(x, 0 if rank == 1 else axis)

    return _ranked(reverse_nd, rank, "reverse")


concat1d, concat2d, concat3d, concat4d = (_concat_nd(r) for r in builtins.range(1, 5))
pad1d, pad2d, pad3d, pad4d = (_pad_nd(r) for r in builtins.range(1, 5))
slice1d, slice2d, slice3d, slice4d = (_slice_nd(r) for r in builtins.range(1, 5))
reverse1d, reverse2d, reverse3d, reverse4d = (_reverse_nd(r) for r in builtins.range(1, 5))


@op
def meshgrid(x: TensorLike, y: TensorLike | None = None, indexing: str = "xy") -> list[Tensor]:
    """Coordinate matrices of two vectors: 'xy' gives [len(y), len(x)] grids, 'ij' [len(x), len(y)]."""
    if not isinstance(indexing, str) or indexing not in ("xy", "ij"):
        raise TypeError(f"Error in meshgrid: {indexing} is not a valid third argument to meshgrid")
    tx = convert_to_tensor(x, "x", "meshgrid")
    if y is None:
        return [tx]
    ty = convert_to_tensor(y, "y", "meshgrid")
    w, h = tx.size, ty.size
    if indexing == "xy":
        return [tile(reshape(tx, [1, w]), [h, 1]), tile(reshape(ty, [h, 1]), [1, w])]
    return [tile(reshape(tx, [w, 1]), [1, h]), tile(reshape(ty, [1, h]), [w, 1])]


def ensure_shape(x: TensorLike, shape: Sequence[int | None]) -> Tensor:
    """x itself when its shape matches `shape` (None matches any size), else an error."""
    if not isinstance(shape, (list, tuple)) or not all(d is None or is_int(d) for d in shape):
        raise TypeError(
            f"Error in ensure_shape: argument 'shape' must be a list of integers or None, but got {shape!r:.60}"
        )
    t = convert_to_tensor(x, "x", "ensure_shape")
    want = list(shape)
    if len(want) != t.rank or any(w is not None and w != d for w, d in zip(want, t.shape, strict=True)):
        if t is not x:
            t.dispose()
        raise ValueError(
            f"Error in ensure_shape: shape of tensor {fmt(t.shape)} is not compatible with expected shape "
            f"{[w if w is not None else None for w in want]}"
        )
    return t


def print(x: Tensor, verbose: bool = False) -> None:  # noqa: A001
    """Print x (its values, and with verbose its dtype, rank and shape), as tf.print / x.print()."""
    if not isinstance(x, Tensor):
        raise TypeError(f"Error in print: argument 'x' must be a Tensor, but got {type(x).__name__}")
    x.print(flag_arg(verbose, "verbose", "print"))


class TensorBuffer:
    """A mutable host buffer of a shape and dtype: set / get values by coordinates, then to_tensor()."""

    def __init__(self, shape: Sequence[int], dtype: str = "float32", values: Any = None) -> None:
        self._fill(shape, dtype, values, "TensorBuffer")

    def _fill(self, shape: Any, dtype: Any, values: Any, op_name: str) -> None:
        self.shape = output_shape(shape, "shape", op_name)
        self.dtype = dtype_arg(dtype, op_name)
        self.size = size_of(self.shape)
        self.strides = strides_of(self.shape)[:-1] if self.shape else []
        code = TYPECODE[self.dtype]
        if values is None:
            self.values = array(code, bytes(array(code).itemsize * self.size))
            return
        try:
            if isinstance(values, (str, bytes, Tensor)):
                raise TypeError
            self.values = array(code, values)
        except (TypeError, ValueError, OverflowError):
            raise TypeError(
                f"Error in {op_name}: argument 'values' must be a flat list or typed array of {self.dtype} "
                f"values, but got {type(values).__name__}"
            ) from None
        if len(self.values) != self.size:
            raise ValueError(
                f"Error in {op_name}: length of values '{len(self.values)}' does not match the size inferred by "
                f"the shape '{self.size}'."
            )

    @property
    def rank(self) -> int:
        """The number of dims."""
        return len(self.shape)

    def loc_to_index(self, locs: Sequence[int]) -> int:
        """The flat index of coordinates `locs`."""
        if len(locs) != self.rank:
            raise ValueError(
                f"Error in TensorBuffer: the number of provided coordinates ({len(locs)}) must match the rank "
                f"({self.rank})"
            )
        for loc, d in zip(locs, self.shape, strict=True):
            if not 0 <= loc < d:
                raise IndexError(f"Error in TensorBuffer: requested out of range element at {list(locs)}")
        return sum(loc * s for loc, s in zip(locs, strides_of(self.shape), strict=True))

    def index_to_loc(self, index: int) -> list[int]:
        """The coordinates of flat index `index`."""
        return [(index // s) % d for s, d in zip(strides_of(self.shape), self.shape, strict=True)]

    def set(self, value: Any, *locs: int) -> None:
        """Write `value` at coordinates `locs`."""
        self.values[self.loc_to_index(locs)] = value

    def get(self, *locs: int) -> Any:
        """The value at coordinates `locs`."""
        return self.values[self.loc_to_index(locs)]

    def to_tensor(self) -> Tensor:
        """A new tensor holding a copy of the buffer's values."""
        return ENGINE.make_tensor(array(self.values.typecode, self.values), self.shape, self.dtype)


def buffer(shape: Sequence[int], dtype: str = "float32", values: Any = None) -> TensorBuffer:
    """A TensorBuffer of `shape` and `dtype` (zeros, or a copy of `values`)."""
    out = TensorBuffer.__new__(TensorBuffer)
    out._fill(shape, dtype, values, "buffer")
    return out
