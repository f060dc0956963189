"""Booting from the build's Pyodide memory snapshot: the same webtf as a plain boot, and a safe fallback.

The session page (fixture `webtf_page`) boots from the snapshot unless WEBTF_SNAPSHOT=0. This module boots two more
pages, each in a context of its own: a plain one (?snapshot=0), compared with the session page (flags, backends,
op results against numpy), and one served a corrupted snapshot, which must fall back to the plain path with a
warning and still reach ready. Truncated and mismatched snapshots are checked on web/python.js's fetchSnapshot
in that page (small files in the snapshot format), without a boot each. The server's compression and caching
headers are checked with urllib.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Browser, Page

import build
from tests.conftest import BOOT_QUERY, PY_JS, SharedPage, boot_page
from tests.helpers import Rand

Py = Callable[[str], Any]
R = Rand(18)
A, B = R.normal(4, 6), R.normal(6, 3)
IMAGE, KERNEL = R.normal(1, 5, 5, 2), R.normal(3, 3, 2, 4)
# A slice of the op suite, run on every backend of both pages: elementwise, reduction, matmul, conv, softmax.
SLICE_PY = f"""
before_backend = tf.get_backend()
results = {{}}
for backend in ("cpu", "wasm", "webgl"):
    assert await tf.set_backend(backend), backend
    before = tf.memory().num_tensors
    a, b = tf.tensor({A.tolist()}), tf.tensor({B.tolist()})
    image, kernel = tf.tensor({IMAGE.tolist()}), tf.tensor({KERNEL.tolist()})
    outs = tf.tidy(lambda: {{
        "add_relu": tf.relu(tf.add(a, 0.5)),
        "sum": tf.sum(a, axis=1),
        "mat_mul": tf.mat_mul(a, b),
        "conv2d": tf.conv2d(image, kernel, 1, "valid"),
        "softmax": tf.softmax(a),
    }})
    results[backend] = {{name: list(await t.data()) for name, t in outs.items()}}
    tf.dispose([a, b, image, kernel, *outs.values()])
    results[backend]["leaked"] = tf.memory().num_tensors - before
await tf.set_backend(before_backend)
results
"""
# web/python.js's check of a snapshot file, as the boot opens it (Cache Storage, else the server); `cached`: bytes
# to put in Cache Storage under the file's URL first. Returns null when the file passes, else the error message.
FETCH_SNAPSHOT_JS = """async ([entry, expected, cached]) => {
  const python = await import(new URL("web/python.js", document.baseURI).href);
  try {
    if (cached.length) {
      const cache = await caches.open(python.SNAPSHOT_CACHE);
      await cache.put(new URL(entry.file, document.baseURI).href, new Response(new Uint8Array(cached)));
      localStorage.setItem(python.SNAPSHOT_CACHE, entry.file); // as the page marks the copy it keeps
    }
    await python.fetchSnapshot(entry, expected, python.openSnapshot(entry.file));
    return null;
  } catch (error) {
    return error.message;
  }
}"""
# What the page fetched to boot: web/early.js (inlined by build.py) starts the snapshot's download at navigation and
# web/python.js takes it over (webtfEarly.snapshot becomes null), so wheels/index.json is never requested.
EARLY_JS = """() => {
  const paths = performance.getEntriesByType("resource").map((entry) => new URL(entry.name).pathname);
  const count = (suffix) => paths.filter((path) => path.endsWith(suffix)).length;
  return {taken: window.webtfEarly?.snapshot === null, build: window.webtfIndex?.build?.name,
          snapshots: count(".snap"), wheels: count(".whl"), index_json: count("wheels/index.json")};
}"""
CACHED_JS = (
    """async () => (await (await caches.open("webtf-snapshot")).keys()).map((request) => request.url)"""
)


def oracle() -> dict[str, np.ndarray]:
    """numpy results of SLICE_PY's ops (float64)."""
    a, b = A.astype(np.float64), B.astype(np.float64)
    windows = np.lib.stride_tricks.sliding_window_view(IMAGE.astype(np.float64), (3, 3), axis=(1, 2))
    exp = np.exp(a - a.max(axis=1, keepdims=True))
    return {
        "add_relu": np.maximum(a + 0.5, 0),
        "sum": a.sum(axis=1),
        "mat_mul": a @ b,
        "conv2d": np.einsum("nhwcij,ijco->nhwo", windows, KERNEL.astype(np.float64)),
        "softmax": exp / exp.sum(axis=1, keepdims=True),
    }


