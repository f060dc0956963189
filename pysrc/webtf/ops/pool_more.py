"""More 2-D pooling (NHWC): max_pool_with_argmax (kernel MaxPoolWithArgmax), pool (max / avg pooling with
dilations through space_to_batch_nd, as TF.js) and dilation2d (kernel Dilation2D)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import kernel_names as kn
from ..backend_util import check_conv_args, compute_conv_info, compute_pool_info, parse_pair
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import check_size, choice_arg, flag_arg
from .conv import from_4d, normalize_pad, to_4d
from .op import TensorLike, convert_non_bool, convert_to_tensor, op
from .pool import avg_pool, max_pool
from .spatial import batch_to_space_nd, space_to_batch_nd

# `pool` is left out of __all__: in webtf.ops that name is the pool module; webtf exports tf.pool itself
__all__ = ["max_pool_with_argmax", "dilation2d"]


@op
def max_pool_with_argmax(
    x: TensorLike, filter_size: Any, strides: Any, pad: Any, include_batch_in_index: bool = False
) -> dict[str, Tensor]:
    """{'result', 'indexes'}: max_pool of 4-D x and the flat index of each maximum (kernel MaxPoolWithArgmax)."""
    name = "max_pool_with_argmax"
    t = convert_non_bool(x, "x", name, "float32")
    if t.rank != 4:
        raise ValueError(f"Error in {name}: input must be rank 4 but got rank {t.rank}.")
    check_conv_args(name, strides, 1, pad, None)
    attrs = {
        "filter_size": parse_pair(filter_size, name, "filter_size"),
        "strides": parse_pair(strides, name, "strides"),
        "pad": normalize_pad(pad),
        "include_batch_in_index": flag_arg(include_batch_in_index, "include_batch_in_index", name),
    }
    info = compute_pool_info(t.shape, attrs["filter_size"], attrs["strides"], attrs["pad"], None, 1, name)
    check_size(info.out_shape, name, f" (x {fmt(t.shape)})")
    x4 = t if t.dtype == "float32" else t.cast("float32")
    result, indexes = ENGINE.run_kernel(kn.MaxPoolWithArgmax, {"x": x4}, attrs)
    return {"result": result, "indexes": indexes}


def _space_to_batch_paddings(
    in_hw: Sequence[int], block: Sequence[int], base: Sequence[Sequence[int]]
) -> Any:
    """(paddings, crops) that make the padded input a multiple of the block (TF.js's helper, quirk included:
    the extra padding looks at the unpadded input size)."""
    extra = [(b - in_hw[i] % b) % b for i, b in enumerate(block)]
    paddings = [[base[i][0], base[i][1] + extra[i]] for i in range(2)]
    return paddings, [[0, e] for e in extra]


@op
def pool(
    input: TensorLike,  # noqa: A002
    window_shape: Any,
    pooling_type: str,
    pad: Any,
    dilations: Any = None,
    strides: Any = None,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """max or avg pooling of NHWC input with an optionally dilated window (strides or dilations must be 1)."""
    name = "pool"
    kind = choice_arg(pooling_type, ("avg", "max"), "pooling_type", name)
    t = convert_non_bool(input, "x", name, "float32")
    x4 = to_4d(t, name)
    dil = parse_pair(1 if dilations is None else dilations, name, "dilations")
    st = parse_pair(1 if strides is None else strides, name, "strides")
    if pad == 0:
        pad = "valid"
    if dil != (1, 1) and st != (1, 1):
        raise ValueError(
            f"Error in pool: either strides or dilations must be 1. Got strides {list(st)} and dilations {list(dil)}"
        )
    fh, fw = parse_pair(window_shape, name, "window_shape")
    forward = avg_pool if kind == "avg" else max_pool
    if dil == (1, 1):
        return from_4d(forward(x4, (fh, fw), st, pad, dim_rounding_mode), t)
    compute_pool_info(x4.shape, (fh, fw), st, pad, dim_rounding_mode, dil, name)
    if pad == "same":
        base = []
        for size, d in zip((fh, fw), dil, strict=True):
            span = size + (size - 1) * (d - 1) - 1
            base.append([span // 2, span - span // 2])
    else:
        base = [[0, 0], [0, 0]]
    paddings, crops = _space_to_batch_paddings(x4.shape[1:3], dil, base)
    y = forward(space_to_batch_nd(x4, list(dil), paddings), (fh, fw), st, "valid", dim_rounding_mode)
    return from_4d(batch_to_space_nd(y, list(dil), crops), t)


@op
def dilation2d(
    x: TensorLike,
    filter: TensorLike,
    strides: Any,
    pad: str,
    dilations: Any = 1,
    data_format: str = "NHWC",  # noqa: A002
) -> Tensor:
    """Grayscale morphological dilation: the max of x + filter over each window (kernel Dilation2D)."""
    name = "dilation2d"
    t = convert_to_tensor(x, "x", name)
    f = convert_to_tensor(filter, "filter", name)
    if t.rank not in (3, 4):
        raise ValueError(f"Error in {name}: input must be rank 3 or 4, but got rank {t.rank}.")
    if f.rank != 3:
        raise ValueError(f"Error in {name}: filter must be rank 3, but got rank {f.rank}.")
    if data_format != "NHWC":
        raise ValueError(
            f"Error in {name}: only NHWC is currently supported, but got dataFormat of {data_format}"
        )
    x4 = to_4d(t, name)
    if x4.shape[3] != f.shape[2]:
        raise ValueError(
            f"Error in {name}: input and filter must have the same depth: {x4.shape[3]} vs {f.shape[2]}"
        )
    check_conv_args(name, strides, dilations, pad, None)
    attrs = {
        "strides": parse_pair(strides, name, "strides"),
        "pad": normalize_pad(pad),
        "dilations": parse_pair(dilations, name, "dilations"),
    }
    c = f.shape[2]
    info = compute_conv_info(
        x4.shape, (f.shape[0], f.shape[1], c, c), attrs["strides"], attrs["dilations"], attrs["pad"]
    )
    check_size(info.out_shape, name)
    cast_x = x4 if x4.dtype == "float32" else x4.cast("float32")
    cast_f = f if f.dtype == "float32" else f.cast("float32")
    return from_4d(ENGINE.run_kernel(kn.Dilation2D, {"x": cast_x, "filter": cast_f}, attrs), t)
