"""TF op name -> webtf op: how each converter op (with its attrs) runs on webtf's backend-free ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import kernel_names as kn
from ... import ops as tf
from ...ops.extra import where_coords
from ...tensor import Tensor
from .containers import HANDLERS as CONTAINER_HANDLERS
from .functions import FUNCTIONAL_OPS
from .math_ops import custom_handler
from .math_ops import handlers as math_handlers
from .more_ops import HANDLERS as MORE_HANDLERS
from .nodes import Node
from .tables import HANDLERS as TABLE_HANDLERS

Handler = Callable[[Node, list[Tensor], Any], Any]
#: Ops that must run in execute_async (they read data to decide shapes).
ASYNC_OPS = {
    "NonMaxSuppressionV2",
    "NonMaxSuppressionV3",
    "NonMaxSuppressionV4",
    "NonMaxSuppressionV5",
    "Where",
    *TABLE_HANDLERS,
    "ListDiff",
}
#: Ops that only the data-driven executor runs (graph/dynamic.py): control flow and containers.
CONTROL_FLOW_OPS = {
    "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", *CONTAINER_HANDLERS,
    *FUNCTIONAL_OPS,
}  # fmt: skip


def _pad(node: Node) -> Any:
    padding = node.str("padding", "VALID").lower()
    if padding == "explicit":
        p = node.ints("explicit_paddings")
        return [[p[0], p[1]], [p[2], p[3]], [p[4], p[5]], [p[6], p[7]]]
    return padding


def _hw(node: Node, key: str) -> tuple[int, int]:
    v = node.ints(key, [1, 1, 1, 1])
    return (v[1], v[2]) if len(v) == 4 else (v[0], v[1]) if len(v) == 2 else (1, 1)


def _data_format(node: Node) -> str:
    fmt = node.str("data_format", "NHWC")
    if fmt != "NHWC":
        raise ValueError(f"node '{node.name}' ({node.op}): data_format {fmt} is not supported (NHWC only)")
    return fmt


def _fused(node: Node, ins: list[Tensor]) -> dict[str, Any]:
    """bias / activation / prelu / leakyrelu of _FusedConv2D, FusedDepthwiseConv2dNative, _FusedMatMul."""
    fused = [f.lower() for f in node.strs("fused_ops")]
    extra, act = (fused + [None, None])[:2]
    num_args = node.int("num_args")
    if extra == "fusedbatchnorm":
        raise ValueError(f"node '{node.name}' ({node.op}): fused FusedBatchNorm is not supported")
    if extra not in ("biasadd", "add", None):
        act, extra = extra, None
    args = ins[2 : 2 + num_args]
    if act == "prelu" and extra and num_args != 2:
        raise ValueError(
            f"node '{node.name}' ({node.op}): BiasAdd and Prelu need two extra arguments: bias and alpha"
        )
    bias = args[0] if extra else None
    prelu = args[1] if extra and act == "prelu" else (args[0] if act == "prelu" else None)
    return {
        "bias": bias,
        "activation": act or "linear",
        "prelu_activation_weights": prelu,
        "leakyrelu_alpha": node.float("leakyrelu_alpha", 0.2),
    }


def _conv_attrs(node: Node) -> tuple[Any, ...]:
    """(strides, pad, data_format, dilations) of a 2-D convolution node."""
    return _hw(node, "strides"), _pad(node), _data_format(node), _hw(node, "dilations")


def _conv2d(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.conv2d(ins[0], ins[1], *_conv_attrs(node))


def _fused_conv2d(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.fused.conv2d(ins[0], ins[1], *_conv_attrs(node), **_fused(node, ins))


def _depthwise(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.depthwise_conv2d(ins[0], ins[1], *_conv_attrs(node))


def _fused_depthwise(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.fused.depthwise_conv2d(ins[0], ins[1], *_conv_attrs(node), **_fused(node, ins))


def _conv2d_transpose(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    shape = [int(v) for v in ctx.values(ins[0])]
    return tf.conv2d_transpose(ins[2], ins[1], shape, _hw(node, "strides"), _pad(node))


def _mat_mul(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    ta = node.bool("transpose_a") or node.bool("adj_x")
    tb = node.bool("transpose_b") or node.bool("adj_y")
    return tf.mat_mul(ins[0], ins[1], ta, tb)


def _fused_mat_mul(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.fused.mat_mul(
        ins[0], ins[1], node.bool("transpose_a"), node.bool("transpose_b"), **_fused(node, ins)
    )


def _pool(fn: Callable[..., Tensor]) -> Handler:
    def run(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
        _data_format(node)
        return fn(ins[0], _hw(node, "ksize"), _hw(node, "strides"), _pad(node))

    return run


def _dhw(node: Node, key: str) -> list[int]:
    """[d, h, w] of a 5-entry NDHWC attr (strides, ksize, dilations)."""
    v = node.ints(key, [1, 1, 1, 1, 1])
    return v[1:4] if len(v) == 5 else v


def _data_format_3d(node: Node) -> str:
    fmt = node.str("data_format", "NDHWC")
    if fmt not in ("NDHWC", "NHWC"):  # TF.js's op list defaults Conv3D's to NHWC
        raise ValueError(f"node '{node.name}' ({node.op}): data_format {fmt} is not supported (NDHWC only)")
    return "NDHWC"


def _conv1d(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    pad = node.str("padding", "VALID").lower()
    return tf.conv1d(
        ins[0], ins[1], node.int("stride", 1), pad, node.str("data_format", "NWC"), node.int("dilation", 1)
    )


def _conv3d(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    pad = node.str("padding", "VALID").lower()
    return tf.conv3d(
        ins[0], ins[1], _dhw(node, "strides"), pad, _data_format_3d(node), _dhw(node, "dilations")
    )


def _pool3d(fn: Callable[..., Tensor]) -> Handler:
    def run(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
        _data_format_3d(node)
        return fn(ins[0], _dhw(node, "ksize"), _dhw(node, "strides"), node.str("padding", "VALID").lower())

    return run


def _unary(fn: Callable[[Tensor], Tensor]) -> Handler:
    return lambda node, ins, ctx: fn(ins[0])


def _binary(fn: Callable[[Tensor, Tensor], Tensor]) -> Handler:
    return lambda node, ins, ctx: fn(ins[0], ins[1])


def _ints(ctx: Any, t: Tensor) -> list[int]:
    return [int(v) for v in ctx.values(t)]


def _reduce(fn: Callable[..., Tensor]) -> Handler:
    return lambda node, ins, ctx: fn(ins[0], _ints(ctx, ins[1]), node.bool("keep_dims"))


def _concat(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    n = node.int("N", len(ins) - 1)
    return tf.concat(ins[:n], _ints(ctx, ins[n])[0])


def _pad_op(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    p = _ints(ctx, ins[1])
    value = ctx.values(ins[2])[0] if len(ins) > 2 else 0
    return tf.pad(ins[0], [p[i : i + 2] for i in range(0, len(p), 2)], value)


def _mirror_pad(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    p = _ints(ctx, ins[1])
    return tf.mirror_pad(ins[0], [p[i : i + 2] for i in range(0, len(p), 2)], node.str("mode").lower())


def _resize(fn: Callable[..., Tensor]) -> Handler:
    def run(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
        return fn(ins[0], _ints(ctx, ins[1]), node.bool("align_corners"), node.bool("half_pixel_centers"))

    return run


def _strided_slice(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.strided_slice(
        ins[0],
        _ints(ctx, ins[1]),
        _ints(ctx, ins[2]),
        _ints(ctx, ins[3]),
        node.int("begin_mask"),
        node.int("end_mask"),
        node.int("ellipsis_mask"),
        node.int("new_axis_mask"),
        node.int("shrink_axis_mask"),
    )


def _split(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    if node.op == "Split":  # inputs: axis, value
        return tf.split(ins[1], node.int("num_split"), _ints(ctx, ins[0])[0])
    return tf.split(ins[0], _ints(ctx, ins[1]), _ints(ctx, ins[2])[0])


def _nms(node: Node, ins: list[Tensor], ctx: Any) -> Any:
    boxes, scores = ins[0], ins[1]
    max_out = _ints(ctx, ins[2])[0]
    iou = float(ctx.values(ins[3])[0]) if len(ins) > 3 else 0.5
    score = float(ctx.values(ins[4])[0]) if len(ins) > 4 else float("-inf")
    if node.op == "NonMaxSuppressionV5":
        sigma = float(ctx.values(ins[5])[0])
        r = tf.image.non_max_suppression_with_score(boxes, scores, max_out, iou, score, sigma)
        return [
            r["selected_indices"],
            r["selected_scores"],
            tf.scalar(r["selected_indices"].shape[0], "int32"),
        ]
    if node.op == "NonMaxSuppressionV4":
        r = tf.image.non_max_suppression_padded(
            boxes, scores, max_out, iou, score, node.bool("pad_to_max_output_size")
        )
        return [r["selected_indices"], r["valid_outputs"]]
    return tf.image.non_max_suppression(boxes, scores, max_out, iou, score)


def _fill(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    value = ctx.values(ins[1])[0]
    return tf.fill(_ints(ctx, ins[0]), value, ins[1].dtype)


def _shape(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.tensor(list(ins[0].shape), [ins[0].rank], "int32")


def _range(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    start, stop, step = (ctx.values(t)[0] for t in ins[:3])
    return tf.range(start, stop, step, node.dtype("Tidx", ins[0].dtype))


def _squeeze(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    axes = node.ints("squeeze_dims") or node.ints("axis")
    return tf.squeeze(ins[0], axes or None)


def _dynamic_only(node: Node, ins: list[Tensor], ctx: Any) -> Any:
    raise ValueError(f"op '{node.op}' runs only in the dynamic executor (execute_async)")


def _sparse_to_dense(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    shape = _ints(ctx, ins[1])
    return tf.sparse_to_dense(ins[0], ins[2], shape, ins[3])


def _identity(node: Node, ins: list[Tensor], ctx: Any) -> Any:
    return ins[0] if node.op != "IdentityN" else list(ins)


def _build() -> dict[str, Handler]:
    return {
        # arithmetic
        kn.Add: _binary(tf.add),
        "AddV2": _binary(tf.add),
        "BiasAdd": _binary(tf.add),
        kn.Sub: _binary(tf.sub),
        "Mul": _binary(tf.mul),
        kn.RealDiv: _binary(tf.div),
        "Div": _binary(tf.div),
        kn.DivNoNan: _binary(lambda a, b: tf.div_no_nan(a, b)),
        kn.FloorDiv: _binary(tf.floor_div),
        "FloorMod": _binary(tf.mod),
        kn.Mod: _binary(tf.mod),
        kn.Maximum: _binary(tf.maximum),
        kn.Minimum: _binary(tf.minimum),
        kn.Pow: _binary(tf.pow),
        kn.SquaredDifference: _binary(tf.squared_difference),
        kn.Atan2: _binary(tf.atan2),
        kn.AddN: lambda node, ins, ctx: tf.add_n(ins),
        # comparisons and logic
        kn.Equal: _binary(tf.equal),
        kn.NotEqual: _binary(tf.not_equal),
        kn.Greater: _binary(tf.greater),
        kn.GreaterEqual: _binary(tf.greater_equal),
        kn.Less: _binary(tf.less),
        kn.LessEqual: _binary(tf.less_equal),
        kn.LogicalAnd: _binary(tf.logical_and),
        kn.LogicalOr: _binary(tf.logical_or),
        kn.LogicalNot: _unary(tf.logical_not),
        kn.Select: lambda node, ins, ctx: tf.where(ins[0], ins[1], ins[2]),
        "SelectV2": lambda node, ins, ctx: tf.where(ins[0], ins[1], ins[2]),
        # unary
        **{
            name: _unary(getattr(tf, fn))
            for name, fn in {
                kn.Abs: "abs",
                kn.Acos: "acos",
                kn.Asin: "asin",
                kn.Atan: "atan",
                kn.Ceil: "ceil",
                kn.Cos: "cos",
                kn.Cosh: "cosh",
                kn.Elu: "elu",
                kn.Erf: "erf",
                kn.Exp: "exp",
                kn.Expm1: "expm1",
                kn.Floor: "floor",
                kn.Log: "log",
                kn.Log1p: "log1p",
                kn.Neg: "neg",
                kn.Reciprocal: "reciprocal",
                kn.Relu: "relu",
                kn.Relu6: "relu6",
                kn.Round: "round",
                kn.Rsqrt: "rsqrt",
                kn.Selu: "selu",
                kn.Sigmoid: "sigmoid",
                kn.Sign: "sign",
                kn.Sin: "sin",
                kn.Sinh: "sinh",
                kn.Softplus: "softplus",
                kn.Sqrt: "sqrt",
                kn.Square: "square",
                kn.Tan: "tan",
                kn.Tanh: "tanh",
                kn.IsNan: "is_nan",
                kn.IsFinite: "is_finite",
            }.items()
        },  # fmt: skip
        kn.LeakyRelu: lambda node, ins, ctx: tf.leaky_relu(ins[0], node.float("alpha", 0.2)),
        kn.Prelu: _binary(tf.prelu),
        kn.ClipByValue: lambda node, ins, ctx: tf.clip_by_value(
            ins[0], ctx.values(ins[1])[0], ctx.values(ins[2])[0]
        ),
        # nn
        kn.Conv2D: _conv2d,
        "_FusedConv2D": _fused_conv2d,
        "DepthwiseConv2d": _depthwise,
        kn.DepthwiseConv2dNative: _depthwise,
        "FusedDepthwiseConv2dNative": _fused_depthwise,
        kn.Conv2DBackpropInput: _conv2d_transpose,
        "MatMul": _mat_mul,
        kn.BatchMatMul: _mat_mul,
        "BatchMatMulV2": _mat_mul,
        kn._FusedMatMul: _fused_mat_mul,
        kn.MaxPool: _pool(tf.max_pool),
        kn.AvgPool: _pool(tf.avg_pool),
        kn.Softmax: lambda node, ins, ctx: tf.softmax(ins[0]),
        kn.LogSoftmax: lambda node, ins, ctx: tf.log_softmax(ins[0]),
        # reductions
        kn.Sum: _reduce(tf.sum),
        kn.Mean: _reduce(tf.mean),
        kn.Max: _reduce(tf.max),
        kn.Min: _reduce(tf.min),
        kn.Prod: _reduce(tf.prod),
        kn.All: _reduce(tf.all),
        kn.Any: _reduce(tf.any),
        kn.ArgMax: lambda node, ins, ctx: tf.arg_max(ins[0], _ints(ctx, ins[1])[0]),
        kn.ArgMin: lambda node, ins, ctx: tf.arg_min(ins[0], _ints(ctx, ins[1])[0]),
        kn.Cumsum: lambda node, ins, ctx: tf.cumsum(
            ins[0], _ints(ctx, ins[1])[0], node.bool("exclusive"), node.bool("reverse")
        ),
        "TopKV2": lambda node, ins, ctx: tf.top_k(ins[0], _ints(ctx, ins[1])[0], node.bool("sorted", True)),
        # shape and slicing
        kn.Reshape: lambda node, ins, ctx: tf.reshape(ins[0], _ints(ctx, ins[1])),
        "Squeeze": _squeeze,
        kn.ExpandDims: lambda node, ins, ctx: tf.expand_dims(ins[0], _ints(ctx, ins[1])[0]),
        kn.Transpose: lambda node, ins, ctx: tf.transpose(ins[0], _ints(ctx, ins[1])),
        "ConcatV2": _concat,
        kn.Concat: lambda node, ins, ctx: tf.concat(ins[1:], _ints(ctx, ins[0])[0]),
        kn.Pack: lambda node, ins, ctx: tf.stack(ins, node.int("axis")),
        kn.Unpack: lambda node, ins, ctx: tf.unstack(ins[0], node.int("axis")),
        "Split": _split,
        kn.SplitV: _split,
        kn.Tile: lambda node, ins, ctx: tf.tile(ins[0], _ints(ctx, ins[1])),
        "Pad": _pad_op,
        kn.PadV2: _pad_op,
        kn.MirrorPad: _mirror_pad,
        # TF's Reverse takes a bool per dim, ReverseV2 the axes
        kn.Reverse: lambda node, ins, ctx: tf.reverse(ins[0], [i for i, d in enumerate(_ints(ctx, ins[1])) if d]),
        "ReverseV2": lambda node, ins, ctx: tf.reverse(ins[0], _ints(ctx, ins[1])),
        kn.Slice: lambda node, ins, ctx: tf.slice(ins[0], _ints(ctx, ins[1]), _ints(ctx, ins[2])),
        kn.StridedSlice: _strided_slice,
        kn.GatherV2: lambda node, ins, ctx: tf.gather(
            ins[0], ins[1], _ints(ctx, ins[2])[0], node.int("batch_dims")
        ),
        "Gather": lambda node, ins, ctx: tf.gather(ins[0], ins[1]),
        kn.GatherNd: _binary(tf.gather_nd),
        kn.OneHot: lambda node, ins, ctx: tf.one_hot(
            ins[0], _ints(ctx, ins[1])[0], ctx.values(ins[2])[0], ctx.values(ins[3])[0], ins[2].dtype
        ),
        kn.Cast: lambda node, ins, ctx: tf.cast(ins[0], node.dtype("DstT")),
        "Shape": _shape,
        "Size": lambda node, ins, ctx: tf.scalar(ins[0].size, node.dtype("out_type", "int32")),
        "Rank": lambda node, ins, ctx: tf.scalar(ins[0].rank, "int32"),
        "BroadcastTo": lambda node, ins, ctx: tf.broadcast_to(ins[0], _ints(ctx, ins[1])),
        kn.SparseToDense: _sparse_to_dense,
        "Where": lambda node, ins, ctx: where_coords(ins[0].shape, ins[0].data_sync()),
        kn.Fill: _fill,
        kn.ZerosLike: _unary(tf.zeros_like),
        kn.OnesLike: _unary(tf.ones_like),
        kn.Range: _range,
        kn.DepthToSpace: lambda node, ins, ctx: tf.depth_to_space(
            ins[0], node.int("block_size"), _data_format(node)
        ),
        kn.SpaceToBatchND: lambda node, ins, ctx: tf.space_to_batch_nd(
            ins[0], _ints(ctx, ins[1]), _pairs(ctx, ins[2])
        ),
        kn.BatchToSpaceND: lambda node, ins, ctx: tf.batch_to_space_nd(
            ins[0], _ints(ctx, ins[1]), _pairs(ctx, ins[2])
        ),
        # image
        kn.ResizeBilinear: _resize(lambda x, s, a, h: tf.image.resize_bilinear(x, s, a, h)),
        kn.ResizeNearestNeighbor: _resize(lambda x, s, a, h: tf.image.resize_nearest_neighbor(x, s, a, h)),
        kn.CropAndResize: lambda node, ins, ctx: tf.image.crop_and_resize(
            ins[0],
            ins[1],
            ins[2],
            _ints(ctx, ins[3]),
            node.str("method", "bilinear"),
            node.float("extrapolation_value"),
        ),
        "NonMaxSuppressionV2": _nms,
        kn.NonMaxSuppressionV3: _nms,
        kn.NonMaxSuppressionV4: _nms,
        kn.NonMaxSuppressionV5: _nms,
        # graph plumbing
        kn.Identity: _identity,
        "IdentityN": _identity,
        "StopGradient": _identity,
        "Snapshot": _identity,
        "PlaceholderWithDefault": _identity,  # its default (input 0), unless the node is fed
        "NoOp": lambda node, ins, ctx: [],
        **{name: _dynamic_only for name in ("Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond")},
        **CONTAINER_HANDLERS,
        # 1-D and 3-D convolution and pooling
        "Conv1D": _conv1d,
        kn.Conv3D: _conv3d,
        kn.AvgPool3D: _pool3d(tf.avg_pool3d),
        kn.MaxPool3D: _pool3d(tf.max_pool3d),
        **{name: _dynamic_only for name in FUNCTIONAL_OPS},
        **MORE_HANDLERS,
        **TABLE_HANDLERS,
        **math_handlers(),
        # complex64, spectral and string ops (issue 15, ops-types)
        kn.Complex: _binary(tf.complex),
        kn.Real: _unary(tf.real),
        kn.Imag: _unary(tf.imag),
        kn.ComplexAbs: _unary(tf.abs),
        kn.FFT: _unary(tf.spectral.fft),
        kn.IFFT: _unary(tf.spectral.ifft),
        "RFFT": lambda node, ins, ctx: tf.spectral.rfft(ins[0], _ints(ctx, ins[1])[0]),
        "IRFFT": _unary(tf.spectral.irfft),
        kn.StringToHashBucketFast: lambda node, ins, ctx: tf.string.string_to_hash_bucket_fast(
            ins[0], node.int("num_buckets")
        ),
        kn.StaticRegexReplace: lambda node, ins, ctx: tf.string.static_regex_replace(
            ins[0], node.str("pattern"), node.str("rewrite"), node.bool("replace_global", True)
        ),
        kn.StringSplit: _string_split,
        kn.StringNGrams: _string_n_grams,
        kn.SparseFillEmptyRows: lambda node, ins, ctx: list(tf.sparse.sparse_fill_empty_rows(*ins[:4]).values()),
        kn.SparseReshape: lambda node, ins, ctx: list(tf.sparse.sparse_reshape(*ins[:3]).values()),
        kn.SparseSegmentSum: lambda node, ins, ctx: tf.sparse.sparse_segment_sum(*ins[:3]),
        kn.SparseSegmentMean: lambda node, ins, ctx: tf.sparse.sparse_segment_mean(*ins[:3]),
        kn.RaggedRange: lambda node, ins, ctx: list(tf.ragged_range(*ins[:3]).values()),
        kn.RaggedGather: _ragged_gather,
        kn.RaggedTensorToTensor: lambda node, ins, ctx: tf.ragged_tensor_to_tensor(
            ins[0], ins[1], ins[2], ins[3:], node.strs("row_partition_types")
        ),
    }


def _ragged_gather(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    out = tf.ragged_gather(ins[:-2], ins[-2], ins[-1], node.int("OUTPUT_RAGGED_RANK"))
    return [*out["output_nested_splits"], out["output_dense_values"]]


def _string_split(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    out = tf.string.string_split(ins[0], ins[1], node.bool("skip_empty", True))
    return [out["indices"], out["values"], out["shape"]]


def _string_n_grams(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    out = tf.string.string_n_grams(
        ins[0],
        ins[1],
        node.str("separator"),
        node.ints("ngram_widths"),
        node.str("left_pad"),
        node.str("right_pad"),
        node.int("pad_width"),
        node.bool("preserve_short_sequences"),
    )
    return [out["n_grams"], out["n_grams_splits"]]


def _pairs(ctx: Any, t: Tensor) -> list[list[int]]:
    v = _ints(ctx, t)
    return [v[i : i + 2] for i in range(0, len(v), 2)]


_TABLE: dict[str, Handler] = {}


def table() -> dict[str, Handler]:
    """TF op name -> handler (built on first use, after every op family is imported)."""
    if not _TABLE:
        _TABLE.update(_build())
    return _TABLE


def resolve(op: str) -> Handler | None:
    """The handler for a TF op, or None when unsupported (Const and Placeholder are the executor's)."""
    return custom_handler(op) or table().get(op)
