"""The GLSL kernel table of the webgl backend (kernel name -> function), merged from its families."""

from __future__ import annotations

from typing import Any

from . import backprop, complex, conv, conv3d, elementwise, gather, image, math, matmul, optimizers, reduce
from . import extra as issue15_glsl  # issue 15 (gl): Dilation2D, LRNGrad, MaxPoolWithArgmax, ...

FAMILIES = (elementwise, gather, matmul, conv, image, reduce, backprop, optimizers, conv3d, math, complex, issue15_glsl)

KERNELS: dict[str, Any] = {}
for _family in FAMILIES:
    KERNELS.update(_family.KERNELS)
