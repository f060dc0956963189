"""More small converter-format graph models: every converter op of TF.js 4.22 that neither the cases of
graph_op_cases.py nor a real model of tests/models/test_parity.py / test_graph_parity_more.py executes, with
complex64 and string outputs. Run by tests/models/test_graph_ops_parity.py like graph_op_cases.py's.

Left out: BitwiseAnd and EnsureShape (TF.js 4.22's converter passes BitwiseAnd no inputs and reads EnsureShape's
shape attr as an input; tests/models/test_graph_math_ops.py checks webtf's handlers against numpy), and the
Ragged* ops, which webtf's converter runs but TF.js 4.22's has no mapping for (test_graph_ops_host.py checks
them against hand-computed values).
"""

from __future__ import annotations

import numpy as np

from tests.models.graph_op_cases import Case, _case
from tests.models.synth import Graph, attr_ints, attr_str, attr_strs, dtype_attr, shape_attr

_B = {"b": True}


def _elementwise() -> Case:
    g = Graph()
    g.placeholder("x", "float32", [2, 3])
    g.placeholder("y", "float32", [2, 3])
    g.placeholder("v", "float32", [6])
    g.placeholder("p", "bool", [2, 3])
    g.placeholder("q", "bool", [2, 3])
    for op in ("Acos", "Asin", "Atan", "Cos", "Cosh", "Sin", "Sinh", "Tan", "Erf", "Expm1", "Floor", "Round",
               "Sign", "Selu", "Elu", "Softplus", "LogSoftmax", "OnesLike", "ZerosLike", "Rank", "Snapshot",
               "StopGradient"):  # fmt: skip
        g.op(op.lower(), op, "x")
    for op in ("Log", "Log1p", "Rsqrt"):
        g.op(op.lower(), op, "y")
    g.op("leaky", "LeakyRelu", "x", alpha={"f": 0.3})
    g.op("isfinite", "IsFinite", "v")
    g.op("isnan", "IsNan", "v")
    for op, a, b in (("Atan2", "x", "y"), ("Div", "x", "y"), ("Mod", "x", "y"), ("Pow", "y", "x"),
                     ("LessEqual", "x", "y"), ("NotEqual", "x", "y"), ("LogicalOr", "p", "q")):  # fmt: skip
        g.op(op.lower(), op, a, b)
    g.op("divnonan", "DivNoNan", "x", g.const("z", [[0.0, 2, 0], [4, 0, 0.5]]))
    g.op("logicalnot", "LogicalNot", "p")
    g.const("ax1", [1], "int32")
    g.const("ax0", 0, "int32")
    g.op("min", "Min", "x", "ax1", keep_dims=_B)
    g.op("prod", "Prod", "x", "ax1")
    g.op("all", "All", "p", "ax1")
    g.op("any", "Any", "p", "ax1", keep_dims=_B)
    g.op("argmin", "ArgMin", "x", "ax0")
    g.op("clip", "ClipByValue", "x", g.const("lo", -0.25), g.const("hi", 0.5))
    g.op("pwd", "PlaceholderWithDefault", "y", shape=shape_attr([2, 3]), dtype=dtype_attr("float32"))
    g.op("idn", "IdentityN", "x", "p")
    g.op("idn1", "Identity", "idn:1")
    g.op("select", "SelectV2", "p", "x", g.const("row", [9.0, 8, 7]))
    g.op("cumsum", "Cumsum", "x", g.const("cax", 1, "int32"), exclusive=_B, reverse=_B)
    g.op("reverse", "Reverse", "x", g.const("dims", [True, False], "bool"))
    g.op("reversev2", "ReverseV2", "x", "ax1")
    g.const("pads", [[1, 1], [2, 2]], "int32")
    g.op("reflect", "MirrorPad", "x", "pads", mode=attr_str("REFLECT"))
    g.op("symmetric", "MirrorPad", "x", "pads", mode=attr_str("SYMMETRIC"))
    g.op("padv2", "PadV2", "x", "pads", g.const("padval", -3.5))
    g.op("onehot", "OneHot", g.const("hot", [2, 0, 5, 1], "int32"), g.const("depth", 4, "int32"),
         g.const("on", 7.0), g.const("off", -1.0), axis={"i": "-1"}, T=dtype_attr("float32"))  # fmt: skip
    g.op("concat", "Concat", "ax0", "x", "y", N={"i": "2"})
    g.op("gather", "Gather", "x", g.const("gidx", [1, 0, 1], "int32"))
    g.op("print", "Print", "x", "y", message=attr_str("x, y:"))
    outs = [n["name"] for n in g.nodes if n["op"] not in ("Placeholder", "Const", "IdentityN")]
    rng = np.random.default_rng(31)
    feeds = {
        "x": rng.uniform(-0.9, 0.9, (2, 3)).astype(np.float32),
        "y": rng.uniform(0.2, 2.0, (2, 3)).astype(np.float32),
        "v": np.array([1, np.inf, -np.inf, np.nan, 0, -2], np.float32),
        "p": np.array([[True, False, True], [False, False, True]]),
        "q": np.array([[False, False, True], [True, False, True]]),
    }
    return _case(g, outs, feeds)


