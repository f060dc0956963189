"""The live camera page: tf.browser, the BlazeFace/MoveNet pipelines and the demo loop, on a fake camera.

Chromium's fake camera plays a YUV4MPEG2 file made at test time from tests/fixtures/astronaut-256.png (the
photo centred in a 320x256 grey frame). The oracle for the face box is TF.js 4.22.0 itself
(vendor/tfjs/tf.min.js, cpu backend) running the same BlazeFace graph on the same frame, read with TF.js's
own fromPixels, decoded by a small JS decoder written here from MediaPipe's anchor scheme. The photo's face
spans x 85..140, y 35..92 in the 256x256 fixture (checked by eye), which is the sanity check on both.

Speed here (2 cores, SwiftShader WebGL): one BlazeFace frame takes ~10 s on the cpu backend, ~1.6 s on
webgl and ~0.1 s on wasm. So the leak check watches num_tensors after EVERY frame of a page (3 frames on
cpu, 4 on webgl, 200 on wasm): one leaked tensor per frame would show from the second frame.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.conftest import PY_JS, SharedPage, boot_page
from tests.helpers import LOAD_TFJS_JS

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "astronaut-256.png"
FRAME_W, FRAME_H, PHOTO_X = 320, 256, 32  # the photo sits at x = 32..288 of a grey 320x256 frame
FACE = (85, 35, 140, 92)  # x1, y1, x2, y2 of the face in the fixture's pixels
BACKENDS = ["wasm", "cpu", "webgl"]
FAST = "wasm"  # the backend for the tests that need many frames
FRAMES = {"cpu": 3, "webgl": 4, "wasm": 200}  # frames watched by the leak check
FRAME_TIMEOUT_MS = 240_000


# ---------------------------------------------------------------------------------------------- media


def read_png(data: bytes) -> np.ndarray:
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG to a uint8 array [h, w, channels]."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, bytearray(), None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, color type {color}, interlace {interlace}")
    bpp = 3 if color == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(bytes(idat))
    rows: list[list[int]] = []
    prev = [0] * stride
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], list(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif kind == 2:
            line = [(v + p) & 255 for v, p in zip(line, prev, strict=True)]
        elif kind == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif kind == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], prev[x - bpp] if x >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif kind != 0:
            raise ValueError(f"bad PNG filter type {kind}")
        rows.append(line)
        prev = line
    return np.array(rows, dtype=np.uint8).reshape(height, width, bpp)


def camera_frame() -> np.ndarray:
    """The RGB frame the fake camera shows: the fixture photo centred on grey."""
    frame = np.full((FRAME_H, FRAME_W, 3), 128, np.uint8)
    frame[:, PHOTO_X : PHOTO_X + 256] = read_png(FIXTURE.read_bytes())[..., :3]
    return frame


def y4m(rgb: np.ndarray) -> bytes:
    """One-frame YUV4MPEG2 (4:2:0, BT.601 limited range, the range Chromium assumes) of an RGB image."""
    h, w, _ = rgb.shape
    r, g, b = (rgb[..., i].astype(np.float64) / 255 for i in range(3))
    y = 16 + 65.481 * r + 128.553 * g + 24.966 * b
    cb = 128 - 37.797 * r - 74.203 * g + 112.0 * b
    cr = 128 + 112.0 * r - 93.786 * g - 18.214 * b
    planes = [y] + [c.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3)) for c in (cb, cr)]
    body = b"".join(np.clip(np.round(p), 0, 255).astype(np.uint8).tobytes() for p in planes)
    return f"YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420jpeg\n".encode() + b"FRAME\n" + body


# ---------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def browser(
    launch_browser: Callable[..., Browser],
    browser_type_launch_args: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Browser]:
    """This module's pytest-playwright `browser`: the session's launch options plus a fake camera playing
    camera_frame(), so that `new_context` (and its traces, screenshots, videos) works on it. Contexts must grant
    "camera" to use the camera; a browser without one is test_boot.py's."""
    video = tmp_path_factory.mktemp("camera") / "astronaut.y4m"
    video.write_bytes(y4m(camera_frame()))
    args = [
        *browser_type_launch_args.get("args", []),
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-video-capture={video}",
    ]
    camera = launch_browser(args=args)
    yield camera
    camera.close()


def open_demo(new_context: Callable[..., BrowserContext], url: str, grant: bool, log: list[str]) -> Page:
    """The demo at url in a new context, with camera permission granted or not (then it is denied)."""
    page = new_context(permissions=["camera"] if grant else []).new_page()
    boot_page(page, url, log)
    return page


def state(page: Page) -> dict[str, Any]:
    """window.webtfDemo."""
    return page.evaluate("window.webtfDemo")


