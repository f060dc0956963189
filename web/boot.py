"""Run by web/boot.js inside Pyodide once webtf is installed: start webtf, report the flags panel."""

import json

import webtf as tf

PANEL_FLAGS = (
    "IS_BROWSER",
    "WEBGL_VERSION",
    "WEBGL_RENDER_FLOAT32_CAPABLE",
    "WEBGL_RENDER_FLOAT32_ENABLED",
    "WASM_HAS_SIMD_SUPPORT",
)


async def boot(backend: str | None) -> str:
    """Start webtf (on backend when given) and return JSON {"backend": name, "flags": {flag: value}}."""
    if backend:
        if not await tf.set_backend(backend):
            raise RuntimeError(f"backend {backend!r} failed to initialize")
    else:
        await tf.ready()
    env = tf.env()
    return json.dumps({"backend": tf.get_backend(), "flags": {name: env.get(name) for name in PANEL_FLAGS}})