def _nn() -> Case:
    rng = np.random.default_rng(32)

    def w(name: str, *shape: int) -> str:
        return g.const(name, rng.uniform(-1, 1, shape))

    g = Graph()
    g.placeholder("img", "float32", [1, 4, 4, 4])
    g.placeholder("vol", "float32", [1, 3, 4, 3, 2])
    g.placeholder("seq", "float32", [1, 5, 2])
    g.op("bmm", "BatchMatMul", w("a", 2, 3, 2), w("b", 2, 3, 4), adj_x=_B)
    g.op("bmm2", "BatchMatMulV2", w("a2", 2, 1, 2, 3), w("b2", 3, 4), adj_y={"b": False})
    g.op("fmm", "_FusedMatMul", w("a3", 3, 4), w("b3", 2, 4), w("bias", 2), transpose_b=_B,
         fused_ops=attr_strs("BiasAdd", "Relu"), num_args={"i": "1"})  # fmt: skip
    g.op("d2s", "DepthToSpace", "img", block_size={"i": "2"}, data_format=attr_str("NHWC"))
    g.op("dw", "DepthwiseConv2d", "img", w("dwf", 2, 2, 4, 2), strides=attr_ints(1, 1, 1, 1),
         padding=attr_str("VALID"), dilations=attr_ints(1, 1, 1, 1))  # fmt: skip
    g.op("conv1d", "Conv1D", "seq", w("c1f", 2, 2, 3), stride={"i": "2"}, padding=attr_str("SAME"))
    g.op("conv3d", "Conv3D", "vol", w("c3f", 2, 2, 2, 2, 3), strides=attr_ints(1, 1, 1, 1, 1),
         padding=attr_str("VALID"), dilations=attr_ints(1, 1, 1, 1, 1), data_format=attr_str("NDHWC"))  # fmt: skip
    pool = {"ksize": attr_ints(1, 2, 2, 2, 1), "strides": attr_ints(1, 1, 2, 1, 1), "padding": attr_str("SAME")}
    g.op("avg3d", "AvgPool3D", "vol", **pool)
    g.op("max3d", "MaxPool3D", "vol", **pool)
    g.const("boxes", [[0, 0, 1, 1], [0.2, 0.1, 0.8, 0.9], [0.5, 0.6, 0.1, 0.2]])
    g.const("box_ind", [0, 0, 0], "int32")
    g.const("crop", [3, 2], "int32")
    for method in ("bilinear", "nearest"):
        g.op(f"crop_{method}", "CropAndResize", "img", "boxes", "box_ind", "crop", method=attr_str(method),
             extrapolation_value={"f": -1.0})  # fmt: skip
    g.const("size", [6, 5], "int32")
    g.op("nn_half", "ResizeNearestNeighbor", "img", "size", half_pixel_centers=_B)
    g.op("nn_align", "ResizeNearestNeighbor", "img", "size", align_corners=_B)
    g.op("bn2", "FusedBatchNormV2", "img", w("scale", 4), w("offset", 4), w("mean", 4),
         g.const("var", rng.uniform(0.2, 1, 4)), epsilon={"f": 0.01})  # fmt: skip
    g.const("nms_boxes", [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                          [0, 100, 1, 101]])  # fmt: skip
    g.const("scores", [0.9, 0.75, 0.6, 0.95, 0.5, 0.3])
    g.op("nms2", "NonMaxSuppressionV2", "nms_boxes", "scores", g.const("max_out", 4, "int32"),
         g.const("iou", 0.5))  # fmt: skip
    g.op("nms4", "NonMaxSuppressionV4", "nms_boxes", "scores", g.const("max_out5", 5, "int32"), "iou",
         g.const("score_min", 0.4), pad_to_max_output_size=_B)  # fmt: skip
    g.op("unique", "Unique", g.const("u", [4, 1, 4, 4, 7, 1], "int32"))
    outs = ["bmm", "bmm2", "fmm", "d2s", "dw", "conv1d", "conv3d", "avg3d", "max3d", "crop_bilinear",
            "crop_nearest", "nn_half", "nn_align", "bn2", "nms2", "nms4", "nms4:1", "unique", "unique:1"]  # fmt: skip
    feeds = {
        "img": rng.standard_normal((1, 4, 4, 4)).astype(np.float32),
        "vol": rng.standard_normal((1, 3, 4, 3, 2)).astype(np.float32),
        "seq": rng.standard_normal((1, 5, 2)).astype(np.float32),
    }
    return _case(g, outs, feeds)


