"""Shared fixtures: the browser tests run on pytest-playwright.

Host tests (tests/ops, tests/core, tests/models) run in plain CPython with `import webtf` from pysrc/ and use
none of this. Browser tests use pytest-playwright's fixtures and options as its docs describe them: `browser`
(one per run), `context` and `page` (a fresh page in a fresh context per test), `new_context`; --headed,
--slowmo, --tracing, --screenshot, --video, --output. Its browser is Debian's Chromium with build.py's flags
(`browser_type_launch_args` below; never `playwright install`). Added here, all lazy (only a test that asks
builds dist/ and launches Chromium):

    server      base URL of dist/ served on a free 127.0.0.1 port
    webtf_page  the run's ONE booted webtf page (index.html, default backend): booted once on `browser` in a
                context of its own, shared by every test that asks for it
    py          runs Python in webtf_page

    def test_add(py):
        assert py("tf.add(tf.tensor([1, 2]), 1).array_sync()") == [2, 3]

`py(code)` runs `code` with `await pyodide.runPythonAsync(...)` in the page, in a fresh namespace that
already holds `tf` (webtf). Top-level `await` works; the value of the last expression is returned,
converted to plain Python (dict, list, str, int, float, bool, None) through PyProxy.toJs. A Python
exception raises playwright.sync_api.Error whose message holds the traceback.

Artifacts land in test-results/<test>/. pytest-playwright records its own contexts; a shared page (SharedPage:
webtf_page, the webcam demo) records on the same options for each test that used it: `<name>-trace.zip` (one
trace chunk per test) and `<name>-failed.png` / `<name>-finished.png` (none when the page is too busy to paint
within SCREENSHOT_TIMEOUT_MS, e.g. mid-inference on the cpu backend; the trace's screencast still shows it).

Playwright's sync API keeps an asyncio loop marked running on the main thread from the first browser test on,
so host tests await with tests.harness.aio.run_sync, never asyncio.run.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Error, Page

import build

CHROMIUM_ARGS = build.CHROMIUM_ARGS
BOOT_TIMEOUT_MS = 120_000
SCREENSHOT_TIMEOUT_MS = 5_000  # a page stuck in a long computation yields no screenshot rather than a hang
BOOT_MS = pytest.StashKey[float]()
FAILED = pytest.StashKey[bool]()  # set when a test's setup or call failed

Py = Callable[[str], Any]
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


def boot_page(page: Page, url: str, console_log: list[str]) -> None:
    """Open url (index.html plus a query) in page and wait for data-webtf="ready" (else fail the test)."""
    page.on("console", lambda message: console_log.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: console_log.append(f"pageerror: {error}"))
    page.goto(url)
    page.wait_for_function(
        "['ready', 'error'].includes(document.documentElement.dataset.webtf)", timeout=BOOT_TIMEOUT_MS
    )
    if page.evaluate("document.documentElement.dataset.webtf") == "error":
        error = page.locator("#error").inner_text()
        pytest.fail(f"webtf page failed to boot:\n{error}\n--- console ---\n" + "\n".join(console_log))


class SharedPage:
    """A booted page in a context of its own, kept across tests, that records for each test using it what
    pytest-playwright records for its per-test pages: a trace chunk (--tracing) and a screenshot (--screenshot).
    """

    def __init__(self, config: pytest.Config, context: BrowserContext, name: str) -> None:
        self.context = context
        self.name = name  # prefix of the artifact files
        self.page = context.new_page()
        self.console_log: list[str] = []
        self._tracing = config.getoption("--tracing")
        self._screenshot = config.getoption("--screenshot")
        self._output = Path(config.getoption("--output")).absolute()
        if self._tracing != "off":
            context.tracing.start(title=name, screenshots=True, snapshots=True, sources=True)

    def boot(self, url: str) -> Page:
        """Boot the page at url; a failed boot keeps its artifacts in test-results/<name>-boot/."""
        try:
            boot_page(self.page, url, self.console_log)
        except BaseException:  # pytest.fail's exception is a BaseException
            self._keep(self._output / f"{self.name}-boot", failed=True)
            raise
        if self._tracing != "off":
            self.context.tracing.stop_chunk()  # the boot's own chunk: tests record theirs
        return self.page

    @contextmanager
    def recording(self, request: pytest.FixtureRequest, output_path: str) -> Iterator[Page]:
        """The page, with request's test recorded into output_path (pytest-playwright's fixture)."""
        if self._tracing != "off":
            self.context.tracing.start_chunk(title=request.node.nodeid)
        yield self.page
        self._keep(Path(output_path), request.node.stash.get(FAILED, False))

    def _keep(self, folder: Path, failed: bool) -> None:
        if self._tracing != "off":
            keep = self._tracing == "on" or failed
            self.context.tracing.stop_chunk(path=folder / f"{self.name}-trace.zip" if keep else None)
        if self._screenshot == "on" or (failed and self._screenshot == "only-on-failure"):
            path = folder / f"{self.name}-{'failed' if failed else 'finished'}.png"
            try:
                self.page.screenshot(path=path, timeout=SCREENSHOT_TIMEOUT_MS)
            except Error:
                pass  # a closed or busy page: the test's own report says what happened


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Mark the item FAILED when a phase fails, for the teardowns of shared pages."""
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any], browser_name: str) -> dict[str, Any]:
    """pytest-playwright's launch options (--headed, --slowmo, ...) on Debian's Chromium with build.py's flags."""
    if browser_name != "chromium":
        return browser_type_launch_args
    options = {**browser_type_launch_args}
    options["args"] = [*CHROMIUM_ARGS, *options.get("args", [])]
    if "channel" not in options:
        options.setdefault("executable_path", str(build.CHROMIUM))
    return options


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
def webtf_booted(browser: Browser, server: str, pytestconfig: pytest.Config) -> Iterator[SharedPage]:
    """The session's one webtf page (index.html, default backend) in a context of its own, booted to ready."""
    context = browser.new_context()
    shared = SharedPage(pytestconfig, context, "webtf-page")
    shared.boot(server + BOOT_QUERY)
    pytestconfig.stash[BOOT_MS] = shared.page.evaluate("window.webtfBootMs")
    pytestconfig.stash[BOOT_PATH] = shared.page.evaluate("window.webtfBootPath")
    yield shared
    context.close()


@pytest.fixture
def webtf_page(webtf_booted: SharedPage, request: pytest.FixtureRequest, output_path: str) -> Iterator[Page]:
    """The session's booted webtf page (see webtf_booted), recorded for this test (--tracing, --screenshot)."""
    with webtf_booted.recording(request, output_path) as page:
        yield page


@pytest.fixture
def py(webtf_page: Page) -> Py:
    """Run Python in the booted page and return its last expression as plain Python (see module doc)."""

    def run(code: str) -> Any:
        return webtf_page.evaluate(PY_JS, code)

    return run


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Report the page's boot time when a browser test booted it."""
    if BOOT_MS in config.stash:
        terminalreporter.write_line(
            f"webtf page boot (navigation -> ready): {config.stash[BOOT_MS]:.0f} ms ({config.stash[BOOT_PATH]})"
        )
