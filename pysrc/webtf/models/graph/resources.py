"""TensorArray and TensorList: the mutable containers of converted TF graphs, owned by one execution.

As in TF.js, an op that makes a container returns a scalar "handle" tensor; the ops that use it find the
container by the handle's data id (control-flow ops pass handles through unchanged). A container owns the
tensors written into it (it stores its own reference), so the graph may free what it wrote; reads hand out
a new reference (or the stored one, when the read also clears the slot). `Resources.dispose` frees all.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

from ... import ops as tf
from ...engine import ENGINE
from ...shapes import fmt
from ...tensor import Tensor

#: an element shape: a list of dims (-1 = unknown) or None for an unknown rank
ElementShape = list[int] | None


def element_shape(t: Tensor, values: list[Any]) -> ElementShape:
    """An element-shape input: a scalar (-1) means an unknown rank, a vector lists dims (-1 = unknown)."""
    if t.rank == 0:
        return None
    return [int(v) for v in values]


def compatible(a: ElementShape, b: ElementShape) -> bool:
    """Whether two partially known shapes can describe the same tensor."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x == y or x == -1 or y == -1 for x, y in zip(a, b, strict=True))


def merge(a: ElementShape, b: ElementShape) -> ElementShape:
    """The most specific shape compatible with both (callers check compatibility first)."""
    if a is None:
        return b
    if b is None:
        return a
    return [x if x != -1 else y for x, y in zip(a, b, strict=True)]


def known(shape: ElementShape) -> bool:
    """Whether a shape is fully defined."""
    return shape is not None and all(d >= 0 for d in shape)


def _fmt(shape: ElementShape) -> str:
    return "<unknown rank>" if shape is None else fmt(shape)


def _free(ts: list[Any]) -> None:
    for t in ts:
        if t is not None:
            t.dispose()


def _empty(shape: list[int], dtype: str) -> Tensor:
    return tf.zeros([0, *shape], dtype)


