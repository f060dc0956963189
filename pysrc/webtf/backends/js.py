"""The bridge to JavaScript in Pyodide: `js` and JS-object helpers; absent (None) in plain CPython."""

from __future__ import annotations

import math
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


async def fetch_bytes(url: str, what: str) -> bytes:
    """The body of `url` fetched from the page (relative to it); OSError naming `what` on failure."""
    try:
        resp = await js.fetch(url)
    except Exception as e:
        raise OSError(f"Failed to fetch {what} {url}: {e}") from None
    if not resp.ok:
        raise OSError(f"Failed to fetch {what} {url}: HTTP {resp.status}")
    return (await resp.arrayBuffer()).to_bytes()


def js_number(v: Any) -> str:
    """`v` (an int or a float) as a JS literal that parses to the same double (NaN and infinities included)."""
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    return str(int(v))
