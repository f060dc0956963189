"""The page boots webtf in Chromium and its flags panel shows what webtf itself reports."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

PANEL_FLAGS = (
    "IS_BROWSER",
    "WEBGL_VERSION",
    "WEBGL_RENDER_FLOAT32_CAPABLE",
    "WEBGL_RENDER_FLOAT32_ENABLED",
    "WASM_HAS_SIMD_SUPPORT",
)

Py = Callable[[str], Any]


def test_page_reaches_ready(page: Page) -> None:
    assert page.evaluate("document.documentElement.dataset.webtf") == "ready"
    assert page.locator("#status").inner_text().startswith("ready")
    assert page.locator("#error").is_hidden()
    boot_ms = page.evaluate("window.webtfBootMs")
    assert boot_ms > 0
    print(f"webtf boot: {boot_ms:.0f} ms")


def test_panel_lists_the_five_flags(page: Page) -> None:
    rows = page.locator("#flags tbody tr")
    assert [rows.nth(i).get_attribute("data-flag") for i in range(rows.count())] == list(PANEL_FLAGS)


def test_panel_values_match_env(page: Page, py: Py) -> None:
    for flag in PANEL_FLAGS:
        shown = json.loads(page.locator(f'#flags tr[data-flag="{flag}"] td.value').inner_text())
        actual = py(f"tf.env().get({flag!r})")
        assert shown == actual and isinstance(shown, bool) == isinstance(actual, bool), flag


def test_backend_span_is_active_backend(page: Page, py: Py) -> None:
    assert page.locator("#backend").inner_text() == py("tf.get_backend()")


def test_is_browser(py: Py) -> None:
    assert py("tf.env().get('IS_BROWSER')") is True


def test_webgl_version_is_2(py: Py) -> None:
    assert py("tf.env().get('WEBGL_VERSION')") == 2


def test_py_returns_plain_python(py: Py) -> None:
    assert py("{'a': [1, 2.5, 'x', None, True]}") == {"a": [1, 2.5, "x", None, True]}
    assert py("await tf.ready()\ntf.get_backend()") == py("tf.get_backend()")


def test_unknown_backend_shows_error(browser: Browser, server: str) -> None:
    context = browser.new_context()
    try:
        failing = context.new_page()
        failing.goto(server + "?backend=no-such-backend")
        failing.wait_for_function("document.documentElement.dataset.webtf === 'error'", timeout=120_000)
        assert failing.locator("#error").is_visible()
        assert failing.locator("#error").inner_text().strip()
    finally:
        context.close()