def _spectral() -> Case:
    g = Graph()
    g.placeholder("re", "float32", [2, 4])
    g.placeholder("im", "float32", [2, 4])
    g.op("c", "Complex", "re", "im", T=dtype_attr("float32"))
    g.op("fft", "FFT", "c")
    g.op("ifft", "IFFT", "c")
    g.const("n", [4], "int32")
    g.op("rfft", "RFFT", "re", "n")
    g.op("irfft", "IRFFT", "rfft", "n")
    g.op("real", "Real", "fft")
    g.op("imag", "Imag", "fft")
    g.op("abs", "ComplexAbs", "ifft")
    g.op("fft_const", "FFT", g.const("k", [[1 + 2j, -0.5j, 3, 0.25 - 1j]], "complex64"))
    feeds = {"re": [[1, -2, 0.5, 3], [0, 1, 0, -1]], "im": [[0.25, 0, -1, 2], [1, 1, -1, 0]]}
    return _case(g, ["c", "fft", "ifft", "rfft", "irfft", "real", "imag", "abs", "k", "fft_const"],
                 {k: np.array(v, np.float32) for k, v in feeds.items()})  # fmt: skip


def _strings() -> Case:
    """String ops; the string attrs are lower case: TF.js 4.22's converter lower-cases every string attr."""
    g = Graph()
    g.placeholder("s", "string", [4])
    g.placeholder("delim", "string", [])
    g.op("hash", "StringToHashBucketFast", "s", num_buckets={"i": "1000"})
    g.op("re_all", "StaticRegexReplace", "s", pattern=attr_str("a+|b"), rewrite=attr_str("<\\0>"),
         replace_global=_B)  # fmt: skip
    g.op("re_first", "StaticRegexReplace", "s", pattern=attr_str("[ab]"), rewrite=attr_str("_"),
         replace_global={"b": False})  # fmt: skip
    g.op("split", "StringSplit", "s", "delim", skip_empty=_B)
    g.op("split_empty", "StringSplit", "s", g.const("delim_a", "a", "string"), skip_empty={"b": False})
    g.op("hash_const", "StringToHashBucketFast", g.const("words_const", [["héllo", ""], ["x y", "wörld"]], "string"),
         num_buckets={"i": "7"})  # fmt: skip
    g.placeholder("words", "string", [5])
    g.op("ngrams", "StringNGrams", "words", g.const("splits", [0, 2, 2, 5], "int32"), separator=attr_str("+"),
         ngram_widths=attr_ints(1, 3), left_pad=attr_str("<l>"), right_pad=attr_str("<r>"), pad_width={"i": "1"},
         preserve_short_sequences={"b": False})  # fmt: skip
    outs = ["hash", "re_all", "re_first", "split", "split:1", "split:2", "split_empty", "split_empty:1",
            "split_empty:2", "ngrams", "ngrams:1", "words_const", "hash_const"]  # fmt: skip
    feeds = {"s": np.array(["aab ba", "", "b  abc", "zz caaat b"]), "delim": np.array(" "),
             "words": np.array(["a", "b", "c", "dd", "e"])}
    return _case(g, outs, feeds)


