"""The op-suite fixture `run`: one test body, run on the host (numpy oracle) and in the page per backend.

    def test_add(run):
        a, b = rand(2, 3), rand(3)
        np.testing.assert_allclose(run("tf.add(a, b)", a=a, b=b), a + b, rtol=1e-6)

`run(expr, **inputs)` builds tensors from the numpy inputs (float32/int32/bool), evaluates `expr`, returns the
result as numpy arrays (lists/tuples/dicts of them for multi-output ops), and fails the test if any tensor leaked.
An error raised by the op is raised again here with the same class and message, so pytest.raises works.
`run.backend` names the target ("host" = cpu, "host-numpy", or the page backend); `run.tol` is the float
tolerance for it.
"""

from __future__ import annotations

import builtins
import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.conftest import SharedPage
from tests.harness.aio import run_sync
from tests.harness.runner import run_payload

#: page backends the op suite runs on (more are added as backends land); WEBTF_OP_TARGETS overrides.
#: "wasm-plain" is the wasm backend on the binary without SIMD, registered under that name by this fixture;
#: "wasm-threads" (opt-in: WEBTF_OP_TARGETS=page-wasm-threads) the threaded-SIMD build with 2 threads.
PAGE_BACKENDS = ["cpu", "wasm", "wasm-plain", "webgl"]
#: host targets: "host" is the cpu backend (the reference), "host-numpy" the numpy backend
HOST_BACKENDS = {"host": "cpu", "host-numpy": "numpy"}
TARGETS = os.environ.get(
    "WEBTF_OP_TARGETS", ",".join([*HOST_BACKENDS, *(f"page-{b}" for b in PAGE_BACKENDS)])
).split(",")


def _spec(a: Any) -> dict[str, Any]:
    arr = np.asarray(a)
    dtype = {"f": "float32", "i": "int32", "u": "int32", "b": "bool"}[arr.dtype.kind]
    vals = arr.astype(np.float64 if dtype == "float32" else np.int64 if dtype == "int32" else bool).ravel()
    return {"values": vals.tolist(), "shape": list(arr.shape), "dtype": dtype}


_NP = {"float32": np.float32, "int32": np.int32, "bool": np.bool_}


def _to_numpy(out: Any) -> Any:
    if "values" in out:
        if out["dtype"] == "string":
            return np.array(out["values"], object).reshape(out["shape"])
        vals = [float(v) if isinstance(v, str) else v for v in out["values"]]
        if out["dtype"] == "complex64":  # interleaved re, im
            return np.array(vals, np.float32).view(np.complex64).reshape(out["shape"])
        return np.array(vals, dtype=_NP[out["dtype"]]).reshape(out["shape"])
    if "list" in out:
        return [_to_numpy(o) for o in out["list"]]
    if "dict" in out:
        return {k: _to_numpy(v) for k, v in out["dict"].items()}
    return out["py"]


class Runner:
    """Callable fixture object: run(expr, setup=None, **inputs) -> numpy result."""

    def __init__(self, backend: str, call: Callable[[dict[str, Any]], dict[str, Any]], tol: float) -> None:
        self.backend = backend
        self._call = call
        self.tol = tol

    def __call__(self, expr: str, setup: str | None = None, **inputs: Any) -> Any:
        payload = {"expr": expr, "setup": setup, "inputs": {k: _spec(v) for k, v in inputs.items()}}
        res = self._call(payload)
        if res["error"]:
            cls = getattr(builtins, res["error"]["type"], None)
            if not (isinstance(cls, type) and issubclass(cls, Exception)):
                cls = RuntimeError
            if res["leaked"]:
                pytest.fail(f"{res['leaked']} tensors leaked while {expr!r} raised {res['error']}")
            raise cls(res["error"]["message"])
        assert res["leaked"] == 0, f"{expr!r} leaked {res['leaked']} tensors"
        return _to_numpy(res["out"])


