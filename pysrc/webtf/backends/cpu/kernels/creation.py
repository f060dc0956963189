"""cpu kernels that make tensors: Fill, ZerosLike, OnesLike, Range, LinSpace, Identity, Cast."""

from __future__ import annotations

import math
from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util import cast_values, fill_kernels, filled
from ....dtypes import TYPECODE
from ....shapes import size_of
from ...base import TensorInfo


def _const(backend: Any, shape: tuple[int, ...], dtype: str, value: Any) -> TensorInfo:
    return backend.output(filled(size_of(shape), dtype, value), shape, dtype)


def range_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    start, stop, step, dtype = attrs["start"], attrs["stop"], attrs["step"], attrs["dtype"]
    n = max(0, math.ceil((stop - start) / step))
    vals = [start + i * step for i in range(n)]
    return backend.output(
        array(TYPECODE[dtype], [int(v) for v in vals] if dtype == "int32" else vals), (n,), dtype
    )


def linspace(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    start, stop, num = attrs["start"], attrs["stop"], attrs["num"]
    step = (stop - start) / (num - 1) if num > 1 else 0.0
    return backend.output(array("f", [start + i * step for i in range(num)]), (num,), "float32")


def identity(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    x = inputs["x"]
    return TensorInfo(x.data_id, x.shape, x.dtype)  # shares the buffer; the engine counts the reference


def cast(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    x, dtype = inputs["x"], attrs["dtype"]
    if dtype == x.dtype:
        return TensorInfo(x.data_id, x.shape, x.dtype)
    return backend.output(cast_values(backend.values(x), x.dtype, dtype), x.shape, dtype)


KERNELS = {
    **fill_kernels(_const),
    kn.Range: range_,
    kn.LinSpace: linspace,
    kn.Identity: identity,
    kn.Cast: cast,
}
