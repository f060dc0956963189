"""cpu spatial-rearrangement kernels: DepthToSpace, SpaceToBatchND, BatchToSpaceND.

Each is a gather whose flat source offset is a sum of independent per-output-axis terms, so the index table
is built axis by axis from small per-axis offset lists (a cartesian sum), then read with map().
"""

from __future__ import annotations

from array import array
from itertools import product, repeat
from math import prod
from typing import Any

from .... import kernel_names as kn
from ....shapes import strides_of
from ...base import TensorInfo


def _offsets(axes: list[list[int]]) -> list[int]:
    """Flat offsets of the cartesian sum of per-axis offset lists, outermost axis first."""
    idx = [0]
    for offs in axes:
        if len(offs) == 1:
            o = offs[0]
            idx = [i + o for i in idx] if o else idx
        else:
            idx = [i + o for i in idx for o in offs]
    return idx


def _gather(vals: array, axes: list[list[int]], out: array | None = None) -> array:
    """Values at the cartesian-sum offsets (negative offsets read 0: padding), appended to `out`."""
    out = array(vals.typecode) if out is None else out
    if any(not offs for offs in axes):
        return out
    inner = axes[-1]
    n = len(inner)
    if n >= 16 and inner == list(range(inner[0], inner[0] + n)) and inner[0] >= 0:
        # contiguous innermost run: copy slices instead of single elements
        for start in _offsets(axes[:-1]):
            start += inner[0]
            out.extend(
                vals[start : start + n] if start >= 0 else array(vals.typecode, bytes(n * vals.itemsize))
            )
        return out
    idx = _offsets(axes)
    if min(idx) < 0:
        ext = vals.tolist() + [0]
        out.extend(array(vals.typecode, map(ext.__getitem__, map(max, idx, repeat(-1)))))
    else:
        out.extend(array(vals.typecode, map(vals.__getitem__, idx)))
    return out


def depth_to_space(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthToSpace: depth moved into block_size x block_size spatial blocks (block_size > 1, its square
    divides the depth); TF.js's cpu kernel only does NHWC, this one does NCHW too."""
    x = inputs["x"]
    bs, fmt = attrs["block_size"], attrs["data_format"]
    s0, s1, s2, s3 = strides_of(x.shape)
    vals = backend.values(x)
    if fmt == "NHWC":
        b, h, w, c = x.shape
        cout = c // (bs * bs)
        axes = [
            [i * s0 for i in range(b)],
            [i * s1 for i in range(h)],
            [i * bs * cout for i in range(bs)],
            [i * s2 for i in range(w)],
            [i * cout for i in range(bs)],
            list(range(cout)),
        ]
        shape = (b, h * bs, w * bs, cout)
    else:
        b, c, h, w = x.shape
        cout = c // (bs * bs)
        axes = [
            [i * s0 for i in range(b)],
            [i * s1 for i in range(cout)],
            [i * s2 for i in range(h)],
            [i * bs * cout * s1 for i in range(bs)],
            [i * s3 for i in range(w)],
            [i * cout * s1 for i in range(bs)],
        ]
        shape = (b, cout, h * bs, w * bs)
    return backend.output(_gather(vals, axes), shape, x.dtype)


def space_to_batch_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """x [batch, *spatial(M), *rest] -> [batch*prod(block_shape), *(padded spatial / block), *rest].

    block_shape: M ints >= 1; paddings: M pairs [start, end] >= 0, the padded dims divisible by the block.
    Block positions are in row-major order.
    """
    x = inputs["x"]
    block, pads = list(attrs["block_shape"]), [tuple(p) for p in attrs["paddings"]]
    m = len(block)
    shape, strides = x.shape, strides_of(x.shape)
    batch, rest = shape[0], prod(shape[1 + m :])
    out_spatial = [(shape[1 + i] + pads[i][0] + pads[i][1]) // block[i] for i in range(m)]
    out_shape = (batch * prod(block), *out_spatial, *shape[1 + m :])
    vals = backend.values(x)
    neg = -len(vals) - 1  # any sum containing it stays negative: marks padding
    out = array(vals.typecode)
    batch_axis = [i * strides[0] for i in range(batch)]
    rest_axis = list(range(rest))
    for pos in product(*[range(bl) for bl in block]):
        axes = [batch_axis]
        for i in range(m):
            n_in, s, start = shape[1 + i], strides[1 + i], pos[i] - pads[i][0]
            offs = [(j * block[i] + start) * s for j in range(out_spatial[i])]
            # padding positions get the negative marker
            axes.append([o if 0 <= j * block[i] + start < n_in else neg for j, o in enumerate(offs)])
        axes.append(rest_axis)
        _gather(vals, axes, out)
    return backend.output(out, out_shape, x.dtype)


def batch_to_space_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """x [batch, *spatial(M), *rest] -> [batch/prod(block_shape), *(spatial*block - crops), *rest].

    block_shape: M ints >= 1 whose product divides batch; crops: M pairs [start, end] >= 0 with
    start + end <= spatial * block.
    """
    x = inputs["x"]
    block, crops = list(attrs["block_shape"]), [tuple(c) for c in attrs["crops"]]
    m = len(block)
    shape, strides = x.shape, strides_of(x.shape)
    out_batch = shape[0] // prod(block)
    block_strides = strides_of(block)
    out_spatial = [shape[1 + i] * block[i] - crops[i][0] - crops[i][1] for i in range(m)]
    axes = [[i * strides[0] for i in range(out_batch)]]
    for i in range(m):
        bl, s, bs = block[i], strides[1 + i], block_strides[i] * out_batch * strides[0]
        axes.append([(u % bl) * bs + (u // bl) * s for u in range(crops[i][0], crops[i][0] + out_spatial[i])])
    axes.append(list(range(prod(shape[1 + m :]))))
    out_shape = (out_batch, *out_spatial, *shape[1 + m :])
    return backend.output(_gather(backend.values(x), axes), out_shape, x.dtype)


KERNELS = {
    kn.DepthToSpace: depth_to_space,
    kn.SpaceToBatchND: space_to_batch_nd,
    kn.BatchToSpaceND: batch_to_space_nd,
}
