"""What every backend provides: storage keyed by data id, reads, and the TensorInfo kernels return."""

from __future__ import annotations

import functools
import itertools
from array import array
from collections.abc import Callable
from typing import Any, NamedTuple

_data_ids = itertools.count(1)

#: The most elements one tensor may hold on the host backend (1 GiB of float32): past it a pure-Python kernel
#: runs for minutes and Pyodide's wasm32 heap (4 GiB at most, shared with everything) cannot hold the buffer.
#: Ops check the outputs they would make against the active backend's `max_elements` before running a kernel.
MAX_ELEMENTS = 1 << 28


#: A fresh data id, unique across all backends: new_data_id() (the counter's own __next__: no Python frame on
#: the path of every kernel output)
new_data_id: Callable[[], int] = _data_ids.__next__


class TensorInfo(NamedTuple):
    """What a kernel returns: the data id of a buffer the backend holds, with its shape and dtype."""

    data_id: int
    shape: tuple[int, ...]
    dtype: str


#: TensorInfo from a (data_id, shape, dtype) tuple, for hot paths: a third of the cost of TensorInfo(...)
new_info = functools.partial(tuple.__new__, TensorInfo)


class Backend:
    """Base class: `data` maps data id -> backend-specific storage; missing ids are moved in lazily."""

    name = "base"
    #: the most elements one tensor may hold here (see MAX_ELEMENTS); ops check their outputs against it
    max_elements = MAX_ELEMENTS

    def __init__(self) -> None:
        self.data: dict[int, Any] = {}
        self.mover: Any = None  # the engine, set on registration

    def get_data(self, data_id: int) -> Any:
        """The storage record for `data_id`, moving it here from another backend if needed."""
        try:
            return self.data[data_id]
        except KeyError:
            self.mover.move_data(self, data_id)
            return self.data[data_id]

    def write(self, values: array, shape: tuple[int, ...], dtype: str) -> int:
        """Store host values under a new data id."""
        data_id = new_data_id()
        self.move(data_id, values, shape, dtype)
        return data_id

    def move(self, data_id: int, values: array, shape: tuple[int, ...], dtype: str) -> None:
        """Store host values under an existing data id."""
        raise NotImplementedError

    def read_sync(self, data_id: int) -> array:
        """The flat values of `data_id` (a fresh array the caller may keep)."""
        raise NotImplementedError

    async def read(self, data_id: int) -> array:
        """Like read_sync, without blocking where the backend can avoid it."""
        return self.read_sync(data_id)

    def dispose_data(self, data_id: int) -> None:
        """Free the storage of `data_id`."""
        self.data.pop(data_id, None)

    def dispose_many(self, data_ids: list[int]) -> None:
        """Free the storage of each of `data_ids` (the end of a tidy scope: one call for all its buffers)."""
        for data_id in data_ids:
            self.dispose_data(data_id)

    def memory(self) -> dict[str, Any]:
        """Backend-specific memory figures merged into tf.memory()."""
        return {"unreliable": False}

    def epsilon(self) -> float:
        """Smallest value treated as non-zero by this backend."""
        return 1e-7

    def float_precision(self) -> int:
        """32 or 16: the float precision this backend computes in."""
        return 32

    def now_ms(self) -> float:
        """A millisecond clock for kernel timing."""
        import time

        return time.perf_counter() * 1000.0

    def dispose(self) -> None:
        """Free everything this backend holds."""
        self.data.clear()
