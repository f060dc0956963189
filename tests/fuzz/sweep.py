"""The adversarial sweep: every public op called with each of its arguments replaced, in turn, by junk (None,
strings, floats where ints belong, huge or negative ints, NaN, ragged lists, tensors of the wrong kind, ...).

Whatever the op does with it, the outcome must be clean: a result, or a ValueError / TypeError /
NotImplementedError naming the op; never another exception, a leaked tensor or a hang. The calls are
expressions over four named inputs, so they run on the host and, batched, in the page.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

import webtf as tf
from webtf import ops

INPUTS = {
    "x4": np.ones((1, 4, 4, 2), np.float32),
    "x2": np.ones((2, 3), np.float32),
    "i": np.array([0, 1], np.int32),
    "b": np.array([True, False]),
}
JUNK = [
    "None", "'a'", "1.5", "-1", "0", "2**31", "2**64", "True", "[]", "[[1], [2, 3]]", "float('nan')", "float('inf')",
    "{}", "[1.5]", "[-1]", "[2**40]", "object()", "b'x'", "1j", "b", "i", "x2", "x4",
]  # fmt: skip
#: what a required argument gets by its name, so that only the argument under test is wrong
DEFAULTS = {
    "shape": "[2, 2]", "perm": "[1, 0]", "axis": "0", "depth": "3", "num_or_size_splits": "2", "reps": "[1, 1]",
    "begin": "[0, 0]", "size": "[1, 1]", "end": "[1, 1]", "paddings": "[[0, 0], [1, 1]]", "filter_size": "2",
    "strides": "1", "pad": "'same'", "k": "1", "block_size": "2", "block_shape": "[1, 1]",
    "crops": "[[0, 0], [0, 0]]", "output_shape": "[1, 4, 4, 2]", "max_output_size": "2", "crop_size": "[2, 2]",
    "radians": "0.5", "transforms": "[[1, 0, 0, 0, 1, 0, 0, 0]]", "start": "0", "stop": "3", "num": "3",
    "num_rows": "2", "value": "1", "clip_value_min": "0", "clip_value_max": "1", "dtype": "'float32'",
    "initial_value": "[1.0]", "sparse_indices": "[0]", "sparse_values": "[1.0]", "boxes": "[[0, 0, 1, 1]]",
    "scores": "[0.5]", "box_ind": "[0]", "alpha": "0.2", "indices": "i", "values": "[1.0, 2.0]", "tensors": "[x2, x2]",
    "condition": "b",
}  # fmt: skip
FOUR_D = {"x", "images", "image", "filter", "depthwise_filter", "pointwise_filter", "a", "b", "logits"}


def public_ops() -> dict[str, Any]:
    """Every op by the name its errors use: top-level ops, tf.image.* and tf.fused.*."""
    namespaces = ("fused", "image", "spectral", "signal", "string", "sparse")
    found = {n: getattr(tf, n) for n in ops.__all__ if n not in namespaces and callable(getattr(tf, n))}
    for space in namespaces[2:]:  # tf.spectral.fft's errors say "Error in fft"
        found.update({f"{space}.{n}": fn for n, fn in vars(getattr(tf, space)).items() if n not in found})
    found.update({f"image.{n}": getattr(tf.image, n) for n in tf.image.__dir__()})
    found.update({f"fused.{n}": getattr(tf.fused, n) for n in ("mat_mul", "conv2d", "depthwise_conv2d")})
    return found


def calls() -> list[tuple[str, str]]:
    """(op name, expression) for every op: once with its required arguments only, then once per argument
    and junk value."""
    out = []
    for name, fn in sorted(public_ops().items()):
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
        required = {
            p.name: DEFAULTS.get(p.name, "x4" if p.name in FOUR_D else "x2")
            for p in params
            if p.default is p.empty
        }
        call = f"tf.{name}"
        out.append((name, f"{call}({', '.join(f'{k}={v}' for k, v in required.items())})"))
        for p in params:
            for junk in JUNK:
                args = {**required, p.name: junk}
                out.append((name, f"{call}({', '.join(f'{k}={v}' for k, v in args.items())})"))
    return out


def problem(op: str, res: dict[str, Any]) -> str | None:
    """What is wrong with the harness result of a sweep call (None: it returned, or failed cleanly)."""
    if res["leaked"]:
        return f"leaked {res['leaked']} tensors ({res['error'] or 'no error'})"
    err = res["error"]
    if not err:
        return None
    short = op.split(".")[-1]
    if err["type"] not in ("ValueError", "TypeError", "NotImplementedError"):
        return f"raised {err['type']}: {err['message']}"
    if f"Error in {short}" not in err["message"] and f"Error in {op}" not in err["message"]:
        return f"the error does not name the op: {err['type']}: {err['message']}"
    return None
