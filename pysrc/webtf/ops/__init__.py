"""Backend-independent ops, one module per family; each checks arguments and calls ENGINE.run_kernel."""

from __future__ import annotations

from . import (
    binary,
    conv,
    extra,
    fused,
    image,
    matmul,
    pool,
    reduce,
    scan,
    shape,
    slicing,
    softmax,
    sort,
    spatial,
    unary,
)
from .cast import cast
from .creation import (
    clone,
    eye,
    fill,
    linspace,
    ones,
    ones_like,
    random_normal,
    random_uniform,
    range,
    scalar,
    tensor,
    truncated_normal,
    variable,
    zeros,
    zeros_like,
)

FAMILIES = (
    unary,
    binary,
    reduce,
    softmax,
    scan,
    sort,
    matmul,
    conv,
    pool,
    shape,
    slicing,
    image,
    spatial,
    extra,
)

__all__ = [
    "fused",
    "image",
    "cast",
    "clone",
    "eye",
    "fill",
    "linspace",
    "ones",
    "ones_like",
    "random_normal",
    "random_uniform",
    "range",
    "scalar",
    "tensor",
    "truncated_normal",
    "variable",
    "zeros",
    "zeros_like",
]
for _family in FAMILIES:
    for _name in _family.__all__:
        globals()[_name] = getattr(_family, _name)
    __all__ += list(_family.__all__)
