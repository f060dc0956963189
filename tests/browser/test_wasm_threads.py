"""The wasm backend on the threaded-SIMD binary: with 2 threads a conv net slice gives what the single-thread
build gives (and numpy), the shared heap grows, the pthread pool's workers start once and end on a trap (the
module is replaced by the SIMD build) or tf.remove_backend, and a page that
is not cross-origin isolated reports WASM_HAS_MULTITHREAD_SUPPORT false and runs on the single-thread build, as
does a page whose wasm path has no glue beside the threaded binary.

Both binaries cap the thread count at half the logical cores (as TF.js), so the isolated test reports 4 cores
to the page while its backend starts (this machine has 2), and puts the real figure back afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from playwright.sync_api import Browser, Route

from tests.conftest import PY_JS, boot_page

Py = Callable[[str], Any]

# Counts the Web Workers the page makes and ends while the test runs (the glue makes them with `new Worker`).
WORKERS_JS = """() => {
  const Base = globalThis.Worker, stats = { made: 0, ended: 0 };
  globalThis.Worker = class extends Base {
    constructor(...args) { super(...args); stats.made++; }
    terminate() { stats.ended++; super.terminate(); }
  };
  return { stats, restore: () => { globalThis.Worker = Base; } };
}"""

SLICE = """
def net():
    h = tf.fused.conv2d(x, f1, 1, "same", bias=b1, activation="relu")
    h = tf.depthwise_conv2d(h, d1, 1, "same")
    h = tf.max_pool(tf.relu6(h), 2, 2, "valid")
    h = tf.fused.conv2d(h, f2, 2, "same", bias=b2, activation="relu")
    flat = tf.reshape(h, [h.shape[0], -1])
    return [h, tf.mat_mul(flat, w)]

async def run_slice():
    outs = tf.tidy(net)
    values = [t.array_sync() for t in outs]
    tf.dispose(outs)
    return values

async def start(threads):
    ENV.set("WASM_USE_THREADS", threads > 0)
    tf.wasm.set_threads_count(max(threads, 1))
    if "wasm" in tf.ENGINE.factories:
        tf.remove_backend("wasm")
    tf.register_backend("wasm", tf.wasm.create_backend, 2)
    assert await tf.set_backend("wasm")
    return tf.backend()
"""


def test_threads_match_single_thread_and_the_pool_starts_once_and_ends(py: Py) -> None:
    rng = np.random.default_rng(3)
    shapes = {"x": (2, 24, 24, 8), "f1": (3, 3, 8, 16), "b1": (16,), "d1": (3, 3, 16, 1), "f2": (3, 3, 16, 8)}
    shapes |= {"b2": (8,), "w": (6 * 6 * 8, 10)}
    v = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
    args = {k: (a.ravel().tolist(), list(a.shape)) for k, a in v.items()}
    out = py(
        f"""
from pyodide.code import run_js
from webtf.environment import ENV
from webtf.backends.wasm import WasmTrapError
prev = tf.get_backend()
tensors_before = tf.memory().num_tensors
cores = run_js("navigator.hardwareConcurrency")
run_js("Object.defineProperty(navigator, 'hardwareConcurrency', {{value: 4, configurable: true}})")
workers = run_js({WORKERS_JS!r})()
{SLICE}
res = {{}}
try:
    be = await start(2)
    made_at_start = workers.stats.made
    tensors = {{k: tf.tensor(vals, shape) for k, (vals, shape) in {args!r}.items()}}
    x, f1, b1, d1, f2, b2, w = (tensors[k] for k in ("x", "f1", "b1", "d1", "f2", "b2", "w"))
    res["threaded"] = await run_slice()
    res["url"] = be.module.url
    res["count"] = tf.wasm.get_threads_count()
    res["alive"] = be.module.worker_count()
    heap = be.module.heap_size()
    big = tf.fill([24_000_000], 0.5)  # grows the shared memory: the heap views follow
    low = tf.tidy(lambda: tf.min(tf.add(big, 1)).array_sync())
    res["grown"] = [be.module.heap_size() > heap, low, big.data_sync()[-1]]
    big.dispose()
    await tf.set_backend("cpu")
    assert await tf.set_backend("wasm")
    res["again"] = [tf.backend() is be, await run_slice() == res["threaded"]]
    res["made"] = [made_at_start, workers.stats.made, workers.stats.ended]
    glue = be.module.glue
    tf.dispose(list(tensors.values()))
    await tf.set_backend("cpu")
    tf.remove_backend("wasm")
    pthread = glue.PThread
    res["removed"] = [workers.stats.ended, len(pthread.runningWorkers) + len(pthread.unusedWorkers)]
    be = await start(2)
    y = tf.range(0, 1000)
    be.abi.dispose_data(y.data_id)  # the binary's record of y points past the heap: its next read traps
    be._register(y.data_id, 1000, be.module.heap_size() - 16)
    be.defer = False  # the call traps at once (not where a queue runs)
    try:
        tf.abs(y)
    except WasmTrapError as e:
        res["trap"] = str(e)
    res["after_trap"] = [be.module.url, tf.wasm.get_threads_count(), workers.stats.ended, y.data_sync()[:3].tolist()]
    y.dispose()
    be = await start(0)
    tensors = {{k: tf.tensor(vals, shape) for k, (vals, shape) in {args!r}.items()}}
    x, f1, b1, d1, f2, b2, w = (tensors[k] for k in ("x", "f1", "b1", "d1", "f2", "b2", "w"))
    res["single"] = await run_slice()
    res["single_url"] = be.module.url
    res["single_count"] = [tf.wasm.get_threads_count(), be.module.worker_count()]
    tf.dispose(list(tensors.values()))
    tf.wasm.set_wasm_paths("vendor/tfjs/")  # the binaries without the threaded build's glue beside them
    be = await start(2)
    res["no_glue"] = [be.module.url, tf.wasm.get_threads_count(), be.module.worker_count()]
