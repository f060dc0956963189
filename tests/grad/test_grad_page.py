"""Gradients in the page on cpu, wasm and webgl: every case against numpy finite differences (float64, on
the host) and, where the table has a TF.js function, against TF.js 4.22's tf.grads (its cpu backend) in the
same page. All cases of a backend run in one page call (and TF.js's once), then each case is a test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.grad.cases import CASES, dy_for, finite_differences, payload
from tests.grad.conftest import PAGE_BACKENDS, mismatch
from tests.grad.runner import JS_RUNNER

TOLERANCE = {"cpu": 1e-4, "wasm": 1e-4, "webgl": 2e-3}

_INSTALL = """([src]) => {
  window.pyodide.globals.set("_webtf_grad_src", src);
  window.pyodide.runPython(`
import sys, types, json
_m = types.ModuleType("webtf_grad_runner")
exec(_webtf_grad_src, _m.__dict__)
sys.modules["webtf_grad_runner"] = _m
del _webtf_grad_src

async def _webtf_grad_run(backend, cases_json):
    import webtf as tf
    if tf.get_backend() != backend and not await tf.set_backend(backend):
        raise RuntimeError(f"backend {backend} could not be initialized in the page")
    return json.dumps(sys.modules["webtf_grad_runner"].run_cases(tf, json.loads(cases_json)))
`);
}"""

_RUN = """async ([backend, cases]) => {
  const fn = window.pyodide.globals.get("_webtf_grad_run");
  try { return await fn(backend, cases); } finally { fn.destroy(); }
}"""


def _cases_for(backend: str) -> list[Any]:
    return [c for c in CASES if c.only is None or backend in c.only]


@pytest.fixture(scope="module")
def results(webtf_booted: Any) -> Any:
    """(backend) -> {case name: webtf result}, and TF.js's results by case name (computed once)."""
    webtf_page = webtf_booted.page
    webtf_page.evaluate(_INSTALL, [(Path(__file__).parent / "runner.py").read_text()])
    tfjs_cases = payload([c for c in CASES if c.js])
    tfjs = dict(zip([c["name"] for c in tfjs_cases], webtf_page.evaluate(JS_RUNNER, tfjs_cases), strict=True))
    by_backend: dict[str, dict[str, Any]] = {}

    def webtf(backend: str) -> dict[str, Any]:
        if backend not in by_backend:
            cases = _cases_for(backend)
            out = json.loads(webtf_page.evaluate(_RUN, [backend, json.dumps(payload(cases))]))
            by_backend[backend] = dict(zip([c.name for c in cases], out, strict=True))
        return by_backend[backend]

    return webtf, tfjs


PARAMS = [
    pytest.param(backend, c, id=f"{backend}-{c.name}")
    for backend in PAGE_BACKENDS
    for c in CASES
    if c.only is None or backend in c.only
]


@pytest.mark.parametrize(("backend", "case"), PARAMS)
def test_page_gradient_matches_numpy_and_tfjs(results: Any, backend: str, case: Any) -> None:
    webtf, tfjs = results
    res = webtf(backend)[case.name]
    assert res["error"] is None, res["error"]
    assert res["leaked"] == 0
    tol = TOLERANCE[backend]
    problem = mismatch(res["grads"], finite_differences(case, dy_for(case)), tol)
    assert problem is None, f"vs numpy: {problem}"
    if case.js:
        oracle = tfjs[case.name]
        assert "error" not in oracle, f"TF.js failed: {oracle['error']}"
        problem = mismatch(res["grads"], oracle["grads"], tol)
        assert problem is None, f"vs TF.js: {problem}"
