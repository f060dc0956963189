"""Custom builds (build.py custom): BlazeFace on wasm only, forward mode only, against the full build.

The session page (full build) profiles BlazeFace's pipeline on wasm; the pipeline's own kernels plus the
model go into a config; the custom wheel is built and served (a site of its own in a temporary folder) and
booted in a second page, which runs the same thing: the same outputs, the same kernels, nothing leaked. Kernels
and backends outside the build fail with the named error.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

import build
from tests.browser.test_snapshot import EARLY_JS
from tests.conftest import PY_JS, SharedPage

# The same run in both pages: BlazeFace (low score threshold, so that faces come out) on a fixed image.
RUN_PY = """
import webtf as tf
from webtf.models.pipelines import BlazeFace
assert await tf.set_backend("wasm")
before = tf.memory().num_tensors
face = await BlazeFace.load("models/blazeface.json", score_threshold=0.05)
image = tf.tensor([(i * 37 + i // 300) % 256 for i in range(96 * 128 * 3)], [96, 128, 3], "int32")
feeds = face.model._zero_feeds()
model_info = await tf.profile(lambda: face.model.execute_async(feeds))
raw = [list(await t.data()) for t in model_info.result]
tf.dispose([model_info.result, feeds])
info = await tf.profile(lambda: face.estimate_faces(image))
image.dispose()
face.dispose()
{"faces": info.result, "raw": raw, "kernels": info.kernel_names, "model_kernels": model_info.kernel_names,
 "leaked": tf.memory().num_tensors - before}
"""
# Outside the build: a kernel (Sin), io's browser stores and the backends left out.
OUTSIDE_PY = """
import webtf as tf
before = tf.memory().num_tensors
x = tf.tensor([0.5, 1.0])
try:
    tf.sin(x)
    error = None
except (AttributeError, NotImplementedError) as e:  # the op left out (its module or itself), or only its kernel
    error = str(e)
x.dispose()
stores = []  # io's browser stores, left out of a build without "browserStores"
for ask in (lambda: tf.io.browser_files, lambda: tf.io.get_load_handler("indexeddb://m")):
    try:
        ask()
        stores.append(None)
    except (AttributeError, ValueError) as e:
        stores.append(str(e))
{"error": error, "stores": stores, "leaked": tf.memory().num_tensors - before, "webgl": await tf.set_backend("webgl"),
 "cpu": await tf.set_backend("cpu"), "backend": tf.get_backend(), "registered": sorted(tf.ENGINE.factories)}
"""


@pytest.fixture(scope="module")
def full_run(webtf_booted: SharedPage) -> dict[str, Any]:
    """RUN_PY in the session page (the full build), which is left on the backend it was on."""
    page = webtf_booted.page
    backend = page.evaluate(PY_JS, "import webtf as tf\ntf.get_backend()")
    try:
        return page.evaluate(PY_JS, RUN_PY)
    finally:
        page.evaluate(PY_JS, f"import webtf as tf\nawait tf.set_backend({backend!r})")


@pytest.fixture(scope="module")
def custom_site(full_run: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The config (a): the pipeline's kernels beyond the model's, BlazeFace's model.json, wasm, forward only;
    built into a temporary folder, then a site with its wheel. Returns (site folder, report)."""
    folder = tmp_path_factory.mktemp("custom")
    extra = [k for k in full_run["kernels"] if k not in full_run["model_kernels"]]
    config = {
        "kernels": extra,
        "backends": ["wasm"],
        "models": [str(build.DIST / "models" / "blazeface.json")],
        "outputPath": str(folder / "out"),
        "forwardModeOnly": True,
    }
    (folder / "custom_webtf.json").write_text(json.dumps(config))
    # as a user runs it (its own process: the host profile of the model runs an event loop of its own)
    command = [sys.executable, "build.py", "custom", "--config", str(folder / "custom_webtf.json")]
    subprocess.run(command, cwd=build.ROOT, check=True)
    (wheel,) = (folder / "out").glob("*.whl")
    build.build(wheel, folder / "site")
    return folder / "site", json.loads((folder / "out" / "report.json").read_text())


@pytest.fixture(scope="module")
def custom_page(browser: Browser, custom_site: tuple[Path, dict], pytestconfig: pytest.Config) -> Iterator[Page]:
    """The custom site served on a free port and booted in a context of its own."""
    httpd = build.make_server(0, quiet=True, root=custom_site[0])
    threading.Thread(target=httpd.serve_forever, name="custom-server", daemon=True).start()
    context = browser.new_context()
    shared = SharedPage(pytestconfig, context, "custom-page")
    try:
        yield shared.boot(f"http://127.0.0.1:{httpd.server_address[1]}/")
    finally:
        context.close()
        httpd.shutdown()
        httpd.server_close()


def test_report_lists_the_run_and_the_model(full_run: dict[str, Any], custom_site: tuple[Path, dict]) -> None:
    report = custom_site[1]
    assert set(report["kernels"]) == set(full_run["kernels"]) | set(full_run["model_kernels"])
    # the model's kernels, found by running it on the host, are those it runs in the page on wasm
    (model_kernels,) = report["model_kernels"].values()
    assert model_kernels == full_run["model_kernels"]
    assert report["backends"] == ["wasm"] and report["forward_mode_only"]
    assert not any(m.startswith(("webtf.backends.webgl", "webtf.backends.numpy", "webtf.gradients.api"))
                   for m in report["modules"])  # fmt: skip
    assert report["shaders"] == [] and report["wheel_bytes"] < report["full_wheel_bytes"] / 2


def test_custom_build_runs_blazeface_as_the_full_build(full_run: dict[str, Any], custom_page: Page) -> None:
    assert custom_page.evaluate("window.webtfBuild.name") == "custom"
    assert "backends wasm" in custom_page.locator("#build").inner_text()
    # booted from its own snapshot, whose download the page started at navigation
    assert custom_page.evaluate("window.webtfBootPath") == "snapshot"
    early = custom_page.evaluate(EARLY_JS)
    assert early == {"taken": True, "build": "custom", "snapshots": 1, "wheels": 1, "index_json": 0}
    run = custom_page.evaluate(PY_JS, RUN_PY)
    assert full_run["faces"], "the fixed image should give detections at score 0.05"
    assert run["faces"] == full_run["faces"]
    assert run["raw"] == full_run["raw"]
    assert run["kernels"] == full_run["kernels"]
    assert run["leaked"] == 0 and full_run["leaked"] == 0


def test_outside_the_build(custom_page: Page) -> None:
    out = custom_page.evaluate(PY_JS, OUTSIDE_PY)
    assert re.search(r"kernel 'Sin'\)? is not in this custom webtf build", out["error"]), out["error"]
    assert 'add "Sin" to "kernels" in custom_webtf.json' in out["error"]
    for store in out["stores"]:
        assert store and "io's browser stores" in store and '"browserStores": true' in store, store
    assert out["leaked"] == 0
    assert out["webgl"] is False and out["cpu"] is False
    assert out["backend"] == "wasm" and out["registered"] == ["wasm"]