def _sparse() -> Case:
    g = Graph()
    g.placeholder("vals", "float32", [4])
    g.const("idx", [[0, 1], [0, 3], [2, 0], [4, 2]], "int32")
    g.const("dense_shape", [5, 4], "int32")
    g.op("fill", "SparseFillEmptyRows", "idx", "vals", "dense_shape", g.const("dflt", -1.0))
    g.op("reshape", "SparseReshape", "idx", "dense_shape", g.const("new_shape", [2, -1], "int32"))
    g.const("data", [[1.0, 2], [3, 4], [5, 6], [7, 8]])
    g.const("seg_idx", [0, 3, 1, 1, 2], "int32")
    g.const("seg_ids", [0, 0, 1, 3, 3], "int32")
    g.op("seg_mean", "SparseSegmentMean", "data", "seg_idx", "seg_ids")
    g.op("seg_sum", "SparseSegmentSum", "data", "seg_idx", "seg_ids")
    g.op("to_dense", "SparseToDense", "idx", "dense_shape", "vals", g.const("zero", 0.5))
    outs = ["fill", "fill:1", "fill:2", "fill:3", "reshape", "reshape:1", "seg_mean", "seg_sum", "to_dense"]
    return _case(g, outs, {"vals": np.array([1.5, -2, 3, 4], np.float32)})


def _lists() -> Case:
    """TensorArrayV3 split / concat / close, and TensorLists by scatter (V1, V2), gather and concat (V1, V2).

    Not compared with TF.js: TensorListSplit (TF.js 4.22 reshapes every piece to the element shape, so only
    one-row pieces work), TensorArrayConcatV3's lengths (TF.js has no output 1), TensorListPopBack (TF.js
    returns the tensor as output 0, TF as output 1) and a TensorListScatterV2 num_elements above the largest
    index (TF.js leaves the list at that index + 1): tests/models/test_graph_dynamic.py checks webtf's TF
    semantics there on the host.
    """
    g = Graph()
    g.placeholder("x", "float32", [4, 2])
    f32 = dtype_attr("float32")
    g.op("ta", "TensorArrayV3", g.const("ta_size", 3, "int32"), dtype=f32, element_shape=shape_attr([-1, 2]),
         dynamic_size={"b": False}, clear_after_read={"b": True}, identical_element_shapes={"b": False},
         tensor_array_name=attr_str("ta"))  # fmt: skip
    g.op("ta_split", "TensorArraySplitV3", "ta", "x", g.const("lengths", [1, 2, 1], "int32"), "ta:1", T=f32)
    g.op("ta_concat", "TensorArrayConcatV3", "ta", "ta_split", dtype=f32, element_shape_except0=shape_attr(None))
    g.op("ta_close", "TensorArrayCloseV3", "ta", "^ta_concat")
    g.op("ta_value", "Identity", "ta_concat", "^ta_close")
    g.const("shape", [2], "int32")
    g.const("idx", [3, 0, 2, 1], "int32")
    g.op("scattered", "TensorListScatter", "x", "idx", "shape", element_dtype=f32)
    g.op("gathered", "TensorListGather", "scattered", g.const("gidx", [1, 3], "int32"), "shape", element_dtype=f32)
    g.op("scattered2", "TensorListScatterV2", "x", "idx", "shape", g.const("num", 4, "int32"), element_dtype=f32)
    g.op("gathered2", "TensorListGather", "scattered2", g.const("gidx2", [2, 0], "int32"), "shape",
         element_dtype=f32)  # fmt: skip
    g.op("concat", "TensorListConcat", "scattered", element_shape=shape_attr([2]), element_dtype=f32)
    g.op("concat2", "TensorListConcatV2", "scattered2", "shape", g.const("lead", 0, "int32"),
         element_shape=shape_attr([2]), element_dtype=f32)  # fmt: skip
    outs = ["ta_value", "gathered", "gathered2", "concat", "concat2"]
    return _case(g, outs, {"x": np.arange(8, dtype=np.float32).reshape(4, 2)})


