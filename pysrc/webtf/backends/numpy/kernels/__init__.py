"""The numpy kernel table: one module per family, merged under TF.js kernel names.

Every kernel runs under np.errstate(all="ignore"): like float32 math in JS, overflow, division by zero and
invalid operations give inf / nan silently. A kernel the families lack is taken from the cpu table
(webtf.backends.cpu.KERNELS), which works here through values() / output(); `NATIVE` names the vectorized ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cpu import KERNELS as CPU_KERNELS
from . import (
    binary,
    complex,
    conv,
    conv3d,
    conv_grad,
    creation,
    image,
    image_grad,
    linalg,
    math_more,
    matmul,
    optimizers,
    pool,
    reduce,
    scan,
    shape,
    slicing,
    softmax,
    sparse,
    spatial,
    strings,
    unary,
)

FAMILIES = (
    creation,
    unary,
    binary,
    reduce,
    softmax,
    scan,
    matmul,
    conv,
    conv_grad,
    pool,
    shape,
    slicing,
    image,
    image_grad,
    spatial,
    optimizers,
    conv3d,
    linalg,
    math_more,
    complex,
    strings,
    sparse,
)

NATIVE: dict[str, Any] = {}
for _family in FAMILIES:
    NATIVE.update({name: np.errstate(all="ignore")(fn) for name, fn in _family.KERNELS.items()})

KERNELS: dict[str, Any] = {**CPU_KERNELS, **NATIVE}
