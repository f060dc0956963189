"""The page boots webtf in Chromium, its flags panel shows what webtf itself reports, and it reports failures."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import boot_page

if TYPE_CHECKING:
    from playwright.sync_api import Page

PANEL_FLAGS = (
    "IS_BROWSER",
    "WEBGL_VERSION",
    "WEBGL_RENDER_FLOAT32_CAPABLE",
    "WEBGL_RENDER_FLOAT32_ENABLED",
    "WASM_HAS_SIMD_SUPPORT",
)

Py = Callable[[str], Any]


def test_page_reaches_ready(webtf_page: Page) -> None:
    assert webtf_page.evaluate("document.documentElement.dataset.webtf") == "ready"
    assert webtf_page.locator("#status").inner_text().startswith("ready")
    assert webtf_page.locator("#error").is_hidden()
    boot_ms = webtf_page.evaluate("window.webtfBootMs")
    assert boot_ms > 0
    print(f"webtf boot: {boot_ms:.0f} ms")


def test_panel_lists_the_five_flags(webtf_page: Page) -> None:
    rows = webtf_page.locator("#flags tbody tr")
    assert [rows.nth(i).get_attribute("data-flag") for i in range(rows.count())] == list(PANEL_FLAGS)


def test_panel_values_match_env(webtf_page: Page, py: Py) -> None:
    for flag in PANEL_FLAGS:
        shown = json.loads(webtf_page.locator(f'#flags tr[data-flag="{flag}"] td.value').inner_text())
        actual = py(f"tf.env().get({flag!r})")
        assert shown == actual and isinstance(shown, bool) == isinstance(actual, bool), flag


def test_backend_span_is_active_backend(webtf_page: Page, py: Py) -> None:
    assert webtf_page.locator("#backend").inner_text() == py("tf.get_backend()")


def test_is_browser(py: Py) -> None:
    assert py("tf.env().get('IS_BROWSER')") is True


def test_webgl_version_is_2(py: Py) -> None:
    assert py("tf.env().get('WEBGL_VERSION')") == 2


def test_py_returns_plain_python(py: Py) -> None:
    assert py("{'a': [1, 2.5, 'x', None, True]}") == {"a": [1, 2.5, "x", None, True]}
    assert py("await tf.ready()\ntf.get_backend()") == py("tf.get_backend()")


def test_unknown_backend_shows_error(page: Page, server: str) -> None:
    page.goto(server + "?backend=no-such-backend")
    page.wait_for_function("document.documentElement.dataset.webtf === 'error'", timeout=120_000)
    assert page.locator("#error").is_visible()
    assert page.locator("#error").inner_text().strip()


@pytest.mark.browser_context_args(permissions=["camera"])
def test_no_camera_shows_message(page: Page, server: str) -> None:
    """This Chromium has no camera (test_webcam.py's has a fake one): the demo says so and shows the sample."""
    boot_page(page, f"{server}?camera=auto&backend=wasm", [])
    page.wait_for_function(
        "(() => { const s = window.webtfDemo; return s && s.camera === 'none' && s.message.includes('No camera'); })()",
        timeout=30_000,
    )
    assert "sample image" in page.evaluate("window.webtfDemo.message")
    assert page.locator("#sample").is_visible()
