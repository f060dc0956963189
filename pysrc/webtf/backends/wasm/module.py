"""Loading TF.js's wasm binary from Python: paths (set_wasm_paths), fetch, the seven imports, heap access.

The binary is the Emscripten build of @tensorflow/tfjs-backend-wasm. Instead of its JS glue, the imports
are Python functions: abort raises, emscripten_resize_heap grows the memory (and refreshes the heap view),
fd_write collects what the module prints (XNNPACK and kernel warnings) into `WasmModule.log`.

Where threads can run (WASM_HAS_MULTITHREAD_SUPPORT, SIMD, WASM_USE_THREADS) the threaded-SIMD build is
started through its Emscripten glue instead (threads.py); its memory is then a SharedArrayBuffer. Where the
glue cannot be loaded, the SIMD build is used (with a warning).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Mapping
from typing import Any

from ...environment import ENV
from .. import js as bridge
from . import threads

BINARY_NAMES = (
    "tfjs-backend-wasm.wasm",
    "tfjs-backend-wasm-simd.wasm",
    "tfjs-backend-wasm-threaded-simd.wasm",
)
DEFAULT_PREFIX = "wasm/"
_PAGE = 65536
_HEAP_MAX = 65536 * _PAGE - _PAGE  # 4 GiB less a page: every pointer stays a valid unsigned i32
_LOG_KEEP = 200

_paths: dict[str, Any] = {"prefix": DEFAULT_PREFIX, "files": {}}


class WasmLoadError(RuntimeError):
    """The wasm binary could not be fetched, compiled or started."""


class WasmAbort(RuntimeError):
    """The wasm module called abort()."""


def set_wasm_paths(prefix_or_mapping: str | Mapping[str, str]) -> None:
    """Where the .wasm binaries are (TF.js setWasmPaths): a folder prefix, or binary file name -> URL.

    Takes effect the next time the wasm backend initializes (a backend already running keeps its binary).
    """
    if isinstance(prefix_or_mapping, str):
        _paths["prefix"] = prefix_or_mapping
        _paths["files"] = {}
        return
    if not isinstance(prefix_or_mapping, Mapping):
        raise TypeError("set_wasm_paths: expected a prefix string or a mapping of binary names to URLs")
    missing = [name for name in BINARY_NAMES if prefix_or_mapping.get(name) is None]
    if missing:
        raise ValueError(
            f"There were no entries found for the following binaries: {','.join(missing)}. Please either "
            "call set_wasm_paths with a mapping providing a path for each binary, or with a string "
            "indicating the directory where all the binaries can be found."
        )
    _paths["files"] = {name: str(prefix_or_mapping[name]) for name in BINARY_NAMES}


def reset_wasm_paths() -> None:
    """Back to the default: the page-relative folder wasm/."""
    set_wasm_paths(DEFAULT_PREFIX)


def binary_name(simd: bool, threaded: bool = False) -> str:
    """The file name of the binary to load (the threaded build is a SIMD one)."""
    return BINARY_NAMES[2] if simd and threaded else BINARY_NAMES[1] if simd else BINARY_NAMES[0]


def binary_url(simd: bool, threaded: bool = False) -> str:
    """The URL the binary is fetched from under the current set_wasm_paths settings."""
    name = binary_name(simd, threaded)
    return _paths["files"].get(name) or _paths["prefix"] + name


async def fetch_binary(url: str) -> Any:
    """The bytes of the binary at `url` as a JS ArrayBuffer; WasmLoadError when it cannot be fetched."""
    js = bridge.js
    try:
        response = await js.fetch(url)
    except Exception as e:
        raise WasmLoadError(f"failed to fetch the wasm binary at '{url}': {e}") from None
    if not response.ok:
        raise WasmLoadError(
            f"failed to load wasm binary file at '{url}' (HTTP {response.status}). Make sure the server "
            "serves the .wasm files, or point webtf.wasm.set_wasm_paths() at them."
        )
    return await response.arrayBuffer()


class WasmModule:
    """An instantiated binary: its exports (`raw`), memory, a Uint8Array heap view and the text it printed."""

    def __init__(self, url: str, compiled: Any = None) -> None:
        self.url = url
        self.compiled = compiled  # the WebAssembly.Module: a fresh instance of it needs no fetch or compile
        self.raw: Any = None
        self.memory: Any = None
        self.u8: Any = None
        self.log: list[str] = []  # lines the module wrote to stdout / stderr (kept: the last _LOG_KEEP)
        self.log_count = 0  # total lines ever written: kernels compare it before and after a call
        self._partial = ""
        self._proxies: list[Any] = []
        self.glue: Any = None  # the threaded build's Emscripten Module (its pthread pool), else None
        #: threaded build: (URL, compiled module) of the single-thread SIMD build, for fresh()
        self.spare: tuple[str, Any] | None = None

    # ---- imports ----------------------------------------------------------------------------------
    def _abort(self) -> None:
        detail = f": {self.log[-1]}" if self.log else ""
        raise WasmAbort(f"the wasm module ({self.url}) aborted{detail}")

    def _memcpy_big(self, dest: int, src: int, num: int) -> None:
        src &= 0xFFFFFFFF
        self.u8.copyWithin(dest & 0xFFFFFFFF, src, src + (num & 0xFFFFFFFF))

    def _heap_max(self) -> int:
        return _HEAP_MAX

    def _resize_heap(self, requested: int) -> int:
        requested &= 0xFFFFFFFF
        old = self.memory.buffer.byteLength
        if requested > _HEAP_MAX:
            return 0
        # Over-allocate a little (20 %, then less) like Emscripten, so growth stays rare.
        for cut in (1, 2, 3, 4):
            target = min(int(old * (1 + 0.2 / cut)), requested + 96 * 1024 * 1024)
            new_size = min(_HEAP_MAX, -(-max(requested, target) // _PAGE) * _PAGE)
            try:
                self.memory.grow((new_size - old) // _PAGE)
            except Exception:
                continue
            self.refresh_views()
            return 1
        return 0

    def _fd_write(self, fd: int, iov: int, iovcnt: int, pnum: int) -> int:
        vecs = array("i")
        vecs.frombytes(self.read(iov & 0xFFFFFFFF, 8 * iovcnt))
        chunks = [self.read(vecs[2 * k] & 0xFFFFFFFF, vecs[2 * k + 1]) for k in range(iovcnt)]
        data = b"".join(chunks)
        self.write(pnum & 0xFFFFFFFF, memoryview(array("i", [len(data)])).cast("B"))
        text = self._partial + data.decode("utf-8", "replace")
        *lines, self._partial = text.split("\n")
        for line in lines:
            self._print(line)
        return 0

    def _print(self, line: str) -> None:
        self.log.append(line)
        self.log_count += 1
        del self.log[:-_LOG_KEEP]

    def _fd_close(self, fd: int) -> int:
        return 0

    def _fd_seek(self, fd: int, offset_low: int, offset_high: int, whence: int, new_offset: int) -> int:
        return 70  # ESPIPE: nothing here is seekable

    def _proxy(self, fn: Any) -> Any:
        from pyodide.ffi import create_proxy  # type: ignore[import-not-found]

        p = create_proxy(fn)
        self._proxies.append(p)
        return p

    def imports(self) -> Any:
        """The import object for WebAssembly.instantiate (Python callables wrapped as JS functions)."""
        proxy = self._proxy
        return bridge.js_object(
            {
                "env": bridge.js_object(
                    {
                        "abort": proxy(self._abort),
                        "emscripten_memcpy_big": proxy(self._memcpy_big),
                        "emscripten_get_heap_max": proxy(self._heap_max),
                        "emscripten_resize_heap": proxy(self._resize_heap),
                    }
                ),
                "wasi_snapshot_preview1": bridge.js_object(
                    {
                        "fd_write": proxy(self._fd_write),
                        "fd_close": proxy(self._fd_close),
                        "fd_seek": proxy(self._fd_seek),
                    }
                ),
            }
        )

    # ---- heap ---------------------------------------------------------------------------------------
    def refresh_views(self) -> None:
        """Re-create the heap view (the old one is detached whenever the memory grows)."""
        self.u8 = bridge.js.Uint8Array.new(self.memory.buffer)

    def heap_size(self) -> int:
        """Bytes of wasm memory (the heap)."""
        return int(self.memory.buffer.byteLength)

    def write(self, ptr: int, data: Any) -> None:
        """Copy a bytes-like object (format 'B') into the heap at `ptr`, in one bulk copy."""
        n = len(data)
        if n:
            try:
                self.u8.subarray(ptr, ptr + n).assign(data)
            except Exception:  # a stale view: a pthread grew the shared memory (the view is clamped)
                self.refresh_views()
                self.u8.subarray(ptr, ptr + n).assign(data)

    def read(self, ptr: int, nbytes: int) -> bytes:
        """`nbytes` bytes of the heap at `ptr`, in one bulk copy."""
        if not nbytes:
            return b""
        data = self.u8.subarray(ptr, ptr + nbytes).to_bytes()
        if len(data) != nbytes:  # a stale view, as in write
            self.refresh_views()
            data = self.u8.subarray(ptr, ptr + nbytes).to_bytes()
        return data

    def recent_log(self, since: int) -> str:
        """The lines printed since the log count was `since` (those still kept), joined."""
        n = self.log_count - since
        return "; ".join(self.log[-n:]) if n > 0 else ""

    def fused_calls(self, malloc: Any, register: Any, unregister: Any, free: Any) -> tuple[Any, Any]:
        """(alloc(id, size, nbytes, old_id, old_ptr) -> ptr: release old_id first when not 0, then malloc +
        register_tensor; release(id, ptr): dispose_data + free), one JS call each instead of two to four: a
        kernel's per-call cost is mostly such crossings."""
        from pyodide.code import run_js  # type: ignore[import-not-found]

        pair = run_js(
            "(m, r, u, f) => [(id, size, n, oid, op) => { if (oid) { u(oid); f(op); }"
            " const p = m(n); if (p) r(id, size, p); return p; }, (id, p) => { u(id); f(p); }]"
        )(malloc, register, unregister, free)
        return pair[0], pair[1]

    def batch_releaser(self, unregister: Any, free: Any) -> Any:
        """release_many(ptr, n): dispose_data + free for n (data id, pointer) int32 pairs at ptr in the heap, in
        one JS call (the backend batches the frees of a tidy scope's end)."""
        from pyodide.code import run_js  # type: ignore[import-not-found]

        return run_js(
            "(memory, u, f) => (p, n) => { const a = new Int32Array(memory.buffer, p, 2 * n);"
            " for (let i = 0; i < 2 * n; i += 2) { u(a[i]); f(a[i + 1]); } }"
        )(self.memory, unregister, free)

    def strided_copier(self) -> Any:
        """copy(src, dst, run_bytes, plan_ptr, n): copy runs of `run_bytes` bytes within the heap, over n
        nested axes given as int32 (count, src_step_bytes, dst_step_bytes) triples at plan_ptr, outermost
        first. One JS call moves a whole slice / concat part (the binary has no export for these)."""
        from pyodide.code import run_js  # type: ignore[import-not-found]

        return run_js(
            """(memory) => (src, dst, run, plan, n) => {
  const heap = new Uint8Array(memory.buffer);
  if (n === 0) { heap.copyWithin(dst, src, src + run); return; }
  const p = new Int32Array(memory.buffer, plan, 3 * n);
  const idx = new Int32Array(n);
  let s = src, d = dst;
  for (;;) {
    heap.copyWithin(d, s, s + run);
    let j = n - 1;
    for (; j >= 0; j--) {
      idx[j]++; s += p[3 * j + 1]; d += p[3 * j + 2];
      if (idx[j] < p[3 * j]) break;
      s -= p[3 * j + 1] * p[3 * j]; d -= p[3 * j + 2] * p[3 * j]; idx[j] = 0;
    }
    if (j < 0) return;
  }
}"""
        )(self.memory)

    def row_gatherer(self) -> Any:
        """gather(src, dst, run, outer, outer_step, idx, n, idx_step): for each of `outer` blocks (outer_step
        bytes apart) and each int32 index at idx (n of them, in the heap), copy `run` bytes from
        block + index * idx_step to dst, packed. One JS call for a whole gather along an axis."""
        from pyodide.code import run_js  # type: ignore[import-not-found]

        return run_js(
            """(memory) => (src, dst, run, outer, outerStep, idx, n, idxStep) => {
  const ix = new Int32Array(memory.buffer, idx, n);
  if (run === 4 && (src & 3) === 0 && (dst & 3) === 0 && (outerStep & 3) === 0 && (idxStep & 3) === 0) {
    const w = new Int32Array(memory.buffer);
    let d = dst >> 2;
    for (let o = 0; o < outer; o++) {
      const base = (src + o * outerStep) >> 2, step = idxStep >> 2;
      for (let k = 0; k < n; k++) w[d++] = w[base + ix[k] * step];
    }
    return;
  }
  const heap = new Uint8Array(memory.buffer);
  let d = dst;
  for (let o = 0; o < outer; o++) {
    const base = src + o * outerStep;
    for (let k = 0; k < n; k++) { const s = base + ix[k] * idxStep; heap.copyWithin(d, s, s + run); d += run; }
  }
}"""
        )(self.memory)

    def converter(self) -> Any:
        """convert(src, dst, n, from, to): n elements from one dtype to another in the heap (dtype enum codes
        0 float32, 1 int32, 2 bool), as JS typed arrays store them (float -> int truncates, bool is x != 0)."""
        from pyodide.code import run_js  # type: ignore[import-not-found]

        return run_js(
            """(memory) => (src, dst, n, from, to) => {
  const kinds = [Float32Array, Int32Array, Uint8Array];
  const a = new kinds[from](memory.buffer, src, n);
  if (to === 2) {
    const o = new Uint8Array(memory.buffer, dst, n);
    for (let i = 0; i < n; i++) o[i] = a[i] !== 0 ? 1 : 0;
    return;
  }
  new kinds[to](memory.buffer, dst, n).set(a);
}"""
        )(self.memory)

    def release(self) -> None:
        """Stop the pthread workers (threaded build) and drop the JS proxies of the imports (the module must
        not run afterwards)."""
        if self.glue is not None:
            threads.loader().stop(self.glue)
            self.glue = None
        for p in self._proxies:
            p.destroy()
        self._proxies.clear()

    def worker_count(self) -> int:
        """The Web Workers of the pthread pool (0 on the single-thread builds)."""
        return int(threads.loader().workers(self.glue)) if self.glue is not None else 0

    def start(self, instance: Any) -> None:
        """Adopt a new instance of the binary: its exports and memory, then run its initializers."""
        self.raw = instance.exports
        self.memory = self.raw.memory
        self.refresh_views()
        getattr(self.raw, "__wasm_call_ctors")()  # noqa: B009  (a literal attribute here would be name-mangled)
        self.raw.init()
        threads.started(1)

    async def start_threaded(self) -> None:
        """Start the threaded build through its glue (which runs the initializers and loads its 8 workers),
        make XNNPACK's pool of the requested size, then let the workers the pool does not use go."""
        glue_url, worker_url = threads.runtime_urls(self.url)
        grown = self._proxy(self.refresh_views)
        self.glue = await threads.loader().start(
            glue_url, worker_url, self.compiled, self._proxy(self._print), grown
        )
        self.raw = self.glue.asm
        self.memory = self.glue.wasmMemory
        self.refresh_views()
        self.raw.init_with_threads_count(threads.requested())
        threads.started(int(self.raw.get_threads_count()))
        threads.loader().trim(self.glue)

    def fresh(self) -> WasmModule:
        """A new instance of the same compiled binary with a new, empty heap (synchronous: no fetch, no
        compile), for when this instance's state can no longer be trusted. The threaded build's workers start
        asynchronously, so it is replaced by the single-thread SIMD build (compiled when it started)."""
        url, compiled = self.url, self.compiled
        if self.glue is not None:
            if self.spare is None:
                raise WasmLoadError(
                    "the single-thread SIMD build could not be compiled to replace the threaded one"
                )
            url, compiled = self.spare
        module = WasmModule(url, compiled)
        try:
            module.start(bridge.js.WebAssembly.Instance.new(compiled, module.imports()))
        except Exception:
            module.release()
            raise
        return module


