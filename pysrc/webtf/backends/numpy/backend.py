"""The numpy backend: each buffer is a flat, C-contiguous ndarray (float32, int32 or bool)."""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np

from ...dtypes import DTYPES, TYPECODE
from ...interop import np_dtype
from ..base import Backend, TensorInfo, new_data_id

#: webtf dtype -> the numpy dtype of its buffers, and back; numpy dtype -> array.array typecode
NP_DTYPE = {d: np.dtype(np_dtype(np, d)) for d in (*DTYPES, "complex64")}
_DTYPE_NAME = {v: k for k, v in NP_DTYPE.items()}
_TYPECODE = {v: TYPECODE[k] for k, v in NP_DTYPE.items()}


def _adopt(values: Any, dtype: str) -> Any:
    """Host values (an array.array typed for `dtype`, or an ndarray) as a flat ndarray, sharing memory
    (string buffers stay lists of str)."""
    if dtype == "string":
        return list(values)
    if isinstance(values, np.ndarray):
        return np.ascontiguousarray(values, NP_DTYPE[dtype]).reshape(-1)
    if not len(values):
        return np.zeros(0, NP_DTYPE[dtype])
    if values.typecode != TYPECODE[dtype]:
        values = array(TYPECODE[dtype], values)
    return np.frombuffer(values, NP_DTYPE[dtype])


class NumpyBackend(Backend):
    """Stores ndarrays; kernels read inputs with nd(t) and return results with make(ndarray).

    values() and output() speak flat array.array like the cpu backend, so any cpu kernel runs here too.
    """

    name = "numpy"

    def move(self, data_id: int, values: Any, shape: tuple[int, ...], dtype: str) -> None:
        self.data[data_id] = _adopt(values, dtype)

    def read_sync(self, data_id: int) -> array:
        flat = self.get_data(data_id)
        if isinstance(flat, list):
            return flat[:]
        out = array(_TYPECODE[flat.dtype])
        out.frombytes(memoryview(flat).cast("B"))
        return out

    def nd(self, t: Any) -> np.ndarray:
        """The values of an input tensor as an ndarray of its shape (a view: kernels must not write to it)."""
        try:
            flat = self.data[t.data_id]
        except KeyError:
            flat = self.get_data(t.data_id)
        if isinstance(flat, list):
            return np.array(flat, object).reshape(t.shape)
        return flat.reshape(t.shape)

    def make(self, values: np.ndarray, dtype: str | None = None) -> TensorInfo:
        """Adopt a result ndarray (cast to `dtype` when given) as a new buffer and describe it for the engine.

        A result that is a view of an input must be copied by the kernel first: a buffer never aliases
        another one.
        """
        if values.dtype == object:  # strings
            data_id = new_data_id()
            self.data[data_id] = values.ravel().tolist()
            return TensorInfo(data_id, values.shape, "string")
        if dtype is not None and values.dtype != NP_DTYPE[dtype]:
            values = values.astype(NP_DTYPE[dtype])
        data_id = new_data_id()
        self.data[data_id] = values.ravel()  # a view when already C-contiguous, else a C-order copy
        return TensorInfo(data_id, values.shape, _DTYPE_NAME[values.dtype])

    # The cpu kernels' seam (flat array.array in and out), for the kernels taken from the cpu table.
    def values(self, t: Any) -> array:
        """The flat values of an input tensor as an array.array (a copy)."""
        return self.read_sync(t.data_id)

    def output(self, values: array, shape: tuple[int, ...], dtype: str) -> TensorInfo:
        """Adopt `values` (typed for `dtype`) as a new buffer and describe it for the engine."""
        data_id = new_data_id()
        self.data[data_id] = _adopt(values, dtype)
        return TensorInfo(data_id, tuple(shape), dtype)

    def memory(self) -> dict[str, Any]:
        return {"unreliable": False, "num_bytes_in_cpu": sum(
            v.nbytes if isinstance(v, np.ndarray) else sum(len(s.encode()) for s in v) for v in self.data.values()
        )}
