"""Convolutions (NHWC): conv2d, depthwise_conv2d, conv2d_transpose, separable_conv2d."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import kernel_names as kn
from ..backend_util import ConvInfo, check_conv_args, check_data_format, compute_conv_info, parse_pair
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import check_size
from .checks import output_shape as output_shape_arg
from .op import TensorLike, convert_non_bool, named_op, op

__all__ = ["conv2d", "conv2d_transpose", "depthwise_conv2d", "separable_conv2d"]

Pad = Any  # 'same' | 'valid' | int | [[0, 0], [top, bottom], [left, right], [0, 0]]


def reshape(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """x viewed with another shape of the same size (kernel Reshape)."""
    return ENGINE.run_kernel(kn.Reshape, {"x": x}, {"shape": shape})


def normalize_pad(pad: Pad) -> Pad:
    """The pad attr as kernels receive it: 'same', 'valid', an int or ((0, 0), (t, b), (l, r), (0, 0))."""
    if isinstance(pad, str):
        return pad
    if isinstance(pad, (list, tuple)):
        return tuple((int(p[0]), int(p[1])) for p in pad)
    return int(pad)


def to_4d(x: Tensor, op_name: str, arg: str = "x") -> Tensor:
    """x with a batch dim of 1 added when it is rank 3; rank other than 3 or 4 is an error."""
    if x.rank == 3:
        return reshape(x, (1, *x.shape))
    if x.rank != 4:
        raise ValueError(
            f"Error in {op_name}: {arg} must be rank 4 (or 3 without a batch), but got rank {x.rank} "
            f"with shape {fmt(x.shape)}"
        )
    return x


def check_filter(f: Tensor, op_name: str, arg: str = "filter") -> None:
    """Filters are [fh, fw, in, out] (rank 4) with no zero dim (as TF: an empty filter is refused)."""
    if f.rank != 4:
        raise ValueError(
            f"Error in {op_name}: {arg} must be rank 4, but got rank {f.rank} with shape {fmt(f.shape)}"
        )
    if 0 in f.shape:
        raise ValueError(
            f"Error in {op_name}: {arg} must not have zero elements, but its shape is {fmt(f.shape)}"
        )


def check_depth(got: int, want: int, op_name: str, what: str, against: str, detail: str = "") -> None:
    """Raise naming the op when `what` (got) is not `against` (want), e.g. an input depth and the filter's."""
    if got != want:
        raise ValueError(f"Error in {op_name}: {what} ({got}) must match {against} {want}{detail}")


def conv_attrs(
    strides: Any, pad: Pad, data_format: str, dilations: Any, dim_rounding_mode: str | None, op_name: str
) -> dict[str, Any]:
    """Validated, normalized conv attrs: strides/dilations as (h, w) pairs, pad normalized."""
    check_data_format(op_name, data_format)
    check_conv_args(op_name, strides, dilations, pad, dim_rounding_mode)
    return {
        "strides": parse_pair(strides, op_name, "strides"),
        "pad": normalize_pad(pad),
        "data_format": data_format,
        "dilations": parse_pair(1 if dilations is None else dilations, op_name, "dilations"),
        "dim_rounding_mode": dim_rounding_mode,
    }


def conv_info_for(x4: Tensor, f: Tensor, attrs: dict[str, Any], depthwise: bool, op_name: str) -> ConvInfo:
    """The ConvInfo the kernel will compute, for shape errors before it runs."""
    return compute_conv_info(
        x4.shape, f.shape, attrs["strides"], attrs["dilations"], attrs["pad"], attrs["dim_rounding_mode"],
        depthwise, op_name,
    )  # fmt: skip


def prepare_conv(
    x: TensorLike, filter: TensorLike, strides: Any, pad: Pad, data_format: str, dilations: Any,
    dim_rounding_mode: str | None, depthwise: bool, op_name: str,
) -> tuple[Tensor, Tensor, Tensor, dict[str, Any], ConvInfo]:  # fmt: skip
    """Shared conv2d / depthwise_conv2d checks: (x, x as 4-D, filter, attrs, conv info)."""
    tx = convert_non_bool(x, "x", op_name, "float32")
    tf_ = convert_non_bool(filter, "filter", op_name, "float32")
    check_filter(tf_, op_name)
    attrs = conv_attrs(strides, pad, data_format, dilations, dim_rounding_mode, op_name)
    if tx.rank not in (3, 4):
        to_4d(tx, op_name)
    check_depth(
        tx.shape[-1], tf_.shape[2], op_name,
        "number of input channels" if depthwise else "depth of input",
        "the in_channels dimension in filter" if depthwise else "input depth for filter",
        f" (x shape {fmt(tx.shape)}, filter shape {fmt(tf_.shape)})",
    )  # fmt: skip
    x4 = to_4d(tx, op_name)
    info = conv_info_for(x4, tf_, attrs, depthwise, op_name)
    check_size(info.out_shape, op_name, f" (x {fmt(tx.shape)}, filter {fmt(tf_.shape)})")
    return tx, x4, tf_, attrs, info


def from_4d(res: Tensor, x: Tensor) -> Tensor:
    """Drop the batch dim to_4d added."""
    return reshape(res, res.shape[1:]) if x.rank == 3 else res