def _random_more() -> Case:
    """Seeded (deterministic on both sides, though TF.js and webtf draw different numbers): shapes, dtypes, range."""
    g = Graph()
    g.const("shape", [30, 4], "int32")
    g.op("normal", "RandomStandardNormal", "shape", dtype=dtype_attr("float32"), seed={"i": "5"})
    # TF has minval/maxval as inputs, TF.js 4.22 reads them as attrs: both are given
    g.op("ints", "RandomUniformInt", "shape", g.const("lo", -3, "int32"), g.const("hi", 5, "int32"),
         minval={"i": "-3"}, maxval={"i": "5"}, seed={"i": "6"})  # fmt: skip
    g.op("multi", "Multinomial", g.const("logits", [[0.0, 1, 2], [2, 1, 0]]), g.const("n", 20, "int32"),
         seed={"i": "7"}, output_dtype=dtype_attr("int32"))  # fmt: skip
    return _case(g, ["normal", "ints", "multi"], {}, random=True)


def _tables_v1() -> Case:
    """TF1's table ops: one table filled by InitializeTable, one by LookupTableImport."""
    g = Graph()
    g.placeholder("k", "int32", [5])
    g.const("keys", [3, 7, 11], "int32")
    g.const("vals", [1.5, -1.0, 2.5])
    g.const("dflt", -7.0)
    attrs = {"key_dtype": dtype_attr("int32"), "value_dtype": dtype_attr("float32")}
    for name, init in (("t1", "InitializeTable"), ("t2", "LookupTableImport")):
        g.op(name, "HashTable", shared_name=attr_str(name), use_node_name_sharing={"b": False}, **attrs)
        g.op(f"{name}_init", init, name, "keys", "vals")
        g.op(f"{name}_find", "LookupTableFind", name, "k", "dflt", f"^{name}_init")
        g.op(f"{name}_size", "LookupTableSize", name, f"^{name}_init")
    outs = ["t1_find", "t1_size", "t2_find", "t2_size"]
    return _case(g, outs, {"k": np.array([7, 1, 3, 11, 7], np.int32)})


def _tables_strings() -> Case:
    """A vocabulary table: string keys to int32 ids, and the reverse, filled from string consts."""
    g = Graph()
    g.placeholder("words", "string", [5])
    g.placeholder("ids", "int32", [3])
    g.const("vocab", ["the", "cat", "sat", "mat"], "string")
    g.const("vocab_ids", [0, 1, 2, 3], "int32")
    s2i = {"key_dtype": dtype_attr("string"), "value_dtype": dtype_attr("int32")}
    i2s = {"key_dtype": dtype_attr("int32"), "value_dtype": dtype_attr("string")}
    g.op("s2i", "HashTableV2", shared_name=attr_str("s2i"), **s2i)
    g.op("i2s", "HashTableV2", shared_name=attr_str("i2s"), **i2s)
    g.op("s2i_init", "LookupTableImportV2", "s2i", "vocab", "vocab_ids")
    g.op("i2s_init", "LookupTableImportV2", "i2s", "vocab_ids", "vocab")
    g.op("to_ids", "LookupTableFindV2", "s2i", "words", g.const("oov", -1, "int32"), "^s2i_init")
    g.op("to_words", "LookupTableFindV2", "i2s", "ids", g.const("unk", "<unk>", "string"), "^i2s_init")
    feeds = {"words": np.array(["cat", "dog", "the", "", "mat"]), "ids": np.array([3, 9, 0], np.int32)}
    return _case(g, ["to_ids", "to_words"], feeds)


def more_cases() -> dict[str, Case]:
    """Every case by id."""
    return {
        "elementwise": _elementwise(),
        "nn": _nn(),
        "spectral": _spectral(),
        "strings": _strings(),
        "sparse": _sparse(),
        "tensor-arrays-and-lists": _lists(),
        "random-more": _random_more(),
        "hash-table-v1": _tables_v1(),
        "hash-table-strings": _tables_strings(),
    }
