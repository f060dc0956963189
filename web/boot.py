"""Run by web/boot.js inside Pyodide once webtf is installed: start webtf, report the flags panel."""

import json
from importlib.util import find_spec

import webtf as tf
from webtf.kernel_registry import CUSTOM_BUILD

try:
    from webtf.backends.webgl.flags import create_context
except ImportError:  # a custom build without the webgl backend
    create_context = None

PANEL_FLAGS = (
    "IS_BROWSER",
    "WEBGL_VERSION",
    "WEBGL_RENDER_FLOAT32_CAPABLE",
    "WEBGL_RENDER_FLOAT32_ENABLED",
    "WASM_HAS_SIMD_SUPPORT",
)
UNMASKED_RENDERER_WEBGL = 0x9246  # from the WEBGL_debug_renderer_info extension


def webgl_renderer() -> str | None:
    """The GPU string WebGL reports (the unmasked one when the browser exposes it), or None."""
    if create_context is None:
        return None
    gl = create_context(2) or create_context(1)
    if not gl:
        return None
    try:
        info = gl.getExtension("WEBGL_debug_renderer_info")
        return str(gl.getParameter(UNMASKED_RENDERER_WEBGL if info else gl.RENDERER))
    finally:
        lose = gl.getExtension("WEBGL_lose_context")
        if lose:
            lose.loseContext()


def flag(env: tf.Environment, name: str) -> object:
    """A flag's value; None when the backend that registers it is not in this (custom) build."""
    try:
        return env.get(name)
    except ValueError:
        return None


async def boot(backend: str | None) -> str:
    """Start webtf (on backend when given) and return JSON {backend, backends, flags, renderer}."""
    if hasattr(tf, "wasm"):
        tf.wasm.precompile()  # the XNNPACK binary compiles in the background: switching to wasm only instantiates it
    if backend:
        if not await tf.set_backend(backend):
            raise RuntimeError(f"backend {backend!r} failed to initialize")
    else:
        await tf.ready()
    env = tf.env()
    registered = sorted(tf.ENGINE.factories, key=lambda name: -tf.ENGINE.factories[name][1])
    return json.dumps(
        {
            "backend": tf.get_backend(),
            "backends": registered,
            "flags": {name: flag(env, name) for name in PANEL_FLAGS},
            "renderer": webgl_renderer(),
            "build": CUSTOM_BUILD or {"name": "full"},
            "teach": find_spec("webtf.models.layers") is not None,  # a custom build may leave layers out
        }
    )
