"""The GLSL kernel table of the webgl backend (kernel name -> function), merged from its families."""

from __future__ import annotations

from typing import Any

from . import backprop, complex, conv, elementwise, gather, image, matmul, optimizers, reduce

FAMILIES = (elementwise, gather, matmul, conv, image, reduce, backprop, optimizers, complex)

KERNELS: dict[str, Any] = {}
for _family in FAMILIES:
    KERNELS.update(_family.KERNELS)
