"""Every kernel's name, inputs and attrs, declared once (tfjs-core's kernel_names.ts).

Convention: one plain `str` constant per kernel, named exactly as its value, which is TF.js's kernel name
(`Add = "Add"`, `_FusedMatMul = "_FusedMatMul"`). Ops, backend kernel tables, the graph op table and gradients
write `kn.Add` (`from webtf import kernel_names as kn`), never a string literal. KERNELS maps each name to its
KernelSpec: input and attr names as the ops pass them (TF.js's, in snake_case) and, in `doc`, what every
backend's kernel must do. tests/core/test_kernel_names.py checks tables and call sites against it.

Shared conventions:
- dtypes are float32, int32 and bool; ops upcast operands to one dtype (kernel Cast) before the kernel runs;
  int32 results wrap like an Int32Array. Axes arrive normalized: non-negative ints, tuples sorted.
- conv / pool: tensors NHWC, filters [fh, fw, in, out] ([fh, fw, in, multiplier] for depthwise); strides,
  dilations and filter_size are (h, w) pairs; pad is 'same' | 'valid' | an int | ((0, 0), (top, bottom),
  (left, right), (0, 0)); data_format 'NHWC'; dim_rounding_mode None | 'floor' | 'round' | 'ceil'; the
  geometry is compute_conv_info's / compute_pool_info's.
- fused kernels: activation 'linear' | 'relu' | 'relu6' | 'elu' | 'prelu' | 'leakyrelu' | 'sigmoid' with
  leakyrelu_alpha; inputs bias and prelu_activation_weights are None when absent, else broadcast to the
  output.
- a variadic kernel takes a list of tensors instead of a dict (gradients key them "0", "1", ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from .update_rules import RULES


@dataclass(frozen=True)
class KernelSpec:
    """One kernel's contract: input names (in order), attr names, and what every backend must do."""

    name: str
    inputs: tuple[str, ...]
    attrs: tuple[str, ...] = ()
    variadic: bool = False
    doc: str = ""


# ---- creation and dtype ------------------------------------------------------------------------
Cast = "Cast"
Fill = "Fill"
Identity = "Identity"
LinSpace = "LinSpace"
OnesLike = "OnesLike"
Range = "Range"
ZerosLike = "ZerosLike"

# ---- element-wise unary: input x ---------------------------------------------------------------
Abs = "Abs"
Acos = "Acos"
Acosh = "Acosh"
Asin = "Asin"
Asinh = "Asinh"
Atan = "Atan"
Atanh = "Atanh"
Ceil = "Ceil"
ClipByValue = "ClipByValue"
Cos = "Cos"
Cosh = "Cosh"
Elu = "Elu"
Erf = "Erf"
Exp = "Exp"
Expm1 = "Expm1"
Floor = "Floor"
IsFinite = "IsFinite"
IsInf = "IsInf"
IsNan = "IsNan"
LeakyRelu = "LeakyRelu"
Log = "Log"
Log1p = "Log1p"
LogicalNot = "LogicalNot"
Neg = "Neg"
Prelu = "Prelu"
Reciprocal = "Reciprocal"
Relu = "Relu"
Relu6 = "Relu6"
Round = "Round"
Rsqrt = "Rsqrt"
Selu = "Selu"
Sigmoid = "Sigmoid"
Sign = "Sign"
Sin = "Sin"
Sinh = "Sinh"
Softplus = "Softplus"
Sqrt = "Sqrt"
Square = "Square"
Step = "Step"
Tan = "Tan"
Tanh = "Tanh"

# ---- element-wise binary: inputs a, b (broadcasting) -------------------------------------------
Add = "Add"
AddN = "AddN"
Atan2 = "Atan2"
DivNoNan = "DivNoNan"
Equal = "Equal"
FloorDiv = "FloorDiv"
Greater = "Greater"
GreaterEqual = "GreaterEqual"
Less = "Less"
LessEqual = "LessEqual"
LogicalAnd = "LogicalAnd"
LogicalOr = "LogicalOr"
LogicalXor = "LogicalXor"
Maximum = "Maximum"
Minimum = "Minimum"
Mod = "Mod"
Multiply = "Multiply"
NotEqual = "NotEqual"
Pow = "Pow"
RealDiv = "RealDiv"
Select = "Select"
SquaredDifference = "SquaredDifference"
Sub = "Sub"

