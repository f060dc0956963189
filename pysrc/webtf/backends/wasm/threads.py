"""The threaded-SIMD binary: its pthread pool runs in Web Workers that instantiate the module on one shared memory.

Pthreads need a runtime on both sides (creating workers, handing them the module and the memory, proxying
their calls); that is the Emscripten JS glue shipped beside the binary in @tensorflow/tfjs-backend-wasm 4.22.0
(`tfjs-backend-wasm-threaded-simd.js` and its worker script, build.py serves both next to the .wasm). webtf
drives the glue only to start the module: kernels then call the raw exports from Python as on the other builds.

`set_threads_count(n)` / `get_threads_count()` are TF.js's: the count is read when the backend starts, -1 (the
default) lets the binary pick (half the logical cores, at most 8); the binary caps any count at that too.
Unlike TF.js, a pool of one thread (e.g. the default on a 2-core machine) runs on the single-thread SIMD build.
"""

from __future__ import annotations

from typing import Any

from ...environment import ENV
from .. import js as bridge

GLUE_NAME = "tfjs-backend-wasm-threaded-simd.js"
WORKER_NAME = "tfjs-backend-wasm-threaded-simd.worker.js"

_count = {"requested": -1, "actual": -1}
_MAX_THREADS = 8  # the glue starts 8 workers: the binary never makes a larger pool

# A JS object with prefetch(glueUrl) and start(...): the glue is fetched once per URL and evaluated as a
# function (it defines WasmBackendModuleThreadedSimd); its workers import the same URL (mainScriptUrlOrBlob).
_LOADER_JS = """(() => {
  const factories = new Map();
  const factoryOf = (url) => {
    let made = factories.get(url);
    if (!made) {
      made = fetch(url).then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
        return response.text();
      }).then((text) => new Function(`${text}\\nreturn WasmBackendModuleThreadedSimd;`)());
      factories.set(url, made);
      made.catch(() => factories.delete(url));
    }
    return made;
  };
  return {
    prefetch: (url) => { factoryOf(url).catch(() => {}); },
    start: async (glueUrl, workerUrl, compiled, print, onGrow) => {
      const factory = await factoryOf(glueUrl);
      let fail;
      const failed = new Promise((_, reject) => { fail = reject; });
      failed.catch(() => {}); // an abort after the start is the kernels' to report
      const config = {
        mainScriptUrlOrBlob: glueUrl,
        locateFile: (path) => (path.endsWith(".worker.js") ? workerUrl : path),
        instantiateWasm: (imports, receive) => {
          const grow = imports.env.emscripten_resize_heap;
          imports.env.emscripten_resize_heap = (n) => { const ok = grow(n); if (ok) onGrow(); return ok; };
          WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance, compiled)).catch(fail);
          return {};
        },
        print: (text) => print(text),
        printErr: (text) => print(text),
        onAbort: (what) => fail(new Error(`the threaded module aborted: ${what}`)),
      };
      try {
        return await Promise.race([failed, factory(config)]);
      } catch (error) {
        config.PThread?.terminateAllThreads(); // the glue's Module is the config object: end its workers
        throw error;
      }
    },
    workers: (module) => module.PThread.runningWorkers.length + module.PThread.unusedWorkers.length,
    trim: (module) => {
      for (const worker of module.PThread.unusedWorkers) worker.terminate();
      module.PThread.unusedWorkers = [];
    },
    stop: (module) => module.PThread.terminateAllThreads(),
  };
})()"""
_loader: list[Any] = []


def loader() -> Any:
    """The JS side (made once per page)."""
    if not _loader:
        from pyodide.code import run_js  # type: ignore[import-not-found]

        _loader.append(run_js(_LOADER_JS))
    return _loader[0]


def set_threads_count(count: int) -> None:
    """The number of threads XNNPACK's pool uses (TF.js setThreadsCount); call it before the wasm backend
    starts (a running backend keeps its pool). -1 lets the binary pick."""
    if type(count) is not int:
        raise TypeError(f"set_threads_count: count must be an int, got {type(count).__name__}")
    _count["requested"] = count


def get_threads_count() -> int:
    """The number of threads the running (or last started) wasm backend's pool uses (TF.js getThreadsCount)."""
    if _count["actual"] == -1:
        raise RuntimeError("WASM backend not initialized.")
    return _count["actual"]


def requested() -> int:
    """The count set_threads_count asked for (-1: the binary's default)."""
    return _count["requested"]


def started(actual: int) -> None:
    """Record the count a starting backend's pool got."""
    _count["actual"] = actual


def pool_size() -> int:
    """The pool size the threaded binary would make for the requested count (its rule: the count, or half
    the logical cores for -1, capped at half the logical cores and at 8)."""
    half = int(bridge.js.navigator.hardwareConcurrency or 0) // 2 if bridge.available() else 0
    count = _count["requested"]
    return max(0, min(count if count >= 0 else half, half, _MAX_THREADS))


def wanted() -> bool:
    """Whether the wasm backend should load the threaded build: SIMD and threads supported, WASM_USE_THREADS,
    and a pool of 2 threads or more (with one, the single-thread SIMD build does the same work without the
    workers or the atomics)."""
    return bool(
        ENV.get("WASM_USE_THREADS")
        and ENV.get("WASM_HAS_MULTITHREAD_SUPPORT")
        and ENV.get("WASM_HAS_SIMD_SUPPORT")
        and pool_size() >= 2
    )


def runtime_urls(wasm_url: str) -> tuple[str, str]:
    """Absolute URLs of the glue and its worker script: beside the threaded binary."""
    base = bridge.js.URL.new(wasm_url, bridge.js.location.href)
    return bridge.js.URL.new(GLUE_NAME, base).href, bridge.js.URL.new(WORKER_NAME, base).href
