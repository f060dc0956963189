"""tf.fused: mat_mul, conv2d, depthwise_conv2d with a bias add and an activation in the same kernel."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import kernel_names as kn
from ..backend_util import ACTIVATIONS
from ..dtypes import upcast
from ..engine import ENGINE
from ..shapes import broadcast_shapes, fmt
from ..tensor import Tensor
from .cast import cast
from .checks import flag_arg
from .conv import Pad, from_4d, prepare_conv
from .matmul import convert_matching, matmul_shape
from .op import TensorLike, convert_non_bool, named_op, op

__all__: list[str] = []  # reached as tf.fused.<name>, never top-level


def _fused_inputs(
    op_name: str,
    out_shape: tuple[int, ...],
    dtype: str,
    bias: TensorLike | None,
    activation: str,
    prelu_activation_weights: TensorLike | None,
    leakyrelu_alpha: float,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Checked bias / prelu weights (each must broadcast to the output) and the activation attrs."""
    activation = activation or "linear"
    if activation not in ACTIVATIONS:
        raise ValueError(
            f"Error in {op_name}: unknown activation '{activation}'; expected one of {', '.join(ACTIVATIONS)}"
        )
    inputs: dict[str, Any] = {"bias": None, "prelu_activation_weights": None}
    for arg, value in (("bias", bias), ("prelu_activation_weights", prelu_activation_weights)):
        if value is None:
            continue
        t = convert_non_bool(value, arg, op_name, "float32")
        try:
            ok = broadcast_shapes(out_shape, t.shape, op_name) == tuple(out_shape)
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(
                f"Error in {op_name}: {arg} of shape {fmt(t.shape)} cannot be broadcast to the output shape "
                f"{fmt(out_shape)}"
            )
        if arg == "bias" and t.dtype != upcast(t.dtype, dtype):
            t = cast(t, upcast(t.dtype, dtype))
        inputs[arg] = t
    if activation == "prelu" and inputs["prelu_activation_weights"] is None:
        raise ValueError(f"Error in {op_name}: activation 'prelu' needs prelu_activation_weights")
    return inputs, {"activation": activation, "leakyrelu_alpha": float(leakyrelu_alpha)}


@op
def mat_mul(
    a: TensorLike,
    b: TensorLike,
    transpose_a: bool = False,
    transpose_b: bool = False,
    bias: TensorLike | None = None,
    activation: str = "linear",
    prelu_activation_weights: TensorLike | None = None,
    leakyrelu_alpha: float = 0.2,
) -> Tensor:
    """activation(a @ b + bias) in one kernel (_FusedMatMul)."""
    name = "fused.mat_mul"
    ta, tb = convert_matching(a, b, name)
    shape = matmul_shape(
        ta, tb, flag_arg(transpose_a, "transpose_a", name), flag_arg(transpose_b, "transpose_b", name), name
    )
    extra, attrs = _fused_inputs(
        name, shape, ta.dtype, bias, activation, prelu_activation_weights, leakyrelu_alpha
    )
    attrs.update(
        transpose_a=flag_arg(transpose_a, "transpose_a", name),
        transpose_b=flag_arg(transpose_b, "transpose_b", name),
    )
    return ENGINE.run_kernel(kn._FusedMatMul, {"a": ta, "b": tb, **extra}, attrs)


def _fused_conv_op(kernel: str, depthwise: bool, name: str, doc: str) -> Callable[..., Tensor]:
    """The op fused.`name` (docstring `doc`): the conv op's checks, then `kernel` with bias and activation."""
    op_name = f"fused.{name}"

    def fused_conv_op(
        x: TensorLike,
        filter: TensorLike,
        strides: int | Sequence[int],
        pad: Pad,
        data_format: str = "NHWC",
        dilations: int | Sequence[int] = 1,
        dim_rounding_mode: str | None = None,
        bias: TensorLike | None = None,
        activation: str = "linear",
        prelu_activation_weights: TensorLike | None = None,
        leakyrelu_alpha: float = 0.2,
    ) -> Tensor:
        tx, x4, tf_, attrs, info = prepare_conv(
            x, filter, strides, pad, data_format, dilations, dim_rounding_mode, depthwise, op_name
        )
        extra, act = _fused_inputs(
            op_name, info.out_shape, tx.dtype, bias, activation, prelu_activation_weights, leakyrelu_alpha
        )
        return from_4d(ENGINE.run_kernel(kernel, {"x": x4, "filter": tf_, **extra}, {**attrs, **act}), tx)

    return named_op(fused_conv_op, name, doc)


conv2d = _fused_conv_op(
    kn.FusedConv2D, False, "conv2d", "activation(conv2d(x, filter) + bias) in one kernel (FusedConv2D)."
)
depthwise_conv2d = _fused_conv_op(
    kn.FusedDepthwiseConv2D,
    True,
    "depthwise_conv2d",
    "activation(depthwise_conv2d(x, filter) + bias) in one kernel (FusedDepthwiseConv2D).",
)