# ---- reductions, scans, softmax, sort ----------------------------------------------------------
All = "All"
Any = "Any"
ArgMax = "ArgMax"
ArgMin = "ArgMin"
Cumprod = "Cumprod"
Cumsum = "Cumsum"
LogSoftmax = "LogSoftmax"
Max = "Max"
Mean = "Mean"
Min = "Min"
Prod = "Prod"
Softmax = "Softmax"
Sum = "Sum"
TopK = "TopK"

# ---- matmul, conv, pool ------------------------------------------------------------------------
AvgPool = "AvgPool"
BatchMatMul = "BatchMatMul"
Conv2D = "Conv2D"
Conv2DBackpropInput = "Conv2DBackpropInput"
DepthwiseConv2dNative = "DepthwiseConv2dNative"
FusedConv2D = "FusedConv2D"
FusedDepthwiseConv2D = "FusedDepthwiseConv2D"
MaxPool = "MaxPool"
_FusedMatMul = "_FusedMatMul"

# ---- shape, slicing, spatial -------------------------------------------------------------------
BatchToSpaceND = "BatchToSpaceND"
Concat = "Concat"
DepthToSpace = "DepthToSpace"
ExpandDims = "ExpandDims"
GatherNd = "GatherNd"
GatherV2 = "GatherV2"
MirrorPad = "MirrorPad"
OneHot = "OneHot"
Pack = "Pack"
PadV2 = "PadV2"
Reshape = "Reshape"
Reverse = "Reverse"
Slice = "Slice"
SpaceToBatchND = "SpaceToBatchND"
SplitV = "SplitV"
StridedSlice = "StridedSlice"
Tile = "Tile"
Transpose = "Transpose"
Unpack = "Unpack"

# ---- image -------------------------------------------------------------------------------------
CropAndResize = "CropAndResize"
FlipLeftRight = "FlipLeftRight"
NonMaxSuppressionV3 = "NonMaxSuppressionV3"
NonMaxSuppressionV4 = "NonMaxSuppressionV4"
NonMaxSuppressionV5 = "NonMaxSuppressionV5"
ResizeBilinear = "ResizeBilinear"
ResizeNearestNeighbor = "ResizeNearestNeighbor"
RotateWithOffset = "RotateWithOffset"
Transform = "Transform"

# ---- gradients: the backward kernels autograd dispatches (TF.js's names, inputs and attrs) -----
AvgPoolGrad = "AvgPoolGrad"
Conv2DBackpropFilter = "Conv2DBackpropFilter"
DepthwiseConv2dNativeBackpropFilter = "DepthwiseConv2dNativeBackpropFilter"
DepthwiseConv2dNativeBackpropInput = "DepthwiseConv2dNativeBackpropInput"
EluGrad = "EluGrad"
MaxPoolGrad = "MaxPoolGrad"
ResizeBilinearGrad = "ResizeBilinearGrad"
ResizeNearestNeighborGrad = "ResizeNearestNeighborGrad"

# ---- optimizer updates: inputs value, grad and the rule's slots; attrs its scalars (update_rules.RULES) ----
ApplyAdadelta = "ApplyAdadelta"
ApplyAdagrad = "ApplyAdagrad"
ApplyAdam = "ApplyAdam"
ApplyAdaMax = "ApplyAdaMax"
ApplyCenteredRMSProp = "ApplyCenteredRMSProp"
ApplyGradientDescent = "ApplyGradientDescent"
ApplyMomentum = "ApplyMomentum"
ApplyNesterovMomentum = "ApplyNesterovMomentum"
ApplyRMSProp = "ApplyRMSProp"

# ---- 3-D conv and pool (NDHWC; filters [fd, fh, fw, in, out]; strides, dilations, filter_size triples) ----
AvgPool3D = "AvgPool3D"
AvgPool3DGrad = "AvgPool3DGrad"
Conv3D = "Conv3D"
Conv3DBackpropFilterV2 = "Conv3DBackpropFilterV2"
Conv3DBackpropInputV2 = "Conv3DBackpropInputV2"
MaxPool3D = "MaxPool3D"
MaxPool3DGrad = "MaxPool3DGrad"


