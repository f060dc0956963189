"""Shared fixtures.

Host tests (tests/ops, ...) run in plain CPython with `import webtf` from pysrc/ and use none of this.
The browser fixtures are session-scoped and lazy: only a test that asks for `page` or `py` builds dist/,
serves it and launches headless Chromium, once per pytest run, and all such tests share ONE booted page.

    def test_add(py):
        assert py("tf.add(tf.tensor([1, 2]), 1).array_sync()") == [2, 3]

`py(code)` runs `code` with `await pyodide.runPythonAsync(...)` in the page, in a fresh namespace that
already holds `tf` (webtf). Top-level `await` works; the value of the last expression is returned,
converted to plain Python (dict, list, str, int, float, bool, None) through PyProxy.toJs. A Python
exception raises playwright.sync_api.Error whose message holds the traceback.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

import build

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM_ARGS = (
    "--no-sandbox",  # we run as root
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--enable-unsafe-swiftshader",  # WebGL2 on SwiftShader in headless (Playwright adds it too)
)
BOOT_TIMEOUT_MS = 120_000
BOOT_MS = pytest.StashKey[float]()

PY_JS = """async (code) => {
  const pyodide = window.pyodide;
  const namespace = pyodide.runPython("{'tf': __import__('webtf')}");
  try {
    const value = await pyodide.runPythonAsync(code, { globals: namespace });
    if (value && typeof value.toJs === "function") {
      try {
        return value.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
      } finally {
        value.destroy();
      }
    }
    return value;
  } finally {
    namespace.destroy();
  }
}"""


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Base URL (ending in /) of dist/ served on a free 127.0.0.1 port; builds dist/ first."""
    if not os.environ.get(build.FRESH_ENV):  # `build.py test` has just built it
        build.build()
    httpd = build.make_server(0, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, name="dist-server", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Debian Chromium driven by Playwright (never `playwright install`)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(build.CHROMIUM), headless=True, args=list(CHROMIUM_ARGS)
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def console_log() -> list[str]:
    """Console messages and page errors of the session's page, oldest first."""
    return []


@pytest.fixture(scope="session")
def page(
    browser: Browser, server: str, console_log: list[str], request: pytest.FixtureRequest
) -> Iterator[Page]:
    """The session's one webtf page (index.html, default backend), booted to data-webtf="ready"."""
    context = browser.new_context()
    booted = context.new_page()
    booted.on("console", lambda message: console_log.append(f"{message.type}: {message.text}"))
    booted.on("pageerror", lambda error: console_log.append(f"pageerror: {error}"))
    booted.goto(server)
    booted.wait_for_function(
        "['ready', 'error'].includes(document.documentElement.dataset.webtf)", timeout=BOOT_TIMEOUT_MS
    )
    if booted.evaluate("document.documentElement.dataset.webtf") == "error":
        error = booted.locator("#error").inner_text()
        pytest.fail(f"webtf page failed to boot:\n{error}\n--- console ---\n" + "\n".join(console_log))
    request.config.stash[BOOT_MS] = booted.evaluate("window.webtfBootMs")
    yield booted
    context.close()


@pytest.fixture(scope="session")
def py(page: Page) -> Callable[[str], Any]:
    """Run Python in the booted page and return its last expression as plain Python (see module doc)."""

    def run(code: str) -> Any:
        return page.evaluate(PY_JS, code)

    return run


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Report the page's boot time when a browser test booted it."""
    if BOOT_MS in config.stash:
        terminalreporter.write_line(f"webtf page boot (navigation -> ready): {config.stash[BOOT_MS]:.0f} ms")
