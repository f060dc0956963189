"""numpy spatial-rearrangement kernels: DepthToSpace, SpaceToBatchND, BatchToSpaceND (contracts in webtf.kernel_names),
each a reshape, a transpose and one copy (plus a pad or a crop)."""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from ...base import TensorInfo
from .common import mirror_cpu_table


def depth_to_space(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """x [b,h,w,c] (NHWC) or [b,c,h,w] (NCHW) -> depth moved into block_size x block_size spatial blocks."""
    x = inputs["x"]
    bs = attrs["block_size"]
    v = backend.nd(x)
    if attrs["data_format"] == "NHWC":
        b, h, w, c = x.shape
        out = v.reshape(b, h, w, bs, bs, c // (bs * bs)).transpose(0, 1, 3, 2, 4, 5)
        return backend.make(out.reshape(b, h * bs, w * bs, c // (bs * bs)))
    b, c, h, w = x.shape
    out = v.reshape(b, bs, bs, c // (bs * bs), h, w).transpose(0, 3, 4, 1, 5, 2)
    return backend.make(out.reshape(b, c // (bs * bs), h * bs, w * bs))


def space_to_batch_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """x [batch, *spatial(M), *rest] -> [batch*prod(block_shape), *(padded spatial / block), *rest]; output
    batch index = block_position * batch + b, block positions in row-major order."""
    x = inputs["x"]
    block, pads = list(attrs["block_shape"]), [tuple(p) for p in attrs["paddings"]]
    m = len(block)
    v = np.pad(backend.nd(x), [(0, 0), *pads, *[(0, 0)] * (len(x.shape) - 1 - m)])
    batch, rest = x.shape[0], v.shape[1 + m :]
    split = [batch]
    for i in range(m):
        split += [v.shape[1 + i] // block[i], block[i]]
    v = v.reshape(*split, *rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    v = v.transpose(*perm, *range(1 + 2 * m, v.ndim))
    return backend.make(v.reshape(batch * prod(block), *(v.shape[m + 1 : 2 * m + 1]), *rest))


def batch_to_space_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """x [batch, *spatial(M), *rest] -> [batch/prod(block_shape), *(spatial*block - crops), *rest]; the
    inverse of SpaceToBatchND."""
    x = inputs["x"]
    block, crops = list(attrs["block_shape"]), [tuple(c) for c in attrs["crops"]]
    m = len(block)
    out_batch = x.shape[0] // prod(block)
    spatial, rest = x.shape[1 : 1 + m], x.shape[1 + m :]
    v = backend.nd(x).reshape(*block, out_batch, *spatial, *rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    v = v.transpose(*perm, *range(2 * m + 1, v.ndim))
    v = v.reshape(out_batch, *(s * bl for s, bl in zip(spatial, block, strict=True)), *rest)
    index = tuple(slice(lo, v.shape[1 + i] - hi) for i, (lo, hi) in enumerate(crops))
    return backend.make(v[(slice(None), *index)].copy())


KERNELS = mirror_cpu_table(globals())
