"""Tensor storage for the webgl backend: flat RGBA float textures, a texture pool, lazy uploads.

Layout: a tensor of n elements lives in an RGBA texture of ceil(n / 4) texels, 4 consecutive row-major
elements per texel, texels filling rows of a power-of-two width (so a shader turns a texel index into
coordinates with a shift and a mask). The layout depends only on n, so reshapes share a texture as is.

Formats: RGBA32F when rendering to float32 works (WEBGL_RENDER_FLOAT32_ENABLED), else RGBA16F: half floats
keep about 3 significant digits and |v| <= 65504 (larger values and infinities are clamped to +-65504).
int32 and bool tensors are stored as floats too: exact for |v| < 2**24 in float32 mode (2**11 in float16
mode), so int32 kernels whose inputs are all on the host run on the cpu kernels (exact Int32Array
wrap-around); kernels round int32 results to integers.

Uploads are lazy: `write` keeps the host array until a kernel first needs the data on the GPU, then one
texSubImage2D (two when the last row is partial) copies it and the host copy is dropped. A download caches
the values on the host (tensors are immutable), so a second read or a cpu-fallback kernel costs nothing.
"""

from __future__ import annotations

from array import array
from math import isqrt
from typing import Any

#: free bytes the pool keeps for reuse; beyond it, released textures are deleted.
POOL_FREE_LIMIT = 256 * 1024 * 1024


class TexData:
    """What the backend stores per data id: host values and/or a texture, with size and dtype."""

    __slots__ = ("values", "tex", "w", "h", "size", "dtype")

    def __init__(self, values: array | None, size: int, dtype: str) -> None:
        self.values = values  # host copy (pending upload, or cached after a download)
        self.tex: Any = None  # the WebGLTexture, once on the GPU
        self.w = 0
        self.h = 0
        self.size = size
        self.dtype = dtype


def texture_shape(size: int, max_size: int) -> tuple[int, int]:
    """(width, height) in texels for `size` elements: power-of-two width, near square, within max_size."""
    texels = max(1, (size + 3) // 4)
    side = isqrt(texels - 1) + 1  # ceil(sqrt(texels))
    w = 1 << (side - 1).bit_length()
    if w > max_size:
        w = max_size
    h = -(-texels // w)
    if h > max_size:
        raise ValueError(
            f"webgl backend: a tensor of {size} elements needs {texels} texels, more than a "
            f"{max_size}x{max_size} texture holds"
        )
    return w, h


class TexturePool:
    """Recycles textures by (width, height, format); counts bytes in use and free."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.free_lists: dict[tuple[int, int], list[Any]] = {}
        self.bytes_per_texel = ctx.bytes_per_texel
        self.fmt = ctx.internal_format
        self.bytes_used = 0
        self.bytes_free = 0
        self.num_used = 0
        self.num_free = 0

    def acquire(self, w: int, h: int) -> Any:
        """A texture of w x h texels: a pooled one when available, else a new one."""
        nbytes = w * h * self.bytes_per_texel
        free = self.free_lists.get((w, h))
        if free:
            tex = free.pop()
            self.bytes_free -= nbytes
            self.num_free -= 1
        else:
            tex = self.ctx.alloc(w, h, self.fmt)
        self.bytes_used += nbytes
        self.num_used += 1
        return tex

    def release(self, tex: Any, w: int, h: int) -> None:
        """Return a texture to the pool (deleting it when the pool is over its limit)."""
        nbytes = w * h * self.bytes_per_texel
        self.bytes_used -= nbytes
        self.num_used -= 1
        if self.ctx.lost or self.bytes_free + nbytes > POOL_FREE_LIMIT:
            self.ctx.free(tex)
            return
        self.free_lists.setdefault((w, h), []).append(tex)
        self.bytes_free += nbytes
        self.num_free += 1

    def clear(self) -> None:
        """Delete every pooled texture."""
        for texes in self.free_lists.values():
            for tex in texes:
                self.ctx.free(tex)
        self.free_lists.clear()
        self.bytes_free = 0
        self.num_free = 0


def as_float32(values: array) -> array:
    """The values as a float32 array (int32 and bool tensors are stored as floats)."""
    return values if values.typecode == "f" else array("f", values)
