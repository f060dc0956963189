"""The teach section of the camera page (webcam transfer learning), used as a user would, on the fake camera.

Class 0 is recorded from the fake camera (the astronaut on grey, test_webcam's y4m), class 1 from a different
still image served in place of web/sample.png (coloured stripes made here). After training, the prediction
must follow the source with p > 0.9, the loss must fall, the chart must be drawn, reset must give back every
tensor the section took, and a head saved to IndexedDB must predict the same after a page reload (wasm also
loads the downloaded files through the <input type=file>). MobileNetV2 per frame on this machine: ~0.2 s on
wasm, ~0.7 s on webgl (SwiftShader), ~9 s on cpu: webgl records two examples per class and loads back in the same
page, cpu records one and stops after the image's prediction.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import BrowserContext, Page

from tests.browser.test_webcam import browser  # noqa: F401  (the fake-camera browser)
from tests.conftest import boot_page

BACKENDS = ["wasm", "webgl", "cpu"]
EXAMPLES = {"wasm": 4, "webgl": 2, "cpu": 1}  # per class (at least)
EPOCHS, LEARNING_RATE, BATCH = 8, 0.01, 8
TIMEOUT_MS = 180_000
EMPTY = [{"name": "Class 1", "count": 0}, {"name": "Class 2", "count": 0}]
SAME_PROBS = 1e-4  # the saved head on the same frame: the same float32 math


def png(rgb: np.ndarray) -> bytes:
    """An 8-bit RGB PNG of rgb [h, w, 3] (no filtering)."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\0" + rgb[y].tobytes() for y in range(h))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def stripes() -> bytes:
    """The other still image: 256x256 diagonal red, yellow and blue stripes."""
    y, x = np.mgrid[0:256, 0:256]
    colors = np.array([[220, 40, 40], [240, 200, 30], [40, 80, 200]], np.uint8)
    return png(colors[((x + y) // 32) % 3])


def teach(page: Page) -> dict[str, Any]:
    """window.webtfTeach."""
    return page.evaluate("window.webtfTeach")


def wait_teach(page: Page, condition: str, log: list[str], timeout: int = TIMEOUT_MS) -> dict[str, Any]:
    """Wait until the JS expression `condition` over `s` (window.webtfTeach) and `d` (window.webtfDemo) holds."""
    try:
        page.wait_for_function(
            f"(() => {{ const s = window.webtfTeach, d = window.webtfDemo; return s && d && ({condition}); }})()",
            timeout=timeout,
        )
    except Exception:
        pytest.fail(
            f"timed out waiting for {condition}; state {teach(page)}\n--- console ---\n"
            + "\n".join(log[-30:])
        )
    return teach(page)


def click(page: Page, selector: str) -> None:
    """element.click(): a busy page (cpu: seconds per frame) renders too few frames for locator.click's checks."""
    page.evaluate("(s) => document.querySelector(s).click()", selector)


def shot(page: Page, folder: Path, name: str, selector: str = "#teach") -> None:
    """A screenshot of the teach section (skipped when the page is too busy to paint)."""
    path = folder / f"teach-{name}.png"
    try:
        page.locator(selector).screenshot(path=str(path), timeout=20_000)
        print(f"screenshot: {path}")
    except Exception as error:  # noqa: BLE001 - a screenshot is for looking at, not a check
        print(f"no screenshot {name}: {error}")


CHART_JS = """() => {
  const c = document.getElementById("teach-chart");
  const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  let ink = 0, blue = 0, orange = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] === 0) continue;
    ink++;
    if (d[i + 2] > 150 && d[i] < 80) blue++;
    if (d[i] > 200 && d[i + 1] > 80 && d[i + 1] < 150 && d[i + 2] < 60) orange++;
  }
  return { ink, blue, orange };
}"""


def record(page: Page, backend: str, index: int, log: list[str]) -> None:
    """EXAMPLES[backend] examples of class index: held down on wasm (one per frame), clicked one by one on the
    slower backends."""
    want = EXAMPLES[backend]
    if backend != "wasm":
        for k in range(want):
            click(page, f"#teach-add-{index}")
            wait_teach(page, f"s.classes[{index}].count === {k + 1}", log)
        return
    page.locator(f"#teach-add-{index}").hover()
    page.mouse.down()
    wait_teach(page, f"s.classes[{index}].count >= {want}", log)
    page.mouse.up()


def predicted(page: Page, source: str, log: list[str], frames: int = 1) -> dict[str, Any]:
    """The prediction once `frames` frames of source (the element id: video or sample) have been classified."""
    s = wait_teach(page, f"s.prediction && s.prediction.source === '{source}'", log)
    if frames == 0:
        return s["prediction"]
    first = s["prediction"]["frame"]
    return wait_teach(
        page, f"s.prediction.source === '{source}' && s.prediction.frame >= {first + frames}", log
    )["prediction"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_teach_camera_two_classes(
    new_context: Callable[..., BrowserContext], server: str, backend: str, tmp_path: Path
) -> None:
    log: list[str] = []
    context = new_context(permissions=["camera"], accept_downloads=True)
    other = stripes()
    context.route("**/web/sample.png", lambda route: route.fulfill(body=other, content_type="image/png"))
    page = context.new_page()
    url = f"{server}?camera=auto&model=none&backend={backend}"
    boot_page(page, url, log)
    s = wait_teach(page, "d.camera === 'live'", log)
    assert s["backend"] == backend and s["classes"] == EMPTY
    before = s["num_tensors"]

    record(page, backend, 0, log)
    click(page, "#use-sample")
    wait_teach(page, "d.camera === 'sample'", log)
    record(page, backend, 1, log)
    page.fill("#teach-name-1", "stripes")
    page.dispatch_event("#teach-name-1", "change")
    s = wait_teach(page, "s.classes[1].name === 'stripes'", log)
    counts = [c["count"] for c in s["classes"]]
    shot(page, tmp_path, f"{backend}-recorded")

    if backend == "wasm":  # Stop ends a long training early, and the page answers meanwhile
        page.fill("#teach-epochs", "1000")
        click(page, "#teach-train")
        wait_teach(page, "s.training && s.epoch >= 2", log)
        assert page.evaluate("1 + 1") == 2
        click(page, "#teach-stop")
        s = wait_teach(page, "!s.training", log)
        assert 2 <= s["epoch"] < 1000 and len(s["history"]) == s["epoch"], s["epoch"]
    page.fill("#teach-lr", str(LEARNING_RATE))
    page.fill("#teach-epochs", str(EPOCHS))
    page.fill("#teach-batch", str(BATCH))
    click(page, "#teach-train")
    s = wait_teach(page, f"!s.training && s.history.length === {EPOCHS} && s.trained", log)
    losses = [e["loss"] for e in s["history"]]
    falls = sum(b < a for a, b in zip(losses, losses[1:], strict=False))
    assert losses[-1] < 0.5 * losses[0] and falls >= EPOCHS // 2, losses
    assert s["history"][-1]["acc"] == 1.0, s["history"]
    chart = page.evaluate(CHART_JS)
    assert chart["blue"] > 50 and chart["orange"] > 50, chart  # both lines drawn
    train = {k: s[k] for k in ("epoch_ms", "acc1_ms", "examples_per_s", "embed_ms")}

    print(
        f"\n{backend}: recorded {counts} examples, {train['examples_per_s']} examples/s "
        f"({train['embed_ms']} ms per embedding); {EPOCHS} epochs, {train['epoch_ms']} ms/epoch, accuracy 1.0 "
        f"after {train['acc1_ms']} ms"
    )
    image = predicted(page, "sample", log, frames=0)  # a still image is classified once
    assert image["index"] == 1 and image["label"] == "stripes" and image["probs"][1] > 0.9, image
    if (
        backend == "cpu"
    ):  # seconds per frame: the camera's prediction and save/load are left to wasm and webgl
        reset(page, before, log)
        return
    shot(page, tmp_path, f"{backend}-predict-image")
    click(page, "#camera-toggle")
    camera = predicted(page, "video", log, frames=3 if backend == "wasm" else 2)
    assert camera["index"] == 0 and camera["probs"][0] > 0.9, camera
    print(f"{backend}: predicting the camera at {teach(page)['fps']} frames/s")
    shot(page, tmp_path, f"{backend}-predict-camera")
    shot(page, tmp_path, f"{backend}-page", "main")

    downloads: list[Any] = []
    page.on("download", lambda d: downloads.append(d))
    click(page, "#teach-save")
    wait_teach(page, "s.message.startsWith('Saved')", log)
    page.wait_for_timeout(500)
    files = [tmp_path / d.suggested_filename for d in downloads]
    for d, f in zip(downloads, files, strict=True):
        d.save_as(f)
    assert sorted(f.name for f in files) == ["webtf-teach.json", "webtf-teach.weights.bin"], files
    reset(page, before, log)
    shot(page, tmp_path, f"{backend}-reset")

    if (
        backend == "wasm"
    ):  # the full round trip; webgl loads back in the same page (a second boot costs ~20 s)
        page.reload()
        boot_page(page, url, log)
        wait_teach(page, "d.camera === 'live'", log)
    click(page, "#teach-load")
    check_loaded(page, camera, log)
    shot(page, tmp_path, f"{backend}-loaded")
    if backend == "wasm":
        click(page, "#teach-reset")
        wait_teach(page, "!s.trained", log)
        page.set_input_files("#teach-files", [str(f) for f in files])
        check_loaded(page, camera, log)
        click(page, "#teach-add-class")  # a third class needs examples before training again
        s = wait_teach(page, "s.classes.length === 3", log)
        assert s["classes"][2] == {"name": "Class 3", "count": 0}
        click(page, "#teach-train")
        s = wait_teach(page, "s.message.startsWith('Record examples')", log)
        assert "Class 1, stripes, Class 3" in s["message"] and s["trained"], s["message"]


def reset(page: Page, before: int, log: list[str]) -> None:
    """Reset: two empty classes and every tensor of the section freed."""
    click(page, "#teach-reset")
    s = wait_teach(page, "!s.trained && s.classes.every((c) => c.count === 0)", log)
    assert s["num_tensors"] == before, (s["num_tensors"], before)
    assert s["classes"] == EMPTY


def check_loaded(page: Page, camera: dict[str, Any], log: list[str]) -> None:
    """The loaded head has the saved class names and predicts the camera as before saving."""
    s = wait_teach(page, "s.trained", log)
    assert [c["name"] for c in s["classes"]] == ["Class 1", "stripes"], s["classes"]
    again = predicted(page, "video", log)
    assert again["index"] == 0 and np.allclose(again["probs"], camera["probs"], atol=SAME_PROBS), (
        again,
        camera,
    )