def wait_state(
    page: Page, condition: str, log: list[str], timeout: int = FRAME_TIMEOUT_MS
) -> dict[str, Any]:
    """Wait until the JS expression `condition` over `s` (the demo state) holds; return the state."""
    try:
        page.wait_for_function(
            f"(() => {{ const s = window.webtfDemo; return s && ({condition}); }})()", timeout=timeout
        )
    except Exception:
        pytest.fail(
            f"timed out waiting for {condition}; state {state(page)}\n--- console ---\n"
            + "\n".join(log[-30:])
        )
    return state(page)


def run_py(page: Page, code: str) -> Any:
    """Run Python in the page (as the `py` fixture does in webtf_page)."""
    return page.evaluate(PY_JS, code)


SELECT_JS = """([selector, value]) => {
  const element = document.querySelector(selector);
  element.value = value;
  element.dispatchEvent(new Event("change", { bubbles: true }));
}"""


def select(page: Page, selector: str, value: str) -> None:
    """Pick an option of a <select> and fire change, as a user's pick does.

    Not page.select_option: its actionability checks wait for animation frames, which a page busy with
    cpu-backend inference (seconds per frame on the main thread) hardly renders.
    """
    page.evaluate(SELECT_JS, [selector, value])


# ---------------------------------------------------------------------------------------------- oracle

TFJS_ORACLE = (
    """async () => {"""
    + LOAD_TFJS_JS
    + """  await tf.setBackend("cpu");
  const video = document.getElementById("video");
  video.pause();  // webtf and TF.js read the very same frame (the test plays it again)
  await new Promise((ok) => requestAnimationFrame(ok));
  const frame = tf.browser.fromPixels(video);
  const [height, width] = frame.shape;
  window.webtfOracleFrame = await frame.data();
  const model = await tf.loadGraphModel("models/blazeface.json");
  const S = 256, side = Math.max(width, height);
  // the square around the frame (letterbox), normalized [y1, x1, y2, x2]
  const sq = [(height - side) / 2 / height, (width - side) / 2 / width,
              (height + side) / 2 / height, (width + side) / 2 / width];
  const input = tf.tidy(() =>
    tf.image.cropAndResize(tf.cast(frame, "float32").expandDims(0), [sq], [0], [S, S]).div(127.5).sub(1));
  const outs = model.execute(input);
  const by = {};
  for (const t of outs) by[t.shape.slice(1).join("x")] = await t.data();
  tf.dispose([frame, input, ...outs]);
  model.dispose();
  // MediaPipe SSD anchors: 16x16 cells with 2 anchors, then 8x8 cells with 6; centres in [0, 1]
  const rows = [];
  for (const [grid, per, n] of [[16, 2, 512], [8, 6, 384]]) {
    const logits = by[`${n}x1`], reg = by[`${n}x16`];
    for (let i = 0; i < n; i++) {
      const cell = Math.floor(i / per);
      const ax = ((cell % grid) + 0.5) / grid, ay = (Math.floor(cell / grid) + 0.5) / grid;
      const r = reg.subarray(i * 16, i * 16 + 16);
      const cx = ax + r[0] / S, cy = ay + r[1] / S, w = r[2] / S, h = r[3] / S;
      const pts = [[cx - w / 2, cy - h / 2], [cx + w / 2, cy + h / 2]];
      for (let k = 0; k < 6; k++) pts.push([ax + r[4 + 2 * k] / S, ay + r[5 + 2 * k] / S]);
      rows.push({ score: 1 / (1 + Math.exp(-logits[i])), pts });
    }
  }
  const toFrame = ([x, y]) => [(sq[1] + x * (sq[3] - sq[1])) * width, (sq[0] + y * (sq[2] - sq[0])) * height];
  const boxes = tf.tensor2d(rows.map((r) => [r.pts[0][1], r.pts[0][0], r.pts[1][1], r.pts[1][0]]));
  const scores = tf.tensor1d(rows.map((r) => r.score));
  const keep = await tf.image.nonMaxSuppressionAsync(boxes, scores, 10, 0.3, 0.75);
  const picked = Array.from(await keep.data());
  tf.dispose([boxes, scores, keep]);
  return {
    width, height,
    faces: picked.map((i) => {
      const pts = rows[i].pts.map(toFrame);
      return { box: [...pts[0], ...pts[1]], score: rows[i].score, keypoints: pts.slice(2) };
    }),
  };
}"""
)

SAME_FRAME_PY = """
import js, operator
import webtf.browser
frame = tf.browser.from_pixels(js.document.getElementById("video"))
ours = frame.data_sync()
frame.dispose()
ref = js.webtfOracleFrame.to_py().tolist()
diff = max(map(abs, map(operator.sub, ours, ref))) if len(ours) == len(ref) else -1
[len(ours), len(ref), diff, ours.tolist()]
"""


