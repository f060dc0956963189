"""The GLSL kernel table of the webgl backend (kernel name -> function), merged from its families."""

from __future__ import annotations

from typing import Any

from . import backprop, complex, conv, conv3d, elementwise, gather, image, math, matmul, optimizers, reduce

FAMILIES = (elementwise, gather, matmul, conv, image, reduce, backprop, optimizers, conv3d, math, complex)

KERNELS: dict[str, Any] = {}
for _family in FAMILIES:
    KERNELS.update(_family.KERNELS)