_precompiled: dict[str, Any] = {}  # URL -> the JS promise of its WebAssembly.Module (see precompile)
# fetch + compile in the browser, off Python's thread; a failure is reported by load_module, which retries
_COMPILE_JS = """(url) => {
  const compiled = fetch(url).then((response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.arrayBuffer();
  }).then((bytes) => WebAssembly.compile(bytes));
  compiled.catch(() => {}); // not an unhandled rejection while nobody awaits it yet
  return compiled;
}"""


def _url(simd: bool | None, url: str | None, threaded: bool = False) -> str:
    if url is not None:
        return url
    return binary_url(bool(ENV.get("WASM_HAS_SIMD_SUPPORT")) if simd is None else simd, threaded)


def precompile(simd: bool | None = None, url: str | None = None) -> None:
    """Start fetching and compiling the binary the wasm backend would load, in the background: its first start
    then only instantiates it. A page calls this early (web/boot.py does at ready); it does nothing outside a
    browser or when that binary is already on its way."""
    if not bridge.available():
        return
    threaded = simd is None and url is None and threads.wanted()
    url = _url(simd, url, threaded)
    if url not in _precompiled:
        from pyodide.code import run_js  # type: ignore[import-not-found]

        _precompiled[url] = run_js(_COMPILE_JS)(url)
        if threaded:  # its glue, and the SIMD build that replaces it after a trap (WasmModule.fresh)
            threads.loader().prefetch(threads.runtime_urls(url)[0])
            precompile(simd=True)


