"""Measure custom builds against the full one (docs/custom-builds.md's table).

    python3 tools/custom_bench.py [--runs N] [--configs a b]
    python3 build.py profile --model URL --backend wasm [--out custom_webtf.json]   (profile_model)

Profiles the camera demo's pipelines in the full page, writes the two configs of the docs ((a) BlazeFace on
wasm, forward only; (b) BlazeFace and MoveNet on cpu, wasm and webgl), builds them, serves each site and boots
it N times in fresh browser contexts, the sites interleaved: page load -> ready (window.webtfBootMs) from the
snapshot on a first visit and on a repeat visit (a second page in the same context: HTTP cache and Cache
Storage warm), and the plain way (?snapshot=0, which imports webtf in the page; first visits). Prints JSON (with
each site's snapshot bytes, raw and gzip-compressed, medians and minima, and the 1-minute load average's range).
`--configs a` builds and boots only (a) beside the full build; `--mbps 40` boots over an emulated 40 Mbit/s link.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import build  # noqa: E402
from tests.conftest import PY_JS  # noqa: E402

PROFILE_PY = """
import webtf as tf
from webtf.models.pipelines import BlazeFace, MoveNet
assert await tf.set_backend("wasm")
image = tf.tensor([(i * 37) % 256 for i in range(96 * 128 * 3)], [96, 128, 3], "int32")
face, pose = await BlazeFace.load(), await MoveNet.load()
names = {}
for key, run in (("blazeface", face.estimate_faces), ("movenet", pose.estimate_poses)):
    info = await tf.profile(lambda: run(image))
    names[key] = info.kernel_names
