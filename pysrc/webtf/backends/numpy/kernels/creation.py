"""numpy kernels that make tensors: Fill, ZerosLike, OnesLike, Range, LinSpace, Identity, Cast (contracts in
webtf.kernel_names; Range and LinSpace step in doubles; casts store like typed arrays)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .... import kernel_names as kn
from ....backend_util import fill_kernels, scalar_as
from ...base import TensorInfo
from ..backend import NP_DTYPE
from .common import share, store


def _full(backend: Any, shape: tuple[int, ...], dtype: str, value: Any) -> TensorInfo:
    return backend.make(np.full(shape, scalar_as(dtype, value), NP_DTYPE[dtype]))


def range_(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    start, stop, step, dtype = attrs["start"], attrs["stop"], attrs["step"], attrs["dtype"]
    n = max(0, math.ceil((stop - start) / step))
    return backend.make(store(start + np.arange(n, dtype=np.float64) * step, dtype), dtype)


def linspace(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    start, stop, num = attrs["start"], attrs["stop"], attrs["num"]
    step = (stop - start) / (num - 1) if num > 1 else 0.0
    return backend.make(start + np.arange(num, dtype=np.float64) * step, "float32")


def identity(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    return share(inputs["x"])


def cast(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    x, dtype = inputs["x"], attrs["dtype"]
    if dtype == x.dtype:
        return share(x)
    return backend.make(store(backend.nd(x), dtype), dtype)


KERNELS = {
    **fill_kernels(_full),
    kn.Range: range_,
    kn.LinSpace: linspace,
    kn.Identity: identity,
    kn.Cast: cast,
}
