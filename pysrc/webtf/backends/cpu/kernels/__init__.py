"""The cpu kernel table: one module per family of kernels, merged here under TF.js kernel names."""

from __future__ import annotations

from typing import Any

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
    matmul,
    normalization,
    optimizers,
    pool,
    pool_more,
    random,
    reduce,
    scan,
    scatter,
    shape,
    slicing,
    softmax,
    sort,
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
    sort,
    matmul,
    conv,
    pool,
    conv_grad,
    shape,
    slicing,
    image,
    image_grad,
    spatial,
    optimizers,
    conv3d,
    normalization,
    linalg,
    scatter,
    random,
    pool_more,
    complex,
    strings,
    sparse,
)

KERNELS: dict[str, Any] = {}
for _family in FAMILIES:
    KERNELS.update(_family.KERNELS)
