"""The webgl backend: tensors in float textures, kernels as GLSL programs, the cpu kernels as fallback.

Kernels run through `run(program, inputs, out_shape, dtype, ints, floats)`: one JS call that binds the
inputs (uploading host values first, lazily), draws into a pooled output texture and returns a TensorInfo.
Kernels without a GLSL version are the cpu kernels, which only use `values(t)` (download, cached on the
host) and `output(values, shape, dtype)` (kept on the host until a GLSL kernel needs it on the GPU).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Sequence
from typing import Any

from ...backend_util import cast_values
from ...dtypes import TYPECODE
from ...environment import ENV
from ..base import MAX_ELEMENTS, Backend, TensorInfo, new_data_id, new_info
from .context import ContextLostError, GLContext, lost_message
from .programs import Program, ProgramCache
from .textures import TexData, TexturePool, as_float32, texture_shape

#: int32 kernels whose inputs are all on the host and at most this large run on the cpu kernels
_FORWARD_MAX = 1 << 16
def _to_dtype(floats: array, dtype: str) -> array:
    """Downloaded float32 values as the flat array of `dtype`."""
    return floats if dtype in ("float32", "complex64") else cast_values(floats, "float32", dtype)


class WebGLBackend(Backend):
    """WebGL2 backend (TF.js 'webgl'): one offscreen context, flat RGBA float textures, GLSL kernels."""

    name = "webgl"

    def __init__(self, force_f16: bool | None = None) -> None:
        super().__init__()
        from ...environment import ENV

        if force_f16 is None:
            force_f16 = bool(ENV.get("WEBGL_FORCE_F16_TEXTURES"))
        self.ctx = ctx = GLContext(force_f16)
        self.max_texture_size = ctx.max_texture_size
        # a tensor is one RGBA texture, 4 elements per texel, at most max_texture_size texels on a side
        self.max_elements = min(MAX_ELEMENTS, 4 * ctx.max_texture_size**2)
        self.max_texture_units = min(ctx.max_texture_units, 16)
        self.pool = TexturePool(ctx)
        self.programs = ProgramCache(ctx)
        self._shapes: dict[int, tuple[int, int]] = {}
        self._handoff, self._handoff_version = 0, -1  # see forward_to_cpu
        self._run, self._run4 = ctx.run, ctx.run4  # every draw and texture goes through these (see replay.py)
        self._acquire = self.pool.acquire
        self.float32 = ctx.render_float32

    # ---- storage ------------------------------------------------------------------------------------
    def move(self, data_id: int, values: array, shape: tuple[int, ...], dtype: str) -> None:
        self.data[data_id] = TexData(values, len(values), dtype)

    def _record(self, data_id: int) -> TexData:
        rec = self.data.get(data_id)
        return rec if rec is not None else self.get_data(data_id)

    def tex_shape(self, size: int) -> tuple[int, int]:
        """Texture (width, height) for a tensor of `size` elements (memoized)."""
        shape = self._shapes.get(size)
        if shape is None:
            shape = self._shapes[size] = texture_shape(size, self.max_texture_size)
        return shape

    def texture(self, data_id: int) -> Any:
        """The texture holding data_id, uploading its host values first if they are not on the GPU yet."""
        rec = self.data.get(data_id)
        if rec is None:
            rec = self.get_data(data_id)
        tex = rec.tex
        if tex is None:
            tex = self._upload(rec)
        return tex

    def _upload(self, rec: TexData) -> Any:
        from pyodide.ffi import to_js  # type: ignore[import-not-found]

        if self.ctx.lost:
            raise ContextLostError(lost_message("upload a tensor"))
        w, h = self.tex_shape(rec.size)
        tex = self._acquire(w, h)
        if rec.size and not self.ctx.upload_js(tex, w, to_js(memoryview(as_float32(rec.values)))):
            self.pool.release(tex, w, h)
            self.ctx.lost = True
            raise ContextLostError(lost_message("upload a tensor"))
        rec.tex, rec.w, rec.h = tex, w, h
        rec.values = None  # like TF.js: once uploaded, the host copy is dropped
        return tex

    def _download(self, rec: TexData) -> array:
        js_values = self.ctx.read_js(rec.tex, rec.w, rec.size) if rec.size else None
        if rec.size and js_values is None:
            self.ctx.lost = True
            raise ContextLostError(lost_message("read a tensor"))
        floats = array("f")
        if rec.size:
            floats.frombytes(js_values.to_bytes())
        return _to_dtype(floats, rec.dtype)

    def values(self, t: Any) -> array:
        """The flat host values of a tensor (downloaded once and cached: tensors are immutable)."""
        rec = self.data.get(t.data_id)
        if rec is None:
            rec = self.get_data(t.data_id)
        vals = rec.values
        if vals is None:
            if self.ctx.lost:
                raise ContextLostError(lost_message("read a tensor"))
            vals = rec.values = self._download(rec)
        return vals

    def host_values(self, t: Any) -> array | None:
        """The host values of a tensor when they are available without a download, else None."""
        rec = self.data.get(t.data_id)
        return rec.values if rec is not None else None

    def forward_to_cpu(self, tensors: Any, small: bool) -> bool:
        """True when a GLSL kernel should run its cpu twin: every input's values are on the host, and some
        input is int32 (within _FORWARD_MAX), or `small` (an element-wise kernel TF.js forwards too) and, as
        TF.js's WEBGL_CPU_FORWARD does, no input has a texture or CPU_HANDOFF_SIZE_THRESHOLD elements."""
        has_int = False
        limit = self._handoff if ENV.version == self._handoff_version else self._read_handoff()
        data = self.data
        for t in tensors:
            if t is None:
                continue
            rec = data.get(t.data_id)
            if rec is None or rec.values is None or rec.size > _FORWARD_MAX:
                return False
            if rec.dtype == "int32":
                has_int = True
            if rec.tex is not None or rec.size >= limit:
                small = False
        return has_int or small

    def _read_handoff(self) -> int:
        """The size below which forward_to_cpu forwards (0: WEBGL_CPU_FORWARD off), read once per ENV.version."""
        self._handoff_version = ENV.version
        on = ENV.get("WEBGL_CPU_FORWARD")
        self._handoff = int(ENV.get("CPU_HANDOFF_SIZE_THRESHOLD")) if on else 0
        return self._handoff

    def output(self, values: array, shape: tuple[int, ...], dtype: str) -> TensorInfo:
        """Adopt host `values` as a new buffer (uploaded when a GLSL kernel first needs it)."""
        return new_info((self.store(values, shape, dtype), shape, dtype))

    def store(self, values: array, shape: tuple[int, ...], dtype: str) -> int:
        data_id = new_data_id()
        self.data[data_id] = TexData(values, len(values), dtype)
        return data_id

    def read_sync(self, data_id: int) -> array:
        rec = self._record(data_id)
        if rec.values is None:
            if self.ctx.lost or self.ctx.is_lost():
                raise ContextLostError(lost_message("read a tensor"))
            rec.values = self._download(rec)
        return rec.values[:]  # a copy (a list of str for string tensors)

    async def read(self, data_id: int) -> array:
        """Read without blocking the page: a pixel-pack buffer and a fence polled from JS timers."""
        rec = self._record(data_id)
        if rec.values is None and rec.size:
            ctx = self.ctx
            if ctx.lost or ctx.is_lost():
                raise ContextLostError(lost_message("read a tensor"))
            js_values = await ctx.read_async(rec.tex, rec.w, rec.size)
            if js_values is None:
                ctx.lost = True
                raise ContextLostError(lost_message("read a tensor"))
            floats = array("f")
            floats.frombytes(js_values.to_bytes())
            if rec.values is None:  # another read may have filled it meanwhile
                rec.values = _to_dtype(floats, rec.dtype)
        elif rec.values is None:
            rec.values = array(TYPECODE[rec.dtype])
        return rec.values[:]  # a copy (a list of str for string tensors)

    def dispose_data(self, data_id: int) -> None:
        rec = self.data.pop(data_id, None)
        if rec is not None and rec.tex is not None:
            self.pool.release(rec.tex, rec.w, rec.h)
            rec.tex = None

    def dispose_many(self, data_ids: list[int]) -> None:
        pop, release = self.data.pop, self.pool.release
        for data_id in data_ids:
            rec = pop(data_id, None)
            if rec is not None and rec.tex is not None:
                release(rec.tex, rec.w, rec.h)
                rec.tex = None

    # ---- running programs ---------------------------------------------------------------------------
    def run(
        self,
        prog: Program,
        inputs: Sequence[Any],
        shape: tuple[int, ...],
        dtype: str,
        ints: Sequence[int] = (),
        floats: Sequence[float] = (),
        size: int | None = None,
    ) -> TensorInfo:
        """Draw `prog` over the inputs (objects with a data_id) into a new tensor of `shape` and `dtype`.

        `ints` fill uI[1:] and `floats` uF, in the order the kernel's GLSL reads them.
        """
        if size is None:
            size = 1
            for d in shape:
                size *= d
        if size == 0:
            return self.output(array(TYPECODE[dtype]), shape, dtype)
        rec = TexData(None, size, dtype)
        rec.w, rec.h = w, h = self.tex_shape(size)
        texes = [self.texture(t.data_id) for t in inputs]
        rec.tex = tex = self._acquire(w, h)
        if not self._run(prog.js, tex, w, h, len(texes), *texes, w.bit_length() - 1, *ints, *floats):
            self.pool.release(tex, w, h)
            self.ctx.lost = True
            raise ContextLostError(lost_message(f"run kernel {prog.key[0]}"))
        data_id = new_data_id()
        self.data[data_id] = rec
        return TensorInfo(data_id, shape, dtype)

    def temp(self, info: TensorInfo) -> None:
        """Free an intermediate a kernel made and did not return."""
        self.dispose_data(info.data_id)

    # ---- engine hooks -----------------------------------------------------------------------------
    @property
    def num_programs(self) -> int:
        """How many GLSL programs have been compiled (a second run of the same graph adds none)."""
        return len(self.programs)

    def memory(self) -> dict[str, Any]:
        pool = self.pool
        return {
            "unreliable": False,
            "num_bytes_in_gpu": pool.bytes_used,
            "num_bytes_in_gpu_allocated": pool.bytes_used + pool.bytes_free,
            "num_bytes_in_gpu_free": pool.bytes_free,
            "num_textures": pool.num_used,
            "num_free_textures": pool.num_free,
            "num_programs": len(self.programs),
        }

    def float_precision(self) -> int:
        return 32 if self.float32 else 16

    def epsilon(self) -> float:
        return 1e-7 if self.float32 else 1e-4

    def finish(self) -> None:
        """Wait for the GPU (used by profiling so that kernel times include GPU work)."""
        if not self.ctx.lost:
            self.ctx.finish()

    def now_ms(self) -> float:
        return time.perf_counter() * 1000.0

    def dispose(self) -> None:
        for data_id in list(self.data):
            self.dispose_data(data_id)
        self.pool.clear()
        self.programs.clear()
        self.ctx.dispose()


def forward_floats(fn: Any, backend: WebGLBackend, a: Any, b: Any) -> int | None:
    """The data id of a new host buffer of fn over a's and b's values when a small element-wise kernel forwards
    float32 a and b (forward_to_cpu with `small`: both on the host without a texture, under the handoff size, the
    context alive), else None (also where fn raises: the kernel then handles it). The forwarded kernels' `fast`
    variant, with the cpu twin's `fn` bound (a partial: Engine.run_fast's call costs one Python frame here)."""
    data = backend.data
    ra, rb = data.get(a.data_id), data.get(b.data_id)
    if ra is None or rb is None or ra.tex is not None or rb.tex is not None or a.dtype != "float32":
        return None
    va, vb, size = ra.values, rb.values, ra.size
    limit = backend._handoff if ENV.version == backend._handoff_version else backend._read_handoff()
    if va is None or vb is None or size >= limit or size > _FORWARD_MAX or rb.size != size or backend.ctx.lost:
        return None
    try:
        out = array("f", map(fn, va, vb))
    except (ZeroDivisionError, OverflowError, ValueError):
        return None
    data_id = new_data_id()
    data[data_id] = TexData(out, size, "float32")
    return data_id