def index() -> dict[str, Any]:
    """dist/wheels/index.json: the wheel and the snapshot the build made."""
    return json.loads((build.DIST / "wheels" / "index.json").read_text())


def panel(page: Page) -> dict[str, Any]:
    """What the page shows: active backend, backend choices and the flags table."""
    rows = page.locator("#flags tbody tr")
    flags = {
        rows.nth(i).get_attribute("data-flag"): rows.nth(i).locator("td.value").inner_text()
        for i in range(rows.count())
    }
    return {
        "backend": page.locator("#backend").inner_text(),
        "choices": page.eval_on_selector_all(
            "#backend-select option", "options => options.map(o => o.value)"
        ),
        "flags": flags,
    }


@pytest.fixture(scope="module")
def plain(browser: Browser, server: str) -> Iterator[Page]:
    """index.html booted the plain way (?snapshot=0), in a context of its own."""
    context = browser.new_context()
    log: list[str] = []
    try:
        page = context.new_page()
        boot_page(page, server + "?snapshot=0", log)
        yield page
    finally:
        context.close()


def test_build_made_a_snapshot() -> None:
    entry = index()["snapshot"]
    assert entry is not None, "build.py made no snapshot: its log says why"
    assert entry["wheel_sha256"] == index()["sha256"]
    assert entry["key"] in entry["file"]
    assert (build.DIST / entry["file"]).stat().st_size > 1_000_000


def test_pages_carry_the_build_index() -> None:
    for page in build.PAGES:
        text = (build.DIST / page).read_text()
        assert build.EARLY_MARK not in text and "window.webtfEarly = " in text, page
        inline = text.split("window.webtfIndex = ", 1)[1].split(";\n", 1)[0]
        assert json.loads(inline) == index(), page


