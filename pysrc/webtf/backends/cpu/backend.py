"""The cpu backend: flat array.array buffers and plain-Python kernels (no numpy: the browser has none)."""

from __future__ import annotations

from array import array
from typing import Any

from ..base import Backend, TensorInfo, new_data_id
from .kernels.lazy import PackedOutput


class CpuBackend(Backend):
    """Stores each buffer as an array.array ('f' float32, 'i' int32, 'B' bool), or a float32 conv output as
    its packed sums until first read (kernels/lazy.py: only packed convs read those directly)."""

    name = "cpu"
    #: conv kernels may store a PackedOutput (other backends running cpu kernels get arrays)
    packed_outputs = True

    def get_data(self, data_id: int) -> Any:
        v = super().get_data(data_id)
        if v.__class__ is PackedOutput:
            v = self.data[data_id] = v.materialize()
        return v

    def move(self, data_id: int, values: array, shape: tuple[int, ...], dtype: str) -> None:
        self.data[data_id] = values

    def read_sync(self, data_id: int) -> array:
        return self.get_data(data_id)[:]  # a copy (a list of str for string tensors)

    # The two methods every host kernel uses; other backends implement them too, so the cpu kernel
    # table doubles as a correct fallback anywhere.
    def values(self, t: Any) -> array:
        """The flat values of an input tensor; kernels must not mutate them."""
        try:
            v = self.data[t.data_id]
        except KeyError:
            return self.get_data(t.data_id)
        if v.__class__ is PackedOutput:
            v = self.data[t.data_id] = v.materialize()
        return v

    def output(self, values: array, shape: tuple[int, ...], dtype: str) -> TensorInfo:
        """Adopt `values` (typed for `dtype`) as a new buffer and describe it for the engine."""
        return TensorInfo(self.store(values, shape, dtype), shape, dtype)

    def store(self, values: array, shape: tuple[int, ...], dtype: str) -> int:
        data_id = new_data_id()
        self.data[data_id] = values
        return data_id

    def dispose_many(self, data_ids: list[int]) -> None:
        pop = self.data.pop
        for data_id in data_ids:
            pop(data_id, None)

    def memory(self) -> dict[str, Any]:
        return {"unreliable": False, "num_bytes_in_cpu": sum(
            len(v) * v.itemsize if isinstance(v, array)
            else v.nbytes if isinstance(v, PackedOutput)
            else sum(len(s.encode()) for s in v)
            for v in self.data.values()
        )}
