"""GLSL kernel TopK (shaders/TopK.glsl) for long rows, as TF.js's webgl backend: rows shorter than
TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD, or k above TOPK_K_CPU_HANDOFF_THRESHOLD, run the cpu kernel.

The GPU keeps the k best of each chunk of 2k candidates, round after round, exactly in the cpu kernel's
order (stable descending, NaN first), so both paths give the same values and indices.
"""

from __future__ import annotations

from math import ceil, prod
from typing import Any

from .... import kernel_names as kn
from ....environment import ENV
from ...base import TensorInfo
from ...cpu import KERNELS as CPU_KERNELS

_MAX_INDEX = 1 << 24  # candidate indices travel as float32


def _program(backend: Any, mode: str, samplers: tuple[str, ...], int_out: bool) -> Any:
    key = ("TopK", mode, int_out)
    return backend.programs.get(key) or backend.programs.build(
        key, "TopK", samplers, 7, 0, [mode], int_output=int_out
    )


def top_k(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """TopK: [values, indices] of the k largest of each last-axis row, largest first."""
    x = inputs["x"]
    k = int(attrs["k"])
    n = x.shape[-1] if x.shape else 1
    if (
        n < ENV.get("TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD")
        or k > ENV.get("TOPK_K_CPU_HANDOFF_THRESHOLD")
        or k == 0
        or n >= _MAX_INDEX
        or x.dtype not in ("float32", "int32")
    ):
        return CPU_KERNELS[kn.TopK](backend, inputs, attrs)
    rows = prod(x.shape[:-1])
    s = 2 * k
    rank, select = _program(backend, "RANK", ("X", "C"), True), _program(backend, "SELECT", ("X", "C", "R"), True)
    cand, m, first = x, n, 1
    while True:
        chunks = ceil(m / s)
        ints = (n, m, s, chunks * s, first, k, chunks)
        ranks = backend.run(rank, (x, cand), (rows, chunks * s), "int32", ints)
        nxt = backend.run(select, (x, cand, ranks), (rows, chunks * k), "int32", ints)
        backend.temp(ranks)
        if not first:
            backend.temp(cand)
        cand, m, first = nxt, chunks * k, 0
        if chunks == 1:
            break
    out_shape = (*x.shape[:-1], k)
    values = backend.run(
        _program(backend, "VALUES", ("X", "C"), x.dtype == "int32"), (x, cand), out_shape, x.dtype,
        (n, k, s, k, 0, k, 1),
    )  # fmt: skip
    return [values, TensorInfo(cand.data_id, out_shape, "int32")]


KERNELS = {kn.TopK: top_k}