def near(a: list[float], b: list[float], tol: float) -> bool:
    """Every coordinate of a within tol of b."""
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def check_face_location(box: list[float], offset_x: float) -> None:
    """The box is on the photo's face (FACE, shifted by offset_x)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    fx, fy = (FACE[0] + FACE[2]) / 2 + offset_x, (FACE[1] + FACE[3]) / 2
    size = FACE[2] - FACE[0]
    assert abs(cx - fx) < 0.2 * size and abs(cy - fy) < 0.2 * size, (box, (fx, fy))
    assert 0.7 * size < box[2] - box[0] < 1.3 * size, box


# ---------------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("backend", BACKENDS)
def test_live_face_matches_tfjs(
    new_context: Callable[..., BrowserContext], server: str, backend: str
) -> None:
    log: list[str] = []
    page = open_demo(new_context, f"{server}?camera=auto&model=blazeface&backend={backend}", True, log)
    s = wait_state(page, "s.frames >= 1", log)
    assert s["backend"] == backend, f"backend {backend} did not start: {s['message']}"
    assert s["camera"] == "live" and s["source_size"] == [FRAME_W, FRAME_H], s
    assert page.locator("#video").is_visible() and page.locator("#sample").is_hidden()

    oracle = page.evaluate(TFJS_ORACLE)
    n, n_ref, max_diff, pixels = run_py(page, SAME_FRAME_PY)
    page.evaluate("document.getElementById('video').play()")
    assert n == n_ref == FRAME_W * FRAME_H * 3 and max_diff == 0, "webtf and TF.js read different pixels"
    # the frame Chromium decoded from the y4m is the photo (up to YUV 4:2:0 rounding)
    error = np.abs(
        np.array(pixels, np.int32).reshape(FRAME_H, FRAME_W, 3) - camera_frame().astype(np.int32)
    )
    assert error.mean() < 3, error.mean()

    s = wait_state(page, f"s.frames >= {s['frames'] + 2}", log)  # frames read after the pause too
    faces = s["detections"]
    assert len(faces) == 1, faces
    assert len(oracle["faces"]) == 1, oracle
    face, ref = faces[0], oracle["faces"][0]
    tol = 0.05 * (ref["box"][2] - ref["box"][0])
    assert near(face["box"], ref["box"], tol), (face["box"], ref["box"])
    assert len(face["keypoints"]) == 6
    for point, ref_point in zip(face["keypoints"], ref["keypoints"], strict=True):
        assert near(point, ref_point, tol), (face["keypoints"], ref["keypoints"])
    assert abs(face["score"] - ref["score"]) < 0.02 and face["score"] > 0.75
    check_face_location(face["box"], PHOTO_X)
    rounded = [[round(v, 1) for v in b] for b in (face["box"], ref["box"])]
    print(f"{backend}: box {rounded[0]} vs TF.js {rounded[1]}")

    s = wait_state(page, f"s.frames >= {FRAMES[backend]}", log)
    counts = [e["num_tensors"] for e in page.evaluate("window.webtfDemoLog") if e["frames"] >= 1]
    assert len(counts) >= FRAMES[backend] and len(set(counts)) == 1, counts
    print(
        f"{backend}: {s['frames']} frames, {s['fps']} fps, {s['last_ms']} ms/inference, warm-up "
        f"{s['warmup_ms']} ms, {counts[0]} tensors ({s['num_bytes']} bytes) after every frame"
    )


def test_denied_permission_falls_back_to_sample(
    new_context: Callable[..., BrowserContext], server: str
) -> None:
    log: list[str] = []
    page = open_demo(new_context, f"{server}?camera=auto&backend={FAST}", False, log)
    s = wait_state(page, "s.camera === 'denied'", log, 30_000)
    assert "permission was denied" in s["message"] and "sample image" in s["message"]
    assert "denied" in page.locator("#demo-message").inner_text()
    assert page.locator("#sample").is_visible() and page.locator("#video").is_hidden()
    s = wait_state(page, "s.frames >= 1 && s.detections.length > 0", log)
    assert s["source_size"] == [256, 256] and len(s["detections"]) == 1
    check_face_location(s["detections"][0]["box"], 0)


@pytest.fixture(scope="module")
def fast_demo(browser: Browser, server: str, pytestconfig: pytest.Config) -> Iterator[SharedPage]:
    """A live demo on the FAST backend, shared by the tests below (keep them last in this file)."""
    context = browser.new_context(permissions=["camera"])
    demo = SharedPage(pytestconfig, context, "webcam-demo")
    page = demo.boot(f"{server}?camera=auto&backend={FAST}")
    wait_state(page, "s.frames >= 3 && s.detections.length === 1", demo.console_log)
    yield demo
    context.close()


@pytest.fixture
def fast_page(
    fast_demo: SharedPage, request: pytest.FixtureRequest, output_path: str
) -> Iterator[tuple[Page, list[str]]]:
    """The shared demo and its console log, recorded for this test (--tracing, --screenshot)."""
    with fast_demo.recording(request, output_path) as page:
        yield page, fast_demo.console_log


def test_backend_switch_mid_stream(fast_page: tuple[Page, list[str]]) -> None:
    page, log = fast_page
    s = wait_state(page, f"s.backend === '{FAST}' && s.frames >= 3", log)
    select(page, "#backend-select", "cpu")
    s = wait_state(page, f"s.backend === 'cpu' && s.frames >= {s['frames'] + 2}", log)
    assert f"from {FAST} to cpu" in s["message"] and len(s["detections"]) == 1
    check_face_location(s["detections"][0]["box"], PHOTO_X)
    # a backend that cannot start: the message says so and the demo stays on cpu
    run_py(page, "tf.register_backend('broken', lambda: 1 / 0, 0)")
    page.evaluate("document.getElementById('backend-select').add(new Option('broken', 'broken'))")
    select(page, "#backend-select", "broken")
    s = wait_state(page, f"s.message.includes('could not start') && s.frames >= {s['frames'] + 1}", log)
    assert s["backend"] == "cpu" and page.locator("#backend-select").input_value() == "cpu"
    select(page, "#backend-select", FAST)
    s = wait_state(page, f"s.backend === '{FAST}' && s.frames >= {s['frames'] + 5}", log)
    backends = [e["backend"] for e in page.evaluate("window.webtfDemoLog") if e["frames"] >= 1]
    assert backends[0] == FAST and "cpu" in backends and backends[-1] == FAST


def test_movenet_nose_near_face(fast_page: tuple[Page, list[str]], tmp_path: Path) -> None:
    page, log = fast_page
    s = wait_state(page, "s.model === 'blazeface' && s.detections.length === 1", log)
    face = s["detections"][0]
    select(page, "#model-select", "movenet")
    s = wait_state(page, f"s.model === 'movenet' && s.frames >= {s['frames'] + 3}", log)
    assert len(s["detections"]) == 1 and len(s["skeleton"]) == 16
    pose = s["detections"][0]
    assert len(pose["keypoints"]) == 17 and len(pose["keypoint_scores"]) == 17
    nose, face_nose = pose["keypoints"][0], face["keypoints"][2]
    size = face["box"][2] - face["box"][0]
    assert pose["keypoint_scores"][0] > 0.3
    assert near(nose, face_nose, 0.25 * size), (nose, face_nose)
    eyes = pose["keypoints"][1:3]
    assert all(
        face["box"][0] <= x <= face["box"][2] and face["box"][1] <= y <= face["box"][3] for x, y in eyes
    )
    shot = tmp_path / "webcam-movenet.png"
    page.locator("#stage").screenshot(path=str(shot), timeout=120_000)
    print(f"movenet screenshot: {shot}")
    select(page, "#model-select", "blazeface")
    wait_state(page, f"s.model === 'blazeface' && s.frames >= {s['frames'] + 2}", log)


OVERLAY_PIXELS_JS = """([points]) => {
  const c = document.getElementById("overlay");
  const ctx = c.getContext("2d");
  return points.map(([x, y]) => Array.from(ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data));
}"""


def test_screenshot_boxes_on_face(fast_page: tuple[Page, list[str]], tmp_path: Path) -> None:
    page, log = fast_page
    s = wait_state(page, "s.model === 'blazeface' && s.detections.length === 1", log)
    x1, y1, x2, y2 = s["detections"][0]["box"]
    nose = s["detections"][0]["keypoints"][2]
    top, left, inside = [(x1 + x2) / 2, y1], [x1, (y1 + y2) / 2], [(x1 + x2) / 2, (y1 * 3 + y2) / 4]
    top_px, left_px, inside_px, nose_px = page.evaluate(OVERLAY_PIXELS_JS, [[top, left, inside, nose]])
    assert top_px[1] > 200 and top_px[3] > 0, top_px  # the green box edge
    assert left_px[1] > 200 and left_px[3] > 0, left_px
    assert inside_px[3] == 0, inside_px  # the face itself is not painted over
    assert nose_px[0] > 200 and nose_px[3] > 0, nose_px  # a keypoint dot
    shot = tmp_path / "webcam-blazeface.png"
    page.locator("#stage").screenshot(path=str(shot), timeout=120_000)
    print(f"blazeface screenshot: {shot}")
    assert shot.stat().st_size > 10_000