def _host_call(backend: str, payload: dict[str, Any]) -> dict[str, Any]:
    import webtf as tf

    async def on_backend() -> dict[str, Any]:
        if not await tf.set_backend(backend):
            raise RuntimeError(f"backend {backend} could not be initialized on the host")
        return await run_payload(tf, payload)

    return json.loads(json.dumps(run_sync(on_backend())))


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Give op tests pytest-playwright's `browser_name` parameter when page targets run.

    Their page targets reach the browser through getfixturevalue, which pytest-playwright's own hook (after this
    one) cannot see; without the parameter the session browser, and the booted page, would be closed and
    launched again each time a test with it and a test without it follow each other.
    """
    if "run" in metafunc.fixturenames and any(t.startswith("page-") for t in TARGETS):
        metafunc.fixturenames.append("browser_name")


@pytest.fixture(params=TARGETS)
def run(request: pytest.FixtureRequest) -> Runner:
    """Run an op expression on each target (host CPython on cpu and numpy, then the page per backend)."""
    target = request.param
    if target in HOST_BACKENDS:
        backend = HOST_BACKENDS[target]
        return Runner(target, lambda payload: _host_call(backend, payload), 1e-5)
    backend = target.removeprefix("page-")
    request.getfixturevalue("webtf_page")  # records the test on the shared page (--tracing, --screenshot)
    page_run = request.getfixturevalue("page_op_runner")
    return Runner(backend, lambda payload: page_run(backend, payload), 1e-5 if backend != "webgl" else 1e-3)


_INSTALL_PY = """
import sys, types
_m = types.ModuleType("webtf_test_runner")
exec(_webtf_runner_src, _m.__dict__)
sys.modules["webtf_test_runner"] = _m
del _webtf_runner_src

def _register_wasm_plain():
    import webtf as tf
    from webtf.backends import wasm
    from webtf.kernel_registry import get_kernels_for_backend, register_kernels

    if "wasm-plain" in tf.ENGINE.factories:  # installed already (the fuzz suite shares this code)
        return
    register_kernels("wasm-plain", get_kernels_for_backend("wasm"))
    tf.register_backend("wasm-plain", lambda: wasm.create_backend(simd=False), 0)

_register_wasm_plain()

def _register_wasm_threads():
    # opt-in target page-wasm-threads (not in PAGE_BACKENDS): the threaded-SIMD build with 2 threads, on any
    # machine (the binary caps the count at half the reported cores, so the page reports at least 4 meanwhile)
    import webtf as tf
    from pyodide.code import run_js
    from webtf.backends import wasm
    from webtf.kernel_registry import get_kernels_for_backend, register_kernels

    if "wasm-threads" in tf.ENGINE.factories:
        return

    async def create():
        cores = run_js("navigator.hardwareConcurrency")
        shown = max(cores, 4)
        run_js(f"Object.defineProperty(navigator, 'hardwareConcurrency', {{value: {shown}, configurable: true}})")
        wasm.set_threads_count(2)
        try:
            backend = await wasm.create_backend()
        finally:
            wasm.set_threads_count(-1)
            run_js("delete navigator.hardwareConcurrency")
        if wasm.get_threads_count() != 2:
            raise RuntimeError("the wasm-threads target did not get 2 threads")
        return backend

    register_kernels("wasm-threads", get_kernels_for_backend("wasm"))
    tf.register_backend("wasm-threads", create, 0)

_register_wasm_threads()

async def _webtf_op_run(backend, payload_json):
    import webtf as tf
    if tf.get_backend() != backend and not await tf.set_backend(backend):
        raise RuntimeError(f"backend {backend} could not be initialized in the page")
    if backend != "webgl":
        return await sys.modules["webtf_test_runner"].run_json(tf, payload_json)
    # the GLSL kernels, not the cpu twins that tiny on-host inputs forward to (test_webgl.py tests those)
    forward = tf.env().get("WEBGL_CPU_FORWARD")
    tf.env().set("WEBGL_CPU_FORWARD", False)
    try:
        return await sys.modules["webtf_test_runner"].run_json(tf, payload_json)
    finally:
        tf.env().set("WEBGL_CPU_FORWARD", forward)
"""

_INSTALL_JS = """([src, code]) => {
  window.pyodide.globals.set("_webtf_runner_src", src);
  window.pyodide.runPython(code);
}"""

_RUN_JS = """async ([backend, payload]) => {
  const fn = window.pyodide.globals.get("_webtf_op_run");
  try { return await fn(backend, payload); } finally { fn.destroy(); }
}"""


@pytest.fixture(scope="session")
def page_op_runner(webtf_booted: SharedPage) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """Run op payloads inside the session's booted page: (backend, payload) -> result dict."""
    from pathlib import Path

    page = webtf_booted.page
    src = (Path(__file__).parent.parent / "harness" / "runner.py").read_text()
    page.evaluate(_INSTALL_JS, [src, _INSTALL_PY])

    def call(backend: str, payload: dict[str, Any]) -> dict[str, Any]:
        return json.loads(page.evaluate(_RUN_JS, [backend, json.dumps(payload)]))

    return call