_X = ("x",)
_AB = ("a", "b")
_CONV = ("strides", "pad", "data_format", "dilations", "dim_rounding_mode")
_FUSED = ("activation", "leakyrelu_alpha")
_FUSED_INPUTS = ("bias", "prelu_activation_weights")
_POOL = ("filter_size", "strides", "pad", "dim_rounding_mode")
_REDUCE = ("axis", "keep_dims")
_SCAN = ("axis", "exclusive", "reverse")
_RESIZE = ("size", "align_corners", "half_pixel_centers")
_NMS = ("max_output_size", "iou_threshold", "score_threshold")
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")

_FLOAT_UNARY = (
    Acos, Acosh, Asin, Asinh, Atan, Atanh, Cos, Cosh, Elu, Erf, Exp, Expm1, Log, Log1p, Reciprocal, Rsqrt,
    Selu, Sigmoid, Sin, Sinh, Softplus, Sqrt, Tan, Tanh,
)  # fmt: skip
_SAME_UNARY = (Abs, Ceil, Floor, Neg, Relu, Relu6, Round, Sign, Square)
_ARITHMETIC = (Add, Maximum, Minimum, Mod, Multiply, Pow, SquaredDifference, Sub)
_COMPARISON = (Equal, Greater, GreaterEqual, Less, LessEqual, NotEqual)
_LOGICAL = (LogicalAnd, LogicalOr, LogicalXor)

