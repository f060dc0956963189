"""Tensor: an immutable handle (id, shape, dtype, data id). Math lives in ops; operators are bound there."""

from __future__ import annotations

from array import array
from math import prod
from typing import TYPE_CHECKING, Any

from .interop import require_numpy, view_of
from .shapes import strides_of

if TYPE_CHECKING:
    from .engine import Engine

_engine: Engine = None  # type: ignore[assignment]  # set by engine.py at import time


def _nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    for dim in reversed(shape[1:]):
        flat = (
            [flat[i : i + dim] for i in range(0, len(flat), dim)] if dim else [[] for _ in range(len(flat))]
        )
    return flat if shape[0] == len(flat) else [[] for _ in range(shape[0])]


class Tensor:
    """An n-dimensional array held by the active backend. Immutable; free it with dispose() or tidy()."""

    __slots__ = ("id", "shape", "dtype", "size", "data_id", "is_disposed_internal", "kept", "__weakref__")

    def __init__(
        self, shape: tuple[int, ...], dtype: str, data_id: int, tensor_id: int, size: int | None = None
    ) -> None:
        self.shape = shape
        self.dtype = dtype
        self.size = prod(shape) if size is None else size  # the engine passes it where it knows it
        self.data_id = data_id
        self.id = tensor_id
        self.is_disposed_internal = False
        self.kept = False

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def is_disposed(self) -> bool:
        """True once dispose() freed this tensor."""
        return self.is_disposed_internal

    @property
    def strides(self) -> list[int]:
        """Elements between consecutive indices of each dimension but the last (row-major, as TF.js)."""
        strides, acc = [], 1
        for d in reversed(self.shape[1:]):
            acc *= d
            strides.append(acc)
        return strides[::-1]

    def throw_if_disposed(self) -> None:
        """Raise if this tensor was disposed (TF.js throwIfDisposed)."""
        self._check("throw_if_disposed")

    def _check(self, what: str) -> None:
        if self.is_disposed_internal:
            raise ValueError(
                f"Tensor is disposed: cannot call {what}() on tensor {self.id} of shape {list(self.shape)}"
            )

    def data_sync(self) -> array:
        """Download the values synchronously as a flat array (typed like the dtype; complex64: float32 re, im
        pairs; string: a list of str, as TF.js's dataSync decodes them)."""
        self._check("data_sync")
        return _engine.read_sync(self.data_id)

    async def data(self) -> array:
        """Download the values asynchronously as a flat array (typed like the dtype)."""
        self._check("data")
        return await _engine.read(self.data_id)

    async def bytes(self) -> Any:
        """The raw values as TF.js's bytes(): a list of UTF-8 bytes for a string tensor, else the buffer's bytes."""
        self._check("bytes")
        values = await _engine.read(self.data_id)
        return [v.encode() for v in values] if self.dtype == "string" else values.tobytes()

    def array_sync(self) -> Any:
        """Download the values synchronously as nested Python lists (a number for a scalar)."""
        return self._to_nested(self.data_sync())

    async def array(self) -> Any:
        """Download the values asynchronously as nested Python lists (a number for a scalar)."""
        return self._to_nested(await self.data())

    def numpy(self) -> Any:
        """The values as a new numpy ndarray of this shape and dtype, read synchronously (needs numpy)."""
        np = require_numpy("Tensor.numpy()")
        return view_of(np, self.data_sync(), self.dtype, self.shape)

    async def numpy_async(self) -> Any:
        """The values as a new numpy ndarray of this shape and dtype, read without blocking (needs numpy)."""
        np = require_numpy("Tensor.numpy_async()")
        return view_of(np, await self.data(), self.dtype, self.shape)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        """np.asarray(tensor): the values as a new ndarray (a download always copies, so copy=False fails)."""
        if copy is False:
            raise ValueError("a webtf Tensor cannot be viewed as an ndarray without a copy (copy=False)")
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def _to_nested(self, values: array) -> Any:
        if self.dtype == "complex64" and self.shape:  # as TF.js: the innermost dim holds re, im pairs
            return _nest(values.tolist(), (*self.shape[:-1], 2 * self.shape[-1]))
        flat: list[Any] = [v != 0 for v in values] if self.dtype == "bool" else list(values)
        return _nest(flat, self.shape)

    def dispose(self) -> None:
        """Free this tensor's memory (its data is freed when no other tensor shares it)."""
        _engine.dispose_tensor(self)

    def __repr__(self) -> str:
        if self.is_disposed_internal:
            return f"Tensor(disposed, id={self.id}, shape={list(self.shape)}, dtype={self.dtype})"
        return _format(self)

    __str__ = __repr__
    __hash__ = object.__hash__

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a scalar tensor")
        return self.shape[0]

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                f"The truth value of a tensor with {self.size} elements is ambiguous; use any() or all()"
            )
        return bool(self.data_sync()[0])

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def _scalar(self, what: str) -> Any:
        if self.size != 1:
            raise TypeError(
                f"only tensors of size 1 can be converted to {what}, not shape {list(self.shape)}"
            )
        return self.data_sync()[0]

    def to_string(self, verbose: bool = False) -> str:
        """Pretty-print like TF.js tensor.toString(verbose)."""
        return _format(self, verbose)

    def print(self, verbose: bool = False) -> None:
        """Print the tensor like tf.print."""
        print(_format(self, verbose))


