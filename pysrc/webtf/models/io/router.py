"""IO routers (TF.js IORouterRegistry): functions url -> handler or None, tried in registration order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...backends import js as bridge
from ...kernel_registry import left_out_store

IORouter = Callable[[str], Any]

_load_routers: list[IORouter] = []
_save_routers: list[IORouter] = []


def register_load_router(router: IORouter) -> None:
    """Add a router that turns a URL into a load handler (or None when the URL is not its own)."""
    _load_routers.append(router)


def register_save_router(router: IORouter) -> None:
    """Add a router that turns a URL into a save handler (or None when the URL is not its own)."""
    _save_routers.append(router)


def get_load_handlers(url: str) -> list[Any]:
    """Every load handler a registered router makes for `url`."""
    return [h for h in (router(url) for router in _load_routers) if h is not None]


def get_save_handlers(url: str) -> list[Any]:
    """Every save handler a registered router makes for `url`."""
    return [h for h in (router(url) for router in _save_routers) if h is not None]


def scheme_router(scheme: str, make: Callable[[str], Any], browser_only: bool = True) -> IORouter:
    """A router for URLs starting with `scheme` (e.g. 'indexeddb://'): make(rest of the URL)."""

    def route(url: str) -> Any:
        if (
            not isinstance(url, str)
            or not url.startswith(scheme)
            or (browser_only and not bridge.available())
        ):
            return None
        return make(url[len(scheme) :])

    return route


def only_handler(handlers: list[Any], url: str, what: str) -> Any:
    """The one handler routers made for `url` ("load" or "save"), else a ValueError saying why."""
    if len(handlers) > 1:
        raise ValueError(f"Found more than one ({len(handlers)}) {what} handlers for URL '{url}'")
    if handlers:
        return handlers[0]
    if left := left_out_store(url):
        raise ValueError(left)
    hint = (
        ""
        if bridge.available()
        else " (indexeddb://, localstorage://, downloads://, http(s):// need the browser)"
    )
    raise ValueError(f"Found no {what} handler for URL '{url}'{hint}")