async def _compile(url: str) -> Any:
    """The WebAssembly.Module of the binary at url: the one precompile started, else fetched and compiled now."""
    started = _precompiled.pop(url, None)
    if started is not None:
        try:
            return await started
        except Exception:
            pass  # fetched or compiled badly in the background: try once more, reporting what goes wrong
    binary = await fetch_binary(url)
    try:
        return await bridge.js.WebAssembly.compile(binary)
    except Exception as e:
        raise WasmLoadError(f"could not compile or instantiate the wasm binary at '{url}': {e}") from None


async def load_module(simd: bool | None = None, url: str | None = None) -> WasmModule:
    """Fetch, compile and start the binary: the threaded build where threads.wanted() (unless `simd` or `url`
    says which binary), else SIMD where supported unless `simd` says otherwise."""
    if not bridge.available():
        raise WasmLoadError("the wasm backend needs a browser (Pyodide); it is not available in CPython")
    if simd is None and url is None and threads.wanted():
        try:
            return await _load_threaded(_url(None, None, threaded=True))
        except WasmLoadError as e:
            print(f"webtf: {e}; using the single-thread SIMD build", file=sys.stderr)
    url = _url(simd, url)
    module = WasmModule(url, await _compile(url))
    try:
        instance = await bridge.js.WebAssembly.instantiate(module.compiled, module.imports())
    except Exception as e:
        module.release()
        raise WasmLoadError(f"could not compile or instantiate the wasm binary at '{url}': {e}") from None
    try:
        module.start(instance)
    except Exception as e:
        module.release()
        raise WasmLoadError(f"the wasm binary at '{url}' failed to start: {e}") from None
    return module


async def _load_threaded(url: str) -> WasmModule:
    """The threaded build started through its glue (see threads.py), with the SIMD build compiled beside it
    (module.spare, for fresh())."""
    spare_url = binary_url(True)
    precompile(simd=True)
    module = WasmModule(url, await _compile(url))
    try:
        await module.start_threaded()
    except Exception as e:
        module.release()
        raise WasmLoadError(f"the threaded wasm binary at '{url}' failed to start: {e}") from None
    try:
        module.spare = (spare_url, await _compile(spare_url))
    except WasmLoadError as e:
        print(f"webtf: {e}; a trap in the threaded wasm module will need another backend", file=sys.stderr)
    return module
