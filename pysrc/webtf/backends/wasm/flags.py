"""WebAssembly feature flags (TF.js names), from WebAssembly.validate on tiny probe modules."""

from __future__ import annotations

from ...environment import ENV
from .. import js as bridge

# (module (func (result v128) i32.const 0 i8x16.splat)): validates only where SIMD is supported.
_SIMD_PROBE = bytes.fromhex("0061736d010000000105016000017b030201000a080106004100fd0f0b")
# (module (memory 1 1 shared)): validates only where threads (shared memory) are supported.
_THREADS_PROBE = bytes.fromhex("0061736d01000000050401030101")


def _validates(module: bytes) -> bool:
    if not bridge.available():
        return False
    try:
        return bool(bridge.js.WebAssembly.validate(bridge.uint8_array(module)))
    except Exception:
        return False


def _multithread() -> bool:
    js = bridge.js
    if js is None or not getattr(js, "crossOriginIsolated", False) or not hasattr(js, "SharedArrayBuffer"):
        return False
    return _validates(_THREADS_PROBE)


ENV.register_flag("WASM_HAS_SIMD_SUPPORT", lambda: _validates(_SIMD_PROBE))
ENV.register_flag("WASM_HAS_MULTITHREAD_SUPPORT", _multithread)
# webtf's own: False keeps the wasm backend on the single-thread builds even where threads are supported
ENV.register_flag("WASM_USE_THREADS", lambda: True)