class Variable(Tensor):
    """A mutable tensor: assign() swaps its data in place (TF.js tf.variable)."""

    __slots__ = ("name", "trainable")

    def __init__(self, initial: Tensor, trainable: bool = True, name: str | None = None) -> None:
        tensor_id = _engine.next_tensor_id()
        self.trainable = trainable
        self.name = name or f"variable{tensor_id}"
        _engine.register_variable(self)  # a taken name raises before any memory is shared
        super().__init__(initial.shape, initial.dtype, _engine.share_data(initial.data_id), tensor_id)
        _engine.track(self)
        self.kept = True

    def dispose(self) -> None:
        """Free the variable and remove it from the registered variables."""
        _engine.dispose_variable(self)

    def assign(self, new_value: Tensor) -> None:
        """Replace the value; shape and dtype must match."""
        if not isinstance(new_value, Tensor):
            raise TypeError(
                f"Error in assign: new_value must be a Tensor (make one with tf.tensor), but got "
                f"{type(new_value).__name__}"
            )
        new_value._check("assign")
        if new_value.dtype != self.dtype or new_value.shape != self.shape:
            raise ValueError(
                f"Error in assign: variable '{self.name}' has shape {list(self.shape)} and dtype {self.dtype}, "
                f"new value has shape {list(new_value.shape)} and dtype {new_value.dtype}"
            )
        self._check("assign")
        if _engine._recording is not None:  # a recorded training step (models/step_capture.py)
            _engine._recording.append(("assign", self, new_value, self.data_id))
        old = self.data_id
        self.data_id = _engine.share_data(new_value.data_id)
        _engine.release_data(old)


def _fmt_value(v: Any, dtype: str) -> str:
    if dtype == "string":
        return repr(v)
    if dtype == "complex64":
        return f"{_fmt_value(v[0], 'float32')} + {_fmt_value(v[1], 'float32')}j"
    if dtype == "bool":
        return "true" if v else "false"
    if dtype == "int32":
        return str(int(v))
    return f"{v:.4f}" if abs(v) < 1e6 else f"{v:.3e}"


#: as TF.js prints tensors: a dim longer than _FORMAT_LIMIT shows its first and last _FORMAT_EDGE entries
_FORMAT_LIMIT, _FORMAT_EDGE = 20, 3


def _shown(n: int) -> list[int | None]:
    """The indices printed along a dim of size n (None: the '...' between the first and last ones)."""
    if n <= _FORMAT_LIMIT:
        return list(range(n))
    return [*range(_FORMAT_EDGE), None, *range(n - _FORMAT_EDGE, n)]


def _format(t: Tensor, verbose: bool = False) -> str:
    flat: Any = t.data_sync()
    if t.dtype == "complex64":
        flat = list(zip(flat[0::2], flat[1::2], strict=False))
    shape = t.shape
    strides = strides_of(shape)
    cells: dict[int, str] = {}

    def collect(dim: int, offset: int) -> None:
        if dim == len(shape):
            cells[offset] = _fmt_value(flat[offset], t.dtype)
            return
        for i in _shown(shape[dim]):
            if i is not None:
                collect(dim + 1, offset + i * strides[dim])

    collect(0, 0)
    width = max(map(len, cells.values()), default=0)

    def rows(dim: int, offset: int) -> str:
        if dim == len(shape):
            return cells[offset].rjust(width)
        parts = ["..." if i is None else rows(dim + 1, offset + i * strides[dim]) for i in _shown(shape[dim])]
        sep = ", " if dim == len(shape) - 1 else "," + "\n" * (len(shape) - 1 - dim) + " " * (dim + 5)
        return "[" + sep.join(parts) + "]"

    head = "Tensor"
    if verbose:
        head += f"\n  dtype: {t.dtype}\n  rank: {t.rank}\n  shape: {list(t.shape)}\n  values:"
    return head + "\n    " + rows(0, 0)
