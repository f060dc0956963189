"""The wasm kernel table: native kernels (calling the binary's exports) plus the cpu kernels as fallbacks.

Every cpu kernel the binary has no export for (Reshape, Concat, Slice, Cast, ...) is registered for wasm
as is: it reads and writes the heap through WasmBackend.values / output.
"""

from __future__ import annotations

from typing import Any

from . import backprop, conv3d, elementwise, memory, nn, optimizers, reduce, transform
from . import pool_more as pool_more
from . import scatter as scatter
from . import sparse as sparse
from .common import CPU_KERNELS

FAMILIES = (elementwise, nn, reduce, transform, memory, backprop, optimizers, conv3d)
FAMILIES += (scatter, sparse, pool_more)  # the binary's exports bound for issue 15

#: the native kernels for every kernel name the cpu table also has (the binary's others have no op yet)
NATIVE: dict[str, Any] = {}
for _family in FAMILIES:
    NATIVE.update({name: impl for name, impl in _family.KERNELS.items() if name in CPU_KERNELS})


def kernel_table() -> dict[str, Any]:
    """Native kernels, then the cpu kernels for every other name."""
    table = {name: impl for name, impl in CPU_KERNELS.items() if name not in NATIVE}
    table.update(NATIVE)
    return table