class TensorArray:
    """TF TensorArrayV3: a fixed (or growing) array of same-dtype tensors, each written once."""

    def __init__(
        self,
        name: str,
        dtype: str,
        size: int,
        element_shape: ElementShape,
        identical_shapes: bool,
        dynamic_size: bool,
        clear_after_read: bool,
        handle: Tensor,
    ) -> None:
        self.name = name
        self.dtype = dtype
        self.items: list[Tensor | None] = [None] * size
        self.element_shape = element_shape
        self.identical_shapes = identical_shapes
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.handle = handle
        self.read_once: set[int] = set()
        self.closed = False

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError(f"TensorArray {self.name} has already been closed")

    def size(self) -> int:
        """Number of slots."""
        return len(self.items)

    def write(self, index: int, t: Tensor) -> None:
        """Store (a new reference to) t at index."""
        self._check_open()
        if index < 0 or (index >= len(self.items) and not self.dynamic_size):
            raise ValueError(
                f"TensorArray {self.name}: tried to write to index {index}, but the array is not resizeable "
                f"and its size is {len(self.items)}"
            )
        if t.dtype != self.dtype:
            raise TypeError(
                f"TensorArray {self.name}: could not write to index {index}, because the value dtype is "
                f"{t.dtype}, but the TensorArray dtype is {self.dtype}"
            )
        shape = list(t.shape)
        if not compatible(self.element_shape, shape):
            raise ValueError(
                f"TensorArray {self.name}: could not write to index {index}: the element shape "
                f"{_fmt(self.element_shape)} does not match the value shape {fmt(shape)}"
            )
        if index < len(self.items) and self.items[index] is not None:
            raise ValueError(
                f"TensorArray {self.name}: could not write to index {index}, because it has already been "
                "written"
            )
        if index in self.read_once:
            raise ValueError(
                f"TensorArray {self.name}: could not write to index {index}, because it has already been read"
            )
        if self.identical_shapes:
            self.element_shape = merge(self.element_shape, shape)
        if index >= len(self.items):
            self.items.extend([None] * (index + 1 - len(self.items)))
        self.items[index] = tf.clone(t)

    def read(self, index: int) -> Tensor:
        """The tensor at index (a new reference; the slot is emptied when clear_after_read)."""
        self._check_open()
        if not 0 <= index < len(self.items):
            raise ValueError(
                f"TensorArray {self.name}: tried to read from index {index}, but the array size is "
                f"{len(self.items)}"
            )
        t = self.items[index]
        if t is None:
            if index in self.read_once:
                raise ValueError(
                    f"TensorArray {self.name}: could not read index {index} twice because it was cleared "
                    "after a previous read (perhaps try setting clear_after_read = false?)"
                )
            if known(self.element_shape):
                self.read_once.add(index)
                return tf.zeros(self.element_shape, self.dtype)  # type: ignore[arg-type]
            raise ValueError(
                f"TensorArray {self.name}: could not read from index {index} because it has not been written "
                f"and the element shape {_fmt(self.element_shape)} is not fully defined"
            )
        self.read_once.add(index)
        if self.clear_after_read:
            self.items[index] = None
            return t
        return tf.clone(t)

    def gather(self, indices: list[int], dtype: str, element_shape: ElementShape) -> Tensor:
        """The tensors at indices stacked on a new axis 0."""
        self._check_dtype(dtype)
        if not indices:
            shape = merge(self.element_shape, element_shape)
            if not known(shape):
                raise ValueError(
                    f"TensorArray {self.name}: cannot gather zero elements of element shape {_fmt(shape)}"
                )
            return _empty(shape, self.dtype)  # type: ignore[arg-type]
        parts = [self.read(i) for i in indices]
        try:
            return tf.stack(parts, 0)
        finally:
            _free(parts)

    def concat(self, dtype: str) -> Tensor:
        """All elements concatenated along axis 0."""
        self._check_dtype(dtype)
        if not self.items:
            shape = self.element_shape
            if not known(shape):
                raise ValueError(
                    f"TensorArray {self.name}: cannot concat an empty array of unknown element shape"
                )
            return _empty(shape[1:], self.dtype)  # type: ignore[index]
        parts = [self.read(i) for i in range(len(self.items))]
        try:
            return tf.concat(parts, 0)
        finally:
            _free(parts)

    def scatter(self, indices: list[int], t: Tensor) -> None:
        """Write t[i] to indices[i]."""
        if t.dtype != self.dtype:
            raise TypeError(
                f"TensorArray {self.name}: dtype {t.dtype} does not match the array's {self.dtype}"
            )
        if t.rank == 0 or len(indices) != t.shape[0]:
            raise ValueError(
                f"TensorArray {self.name}: expected {len(indices)} rows to scatter, but the value has shape "
                f"{fmt(t.shape)}"
            )
        if indices and not self.dynamic_size and max(indices) >= len(self.items):
            raise ValueError(
                f"TensorArray {self.name}: max index {max(indices)} must be < array size {len(self.items)}"
            )
        self._write_parts(indices, tf.unstack(t, 0))

    def split(self, lengths: list[int], t: Tensor) -> None:
        """Write consecutive row blocks of t, of the given lengths, to indices 0, 1, ..."""
        if t.dtype != self.dtype:
            raise TypeError(
                f"TensorArray {self.name}: dtype {t.dtype} does not match the array's {self.dtype}"
            )
        total = sum(lengths)
        if t.rank == 0 or total != t.shape[0]:
            raise ValueError(
                f"TensorArray {self.name}: split lengths sum to {total}, but the value is {fmt(t.shape)}"
            )
        if not self.dynamic_size and len(lengths) != len(self.items):
            raise ValueError(
                f"TensorArray {self.name}: {len(lengths)} split lengths for array size {len(self.items)}"
            )
        self._write_parts(list(range(len(lengths))), tf.split(t, lengths, 0) if lengths else [])

    def _write_parts(self, indices: list[int], parts: list[Tensor]) -> None:
        try:
            for i, part in zip(indices, parts, strict=True):
                self.write(i, part)
        finally:
            _free(parts)

    def _check_dtype(self, dtype: str) -> None:
        if dtype != self.dtype:
            raise TypeError(f"TensorArray {self.name}: expected dtype {self.dtype}, but got {dtype}")

    def close(self) -> None:
        """Free every element; further use raises."""
        _free(self.items)
        self.items = []
        self.closed = True