_SPECS = (
    # creation and dtype
    KernelSpec(
        Cast, _X, ("dtype",), doc="float32 -> int32 truncates toward zero; anything -> bool is x != 0"
    ),
    KernelSpec(Fill, (), ("shape", "value", "dtype")),
    KernelSpec(Identity, _X, doc="shares x's buffer"),
    KernelSpec(LinSpace, (), ("start", "stop", "num"), doc="num float32 values from start to stop inclusive"),
    KernelSpec(OnesLike, _X),
    KernelSpec(Range, (), ("start", "stop", "step", "dtype"), doc="[start, stop) by step"),
    KernelSpec(ZerosLike, _X),
    # unary
    *(KernelSpec(n, _X, doc="x float32 or int32 -> float32") for n in _FLOAT_UNARY),
    *(KernelSpec(n, _X, doc="x float32 or int32 -> x's dtype") for n in _SAME_UNARY),
    *(KernelSpec(n, _X, doc="x of any dtype -> bool") for n in (IsFinite, IsInf, IsNan)),
    KernelSpec(LogicalNot, _X, doc="x bool -> bool"),
    KernelSpec(ClipByValue, _X, ("clip_value_min", "clip_value_max"), doc="nan kept; x's dtype"),
    KernelSpec(LeakyRelu, _X, ("alpha",), doc="x < 0 ? alpha * x : x; float32"),
    KernelSpec(Prelu, ("x", "alpha"), doc="x < 0 ? alpha * x : x, alpha broadcast against x; float32"),
    KernelSpec(Step, _X, ("alpha",), doc="x > 0 ? 1 : alpha, nan kept; x's dtype"),
    # binary: a and b share a dtype, shapes broadcast NumPy-style; x / 0 = +-inf, int32 x // 0 = x % 0 = 0
    *(KernelSpec(n, _AB, doc="a's dtype") for n in _ARITHMETIC),
    *(KernelSpec(n, _AB, doc="float32") for n in (Atan2, DivNoNan, RealDiv)),
    KernelSpec(FloorDiv, _AB, doc="int32, as TF.js"),
    *(KernelSpec(n, _AB, doc="bool") for n in _COMPARISON),
    *(KernelSpec(n, _AB, doc="a, b bool -> bool") for n in _LOGICAL),
    KernelSpec(AddN, (), variadic=True, doc="tensors of one shape and dtype"),
    KernelSpec(
        Select, ("condition", "t", "e"), doc="condition bool; t, e one dtype; the three shapes broadcast"
    ),
    # reductions (axes () = identity), scans, softmax (over the last axis), sort
    *(KernelSpec(n, _X, _REDUCE) for n in (All, Any, Min, Prod, Sum)),
    KernelSpec(Mean, _X, _REDUCE, doc="float32"),
    KernelSpec(Max, _X, ("reduction_indices", "keep_dims")),
    *(KernelSpec(n, _X, ("axis",), doc="int32 index of the first extremum") for n in (ArgMax, ArgMin)),
    *(KernelSpec(n, _X, _SCAN, doc="bool and int32 -> int32") for n in (Cumprod, Cumsum)),
    KernelSpec(LogSoftmax, ("logits",), ("axis",), doc="float32, over the last axis"),
    KernelSpec(Softmax, ("logits",), ("dim",), doc="float32, over the last axis"),
    KernelSpec(
        TopK,
        _X,
        ("k", "sorted"),
        doc="[values, int32 indices] of the k largest along the last axis; ties keep the lower index first, "
        "nan ranks above every number",
    ),
    # matmul, conv, pool
    KernelSpec(BatchMatMul, _AB, ("transpose_a", "transpose_b"), doc="rank >= 2, batch dims broadcast"),
    KernelSpec(_FusedMatMul, (*_AB, *_FUSED_INPUTS), ("transpose_a", "transpose_b", *_FUSED)),
    KernelSpec(Conv2D, ("x", "filter"), _CONV, doc="x's dtype"),
    KernelSpec(DepthwiseConv2dNative, ("x", "filter"), _CONV),
    KernelSpec(FusedConv2D, ("x", "filter", *_FUSED_INPUTS), (*_CONV, *_FUSED)),
    KernelSpec(FusedDepthwiseConv2D, ("x", "filter", *_FUSED_INPUTS), (*_CONV, *_FUSED)),
    KernelSpec(
        Conv2DBackpropInput,
        ("dy", "filter"),
        ("strides", "pad", "data_format", "dim_rounding_mode", "input_shape"),
        doc="dx of shape input_shape for a conv2d with output gradient dy; float32",
    ),
    *(KernelSpec(n, _X, _POOL, doc="padding never counts; x's dtype") for n in (AvgPool, MaxPool)),
    # shape, slicing, spatial
    KernelSpec(Concat, (), ("axis",), variadic=True, doc="tensors of one dtype and rank"),
    KernelSpec(ExpandDims, ("input",), ("dim",), doc="shares the input's buffer"),
    KernelSpec(Pack, (), ("axis",), variadic=True, doc="tensors of one shape and dtype; axis of the new dim"),
    KernelSpec(Reshape, _X, ("shape",), doc="shape fully resolved; shares x's buffer"),
    KernelSpec(Reverse, _X, ("dims",)),
    KernelSpec(SplitV, _X, ("num_or_size_splits", "axis"), doc="sizes summing to x.shape[axis]; a list"),
    KernelSpec(Tile, _X, ("reps",)),
    KernelSpec(Transpose, _X, ("perm",), doc="output dim k is input dim perm[k]"),
    KernelSpec(Unpack, ("value",), ("axis",), doc="one output per index along axis"),
    KernelSpec(GatherNd, ("params", "indices"), doc="int32 indices; one out of range raises"),
    KernelSpec(
        GatherV2,
        ("x", "indices"),
        ("axis", "batch_dims"),
        doc="int32 indices; batch_dims <= axis; an index outside [0, x.shape[axis]) raises",
    ),
    KernelSpec(
        MirrorPad,
        _X,
        ("paddings", "mode"),
        doc="mode 'reflect' (paddings at most dim - 1) | 'symmetric' (at most dim)",
    ),
    KernelSpec(
        OneHot,
        ("indices",),
        ("depth", "on_value", "off_value", "dtype"),
        doc="int32 indices; one outside [0, depth) gives a row of off_value",
    ),
    KernelSpec(PadV2, _X, ("paddings", "constant_value"), doc="paddings: (before, after) per dim"),
    KernelSpec(Slice, _X, ("begin", "size"), doc="resolved: no -1, in range"),
    KernelSpec(StridedSlice, _X, ("begin", "end", "strides", *_MASKS), doc="resolved by slice_info"),
    KernelSpec(BatchToSpaceND, _X, ("block_shape", "crops"), doc="the inverse of SpaceToBatchND"),
    KernelSpec(DepthToSpace, _X, ("block_size", "data_format"), doc="data_format 'NHWC' | 'NCHW'"),
    KernelSpec(
        SpaceToBatchND, _X, ("block_shape", "paddings"), doc="output batch = block position * batch + b"
    ),
    # image
    KernelSpec(ResizeBilinear, ("images",), _RESIZE, doc="float32"),
    KernelSpec(ResizeNearestNeighbor, ("images",), _RESIZE, doc="images' dtype"),
    KernelSpec(
        CropAndResize,
        ("image", "boxes", "box_ind"),
        ("crop_size", "method", "extrapolation_value"),
        doc="boxes [n, 4] normalized y1, x1, y2, x2; method 'bilinear' | 'nearest'; float32",
    ),
    KernelSpec(FlipLeftRight, ("image",)),
    KernelSpec(NonMaxSuppressionV3, ("boxes", "scores"), _NMS, doc="int32 indices"),
    KernelSpec(
        NonMaxSuppressionV4,
        ("boxes", "scores"),
        (*_NMS, "pad_to_max_output_size"),
        doc="[int32 indices, int32 scalar valid_outputs]",
    ),
    KernelSpec(
        NonMaxSuppressionV5,
        ("boxes", "scores"),
        (*_NMS, "soft_nms_sigma"),
        doc="[int32 indices, float32 selected scores]",
    ),
    KernelSpec(
        RotateWithOffset,
        ("image",),
        ("radians", "fill_value", "center"),
        doc="center: a fraction of width / height, or [cx, cy]; fill_value: a number or [r, g, b]",
    ),
    KernelSpec(
        Transform,
        ("image", "transforms"),
        ("interpolation", "fill_mode", "fill_value", "output_shape"),
        doc="transforms [b or 1, 8]; interpolation 'nearest' | 'bilinear'; fill_mode 'constant' | "
        "'reflect' | 'wrap' | 'nearest'; output_shape (h, w) or None",
    ),
    # backward kernels
    KernelSpec(AvgPoolGrad, ("dy", "input"), ("filter_size", "strides", "pad")),
    KernelSpec(
        Conv2DBackpropFilter,
        ("x", "dy"),
        ("strides", "pad", "data_format", "dim_rounding_mode", "filter_shape"),
    ),
    KernelSpec(
        DepthwiseConv2dNativeBackpropFilter,
        ("x", "dy"),
        ("strides", "dilations", "pad", "dim_rounding_mode", "filter_shape"),
    ),
    KernelSpec(
        DepthwiseConv2dNativeBackpropInput,
        ("dy", "filter"),
        ("strides", "dilations", "pad", "dim_rounding_mode", "input_shape"),
    ),
    KernelSpec(EluGrad, ("dy", "y")),
    KernelSpec(MaxPoolGrad, ("dy", "input", "output"), _POOL),
    KernelSpec(ResizeBilinearGrad, ("images", "dy"), _RESIZE),
    KernelSpec(ResizeNearestNeighborGrad, ("images", "dy"), _RESIZE),
)

