"""WebGL flags (TF.js names), evaluated by probing a real WebGL2 context from Python."""

from __future__ import annotations

from typing import Any

from ...environment import ENV
from .. import js as bridge

_CONTEXT_OPTIONS = {
    "alpha": False,
    "antialias": False,
    "premultipliedAlpha": False,
    "preserveDrawingBuffer": False,
    "depth": False,
    "stencil": False,
    "failIfMajorPerformanceCaveat": False,
}


def create_context(version: int = 2) -> Any:
    """A fresh offscreen WebGL context (None when the browser cannot make one)."""
    if not bridge.available():
        return None
    js = bridge.js
    canvas = (
        js.OffscreenCanvas.new(1, 1)
        if hasattr(js, "OffscreenCanvas")
        else js.document.createElement("canvas")
    )
    return canvas.getContext("webgl2" if version == 2 else "webgl", bridge.js_object(_CONTEXT_OPTIONS))


def _release(gl: Any) -> None:
    ext = gl.getExtension("WEBGL_lose_context")
    if ext:
        ext.loseContext()


def _webgl_version() -> int:
    for version in (2, 1):
        gl = create_context(version)
        if gl:
            _release(gl)
            return version
    return 0


def render_float32_works(gl: Any) -> bool:
    """Render to an RGBA32F texture and read it back: True only if float32 values survive exactly."""
    if not gl.getExtension("EXT_color_buffer_float"):
        return False
    tex = gl.createTexture()
    fb = gl.createFramebuffer()
    try:
        gl.bindTexture(gl.TEXTURE_2D, tex)
        gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, 1, 1, 0, gl.RGBA, gl.FLOAT, None)
        gl.bindFramebuffer(gl.FRAMEBUFFER, fb)
        gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
        if gl.checkFramebufferStatus(gl.FRAMEBUFFER) != gl.FRAMEBUFFER_COMPLETE:
            return False
        probe = (1.5, -2.25, 65536.0, 3.0e-5)  # outside [0, 1] and beyond half-float precision
        gl.clearColor(*probe)
        gl.clear(gl.COLOR_BUFFER_BIT)
        out = bridge.js.Float32Array.new(4)
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, out)
        got = out.to_py().tolist()
        return all(abs(g - p) <= abs(p) * 1e-6 for g, p in zip(got, probe, strict=True))
    finally:
        gl.bindFramebuffer(gl.FRAMEBUFFER, None)
        gl.deleteFramebuffer(fb)
        gl.deleteTexture(tex)


def _render_float32_capable() -> bool:
    if ENV.get("WEBGL_VERSION") != 2:
        return False
    gl = create_context(2)
    if not gl:
        return False
    try:
        return render_float32_works(gl)
    finally:
        _release(gl)


def _max_texture_size() -> int:
    gl = create_context(2) if ENV.get("WEBGL_VERSION") == 2 else None
    if not gl:
        return 0
    try:
        return int(gl.getParameter(gl.MAX_TEXTURE_SIZE))
    finally:
        _release(gl)


ENV.register_flag("WEBGL_VERSION", _webgl_version)
ENV.register_flag("HAS_WEBGL", lambda: ENV.get("WEBGL_VERSION") > 0)
ENV.register_flag("WEBGL_RENDER_FLOAT32_CAPABLE", _render_float32_capable)
ENV.register_flag("WEBGL_FORCE_F16_TEXTURES", lambda: False)
ENV.register_flag(
    "WEBGL_RENDER_FLOAT32_ENABLED",
    lambda: bool(ENV.get("WEBGL_RENDER_FLOAT32_CAPABLE")) and not ENV.get("WEBGL_FORCE_F16_TEXTURES"),
)
ENV.register_flag("WEBGL_PACK", lambda: bool(ENV.get("HAS_WEBGL")))
ENV.register_flag("WEBGL_MAX_TEXTURE_SIZE", _max_texture_size)
