"""The bridge to JavaScript in Pyodide: `js` and JS-object helpers; absent (None) in plain CPython."""

from __future__ import annotations

from typing import Any

try:  # pragma: no cover - only inside Pyodide
    import js  # type: ignore[import-not-found]
    from pyodide.ffi import to_js  # type: ignore[import-not-found]
except ImportError:
    js = None
    to_js = None


def available() -> bool:
    """True when running inside Pyodide with a JS global scope."""
    return js is not None


def js_object(d: dict[str, Any]) -> Any:
    """A plain JS object from a Python dict (for options arguments)."""
    return to_js(d, dict_converter=js.Object.fromEntries)


def uint8_array(data: bytes) -> Any:
    """A JS Uint8Array copy of `data`."""
    return to_js(memoryview(data))