face.dispose(); pose.dispose(); image.dispose()
names
"""


# One graph model at a URL, run on zeros on one backend under tf.profile: the config's kernels and backends.
PROFILE_MODEL_PY = """
import webtf as tf
assert await tf.set_backend(BACKEND), f"backend {BACKEND} failed to start"
model = await tf.load_graph_model(URL)
feeds = model._zero_feeds()
info = await tf.profile(lambda: model.execute_async(feeds))
tf.dispose([info.result, feeds])
model.dispose()
info.kernel_names
"""


def profile_model(url: str, backend: str) -> dict[str, Any]:
    """`build.py profile --model URL --backend NAME`: the kernels the model runs in the page (URLs relative
    to the page, e.g. models/blazeface.json, or absolute), as a config to start from."""
    from playwright.sync_api import sync_playwright

    build.build()
    httpd = serve(build.DIST)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(build.CHROMIUM), args=list(build.CHROMIUM_ARGS))
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/")
            page.wait_for_function("document.documentElement.dataset.webtf === 'ready'", timeout=180_000)
            code = PROFILE_MODEL_PY.replace("BACKEND", repr(backend)).replace("URL", repr(url))
            kernels = page.evaluate(PY_JS, code)
            browser.close()
    finally:
        httpd.shutdown()
    return {"kernels": kernels, "backends": [backend], "outputPath": "custom", "forwardModeOnly": True}


def boot_ms(browser: Any, url: str, visits: int = 1, mbps: float = 0) -> list[float]:
    """Navigation -> ready of `visits` boots in one fresh context: a first visit, then repeat visits; mbps > 0:
    over a link of that many Mbit/s down (DevTools' network emulation, 20 ms latency)."""
    context = browser.new_context()
    try:
        times = []
        for _ in range(visits):
            page = context.new_page()
            if mbps:
                conditions = {"offline": False, "latency": 20, "uploadThroughput": -1}
                cdp = context.new_cdp_session(page)
                cdp.send("Network.enable")
                cdp.send("Network.emulateNetworkConditions", {**conditions, "downloadThroughput": mbps * 125_000})
            page.goto(url)
            page.wait_for_function("document.documentElement.dataset.webtf === 'ready'", timeout=180_000)
            times.append(float(page.evaluate("window.webtfBootMs")))
            page.close()
        return times
    finally:
        context.close()


def serve(root: Path) -> Any:
    """A server of root on a free port (stop it with shutdown())."""
    httpd = build.make_server(0, quiet=True, root=root)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def main() -> None:
    """Profile, build, boot, print."""
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--configs", nargs="+", default=["a", "b"], choices=["a", "b"])
    parser.add_argument("--mbps", type=float, default=0, help="emulate a link of this many Mbit/s down")
    args = parser.parse_args()
    load = [os.getloadavg()[0]]
    build.build()
    work = Path(tempfile.mkdtemp(prefix="webtf-custom-"))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(build.CHROMIUM), args=list(build.CHROMIUM_ARGS))
        full = serve(build.DIST)
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{full.server_address[1]}/")
        page.wait_for_function("document.documentElement.dataset.webtf === 'ready'", timeout=180_000)
        kernels = page.evaluate(PY_JS, PROFILE_PY)
        page.close()
        models = build.DIST / "models"
        configs = {
            "a": {"kernels": kernels["blazeface"], "backends": ["wasm"], "models": [str(models / "blazeface.json")]},
            "b": {
                "kernels": kernels["blazeface"] + kernels["movenet"],
                "backends": ["cpu", "wasm", "webgl"],
                "models": [str(models / "blazeface.json"), str(models / "movenet-lightning.json")],
            },
        }
        sites = {"full": (build.DIST, None)}
        for name, config in [(name, configs[name]) for name in args.configs]:
            path = work / f"{name}.json"
            path.write_text(json.dumps({**config, "outputPath": str(work / name), "forwardModeOnly": True}))
            subprocess.run([sys.executable, "build.py", "custom", "--config", str(path)], cwd=ROOT, check=True)
            (wheel,) = (work / name).glob("*.whl")
            build.build(wheel, work / f"site-{name}")
            sites[name] = (work / f"site-{name}", json.loads((work / name / "report.json").read_text()))
        urls = {}
        for name, (root, _) in sites.items():
            httpd = full if root == build.DIST else serve(root)
            urls[name] = f"http://127.0.0.1:{httpd.server_address[1]}/"
        boots = {name: {"snapshot": [], "repeat": [], "plain": []} for name in sites}
        for _ in range(args.runs):  # interleaved (full, a, b, full, ...): a shared machine's load hits all alike
            for name, url in urls.items():
                first, repeat = boot_ms(browser, url, visits=2, mbps=args.mbps)
                boots[name]["snapshot"].append(first)
                boots[name]["repeat"].append(repeat)
                (plain,) = boot_ms(browser, url + "?snapshot=0", mbps=args.mbps)
                boots[name]["plain"].append(plain)
                load.append(os.getloadavg()[0])
        results: dict[str, Any] = {}
        for name, (root, report) in sites.items():
            snap, repeat, plain = boots[name]["snapshot"], boots[name]["repeat"], boots[name]["plain"]
            (snapshot,) = (root / "snapshot").glob("*.snap")
            results[name] = {
                "snapshot_bytes": snapshot.stat().st_size,
                "snapshot_gzip_bytes": snapshot.with_name(snapshot.name + ".gz").stat().st_size,
                "wheel_bytes": report["wheel_bytes"] if report else sites["a"][1]["full_wheel_bytes"],
                "wheel_gzip_bytes": report["wheel_gzip_bytes"] if report else sites["a"][1]["full_wheel_gzip_bytes"],
                "kernels": len(report["kernels"]) if report else None,
                "modules": len(report["modules"]) if report else None,
                "ready_ms_snapshot": statistics.median(snap),
                "ready_ms_repeat": statistics.median(repeat),
                "ready_ms_plain": statistics.median(plain),
                "min_ms": {"snapshot": min(snap), "repeat": min(repeat), "plain": min(plain)},
            }
        results["load_average"] = {"min": min(load), "max": max(load)}
        browser.close()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