finally:
    tf.wasm.reset_wasm_paths()
    workers.restore()
    run_js("delete navigator.hardwareConcurrency")
    ENV.set("WASM_USE_THREADS", True)
    tf.wasm.set_threads_count(-1)
    await tf.set_backend("cpu")
    if "wasm" in tf.ENGINE.factories:
        tf.remove_backend("wasm")
    tf.register_backend("wasm", tf.wasm.create_backend, 2)
    await tf.set_backend(prev)
res["cores"] = [cores, run_js("navigator.hardwareConcurrency")]
res["leaked"] = tf.memory().num_tensors - tensors_before
res
"""
    )
    assert out["url"].endswith("tfjs-backend-wasm-threaded-simd.wasm")
    assert out["single_url"].endswith("tfjs-backend-wasm-simd.wasm")
    assert out["cores"][0] == out["cores"][1]
    assert out["leaked"] == 0
    assert out["count"] == 2 and out["alive"] == 1  # XNNPACK's pool: the page's thread and one worker
    # the glue starts its 8 workers once; the 7 the pool does not use end at once, none start afterwards
    assert out["made"] == [8, 8, 7]
    assert out["again"] == [True, True]
    assert out["removed"] == [8, 0]  # remove_backend ends the last one
    assert out["grown"] == [True, 1.5, 0.5]
    # a trap: the module is replaced by the SIMD build (its tensors carried over), the workers end
    assert "the wasm module was re-instantiated" in out["trap"]
    assert out["after_trap"] == ["wasm/tfjs-backend-wasm-simd.wasm", 1, 16, [0.0, 1.0, 2.0]]
    assert out["single_count"] == [1, 0]
    assert out["no_glue"] == ["vendor/tfjs/tfjs-backend-wasm-simd.wasm", 1, 0]  # falls back to SIMD
    threaded = [np.array(a) for a in out["threaded"]]
    single = [np.array(a) for a in out["single"]]
    for a, b in zip(threaded, single, strict=True):
        np.testing.assert_array_equal(a, b)  # same kernels, the work split over threads: equal values
    # and both match numpy (the slice's last output: a matmul over the flattened features)
    h = threaded[0].reshape(2, -1)
    np.testing.assert_allclose(threaded[1], h.astype(np.float64) @ v["w"], rtol=1e-4, atol=1e-4)


def test_page_without_isolation_falls_back_to_single_thread(browser: Browser, server: str) -> None:
    context = browser.new_context()

    def without_isolation(route: Route) -> None:
        response = route.fetch()
        drop = {
            "cross-origin-opener-policy",
            "cross-origin-embedder-policy",
            "content-encoding",
            "content-length",
        }
        headers = {k: v for k, v in response.headers.items() if k.lower() not in drop}
        route.fulfill(response=response, headers=headers)

    try:
        context.route(server, without_isolation)
        page = context.new_page()
        boot_page(page, server, [])
        out = page.evaluate(
            PY_JS,
            """
import js
from webtf.environment import ENV
before = tf.memory().num_tensors
assert await tf.set_backend("wasm")
y = tf.tidy(lambda: tf.conv2d(tf.ones([1, 4, 4, 2]), tf.ones([3, 3, 2, 1]), 1, "same"))
res = [bool(js.crossOriginIsolated), ENV.get("WASM_HAS_MULTITHREAD_SUPPORT"), tf.backend().module.url,
       tf.wasm.get_threads_count(), tf.backend().module.worker_count(), y.array_sync()]
tf.dispose(y)
res + [tf.memory().num_tensors - before]
""",
        )
    finally:
        context.close()
    isolated, flag, url, count, workers, values, leaked = out
    assert leaked == 0
    assert isolated is False and flag is False
    assert url.endswith("tfjs-backend-wasm-simd.wasm") and count == 1 and workers == 0
    ones = np.ones((1, 4, 4, 2))
    padded = np.pad(ones, ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = sum(padded[:, i : i + 4, j : j + 4].sum(-1) for i in range(3) for j in range(3))
    np.testing.assert_allclose(np.array(values)[..., 0], ref)