@dataclass(eq=False)
class TensorList:
    """TF TensorList (TensorListReserve / FromTensor ...): a list of same-dtype tensors, mutated in place."""

    items: list[Tensor | None]
    element_shape: ElementShape
    dtype: str
    max_size: int
    handle: Tensor

    def _check(self, dtype: str | None, shape: ElementShape, what: str) -> None:
        if dtype is not None and dtype != self.dtype:
            raise TypeError(
                f"TensorList: invalid data types; op elements {dtype}, but list elements {self.dtype}"
            )
        if not compatible(self.element_shape, shape):
            raise ValueError(
                f"TensorList: {what} shape {_fmt(shape)} does not match the list's element shape "
                f"{_fmt(self.element_shape)}"
            )

    def _element_shape(self, shape: ElementShape) -> list[int]:
        out = merge(self.element_shape, shape)
        for t in self.items:
            if known(out):
                break
            if t is not None:
                out = merge(out, list(t.shape))
        if not known(out):
            raise ValueError(f"TensorList: the element shape {_fmt(out)} is not fully defined")
        return out  # type: ignore[return-value]

    def _take(self, index: int, shape: list[int]) -> Tensor:
        t = self.items[index]
        if t is None:
            return tf.zeros(shape, self.dtype)
        self._check(None, list(t.shape), "element")
        return tf.reshape(t, shape)

    def get_item(self, index: int, shape: ElementShape, dtype: str) -> Tensor:
        """A new reference to element index, reshaped to the (inferred) element shape."""
        self._check(dtype, shape, "requested element")
        if not 0 <= index < len(self.items):
            raise ValueError(
                f"TensorList: trying to access element {index} in a list with {len(self.items)} elements"
            )
        return self._take(index, self._element_shape(shape))

    def set_item(self, index: int, t: Tensor) -> None:
        """Store (a new reference to) t at index."""
        self._check(t.dtype, list(t.shape), "item")
        if index < 0 or index >= len(self.items):
            raise ValueError(
                f"TensorList: trying to set element {index} in a list with {len(self.items)} elements"
            )
        old = self.items[index]
        self.items[index] = tf.clone(t)
        if old is not None:
            old.dispose()

    def push_back(self, t: Tensor) -> None:
        """Append (a new reference to) t."""
        self._check(t.dtype, list(t.shape), "pushed")
        if self.max_size != -1 and len(self.items) >= self.max_size:
            raise ValueError("TensorList: trying to push an element into a full list")
        self.items.append(tf.clone(t))

    def pop_back(self, shape: ElementShape, dtype: str) -> Tensor:
        """Remove and return the last element."""
        self._check(dtype, shape, "requested element")
        if not self.items:
            raise ValueError("TensorList: trying to pop from an empty list")
        out_shape = self._element_shape(shape)
        t = self.items.pop()
        if t is None:
            return tf.zeros(out_shape, self.dtype)
        try:
            return tf.reshape(t, out_shape)
        finally:
            t.dispose()

    def stack(self, shape: ElementShape, dtype: str, num_elements: int = -1) -> Tensor:
        """All elements stacked on a new axis 0."""
        self._check(dtype, shape, "requested element")
        if num_elements != -1 and num_elements != len(self.items):
            raise ValueError(
                f"TensorList: operation expected a list with {num_elements} elements but got a list with "
                f"{len(self.items)} elements"
            )
        return self.gather(list(range(len(self.items))), shape, dtype)

    def gather(self, indices: list[int], shape: ElementShape, dtype: str) -> Tensor:
        """The elements at indices stacked on a new axis 0."""
        self._check(dtype, shape, "requested element")
        out_shape = self._element_shape(shape)
        if not indices:
            return _empty(out_shape, self.dtype)
        for i in indices:
            if not 0 <= i < len(self.items):
                raise ValueError(
                    f"TensorList: trying to access element {i} in a list with {len(self.items)} elements"
                )
        parts = [self._take(i, out_shape) for i in indices]
        try:
            return tf.stack(parts, 0)
        finally:
            _free(parts)

    def concat(self, shape: ElementShape, dtype: str) -> list[Tensor]:
        """All elements concatenated along axis 0, and the int32 row count of each."""
        self._check(dtype, shape, "requested element")
        parts = [t for t in self.items if t is not None]
        if len(parts) != len(self.items):
            raise ValueError("TensorList: cannot concat a list with unset elements")
        if not parts:
            out_shape = self._element_shape(shape)
            return [_empty(out_shape[1:], self.dtype), tf.tensor([], [0], "int32")]
        lengths = [t.shape[0] if t.rank else 1 for t in parts]
        return [tf.concat(parts, 0), tf.tensor(lengths, [len(lengths)], "int32")]

    def dispose(self) -> None:
        """Free every element."""
        _free(self.items)
        self.items = []


class Resources:
    """The TensorArrays and TensorLists one graph execution made, found by handle."""

    def __init__(self) -> None:
        self._by_handle: dict[int, TensorArray | TensorList] = {}
        self.handle_ids: set[int] = set()

    def new_handle(self) -> Tensor:
        """A fresh scalar handle tensor (its data id names the container)."""
        return ENGINE.make_tensor(array("f", [0.0]), (), "float32")

    def add(self, res: TensorArray | TensorList) -> Tensor:
        """Register a container; returns its handle."""
        self._by_handle[res.handle.data_id] = res
        self.handle_ids.add(id(res.handle))
        return res.handle

    def array(self, handle: Tensor) -> TensorArray:
        """The TensorArray a handle names."""
        res = self._by_handle.get(handle.data_id)
        if not isinstance(res, TensorArray):
            raise ValueError("the input is not a TensorArray handle")
        return res

    def list(self, handle: Tensor) -> TensorList:
        """The TensorList a handle names."""
        res = self._by_handle.get(handle.data_id)
        if not isinstance(res, TensorList):
            raise ValueError("the input is not a TensorList handle")
        return res

    def dispose(self, keep: set[int]) -> None:
        """Free every container's elements and every handle, except tensors whose id() is in keep."""
        for res in self._by_handle.values():
            for t in res.items:
                if t is not None and id(t) not in keep:
                    t.dispose()
            res.items = []
            if id(res.handle) not in keep:
                res.handle.dispose()
        self._by_handle.clear()
        self.handle_ids.clear()