_POOL3D = ("filter_size", "strides", "pad", "dim_rounding_mode")
_SPECS += (
    KernelSpec(
        Conv3D,
        ("x", "filter"),
        ("strides", "pad", "data_format", "dilations"),
        doc="x [b, d, h, w, c], filter [fd, fh, fw, c, out]; pad 'same' | 'valid' | an int; float32",
    ),
    KernelSpec(
        Conv3DBackpropInputV2,
        ("dy", "filter"),
        ("strides", "pad", "input_shape"),
        doc="dx of shape input_shape for a conv3d (dilation 1) with output gradient dy; float32",
    ),
    KernelSpec(
        Conv3DBackpropFilterV2,
        ("x", "dy"),
        ("strides", "pad", "filter_shape"),
        doc="df of shape filter_shape for a conv3d (dilation 1) of x with output gradient dy; float32",
    ),
    KernelSpec(AvgPool3D, _X, (*_POOL3D, "data_format"), doc="the mean of the in-bounds elements; float32"),
    KernelSpec(
        MaxPool3D, _X, (*_POOL3D, "data_format"), doc="nan and padding never win (-inf if none); x's dtype"
    ),
    KernelSpec(AvgPool3DGrad, ("dy", "input"), _POOL3D, doc="dy / in-bounds count over each window; float32"),
    KernelSpec(
        MaxPool3DGrad,
        ("dy", "input", "output"),
        _POOL3D,
        doc="each window's dy to its last maximum (nan never wins), as TF.js's cpu kernel; float32",
    ),
)

