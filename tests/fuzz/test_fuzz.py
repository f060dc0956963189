"""Property-based fuzzing per op family (tests/fuzz/cases.py): every drawn call must give numpy's result or a
clean error naming the op, leak no tensor and return at once. The host runs every example of every family;
the page runs a fixed sample per family on each backend, all in one call per backend.
"""

from __future__ import annotations

import functools
import os
import signal
from typing import Any

import pytest
from hypothesis import Phase, given, settings

from tests.fuzz import sweep
from tests.fuzz.cases import FAMILIES, Case, problem
from tests.ops.conftest import _host_call, _spec

PAGE_EXAMPLES = int(os.environ.get("WEBTF_FUZZ_PAGE_EXAMPLES", "15"))  # per family and backend
SWEEP_PAGE_STRIDE = int(os.environ.get("WEBTF_SWEEP_PAGE_STRIDE", "4"))  # the page runs every n-th sweep call
TIMEOUT_S = 20  # one small op call that takes longer is a hang


def _on_alarm(signum: int, frame: Any) -> None:
    raise TimeoutError(f"an op call took more than {TIMEOUT_S} s")


def run_on_host(payload: dict[str, Any]) -> dict[str, Any]:
    """The harness result of `payload` in this CPython, a hang turned into a TimeoutError."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(TIMEOUT_S)
    try:
        return _host_call("cpu", payload)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_on_host(family: str) -> None:
    @settings(settings.get_profile("webtf-fuzz"))
    @given(FAMILIES[family])
    def check(case: Case) -> None:
        found = problem(case, run_on_host(case.payload()), 1e-5)
        assert found is None, f"{case}: {found}"

    check()


def sample(family: str, n: int) -> list[Case]:
    """n cases of a family, the same on every run unless WEBTF_FUZZ_SEED=random (nothing is shrunk)."""
    drawn: list[Case] = []

    @settings(settings.get_profile("webtf-fuzz"), max_examples=n, phases=[Phase.generate])
    @given(FAMILIES[family])
    def collect(case: Case) -> None:
        drawn.append(case)

    collect()
    return drawn


@functools.cache
def page_cases() -> list[Case]:
    return [case for family in sorted(FAMILIES) for case in sample(family, PAGE_EXAMPLES)]


@pytest.mark.parametrize("backend", ["cpu", "wasm", "webgl"])
def test_sample_in_the_page(page_batch: Any, backend: str) -> None:
    cases = page_cases()
    results = page_batch(backend, [case.payload() for case in cases])
    tol = 1e-3 if backend == "webgl" else 1e-5
    found = [
        f"{case}: {p}" for case, res in zip(cases, results, strict=True) if (p := problem(case, res, tol))
    ]
    assert not found, f"{len(found)} of {len(cases)} cases failed on {backend}:\n" + "\n".join(found)


def sweep_payloads(stride: int = 1) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """Every stride-th sweep call and its harness payload."""
    chosen = sweep.calls()[::stride]
    inputs = {k: _spec(v) for k, v in sweep.INPUTS.items()}
    return chosen, [{"expr": expr, "setup": None, "inputs": inputs} for _, expr in chosen]


def test_sweep_on_host() -> None:
    chosen, payloads = sweep_payloads()
    found = [
        f"{expr}: {p}"
        for (op, expr), pl in zip(chosen, payloads, strict=True)
        if (p := sweep.problem(op, run_on_host(pl)))
    ]
    assert len(chosen) > 5000
    assert not found, f"{len(found)} of {len(chosen)} calls failed:\n" + "\n".join(found)


@pytest.mark.parametrize("backend", ["cpu", "wasm", "webgl"])
def test_sweep_in_the_page(page_batch: Any, backend: str) -> None:
    chosen, payloads = sweep_payloads(SWEEP_PAGE_STRIDE)
    results = page_batch(backend, payloads)
    found = [
        f"{expr}: {p}"
        for (op, expr), res in zip(chosen, results, strict=True)
        if (p := sweep.problem(op, res))
    ]
    assert not found, f"{len(found)} of {len(chosen)} calls failed on {backend}:\n" + "\n".join(found)