def test_with_early_start_needs_its_mark(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("<head></head>")
    with pytest.raises(build.BuildError, match="page.html: expected one <!-- webtf:early -->"):
        build.with_early_start(tmp_path / "page.html", index())


def test_first_visit_takes_the_snapshot_download_started_at_navigation(webtf_page: Page) -> None:
    if BOOT_QUERY:
        pytest.skip("the session page booted the plain way")
    early = webtf_page.evaluate(EARLY_JS)
    assert early == {"taken": True, "build": "full", "snapshots": 1, "wheels": 1, "index_json": 0}


def test_session_page_boot_path(webtf_page: Page, webtf_booted: SharedPage) -> None:
    expected = "plain" if BOOT_QUERY else "snapshot"
    assert webtf_page.evaluate("window.webtfBootPath") == expected
    notes = [
        line
        for line in webtf_booted.console_log
        if "[webtf] booted from snapshot" in line or "[webtf] plain boot" in line
    ]
    assert len(notes) == 1 and (expected == "snapshot") == ("booted from snapshot" in notes[0]), notes


def test_session_page_keeps_the_snapshot_for_the_next_visit(webtf_page: Page, server: str) -> None:
    if BOOT_QUERY:
        pytest.skip("the session page booted the plain way")
    url = server + index()["snapshot"]["file"]
    webtf_page.wait_for_function(f"({CACHED_JS})().then((urls) => urls.length === 1 && urls[0] === {url!r})")


def test_plain_page_boots_plain(plain: Page) -> None:
    assert plain.evaluate("window.webtfBootPath") == "plain"
    assert plain.locator("#status").inner_text().startswith("ready")


def test_same_flags_and_backends_on_both_paths(webtf_page: Page, plain: Page) -> None:
    assert panel(webtf_page) == panel(plain)


def test_same_op_results_on_both_paths(py: Py, plain: Page) -> None:
    results = [py(SLICE_PY), plain.evaluate(PY_JS, SLICE_PY)]
    assert results[0] == results[1]  # the same code on the same backends: the same bits
    ref = oracle()
    for backend, outs in results[0].items():
        assert outs.pop("leaked") == 0, backend
        for name, values in outs.items():
            np.testing.assert_allclose(
                values, ref[name].ravel(), rtol=1e-4, atol=1e-4, err_msg=f"{name}/{backend}"
            )


def fake_snapshot(identity: dict[str, str], payload: bytes = bytes(range(256)) * 64) -> bytes:
    """A small file in the snapshot format (magic, header length, JSON header padded to 16 bytes, pages)."""
    header = json.dumps({**identity, "memory": len(payload), "page": 65536, "runs": [[0, 1]]}).encode()
    padded = -(-(12 + len(header)) // 16) * 16
    return (b"webtfsnp" + len(header).to_bytes(4, "little") + header).ljust(padded, b"\0") + payload


def test_bad_snapshots_fall_back_to_the_plain_boot(browser: Browser, server: str) -> None:
    entry = index()["snapshot"]
    expected = {"pyodide": entry["pyodide"], "wheel_sha256": index()["sha256"]}
    good = fake_snapshot({"pyodide": entry["pyodide"], "wheel_sha256": index()["sha256"]})
    corrupted = bytearray(good)
    corrupted[len(good) // 2] ^= 0xFF
    stale = fake_snapshot({"pyodide": entry["pyodide"], "wheel_sha256": "0" * 64})
    served = {  # small files: a full-size one would cost seconds per route in Playwright
        entry["file"]: bytes(corrupted),  # the page's own snapshot, corrupted
        "snapshot/good.snap": good,
        "snapshot/truncated.snap": good[: len(good) // 2],
        "snapshot/stale.snap": stale,
    }

    def serve(route: Any) -> None:
        body = served[route.request.url.removeprefix(server)]
        route.fulfill(status=200, body=body, headers={"Content-Type": "application/octet-stream"})

    context = browser.new_context()
    log: list[str] = []
    try:
        context.route("**/snapshot/*.snap", serve)
        booted = context.new_page()
        boot_page(booted, server, log)  # fails the test unless it reaches ready
        assert booted.evaluate("window.webtfBootPath") == "plain"
        warnings = [line for line in log if line.startswith("warning: [webtf] snapshot")]
        assert len(warnings) == 1 and f"{entry['file']} is corrupted or truncated" in warnings[0], log
        assert booted.evaluate("typeof pyodide.pyimport('webtf').tensor") == "function"

        assert booted.evaluate(CACHED_JS) == []  # nothing kept from a snapshot that failed

        def check(
            name: str, expected: dict[str, str], sha256: str = _sha256(good), cached: bytes = b""
        ) -> str | None:
            entry = {"file": f"snapshot/{name}.snap", "sha256": sha256}
            return booted.evaluate(FETCH_SNAPSHOT_JS, [entry, expected, list(cached)])

        assert check("good", expected) is None  # the fake passes: each case below fails for its one defect
        assert "snapshot/truncated.snap is corrupted or truncated" in check("truncated", expected)
        assert check("stale", expected, _sha256(stale)) == (
            f"snapshot was made for wheel_sha256 {'0' * 64}, this page loads {expected['wheel_sha256']}"
        )
        assert check("good", {**expected, "pyodide": "0.0.0"}) == (
            f"snapshot was made for pyodide {entry['pyodide']}, this page loads 0.0.0"
        )
        # a copy kept in Cache Storage by an earlier visit is checked the same way
        assert "snapshot/kept.snap is corrupted or truncated" in check(
            "kept", expected, cached=bytes(corrupted)
        )
    finally:
        context.close()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _get(url: str, headers: dict[str, str]) -> tuple[int, Any, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:  # urllib raises on 304
        return error.code, error.headers, error.read()


def test_server_sends_gzip_when_accepted_and_revalidates(server: str) -> None:
    url = server + "pyodide/pyodide.asm.wasm"
    raw = (build.DIST / "pyodide" / "pyodide.asm.wasm").read_bytes()
    status, headers, body = _get(url, {"Accept-Encoding": "gzip, deflate"})
    assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == raw and len(body) < len(raw) * 0.5
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"
    assert headers["Cache-Control"] == "no-cache"
    status, again, body = _get(url, {"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]})
    assert status == 304 and body == b"" and again["ETag"] == headers["ETag"]

    status, plain_headers, body = _get(url, {})
    assert status == 200 and body == raw and plain_headers["Content-Encoding"] is None
    assert plain_headers["ETag"] != headers["ETag"]  # another representation, another tag


def test_server_marks_the_hash_named_snapshot_immutable(server: str) -> None:
    entry = index()["snapshot"]
    status, headers, body = _get(server + entry["file"], {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert _sha256(gzip.decompress(body)) == entry["sha256"]
