"""Multinomial: class samples from each row of logits (softmax first unless normalized), seeded."""

from __future__ import annotations

import math
import random
from array import array
from bisect import bisect_right
from itertools import accumulate
from typing import Any

from .... import kernel_names as kn
from ...base import TensorInfo


def multinomial(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Multinomial: int32 [batch, num_samples] draws from each row's categorical distribution."""
    logits = inputs["logits"]
    batch, classes = logits.shape
    n = int(attrs["num_samples"])
    vals = backend.values(logits)
    rng = random.Random(attrs.get("seed"))
    out = array("i")
    for b in range(batch):
        row = vals[b * classes : (b + 1) * classes]
        if not attrs.get("normalized"):
            top = max(row)
            row = [math.exp(v - top) for v in row]
        cdf = list(accumulate(row))
        total = cdf[-1]
        out.extend(min(bisect_right(cdf, rng.random() * total), classes - 1) for _ in range(n))
    return backend.output(out, (batch, n), "int32")


KERNELS: dict[str, Any] = {kn.Multinomial: multinomial}
