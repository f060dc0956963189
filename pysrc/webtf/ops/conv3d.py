"""conv1d (a conv2d of height 1, as TF.js) and the 3-D ops (NDHWC): conv3d, conv3d_transpose, avg_pool3d,
max_pool3d; with the backward ops their gradients are made of (not exported, as ops/backprop.py's)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import kernel_names as kn
from ..backend_util import (
    check_conv_args,
    check_pad_3d,
    compute_conv3d_info,
    compute_pool3d_info,
    parse_triple,
)
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .cast import cast
from .checks import check_size
from .checks import output_shape as output_shape_arg
from .conv import Pad, conv2d, reshape
from .op import TensorLike, convert_non_bool, named_op, op

__all__ = ["avg_pool3d", "conv1d", "conv3d", "conv3d_transpose", "max_pool3d"]


def _float(x: TensorLike, arg: str, name: str) -> Tensor:
    t = convert_non_bool(x, arg, name, "float32")
    return t if t.dtype == "float32" else cast(t, "float32")


def _rank(t: Tensor, ranks: tuple[int, ...], arg: str, name: str) -> None:
    if t.rank not in ranks:
        want = " or ".join(map(str, ranks))
        raise ValueError(
            f"Error in {name}: {arg} must be rank {want}, but got rank {t.rank} with shape {fmt(t.shape)}"
        )


def _to_5d(t: Tensor, name: str, arg: str = "x") -> Tensor:
    """t with a batch of 1 added when rank 4; other ranks than 4 or 5 are an error."""
    _rank(t, (4, 5), arg, name)
    return reshape(t, (1, *t.shape)) if t.rank == 4 else t


def _from_5d(res: Tensor, like: Tensor) -> Tensor:
    return reshape(res, res.shape[1:]) if like.rank == 4 else res


def _positive(value: tuple[int, ...], what: str, name: str) -> None:
    if min(value) <= 0:
        raise ValueError(f"Error in {name}: {what} should be larger than 0, but got {list(value)}")


def _data_format(data_format: str, expected: str, name: str) -> None:
    if not isinstance(data_format, str) or data_format != expected:
        raise ValueError(
            f"Error in {name}: got data_format {data_format!r:.40} but only {expected} is supported"
        )


def _conv3d_attrs(strides: Any, pad: Pad, dilations: Any, name: str) -> dict[str, Any]:
    st, dil = parse_triple(strides, name, "strides"), parse_triple(dilations, name, "dilations")
    _positive(st, "strides", name)
    _positive(dil, "dilation rates", name)
    if st != (1, 1, 1) and dil != (1, 1, 1):
        raise ValueError(
            f"Error in {name}: either strides or dilations must be 1. Got strides {list(st)} and dilations "
            f"{list(dil)}"
        )
    check_pad_3d(name, pad)
    return {"strides": st, "pad": pad if isinstance(pad, str) else int(pad), "dilations": dil}


def _check_depth(got: int, want: int, what: str, name: str, shapes: str) -> None:
    if got != want:
        raise ValueError(f"Error in {name}: {what} ({got}) must match {want} ({shapes})")


@op
def conv1d(
    x: TensorLike,
    filter: TensorLike,
    stride: int,
    pad: Pad,
    data_format: str = "NWC",
    dilation: int = 1,
    dim_rounding_mode: str | None = None,
) -> Tensor:
    """1-D convolution of x [b, w, c] (or [w, c]) with filter [fw, c, out]: a conv2d of height 1."""
    name = "conv1d"
    tx = convert_non_bool(x, "x", name, "float32")
    tf_ = convert_non_bool(filter, "filter", name, "float32")
    _rank(tx, (2, 3), "x", name)
    _rank(tf_, (3,), "filter", name)
    _data_format(data_format, "NWC", name)
    x3 = reshape(tx, (1, *tx.shape)) if tx.rank == 2 else tx
    _check_depth(
        x3.shape[2], tf_.shape[1], "depth of input", name,
        f"the filter's input depth; x shape {fmt(tx.shape)}, filter shape {fmt(tf_.shape)}",
    )  # fmt: skip
    for value, what in ((stride, "stride"), (dilation, "dilation")):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"Error in {name}: {what} must be an integer, but got {value!r:.40}")
    check_conv_args(name, (1, stride), (1, dilation), pad, dim_rounding_mode)
    if isinstance(pad, (list, tuple)):
        raise ValueError(f"Error in {name}: pad must be 'same', 'valid' or a number, but got {pad!r:.60}")
    x4 = reshape(x3, (x3.shape[0], 1, x3.shape[1], x3.shape[2]))
    f4 = reshape(tf_, (1, *tf_.shape))
    if not isinstance(pad, str):  # a number pads the width only (TF.js pads the added height too, then fails)
        pad = ((0, 0), (0, 0), (pad, pad), (0, 0))
    res = conv2d(x4, f4, (1, stride), pad, "NHWC", (1, dilation), dim_rounding_mode)
    return reshape(res, (res.shape[2], res.shape[3]) if tx.rank == 2 else (res.shape[0], *res.shape[2:]))


@op
def conv3d(
    x: TensorLike,
    filter: TensorLike,
    strides: int | Sequence[int],
    pad: Pad,
    data_format: str = "NDHWC",
    dilations: int | Sequence[int] = 1,
) -> Tensor:
    """3-D convolution of x [b, d, h, w, c] (or without b) with filter [fd, fh, fw, c, out] (kernel Conv3D)."""
    name = "conv3d"
    tx, tf_ = _float(x, "x", name), _float(filter, "filter", name)
    x5 = _to_5d(tx, name)
    _rank(tf_, (5,), "filter", name)
    shapes = f"x shape {fmt(tx.shape)}, filter shape {fmt(tf_.shape)}"
    _check_depth(x5.shape[4], tf_.shape[3], "depth of input", name, f"the filter's input depth; {shapes}")
    _data_format(data_format, "NDHWC", name)
    attrs = _conv3d_attrs(strides, pad, dilations, name)
    info = compute_conv3d_info(
        x5.shape, tf_.shape, attrs["strides"], attrs["dilations"], attrs["pad"], None, name
    )
    check_size(info.out_shape, name, f" ({shapes})")
    attrs["data_format"] = "NDHWC"
    return _from_5d(ENGINE.run_kernel(kn.Conv3D, {"x": x5, "filter": tf_}, attrs), tx)


def _backprop_input(
    name: str, x_shape: Sequence[int], dy: TensorLike, filter: TensorLike, strides: Any, pad: Pad
) -> Tensor:
    tdy, f = _float(dy, "dy", name), _float(filter, "filter", name)
    shape = output_shape_arg(x_shape, "output_shape" if name == "conv3d_transpose" else "x_shape", name)
    if len(shape) != tdy.rank:
        raise ValueError(
            f"Error in {name}: length of the output shape ({len(shape)}) and rank of x ({tdy.rank}) must match"
        )
    dy5 = _to_5d(tdy, name)
    shape5 = (1, *shape) if len(shape) == 4 else tuple(shape)
    _rank(f, (5,), "filter", name)
    shapes = f"output shape {fmt(shape)}, x shape {fmt(tdy.shape)}, filter shape {fmt(f.shape)}"
    _check_depth(
        shape5[4], f.shape[3], "depth of the output shape", name, f"the filter's input depth; {shapes}"
    )
    _check_depth(dy5.shape[4], f.shape[4], "depth of x", name, f"the filter's output depth; {shapes}")
    attrs = _conv3d_attrs(strides, pad, 1, name)
    info = compute_conv3d_info(shape5, f.shape, attrs["strides"], 1, attrs["pad"], None, name)
    if info.out_shape != dy5.shape:
        raise ValueError(
            f"Error in {name}: x of shape {fmt(tdy.shape)} does not fit the output shape {fmt(shape)}: a conv3d "
            f"of that shape with these strides and pad gives {fmt(info.out_shape[5 - tdy.rank :])}"
        )
    check_size(shape5, name, f" ({shapes})")
    del attrs["dilations"]
    attrs["input_shape"] = shape5
    return _from_5d(ENGINE.run_kernel(kn.Conv3DBackpropInputV2, {"dy": dy5, "filter": f}, attrs), tdy)


@op
def conv3d_transpose(
    x: TensorLike,
    filter: TensorLike,
    output_shape: Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
) -> Tensor:
    """Transposed 3-D convolution (conv3d's gradient w.r.t. its input) of shape output_shape."""
    return _backprop_input("conv3d_transpose", output_shape, x, filter, strides, pad)


@op
def conv3d_backprop_input(
    x_shape: Sequence[int], dy: TensorLike, filter: TensorLike, strides: int | Sequence[int], pad: Pad
) -> Tensor:
    """The gradient of conv3d(x, filter) w.r.t. an x of x_shape, given dy (kernel Conv3DBackpropInputV2)."""
    return _backprop_input("conv3d_backprop_input", x_shape, dy, filter, strides, pad)


@op
def conv3d_backprop_filter(
    x: TensorLike, dy: TensorLike, filter_shape: Sequence[int], strides: int | Sequence[int], pad: Pad
) -> Tensor:
    """The gradient of conv3d(x, filter) w.r.t. a filter of filter_shape (kernel Conv3DBackpropFilterV2)."""
    name = "conv3d_backprop_filter"
    x5, dy5 = _to_5d(_float(x, "x", name), name), _to_5d(_float(dy, "dy", name), name, "dy")
    shape = tuple(int(d) for d in filter_shape)
    if len(shape) != 5 or min(shape) < 0:
        raise ValueError(
            f"Error in {name}: filter_shape must be 5 non-negative sizes, but got {list(shape)!r}"
        )
    attrs = _conv3d_attrs(strides, pad, 1, name)
    shapes = f"x shape {fmt(x5.shape)}, dy shape {fmt(dy5.shape)}, filter_shape {fmt(shape)}"
    _check_depth(x5.shape[4], shape[3], "depth of x", name, f"the filter's input depth; {shapes}")
    _check_depth(dy5.shape[4], shape[4], "depth of dy", name, f"the filter's output depth; {shapes}")
    info = compute_conv3d_info(x5.shape, shape, attrs["strides"], 1, attrs["pad"], None, name)
    if info.out_shape != dy5.shape:
        raise ValueError(
            f"Error in {name}: dy must have the conv3d's output shape {fmt(info.out_shape)} ({shapes})"
        )
    del attrs["dilations"]
    attrs["filter_shape"] = shape
    return ENGINE.run_kernel(kn.Conv3DBackpropFilterV2, {"x": x5, "dy": dy5}, attrs)


def _pool_attrs(
    x5: Tensor,
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: str | None,
    data_format: str,
    name: str,
) -> dict[str, Any]:
    _data_format(data_format, "NDHWC", name)
    window = parse_triple(filter_size, name, "filter_size")
    st = parse_triple(strides, name, "strides")
    _positive(window, "filter_size", name)
    _positive(st, "strides", name)
    check_pad_3d(name, pad, dim_rounding_mode)
    pad = pad if isinstance(pad, str) else int(pad)
    info = compute_pool3d_info(x5.shape, window, st, pad, dim_rounding_mode, name)
    check_size(info.out_shape, name, f" (x {fmt(x5.shape)})")
    return {"filter_size": window, "strides": st, "pad": pad, "dim_rounding_mode": dim_rounding_mode}


def _pool3d_op(kernel: str, name: str, doc: str) -> Callable[..., Tensor]:
    """The op `name` (docstring `doc`): `kernel` over each filter_size window of NDHWC x, in x's dtype."""

    def pool3d_op(
        x: TensorLike,
        filter_size: int | Sequence[int],
        strides: int | Sequence[int],
        pad: Pad,
        dim_rounding_mode: str | None = None,
        data_format: str = "NDHWC",
    ) -> Tensor:
        tx = convert_non_bool(x, "x", name, "float32")
        x5 = _to_5d(tx, name)
        attrs = _pool_attrs(x5, filter_size, strides, pad, dim_rounding_mode, data_format, name)
        res = ENGINE.run_kernel(kernel, {"x": x5}, {**attrs, "data_format": "NDHWC"})
        return _from_5d(res if tx.dtype == res.dtype else cast(res, tx.dtype), tx)

    return named_op(pool3d_op, name, doc)


avg_pool3d = _pool3d_op(
    kn.AvgPool3D,
    "avg_pool3d",
    "The mean over each filter_size window of NDHWC x, counting only in-bounds elements (kernel AvgPool3D).",
)
max_pool3d = _pool3d_op(
    kn.MaxPool3D,
    "max_pool3d",
    "The maximum over each filter_size window of NDHWC x (padding and nan never win; kernel MaxPool3D).",
)


def _pool_grad_args(
    name: str, inputs: dict[str, TensorLike], filter_size: Any, strides: Any, pad: Any,
    dim_rounding_mode: str | None,
) -> tuple[dict[str, Tensor], dict[str, Any]]:  # fmt: skip
    """The 5-D float32 inputs and the kernel attrs of a 3-D pool gradient, checked against each other."""
    ts = {k: _to_5d(_float(v, k, name), name, k) for k, v in inputs.items()}
    attrs = _pool_attrs(ts["input"], filter_size, strides, pad, dim_rounding_mode, "NDHWC", name)
    info = compute_pool3d_info(
        ts["input"].shape, attrs["filter_size"], attrs["strides"], attrs["pad"], dim_rounding_mode, name
    )
    for k in ("dy", "output"):
        if k in ts and ts[k].shape != info.out_shape:
            raise ValueError(
                f"Error in {name}: {k} of shape {fmt(ts[k].shape)} must have the pool's output shape "
                f"{fmt(info.out_shape)}"
            )
    return ts, attrs


@op
def max_pool3d_grad(
    dy: TensorLike, input: TensorLike, output: TensorLike, filter_size: Any, strides: Any, pad: Any,
    dim_rounding_mode: str | None = None,
) -> Tensor:  # fmt: skip
    """The gradient of max_pool3d(input) = output given dy: dy to each window's last maximum (MaxPool3DGrad)."""
    ts, attrs = _pool_grad_args(
        "max_pool3d_grad", {"dy": dy, "input": input, "output": output}, filter_size, strides, pad,
        dim_rounding_mode,
    )  # fmt: skip
    res = ENGINE.run_kernel(
        kn.MaxPool3DGrad, {"dy": ts["dy"], "input": ts["input"], "output": ts["output"]}, attrs
    )
    return res if ts["input"].shape == getattr(input, "shape", None) else reshape(res, res.shape[1:])


@op
def avg_pool3d_grad(
    dy: TensorLike, input: TensorLike, filter_size: Any, strides: Any, pad: Any,
    dim_rounding_mode: str | None = None,
) -> Tensor:  # fmt: skip
    """The gradient of avg_pool3d(input) given dy, spread over each window's in-bounds elements."""
    ts, attrs = _pool_grad_args(
        "avg_pool3d_grad", {"dy": dy, "input": input}, filter_size, strides, pad, dim_rounding_mode
    )
    res = ENGINE.run_kernel(kn.AvgPool3DGrad, {"dy": ts["dy"], "input": ts["input"]}, attrs)
    return res if ts["input"].shape == getattr(input, "shape", None) else reshape(res, res.shape[1:])
