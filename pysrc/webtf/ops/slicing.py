"""Slicing, padding and gathering ops: slice, strided_slice, pad, mirror_pad, gather, gather_nd, one_hot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import kernel_names as kn
from ..backend_util import slice_info
from ..dtypes import check_dtype
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import axis_arg, check_size, choice_arg, count_arg, int_arg, int_list, number_arg
from .op import TensorLike, convert_to_tensor, op, typed_values

__all__ = ["gather", "gather_nd", "mirror_pad", "one_hot", "pad", "slice", "strided_slice"]


def _int32(x: TensorLike, arg: str, op_name: str) -> Tensor:
    t = convert_to_tensor(x, arg, op_name, "int32")
    if t.dtype != "int32":
        raise TypeError(f"Error in {op_name}: argument '{arg}' must be an int32 tensor, but got {t.dtype}")
    return t


@op
def slice(x: TensorLike, begin: int | Sequence[int], size: int | Sequence[int] | None = None) -> Tensor:  # noqa: A001
    """The block of x starting at `begin` with `size` (-1 or missing entries: to the end) (kernel Slice)."""
    x = convert_to_tensor(x, "x", "slice")
    if x.rank == 0:
        raise ValueError("Error in slice: slicing scalar is not possible")
    b = (
        [int_arg(begin, "begin", "slice")]
        if not isinstance(begin, (list, tuple))
        else int_list(begin, "begin", "slice")
    )
    if size is None:
        s = []
    else:
        s = (
            [int_arg(size, "size", "slice")]
            if not isinstance(size, (list, tuple))
            else int_list(size, "size", "slice")
        )
    if len(b) > x.rank or len(s) > x.rank:
        raise ValueError(
            f"Error in slice: length of begin {fmt(b)} and size {fmt(s)} must be at most the rank of x "
            f"({x.rank}, shape {fmt(x.shape)})"
        )
    b += [0] * (x.rank - len(b))
    s += [-1] * (x.rank - len(s))
    for i, (bi, si, d) in enumerate(zip(b, s, x.shape, strict=True)):
        if not 0 <= bi <= d:
            raise ValueError(
                f"Error in slice: begin[{i}] = {bi} is out of range for x of shape {fmt(x.shape)}"
            )
        if si < -1:
            raise ValueError(
                f"Error in slice: negative size values should be exactly -1 but got {si} "
                f"for the size at index {i}"
            )
        if si == -1:
            s[i] = d - bi
        elif bi + si > d:
            raise ValueError(
                f"Error in slice: begin[{i}] + size[{i}] ({bi + si}) would overflow x.shape[{i}] ({d}) "
                f"for x of shape {fmt(x.shape)}"
            )
    return ENGINE.run_kernel(kn.Slice, {"x": x}, {"begin": tuple(b), "size": tuple(s)})


@op
def strided_slice(
    x: TensorLike,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> Tensor:
    """x[begin:end:strides] per dim, with TF's masks for full ranges, ellipsis, new and shrunk axes
    (kernel StridedSlice)."""
    x = convert_to_tensor(x, "x", "strided_slice")
    attrs = {
        "begin": tuple(int_list(begin, "begin", "strided_slice")),
        "end": tuple(int_list(end, "end", "strided_slice")),
        "strides": None if strides is None else tuple(int_list(strides, "strides", "strided_slice")),
        "begin_mask": int_arg(begin_mask, "begin_mask", "strided_slice"),
        "end_mask": int_arg(end_mask, "end_mask", "strided_slice"),
        "ellipsis_mask": int_arg(ellipsis_mask, "ellipsis_mask", "strided_slice"),
        "new_axis_mask": int_arg(new_axis_mask, "new_axis_mask", "strided_slice"),
        "shrink_axis_mask": int_arg(shrink_axis_mask, "shrink_axis_mask", "strided_slice"),
    }
    slice_info(x.shape, *attrs.values())  # validates: raises before the kernel runs
    return ENGINE.run_kernel(kn.StridedSlice, {"x": x}, attrs)


def _paddings(paddings: Any, x: Tensor, op_name: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(paddings, (list, tuple)):
        raise TypeError(f"Error in {op_name}: argument 'paddings' must be a list of [before, after] pairs")
    if len(paddings) != x.rank:
        raise ValueError(
            f"Error in {op_name}: paddings must have one [before, after] pair per dimension of x: got "
            f"{len(paddings)} for x of rank {x.rank} (shape {fmt(x.shape)})"
        )
    out = []
    for i, p in enumerate(paddings):
        pair = int_list(p, f"paddings[{i}]", op_name)
        if len(pair) != 2:
            raise ValueError(
                f"Error in {op_name}: paddings[{i}] must be a [before, after] pair, got {fmt(pair)}"
            )
        if pair[0] < 0 or pair[1] < 0:
            raise ValueError(f"Error in {op_name}: paddings[{i}] must be non-negative, got {fmt(pair)}")
        out.append((pair[0], pair[1]))
    check_size(
        tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, out, strict=True)), op_name, f" (x {fmt(x.shape)})"
    )
    return tuple(out)


@op
def pad(x: TensorLike, paddings: Sequence[Sequence[int]], constant_value: float = 0) -> Tensor:
    """x padded with `constant_value`: paddings[i] = [before, after] for dim i (kernel PadV2)."""
    x = convert_to_tensor(x, "x", "pad")
    if x.rank == 0:
        raise ValueError("Error in pad: pad(scalar) is not defined. Pass non-scalar to pad")
    pads = _paddings(paddings, x, "pad")
    value = (
        constant_value
        if isinstance(constant_value, bool)
        else number_arg(constant_value, "constant_value", "pad")
    )
    typed_values([value], x.dtype, "pad", "constant_value")  # refuses a value x's dtype cannot hold
    return ENGINE.run_kernel(kn.PadV2, {"x": x}, {"paddings": pads, "constant_value": value})


@op
def mirror_pad(x: TensorLike, paddings: Sequence[Sequence[int]], mode: str = "reflect") -> Tensor:
    """x padded with its mirror image; the edge is repeated in 'symmetric' mode only (kernel MirrorPad)."""
    x = convert_to_tensor(x, "x", "mirror_pad")
    mode = choice_arg(mode, ("reflect", "symmetric"), "mode", "mirror_pad")
    if x.rank == 0:
        raise ValueError(
            "Error in mirror_pad: mirror_pad(scalar) is not defined. Pass non-scalar to mirror_pad"
        )
    pads = _paddings(paddings, x, "mirror_pad")
    offset = 1 if mode == "reflect" else 0
    for i, (lo, hi) in enumerate(pads):
        limit = x.shape[i] - offset
        if lo > limit or hi > limit:
            raise ValueError(
                f"Error in mirror_pad: padding in dimension {i} must be between 0 and {max(limit, 0)} in "
                f"'{mode}' mode for x of shape {fmt(x.shape)}, got {fmt((lo, hi))}"
            )
    return ENGINE.run_kernel(kn.MirrorPad, {"x": x}, {"paddings": pads, "mode": mode})


@op
def gather(x: TensorLike, indices: TensorLike, axis: int = 0, batch_dims: int = 0) -> Tensor:
    """Slices of x along `axis` picked by int32 `indices` (batched over the first batch_dims dims)
    (kernel GatherV2)."""
    x = convert_to_tensor(x, "x", "gather")
    idx = _int32(indices, "indices", "gather")
    axis = axis_arg(axis, x.rank, "gather")
    b = int_arg(batch_dims, "batch_dims", "gather")
    if not -idx.rank <= b <= idx.rank:
        raise ValueError(
            f"Error in gather: batch_dims must be in the range [-{idx.rank}, {idx.rank}], but got {b}"
        )
    if b < 0:
        b += idx.rank
    if b > axis:
        raise ValueError(f"Error in gather: batch_dims ({b}) must be less than or equal to axis ({axis})")
    for i in range(b):
        if x.shape[i] != idx.shape[i]:
            raise ValueError(
                f"Error in gather: x.shape[{i}]: {x.shape[i]} should be equal to indices.shape[{i}]: "
                f"{idx.shape[i]} (x has shape {fmt(x.shape)}, indices {fmt(idx.shape)})"
            )
    check_size((*x.shape[:axis], *idx.shape[b:], *x.shape[axis + 1 :]), "gather", f" (x {fmt(x.shape)})")
    return ENGINE.run_kernel(kn.GatherV2, {"x": x, "indices": idx}, {"axis": axis, "batch_dims": b})


@op
def gather_nd(x: TensorLike, indices: TensorLike) -> Tensor:
    """Slices of x picked by the int32 index tuples in the last dim of `indices` (kernel GatherNd)."""
    x = convert_to_tensor(x, "x", "gather_nd")
    idx = _int32(indices, "indices", "gather_nd")
    if x.rank < 1:
        raise ValueError(f"Error in gather_nd: x must have rank 1 or higher, but the rank was {x.rank}")
    if idx.rank < 1:
        raise ValueError(
            f"Error in gather_nd: indices must have rank 1 or higher, but the rank was {idx.rank}"
        )
    if idx.shape[-1] > x.rank:
        raise ValueError(
            f"Error in gather_nd: index innermost dimension length must be <= x rank; saw: "
            f"{idx.shape[-1]} vs. {x.rank} (x has shape {fmt(x.shape)}, indices {fmt(idx.shape)})"
        )
    check_size((*idx.shape[:-1], *x.shape[idx.shape[-1] :]), "gather_nd", f" (x {fmt(x.shape)})")
    return ENGINE.run_kernel(kn.GatherNd, {"params": x, "indices": idx})


@op
def one_hot(
    indices: TensorLike, depth: int, on_value: float = 1, off_value: float = 0, dtype: str = "int32"
) -> Tensor:
    """A tensor of shape indices.shape + [depth]: on_value where the last index equals the indices
    (kernel OneHot)."""
    idx = _int32(indices, "indices", "one_hot")
    depth = count_arg(depth, "depth", "one_hot")
    if depth < 2:
        raise ValueError(f"Error in one_hot: depth must be >=2, but it is {depth}")
    check_dtype(dtype, "one_hot")
    on_value = number_arg(on_value, "on_value", "one_hot")
    off_value = number_arg(off_value, "off_value", "one_hot")
    typed_values([on_value, off_value], dtype, "one_hot", "on_value / off_value")
    check_size((*idx.shape, depth), "one_hot")
    attrs = {"depth": depth, "on_value": on_value, "off_value": off_value, "dtype": dtype}
    return ENGINE.run_kernel(kn.OneHot, {"indices": idx}, attrs)