def run_backprop_input(
    dy4: Tensor, f: Tensor, input_shape: tuple[int, ...], attrs: dict[str, Any], like: Tensor
) -> Tensor:
    """Conv2DBackpropInput of 4-D dy4 and f (conv_attrs' attrs, dilations dropped) to input_shape, without the
    batch dim to_4d added to `like`."""
    attrs["input_shape"] = input_shape
    del attrs["dilations"]
    return from_4d(ENGINE.run_kernel(kn.Conv2DBackpropInput, {"dy": dy4, "filter": f}, attrs), like)


def _conv_op(kernel: str, depthwise: bool, name: str, doc: str) -> Callable[..., Tensor]:
    """The op `name` (docstring `doc`): prepare_conv's checks, then `kernel` on x as 4-D."""

    def conv_op(
        x: TensorLike,
        filter: TensorLike,
        strides: int | Sequence[int],
        pad: Pad,
        data_format: str = "NHWC",
        dilations: int | Sequence[int] = 1,
        dim_rounding_mode: str | None = None,
    ) -> Tensor:
        tx, x4, tf_, attrs, _ = prepare_conv(
            x, filter, strides, pad, data_format, dilations, dim_rounding_mode, depthwise, name
        )
        return from_4d(ENGINE.run_kernel(kernel, {"x": x4, "filter": tf_}, attrs), tx)

    return named_op(conv_op, name, doc)


conv2d = _conv_op(
    kn.Conv2D, False, "conv2d", "2-D convolution of NHWC x with filter [fh, fw, in, out] (kernel Conv2D)."
)
depthwise_conv2d = _conv_op(
    kn.DepthwiseConv2dNative,
    True,
    "depthwise_conv2d",
    "Depthwise 2-D convolution: filter [fh, fw, in, multiplier] gives in*multiplier channels.",
)


@op
def conv2d_transpose(
    x: TensorLike,
    filter: TensorLike,
    output_shape: Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """Transposed 2-D convolution (the gradient of conv2d w.r.t. its input) of shape output_shape."""
    name = "conv2d_transpose"
    tx = convert_non_bool(x, "x", name, "float32")
    tf_ = convert_non_bool(filter, "filter", name, "float32")
    out_shape = output_shape_arg(output_shape, "output_shape", name)
    if len(out_shape) != tx.rank:
        raise ValueError(
            f"Error in {name}: length of output_shape ({len(out_shape)}) and rank of x ({tx.rank}) must match"
        )
    check_filter(tf_, name)
    x4 = to_4d(tx, name)
    out4 = (1, *out_shape) if tx.rank == 3 else out_shape
    check_depth(out4[3], tf_.shape[2], name, "depth of output_shape", "input depth for filter")
    check_depth(x4.shape[3], tf_.shape[3], name, "depth of x", "output depth for filter")
    attrs = conv_attrs(strides, pad, "NHWC", 1, dim_rounding_mode, name)
    info = compute_conv_info(
        out4, tf_.shape, attrs["strides"], 1, attrs["pad"], dim_rounding_mode, False, name
    )
    if info.out_shape != x4.shape:
        raise ValueError(
            f"Error in {name}: x of shape {fmt(tx.shape)} does not fit output_shape {fmt(out_shape)}: "
            f"a conv2d of that shape with these strides and pad gives {fmt(info.out_shape[4 - tx.rank :])}"
        )
    return run_backprop_input(x4, tf_, out4, attrs, tx)


@op
def separable_conv2d(
    x: TensorLike,
    depthwise_filter: TensorLike,
    pointwise_filter: TensorLike,
    strides: int | Sequence[int],
    pad: Pad,
    dilation: int | Sequence[int] = 1,
    data_format: str = "NHWC",
) -> Tensor:
    """Depthwise conv2d then a 1x1 conv2d mixing channels (pointwise filter [1, 1, in*mult, out])."""
    name = "separable_conv2d"
    tx = convert_non_bool(x, "x", name, "float32")
    dw = convert_non_bool(depthwise_filter, "depthwise_filter", name, "float32")
    pw = convert_non_bool(pointwise_filter, "pointwise_filter", name, "float32")
    check_data_format(name, data_format)
    x4 = to_4d(tx, name)
    check_filter(dw, name, "depthwise_filter")
    check_filter(pw, name, "pointwise_filter")
    if pw.shape[0] != 1 or pw.shape[1] != 1:
        raise ValueError(
            f"Error in {name}: the first two dimensions of pointwise_filter must be 1, "
            f"but got shape {fmt(pw.shape)}"
        )
    if dw.shape[2] != x4.shape[3]:
        raise ValueError(
            f"Error in {name}: the third dimension of depthwise_filter ({dw.shape[2]}) must match the input "
            f"channels ({x4.shape[3]})"
        )
    if pw.shape[2] != dw.shape[2] * dw.shape[3]:
        raise ValueError(
            f"Error in {name}: the third dimension of pointwise_filter must be {dw.shape[2] * dw.shape[3]}, "
            f"but got {pw.shape[2]}"
        )
    depthwise = depthwise_conv2d(x4, dw, strides, pad, data_format, dilation)
    return from_4d(conv2d(depthwise, pw, 1, "valid", data_format), tx)
