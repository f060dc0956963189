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

Playwright runs on a thread of its own (its sync API leaves an asyncio loop marked running on the thread
that uses it, which would break asyncio.run() in host tests). `browser` and `page` are therefore Remote
proxies: attribute reads and method calls behave as on the Playwright objects but run on that thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import build

CHROMIUM_ARGS = build.CHROMIUM_ARGS
BOOT_TIMEOUT_MS = 120_000
BOOT_MS = pytest.StashKey[float]()
BOOT_PATH = pytest.StashKey[str]()
#: the session page boots from the build's snapshot; WEBTF_SNAPSHOT=0 makes it boot the plain way (?snapshot=0)
BOOT_QUERY = "?snapshot=0" if os.environ.get("WEBTF_SNAPSHOT") == "0" else ""

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


class Remote:
    """A Playwright object living on the Playwright thread: attribute reads and calls run there."""

    def __init__(self, executor: ThreadPoolExecutor, target: Any) -> None:
        self._executor = executor
        self._target = target

    def _run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        args = tuple(_unwrap(a) for a in args)
        kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        return self._wrap(self._executor.submit(fn, *args, **kwargs).result())

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._wrap(item) for item in value]
        if callable(value) or type(value).__module__.startswith("playwright."):
            return Remote(self._executor, value)
        return value

    def __getattr__(self, name: str) -> Any:
        return self._run(getattr, self._target, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(self._target, *args, **kwargs)

    def __enter__(self) -> Any:
        return self._run(self._target.__enter__)

    def __exit__(self, *exc_info: object) -> Any:
        return self._run(self._target.__exit__, *exc_info)

    def __repr__(self) -> str:
        return f"Remote({self._target!r})"


def _unwrap(value: Any) -> Any:
    return value._target if isinstance(value, Remote) else value


def boot_page(context: Remote, url: str, console_log: list[str]) -> Remote:
    """A new page of context at url (index.html plus a query), booted to data-webtf="ready" (else fail)."""
    booted = context.new_page()
    booted.on("console", lambda message: console_log.append(f"{message.type}: {message.text}"))
    booted.on("pageerror", lambda error: console_log.append(f"pageerror: {error}"))
    booted.goto(url)
    booted.wait_for_function(
        "['ready', 'error'].includes(document.documentElement.dataset.webtf)", timeout=BOOT_TIMEOUT_MS
    )
    if booted.evaluate("document.documentElement.dataset.webtf") == "error":
        error = booted.locator("#error").inner_text()
        pytest.fail(f"webtf page failed to boot:\n{error}\n--- console ---\n" + "\n".join(console_log))
    return booted


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
def playwright_remote() -> Iterator[Remote]:
    """Playwright's sync API started on its own thread; launch browsers with extra flags from it."""
    from playwright.sync_api import sync_playwright

    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
    playwright = Remote(executor, executor.submit(lambda: sync_playwright().start()).result())
    yield playwright
    playwright.stop()
    executor.shutdown()


@pytest.fixture(scope="session")
def browser(playwright_remote: Remote) -> Iterator[Remote]:
    """Headless Debian Chromium driven by Playwright on its own thread (never `playwright install`)."""
    chromium = playwright_remote.chromium.launch(
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
    browser: Remote, server: str, console_log: list[str], request: pytest.FixtureRequest
) -> Iterator[Remote]:
    """The session's one webtf page (index.html, default backend), booted to data-webtf="ready"."""
    context = browser.new_context()
    booted = boot_page(context, server + BOOT_QUERY, console_log)
    request.config.stash[BOOT_MS] = booted.evaluate("window.webtfBootMs")
    request.config.stash[BOOT_PATH] = booted.evaluate("window.webtfBootPath")
    yield booted
    context.close()


@pytest.fixture(scope="session")
def py(page: Remote) -> Callable[[str], Any]:
    """Run Python in the booted page and return its last expression as plain Python (see module doc)."""

    def run(code: str) -> Any:
        return page.evaluate(PY_JS, code)

    return run


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Report the page's boot time when a browser test booted it."""
    if BOOT_MS in config.stash:
        terminalreporter.write_line(
            f"webtf page boot (navigation -> ready): {config.stash[BOOT_MS]:.0f} ms ({config.stash[BOOT_PATH]})"
        )
