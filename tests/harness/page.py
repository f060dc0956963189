"""Page glue for tests that run a Python module of their own in the booted page, and TF.js beside it.

    call = install_module(page, "webtf_train_runner", Path(__file__).parent / "runner.py")
    results = call("run_cases", "wasm", cases)   # runner.run_cases(tf, cases) on wasm, JSON in and out
    load_tfjs(page)                              # window.tf: TF.js 4.22 (vendor/tfjs/tf.min.js)

The module's source is sent as text and becomes sys.modules[name] in Pyodide, so the same file runs on the
host (imported) and in the page. A call switches webtf to the backend, runs `function(tf, *args)` (awaited
when it is a coroutine) and returns its JSON-able result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

_INSTALL = """([name, src]) => {
  const py = window.pyodide;
  py.globals.set("_webtf_module_name", name);
  py.globals.set("_webtf_module_src", src);
  py.runPython(`
import sys, types
_m = types.ModuleType(_webtf_module_name)
exec(_webtf_module_src, _m.__dict__)
sys.modules[_webtf_module_name] = _m
del _m, _webtf_module_name, _webtf_module_src

async def _webtf_module_call(module, function, backend, args_json):
    import inspect, json
    import webtf as tf
    if tf.get_backend() != backend and not await tf.set_backend(backend):
        raise RuntimeError(f"backend {backend} could not be initialized in the page")
    result = getattr(sys.modules[module], function)(tf, *json.loads(args_json))
    if inspect.isawaitable(result):
        result = await result
    return json.dumps(result)
`);
}"""

_CALL = """async ([module, fn, backend, args]) => {
  const call = window.pyodide.globals.get("_webtf_module_call");
  try { return await call(module, fn, backend, args); } finally { call.destroy(); }
}"""

_LOAD_TFJS = """async () => {
  if (window.tf) return;
  await new Promise((ok, fail) => {
    const s = document.createElement("script");
    s.src = "vendor/tfjs/tf.min.js"; s.onload = ok; s.onerror = () => fail(new Error("no tf.min.js"));
    document.head.appendChild(s);
  });
}"""


def install_module(page: Any, name: str, path: Path) -> Callable[..., Any]:
    """Load the module at `path` into the page as `name`; return call(function, backend, *args)."""
    page.evaluate(_INSTALL, [name, path.read_text()])

    def call(function: str, backend: str, *args: Any) -> Any:
        return json.loads(page.evaluate(_CALL, [name, function, backend, json.dumps(args)]))

    return call


def load_tfjs(page: Any) -> None:
    """Make TF.js 4.22 (window.tf) available in the page (loaded once)."""
    page.evaluate(_LOAD_TFJS)
