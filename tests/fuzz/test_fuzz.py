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

from tests.fuzz.cases import FAMILIES, Case, problem
from tests.ops.conftest import _host_call

PAGE_EXAMPLES = int(os.environ.get("WEBTF_FUZZ_PAGE_EXAMPLES", "8"))  # per family and backend
TIMEOUT_S = 20  # one small op call that takes longer is a hang


def _on_alarm(signum: int, frame: Any) -> None:
    raise TimeoutError(f"an op call took more than {TIMEOUT_S} s")


def run_on_host(case: Case) -> dict[str, Any]:
    """The harness result of `case` in this CPython, a hang turned into a TimeoutError."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(TIMEOUT_S)
    try:
        return _host_call(case.payload())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_on_host(family: str) -> None:
    @settings(settings.get_profile("webtf-fuzz"))
    @given(FAMILIES[family])
    def check(case: Case) -> None:
        found = problem(case, run_on_host(case), 1e-5)
        assert found is None, f"{case}: {found}"

    check()


def sample(family: str, n: int) -> list[Case]:
    """n cases of a family, the same on every run (hypothesis draws them derandomized, nothing shrunk)."""
    drawn: list[Case] = []

    @settings(settings.get_profile("webtf-fuzz"), max_examples=n, derandomize=True, phases=[Phase.generate])
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
