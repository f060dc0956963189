"""Runs an op expression on a target (the host's CPython, or the page on a backend) and returns numpy values.

The same code runs in both places: on the host directly, in the page as text sent through window.pyodide.
It builds input tensors from JSON-able specs, evaluates `expr` with `tf` and the inputs in scope, downloads
every Tensor in the result, disposes everything and reports whether tf.memory() returned to where it began.
"""

import json
import math

_DTYPE_OF_KIND = {"f": "float32", "i": "int32", "u": "int32", "b": "bool"}


async def run_payload(tf, payload):
    """Evaluate payload = {expr, inputs: {name: {values, shape, dtype}}, setup}; return a JSON-able dict.

    An expression that yields a coroutine (an async op such as non_max_suppression_async) is awaited.
    """
    before = tf.memory().num_tensors
    scope = {"tf": tf}
    made = []
    try:
        for name, spec in payload["inputs"].items():
            t = tf.tensor(spec["values"], spec["shape"], spec["dtype"])
            made.append(t)
            scope[name] = t
        if payload.get("setup"):
            exec(payload["setup"], scope)
        result = eval(payload["expr"], scope)
        if hasattr(result, "__await__"):
            result = await result
        out = _download(tf, result)
        tf.dispose(result)
        error = None
    except Exception as e:  # reported to the test, which re-raises it as the same class
        out, error = None, {"type": type(e).__name__, "message": str(e)}
    finally:
        for t in made:
            t.dispose()
    return {"out": out, "error": error, "leaked": tf.memory().num_tensors - before}


def _download(tf, value):
    if isinstance(value, tf.Tensor):
        vals = list(value.data_sync())
        if value.dtype == "float32":
            vals = [v if math.isfinite(v) else repr(v) for v in vals]
        return {"values": vals, "shape": list(value.shape), "dtype": value.dtype}
    if isinstance(value, (list, tuple)):
        return {"list": [_download(tf, v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {k: _download(tf, v) for k, v in value.items()}}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"py": value}
    return {"py": repr(value)}  # an object the harness cannot send (a TensorBuffer, ...)


async def run_json(tf, payload_json):
    """run_payload for text in, text out (the page side)."""
    return json.dumps(await run_payload(tf, json.loads(payload_json)))


async def run_batch_json(tf, payloads_json):
    """run_payload over a JSON list of payloads, one JSON list of results back (one page call for many)."""
    return json.dumps([await run_payload(tf, p) for p in json.loads(payloads_json)])
