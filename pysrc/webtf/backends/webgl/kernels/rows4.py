"""Kernels that compute four output texels per fragment into four render targets (MRT4 programs:
MatMulRows4, Conv2DX4, DepthwiseConv2dX4), then interleave them with one merge draw (shaders/Merge4.glsl).

On a software renderer the inner loops cost texel reads; four outputs per fragment share the reads of
the operand they have in common (a matmul's B texels, a conv's filter texels, a depthwise conv's overlapping
input columns), for the price of the merge draw's one read per output texel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...base import TensorInfo, new_data_id
from ..context import ContextLostError, lost_message
from ..programs import Program
from ..textures import TexData

#: False: every kernel runs its one-output-texel program (for comparisons)
ENABLED = True


def fits(backend: Any, dtype: str) -> bool:
    """Whether four-target programs can run: float32 tensors rendered as float32 (no half-float clamping)."""
    return ENABLED and dtype == "float32" and backend.float32


def run4(
    backend: Any,
    prog: Program,
    inputs: Sequence[Any],
    ints: Sequence[int],
    floats: Sequence[float],
    pixel: int,
    row: int,
    pixels: int,
    out_shape: tuple[int, ...],
) -> TensorInfo:
    """Draw prog into four targets, then merge them into a new float32 tensor of out_shape: `pixels`
    pixels of `pixel` elements, in rows of `row` pixels (Merge4.glsl)."""
    groups = -(-row // 4) * (pixels // row)
    size = groups * pixel
    w, h = backend.tex_shape(size)
    texes = [backend.texture(t.data_id) for t in inputs]
    acquire = backend._acquire
    outs = [acquire(w, h) for _ in range(4)]
    parts = []
    for tex in outs:
        rec = TexData(None, size, "float32")
        rec.tex, rec.w, rec.h = tex, w, h
        data_id = new_data_id()
        backend.data[data_id] = rec
        parts.append(TensorInfo(data_id, (size,), "float32"))
    try:
        if not backend._run4(prog.js, *outs, w, h, len(texes), *texes, w.bit_length() - 1, *ints, *floats):
            backend.ctx.lost = True
            raise ContextLostError(lost_message(f"run kernel {prog.key[0]}"))
        merge = backend.programs.get("Merge4") or backend.programs.build(
            "Merge4", "Merge4", ("R0", "R1", "R2", "R3"), 2
        )
        return backend.run(merge, parts, out_shape, "float32", (pixel, row), (), pixels * pixel)
    finally:
        for t in parts:
            backend.temp(t)