_SPECS += tuple(KernelSpec(name, rule.inputs, rule.scalars) for name, rule in RULES.items())

#: kernel name -> its KernelSpec
KERNELS: dict[str, KernelSpec] = {spec.name: spec for spec in _SPECS}

# ---- issue 15 (ops-math): norms, linalg, scatter / segment, counting, search, random ---------------
BitwiseAnd = "BitwiseAnd"
BroadcastArgs = "BroadcastArgs"
Bincount = "Bincount"
DenseBincount = "DenseBincount"
Diag = "Diag"
Einsum = "Einsum"
FusedBatchNorm = "FusedBatchNorm"
LRN = "LRN"
LRNGrad = "LRNGrad"
Multinomial = "Multinomial"
ScatterNd = "ScatterNd"
SearchSorted = "SearchSorted"
TensorScatterUpdate = "TensorScatterUpdate"
Unique = "Unique"
UnsortedSegmentSum = "UnsortedSegmentSum"

_MATH_SPECS = (
    KernelSpec(BitwiseAnd, ("a", "b"), doc="int32 a & b, same shapes"),
    KernelSpec(BroadcastArgs, ("s0", "s1"), doc="int32 1-D shapes -> their broadcast shape"),
    KernelSpec(
        Bincount,
        ("x", "weights"),
        ("size",),
        doc="1-D int32 x; counts (or summed weights) of each value < size",
    ),
    KernelSpec(
        DenseBincount,
        ("x", "weights"),
        ("size", "binary_output"),
        doc="1-D or 2-D (per row) int32 x; weights [] or x's shape; binary_output: 1 where present",
    ),
    KernelSpec(Diag, ("x",), doc="x of shape S -> shape S + S with x on the diagonal"),
    KernelSpec(Einsum, (), ("equation",), variadic=True, doc="1 or 2 operands, at most one of them repeated"),
    KernelSpec(
        FusedBatchNorm,
        ("x", "mean", "variance", "offset", "scale"),
        ("variance_epsilon",),
        doc="x 4-D; mean / variance / offset / scale (offset, scale may be None) read modulo their size",
    ),
    KernelSpec(LRN, ("x",), ("depth_radius", "bias", "alpha", "beta"), doc="x 4-D NHWC, over channels"),
    KernelSpec(LRNGrad, ("x", "y", "dy"), ("depth_radius", "bias", "alpha", "beta")),
    KernelSpec(
        Multinomial,
        ("logits",),
        ("num_samples", "seed", "normalized"),
        doc="logits [batch, classes] -> int32",
    ),
    KernelSpec(
        ScatterNd, ("indices", "updates"), ("shape",), doc="sums updates at indices into zeros of shape"
    ),
    KernelSpec(
        SearchSorted, ("sorted_sequence", "values"), ("side",), doc="side 'left' | 'right'; int32 out"
    ),
    KernelSpec(
        TensorScatterUpdate, ("tensor", "indices", "updates"), doc="tensor with slices at indices replaced"
    ),
    KernelSpec(Unique, ("x",), ("axis",), doc="outputs [values, int32 indices] in order of first appearance"),
    KernelSpec(UnsortedSegmentSum, ("x", "segment_ids"), ("num_segments",)),
)
KERNELS.update({spec.name: spec for spec in _MATH_SPECS})
Dilation2D = "Dilation2D"
Dilation2DBackpropFilter = "Dilation2DBackpropFilter"
Dilation2DBackpropInput = "Dilation2DBackpropInput"
MaxPoolWithArgmax = "MaxPoolWithArgmax"
_DILATION = ("strides", "pad", "dilations")
_MATH_SPECS_2 = (
    KernelSpec(
        Dilation2D, ("x", "filter"), _DILATION, doc="x NHWC, filter [fh, fw, channels]; max of x + filter"
    ),
    KernelSpec(Dilation2DBackpropFilter, ("x", "filter", "dy"), _DILATION),
    KernelSpec(Dilation2DBackpropInput, ("x", "filter", "dy"), _DILATION),
    KernelSpec(
        MaxPoolWithArgmax,
        ("x",),
        ("filter_size", "strides", "pad", "include_batch_in_index"),
        doc="outputs [max, int32 flat index of the max in x (per image unless include_batch_in_index)]",
    ),
)
KERNELS.update({spec.name: spec for spec in _MATH_SPECS_2})
# ---- complex64, spectral, string, sparse and ragged (issue 15, ops-types) -----------------------------
Complex = "Complex"
Real = "Real"
Imag = "Imag"
ComplexAbs = "ComplexAbs"
FFT = "FFT"
IFFT = "IFFT"
StringNGrams = "StringNGrams"
StringSplit = "StringSplit"
StringToHashBucketFast = "StringToHashBucketFast"
StaticRegexReplace = "StaticRegexReplace"
SparseSegmentSum = "SparseSegmentSum"
SparseSegmentMean = "SparseSegmentMean"
SparseReshape = "SparseReshape"
SparseFillEmptyRows = "SparseFillEmptyRows"
RaggedRange = "RaggedRange"
RaggedGather = "RaggedGather"
RaggedTensorToTensor = "RaggedTensorToTensor"
SparseToDense = "SparseToDense"

