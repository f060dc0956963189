"""What the gradient tests share: targets (WEBTF_OP_TARGETS, as the op suite) and the oracle comparison."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tests.harness.aio import run_sync

TARGETS = os.environ.get("WEBTF_OP_TARGETS", "host,host-numpy,page-cpu,page-wasm,page-webgl").split(",")
PAGE_BACKENDS = [t.removeprefix("page-") for t in TARGETS if t in ("page-cpu", "page-wasm", "page-webgl")]
#: host targets, as the op suite's: "host" is the cpu backend, "host-numpy" the numpy backend
HOST_BACKENDS = [b for t, b in (("host", "cpu"), ("host-numpy", "numpy")) if t in TARGETS]


@pytest.fixture(params=HOST_BACKENDS)
def host_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a host test on each host backend in TARGETS."""
    import webtf as tf

    previous = tf.get_backend()
    assert run_sync(tf.set_backend(request.param))
    yield request.param
    run_sync(tf.set_backend(previous))


def mismatch(got: list[Any], want: list[np.ndarray], tol: float) -> str | None:
    """Why flat gradients `got` differ from `want` (arrays), or None: |got - want| <= tol * max(1, |want|)."""
    if len(got) != len(want):
        return f"{len(got)} gradients, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g = np.array([float(v) for v in g])
        w = np.asarray(w, dtype=np.float64).ravel()
        if g.shape != w.shape:
            return f"gradient {k} has {g.size} values, expected {w.size}"
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        err = float(np.max(np.abs(g - w), initial=0.0))
        if not err <= tol * scale:
            return f"gradient {k}: max error {err:.3g} > {tol * scale:.3g}\n got  {g.tolist()}\n want {w.tolist()}"
    return None
