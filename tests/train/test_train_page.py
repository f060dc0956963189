"""tf.train and tf.losses in the page on cpu, wasm and webgl: every case against numpy (host, float64) and
against TF.js 4.22 (its cpu backend) running the same cases in the same page. One page call per backend
runs all cases (and one call runs TF.js's), then each case is a test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.grad.conftest import PAGE_BACKENDS, mismatch
from tests.harness.page import install_module, load_tfjs
from tests.train.cases import LOSSES, OPTIMIZERS, PROBLEMS, STEPS, loss_oracle, loss_payload, problem_payload
from tests.train.test_train import check_training

HERE = Path(__file__).parent
TOLERANCE = {"cpu": 1e-5, "wasm": 1e-5, "webgl": 1e-4}


@pytest.fixture(scope="module")
def results(webtf_booted: Any) -> Any:
    """(backend) -> webtf's results, computed once per backend; and TF.js's results."""
    webtf_page = webtf_booted.page
    call = install_module(webtf_page, "webtf_train_runner", HERE / "runner.py")
    train_cases = [c.payload() for c in OPTIMIZERS]
    problems = {name: problem_payload(name) for name in PROBLEMS}
    loss_cases = [loss_payload(c) for c in LOSSES]
    load_tfjs(webtf_page)
    tfjs = webtf_page.evaluate(
        (HERE / "runner.js").read_text(),
        {"trainCases": train_cases, "problems": problems, "steps": STEPS, "lossCases": loss_cases},
    )
    by_backend: dict[str, Any] = {}

    def webtf(backend: str) -> Any:
        if backend not in by_backend:
            by_backend[backend] = call("run_all", backend, train_cases, problems, STEPS, loss_cases)
        return by_backend[backend]

    return webtf, tfjs


@pytest.mark.parametrize("backend", PAGE_BACKENDS)
@pytest.mark.parametrize("index", range(len(OPTIMIZERS)), ids=[c.name for c in OPTIMIZERS])
def test_page_optimizer_matches_numpy_and_tfjs(results: Any, backend: str, index: int) -> None:
    webtf, tfjs = results
    case, res, oracle = OPTIMIZERS[index], webtf(backend)["train"][index], tfjs["train"][index]
    tol = TOLERANCE[backend]
    check_training(res, case, tol)
    assert oracle["error"] is None, f"TF.js failed: {oracle['error']}"
    problem = mismatch([res["w"], res["b"], res["costs"]], [oracle["w"], oracle["b"], oracle["costs"]], tol)
    assert problem is None, f"vs TF.js: {problem}"
    if case.js_weights:
        assert [n for n, _ in res["weights"]] == [n for n, _ in oracle["weights"]]
        problem = mismatch(
            [v for _, v in res["weights"]], [np.array(v) for _, v in oracle["weights"]], tol * 10
        )
        assert problem is None, f"get_weights() vs TF.js: {problem}"


@pytest.mark.parametrize("backend", PAGE_BACKENDS)
@pytest.mark.parametrize("index", range(len(LOSSES)), ids=[c.name for c in LOSSES])
def test_page_loss_matches_numpy_and_tfjs(results: Any, backend: str, index: int) -> None:
    webtf, tfjs = results
    case, res, oracle = LOSSES[index], webtf(backend)["losses"][index], tfjs["losses"][index]
    assert res["error"] is None, res["error"]
    assert res["leaked"] == 0
    tol = TOLERANCE[backend] * 10
    value, grad = loss_oracle(case)
    problem = mismatch([res["value"], res["grad"]], [value, grad], tol)
    assert problem is None, f"vs numpy: {problem}"
    assert "error" not in oracle, f"TF.js failed: {oracle['error']}"
    problem = mismatch([res["value"], res["grad"]], [oracle["value"], oracle["grad"]], tol)
    assert problem is None, f"vs TF.js: {problem}"


@pytest.mark.skipif("webgl" not in PAGE_BACKENDS, reason="page-webgl not in WEBTF_OP_TARGETS")
def test_page_default_epsilon_follows_the_backend(py: Any) -> None:
    """epsilon=None is the backend's epsilon(): 1e-7 on cpu, wasm and webgl, 1e-4 on webgl in float16."""
    py(
        "tf.env().set('WEBGL_FORCE_F16_TEXTURES', True)\nfrom webtf.backends.webgl import register\n"
        "register('webgl-train-f16', priority=0)"
    )
    try:
        got = py(
            """
res = {}
for name in ("cpu", "wasm", "webgl", "webgl-train-f16"):
    assert await tf.set_backend(name), name
    made = [tf.train.adam(), tf.train.rmsprop(0.1), tf.train.adadelta(), tf.train.adamax()]
    res[name] = [tf.backend().epsilon()] + [opt.epsilon for opt in made]
await tf.set_backend("cpu")
res
"""
        )
    finally:
        py("tf.env().set('WEBGL_FORCE_F16_TEXTURES', False)\ntf.remove_backend('webgl-train-f16')")
    assert got == {"cpu": [1e-7] * 5, "wasm": [1e-7] * 5, "webgl": [1e-7] * 5, "webgl-train-f16": [1e-4] * 5}
