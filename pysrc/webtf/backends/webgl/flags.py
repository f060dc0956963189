"""WebGL flags (TF.js names), evaluated by probing a real WebGL context from Python."""

from __future__ import annotations

from typing import Any

from ...environment import ENV
from .context import create_canvas_context, release, render_float32_works


def create_context(version: int = 2) -> Any:
    """A fresh offscreen WebGL context (None when the browser cannot make one)."""
    return create_canvas_context(version)[1]


def _probe(version: int, read: Any, default: Any) -> Any:
    """read(gl) on a fresh context of `version` (given back at once), or default when there is none."""
    _, gl = create_canvas_context(version)
    if not gl:
        return default
    try:
        return read(gl)
    finally:
        release(gl)


def _webgl_version() -> int:
    for version in (2, 1):
        if _probe(version, lambda gl: True, False):
            return version
    return 0


def _render_float32_capable() -> bool:
    """EXT_color_buffer_float is there and a shader really renders float32 values into an RGBA32F texture."""
    return ENV.get("WEBGL_VERSION") == 2 and _probe(2, render_float32_works, False)


def _max_texture_size() -> int:
    if ENV.get("WEBGL_VERSION") != 2:
        return 0
    return _probe(2, lambda gl: int(gl.getParameter(gl.MAX_TEXTURE_SIZE)), 0)


def _forget_enabled(value: Any) -> None:
    ENV._flags.pop("WEBGL_RENDER_FLOAT32_ENABLED", None)  # re-derived from the new value on next read


ENV.register_flag("WEBGL_VERSION", _webgl_version)
ENV.register_flag("HAS_WEBGL", lambda: ENV.get("WEBGL_VERSION") > 0)
ENV.register_flag("WEBGL_RENDER_FLOAT32_CAPABLE", _render_float32_capable)
ENV.register_flag("WEBGL_FORCE_F16_TEXTURES", lambda: False, _forget_enabled)
ENV.register_flag(
    "WEBGL_RENDER_FLOAT32_ENABLED",
    lambda: bool(ENV.get("WEBGL_RENDER_FLOAT32_CAPABLE")) and not ENV.get("WEBGL_FORCE_F16_TEXTURES"),
)
#: tensors are always packed 4 elements per RGBA texel on webgl2
ENV.register_flag("WEBGL_PACK", lambda: bool(ENV.get("HAS_WEBGL")))
ENV.register_flag("WEBGL_MAX_TEXTURE_SIZE", _max_texture_size)
# TopK runs on the GPU only for rows at least this long and k at most this (TF.js's values)
ENV.register_flag("TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD", lambda: 100000)
ENV.register_flag("TOPK_K_CPU_HANDOFF_THRESHOLD", lambda: 128)
# small element-wise kernels whose inputs are all on the host run on the cpu kernels (TF.js's flags and values)
ENV.register_flag("WEBGL_CPU_FORWARD", lambda: True)
ENV.register_flag("CPU_HANDOFF_SIZE_THRESHOLD", lambda: 128)
