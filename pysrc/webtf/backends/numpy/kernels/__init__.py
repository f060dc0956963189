"""The numpy kernel table: one module per family, merged under TF.js kernel names.

Every kernel runs under np.errstate(all="ignore"): like float32 math in JS, overflow, division by zero and
invalid operations give inf / nan silently. A kernel the families lack is taken from the cpu table
(webtf.backends.cpu.KERNELS), which works here through values() / output(); `NATIVE` names the vectorized ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ....backend_util.families import package_kernels
from ...cpu import KERNELS as CPU_KERNELS

NATIVE: dict[str, Any] = {
    name: np.errstate(all="ignore")(fn) for name, fn in package_kernels(__name__, __path__).items()
}

KERNELS: dict[str, Any] = {**CPU_KERNELS, **NATIVE}
