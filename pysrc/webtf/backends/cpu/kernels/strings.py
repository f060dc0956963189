"""cpu kernels of string tensors: StringToHashBucketFast, StaticRegexReplace, StringSplit, StringNGrams
(the math in backend_util.strings; the numpy backend registers these same kernels)."""

from __future__ import annotations

from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util.strings import hash_buckets, n_grams, regex_replace, split_strings
from ...base import TensorInfo


def hash_bucket_fast(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    x = inputs["input"]
    return backend.output(array("i", hash_buckets(backend.values(x), attrs["num_buckets"])), x.shape, "int32")


def static_regex_replace(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    x = inputs["x"]
    out = regex_replace(backend.values(x), attrs["pattern"], attrs["rewrite"], attrs["replace_global"])
    return backend.output(out, x.shape, "string")


def string_split(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    delimiter = backend.values(inputs["delimiter"])[0]
    indices, values, shape = split_strings(backend.values(inputs["input"]), delimiter, attrs["skip_empty"])
    return [
        backend.output(array("i", indices), (len(values), 2), "int32"),
        backend.output(values, (len(values),), "string"),
        backend.output(array("i", shape), (2,), "int32"),
    ]


def string_n_grams(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    grams, splits = n_grams(
        backend.values(inputs["data"]),
        backend.values(inputs["data_splits"]),
        attrs["separator"],
        attrs["ngram_widths"],
        attrs["left_pad"],
        attrs["right_pad"],
        attrs["pad_width"],
        attrs["preserve_short_sequences"],
        backend.max_elements,
    )
    return [
        backend.output(grams, (len(grams),), "string"),
        backend.output(array("i", splits), (len(splits),), "int32"),
    ]


KERNELS = {
    kn.StringToHashBucketFast: hash_bucket_fast,
    kn.StaticRegexReplace: static_regex_replace,
    kn.StringSplit: string_split,
    kn.StringNGrams: string_n_grams,
}