_SPECS += (
    KernelSpec(Complex, ("real", "imag"), doc="two float32 tensors of one shape -> complex64"),
    KernelSpec(Real, ("input",), doc="complex64 -> float32 real parts"),
    KernelSpec(Imag, ("input",), doc="complex64 -> float32 imaginary parts"),
    KernelSpec(ComplexAbs, _X, doc="complex64 -> float32 |x|"),
    KernelSpec(FFT, ("input",), doc="complex64, over the innermost dim"),
    KernelSpec(IFFT, ("input",), doc="complex64, over the innermost dim, scaled by 1/n"),
    KernelSpec(
        StringNGrams,
        ("data", "data_splits"),
        ("separator", "ngram_widths", "left_pad", "right_pad", "pad_width", "preserve_short_sequences"),
        doc="-> [ngrams string, ngrams_splits int32]",
    ),
    KernelSpec(StringSplit, ("input", "delimiter"), ("skip_empty",), doc="-> [indices, values, shape]"),
    KernelSpec(StringToHashBucketFast, ("input",), ("num_buckets",), doc="Fingerprint64 mod num_buckets"),
    KernelSpec(StaticRegexReplace, _X, ("pattern", "rewrite", "replace_global"), doc="RE2-style rewrite"),
    KernelSpec(SparseSegmentSum, ("data", "indices", "segment_ids"), doc="rows of data summed per segment"),
    KernelSpec(SparseSegmentMean, ("data", "indices", "segment_ids"), doc="rows of data averaged per segment"),
    KernelSpec(SparseReshape, ("input_indices", "input_shape", "new_shape"), doc="-> [indices, shape]"),
    KernelSpec(
        SparseFillEmptyRows,
        ("indices", "values", "dense_shape", "default_value"),
        doc="-> [indices, values, empty_row_indicator, reverse_index_map]",
    ),
    KernelSpec(RaggedRange, ("starts", "limits", "deltas"), doc="-> [rt_nested_splits, rt_dense_values]"),
    KernelSpec(
        RaggedGather,
        ("params_nested_splits", "params_dense_values", "indices"),
        ("output_ragged_rank",),
        doc="-> [*output_nested_splits, output_dense_values]",
    ),
    KernelSpec(
        RaggedTensorToTensor,
        ("shape", "values", "default_value", "row_partition_tensors"),
        ("row_partition_types",),
        doc="a ragged tensor as a dense one",
    ),
    KernelSpec(
        SparseToDense,
        ("sparse_indices", "sparse_values", "default_value"),
        ("output_shape",),
        doc="default_value everywhere, sparse_values (one or one per index) written at sparse_indices",
    ),
)
KERNELS.update({spec.name: spec for spec in _SPECS[-18:]})
