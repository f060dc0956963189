"""Hypothesis settings for the fuzz suite and the page fixture that runs a batch of cases in one call.

Knobs (environment): WEBTF_FUZZ_EXAMPLES, examples per op family on the host (default 100);
WEBTF_FUZZ_PAGE_EXAMPLES, cases per family in the page per backend (default 15); WEBTF_SWEEP_PAGE_STRIDE, the
page runs every n-th call of the junk-argument sweep (default 4); WEBTF_FUZZ_SEED=random, new examples instead
of the fixed, derandomized ones CI runs. With the defaults the whole suite takes about 25 s on two cores.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.ops.conftest import _INSTALL_JS, _INSTALL_PY

EXAMPLES = int(os.environ.get("WEBTF_FUZZ_EXAMPLES", "100"))
settings.register_profile(
    "webtf-fuzz",
    max_examples=EXAMPLES,
    deadline=None,  # one example may compile a shader or grow a heap: time is checked by a timeout instead
    derandomize=os.environ.get("WEBTF_FUZZ_SEED") != "random",
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    print_blob=True,
)

_BATCH_PY = """
async def _webtf_fuzz_batch(backend, payloads_json):
    import sys
    import webtf as tf
    if tf.get_backend() != backend and not await tf.set_backend(backend):
        raise RuntimeError(f"backend {backend} could not be initialized in the page")
    return await sys.modules["webtf_test_runner"].run_batch_json(tf, payloads_json)
"""

_BATCH_JS = """async ([backend, payloads]) => {
  const fn = window.pyodide.globals.get("_webtf_fuzz_batch");
  try { return await fn(backend, payloads); } finally { fn.destroy(); }
}"""


@pytest.fixture(scope="session")
def page_batch(webtf_booted: Any) -> Callable[[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """Run a list of op-harness payloads in the page on one backend, in one call: (backend, payloads) ->
    results."""
    page = webtf_booted.page
    src = (Path(__file__).parent.parent / "harness" / "runner.py").read_text()
    page.evaluate(_INSTALL_JS, [src, _INSTALL_PY + _BATCH_PY])

    def run(backend: str, payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return json.loads(page.evaluate(_BATCH_JS, [backend, json.dumps(payloads)]))

    return run
