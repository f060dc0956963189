"""Gradient coverage: every kernel TF.js 4.22 has a gradient for (tf.getGradient in its bundle) has one in webtf.

The kernel names are those TF.js registers for cpu, webgl and wasm (read from the vendored bundles as
tests/ops/test_coverage.py reads them) and the kernel-name constants tf.min.js exports (a gradient can exist for
a kernel no backend registers). ALLOW lists what cannot apply, with why; a listed name webtf has fails too.
"""

from __future__ import annotations

from typing import Any

from tests.ops.test_coverage import NAMESPACES, TFJS_NAMES_JS

#: kernel name -> why webtf has no gradient for it
ALLOW: dict[str, str] = {
    "BroadcastTo": "no backend has a BroadcastTo kernel: broadcast_to runs Reshape + Tile (as in TF.js), whose "
    "gradients apply",
}

GRADIENTS_JS = """() => {
  const kernels = new Set();
  for (const b of ["cpu", "webgl", "wasm"]) for (const k of tf.getKernelsForBackend(b)) kernels.add(k.kernelName);
  for (const [k, v] of Object.entries(tf)) if (typeof v === "string" && k === v) kernels.add(k);
  return [...kernels].filter((k) => tf.getGradient(k) != null).sort();
}"""


def tfjs_gradients(browser: Any, server: str) -> list[str]:
    """The kernel names TF.js 4.22 has a gradient for."""
    page = browser.new_page()
    try:
        page.goto(server + "vendor/tfjs/")  # same origin as the bundles; no app boots
        page.evaluate(TFJS_NAMES_JS, [server, list(NAMESPACES)])  # loads tf.min.js and the wasm backend
        return page.evaluate(GRADIENTS_JS)
    finally:
        page.close()


def test_webtf_has_every_tfjs_gradient(browser, server):
    from webtf.gradients import registered_gradients

    tfjs = tfjs_gradients(browser, server)
    assert len(tfjs) > 90
    ours = registered_gradients()
    missing = [k for k in tfjs if k not in ours and k not in ALLOW]
    stale = [k for k in ALLOW if k in ours or k not in tfjs]
    assert not missing, f"{len(missing)} kernels have a gradient in TF.js but not in webtf: {', '.join(missing)}"
    assert not stale, f"ALLOW entries that no longer hold: {', '.join(stale)}"
