"""tf.string: string_n_grams, string_split, string_to_hash_bucket_fast, static_regex_replace (string tensors)."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import int_arg, int_list
from .op import TensorLike, convert_to_tensor, holds_strings, op, string_tensor

__all__ = ["string"]


def string_arg(x: TensorLike, arg: str, op_name: str) -> Tensor:
    """A string tensor for `arg` (str values are converted); TypeError for another dtype."""
    if not isinstance(x, Tensor) and holds_strings(x):
        return string_tensor(x, None, op_name, arg)
    t = convert_to_tensor(x, arg, op_name)
    if t.dtype != "string":
        raise TypeError(f"Error in {op_name}: argument '{arg}' must be a string tensor, but got {t.dtype}")
    return t


def _text(value: Any, arg: str, op_name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"Error in {op_name}: argument '{arg}' must be a str, but got {type(value).__name__}")
    return value


@op
def string_to_hash_bucket_fast(input: TensorLike, num_buckets: int) -> Tensor:  # noqa: A002
    """Each string's Fingerprint64 modulo num_buckets, int32 (kernel StringToHashBucketFast)."""
    x = string_arg(input, "input", "string_to_hash_bucket_fast")
    n = int_arg(num_buckets, "num_buckets", "string_to_hash_bucket_fast")
    if n < 1:
        raise ValueError(f"Error in string_to_hash_bucket_fast: num_buckets must be >= 1, but got {n}")
    return ENGINE.run_kernel(kn.StringToHashBucketFast, {"input": x}, {"num_buckets": n})


@op
def static_regex_replace(
    input: TensorLike, pattern: str, rewrite: str, replace_global: bool = True
) -> Tensor:  # noqa: A002
    """Each string with matches of the regex `pattern` replaced by `rewrite` ($1: a group), all of them or
    the first (kernel StaticRegexReplace)."""
    x = string_arg(input, "input", "static_regex_replace")
    attrs = {
        "pattern": _text(pattern, "pattern", "static_regex_replace"),
        "rewrite": _text(rewrite, "rewrite", "static_regex_replace"),
        "replace_global": bool(replace_global),
    }
    return ENGINE.run_kernel(kn.StaticRegexReplace, {"x": x}, attrs)


@op
def string_split(input: TensorLike, delimiter: TensorLike, skip_empty: bool = True) -> dict[str, Tensor]:  # noqa: A002
    """Split a 1-D string tensor at any character of `delimiter`: {indices, values, shape} of a sparse
    [batch, max tokens] result (kernel StringSplit)."""
    x = string_arg(input, "input", "string_split")
    d = string_arg(delimiter, "delimiter", "string_split")
    if x.rank != 1:
        raise ValueError(f"Error in string_split: input should be 1-D, but got shape {fmt(x.shape)}")
    if d.rank != 0:
        raise ValueError(f"Error in string_split: delimiter should be a scalar, but got shape {fmt(d.shape)}")
    indices, values, shape = ENGINE.run_kernel(
        kn.StringSplit, {"input": x, "delimiter": d}, {"skip_empty": bool(skip_empty)}
    )
    return {"indices": indices, "values": values, "shape": shape}


@op
def string_n_grams(
    data: TensorLike,
    data_splits: TensorLike,
    separator: str,
    ngram_widths: Sequence[int],
    left_pad: str,
    right_pad: str,
    pad_width: int,
    preserve_short_sequences: bool,
) -> dict[str, Tensor]:
    """The n-grams of a ragged string tensor (rows data[splits[i]:splits[i + 1]]): {n_grams, n_grams_splits}
    (kernel StringNGrams)."""
    name = "string_n_grams"
    x = string_arg(data, "data", name)
    splits = convert_to_tensor(data_splits, "data_splits", name, "int32")
    if x.rank != 1:
        raise ValueError(f"Error in {name}: data must be a vector, but got shape {fmt(x.shape)}")
    if splits.rank != 1 or splits.dtype != "int32":
        raise ValueError(
            f"Error in {name}: data_splits must be an int32 vector, got shape {fmt(splits.shape)}"
        )
    widths = int_list(ngram_widths, "ngram_widths", name)
    if any(w < 1 for w in widths):
        raise ValueError(f"Error in {name}: ngram_widths must be >= 1, but got {widths}")
    s = splits.data_sync()
    if len(s) and (s[0] != 0 or s[-1] != x.size or any(a > b for a, b in zip(s, s[1:], strict=False))):
        raise ValueError(
            f"Error in {name}: data_splits must start at 0, rise and end at the data size {x.size}, got {list(s)}"
        )
    attrs = {
        "separator": _text(separator, "separator", name),
        "ngram_widths": tuple(widths),
        "left_pad": _text(left_pad, "left_pad", name),
        "right_pad": _text(right_pad, "right_pad", name),
        "pad_width": int_arg(pad_width, "pad_width", name),
        "preserve_short_sequences": bool(preserve_short_sequences),
    }
    grams, out_splits = ENGINE.run_kernel(kn.StringNGrams, {"data": x, "data_splits": splits}, attrs)
    return {"n_grams": grams, "n_grams_splits": out_splits}


#: tf.string, as TF.js's namespace
string = SimpleNamespace(
    string_n_grams=string_n_grams,
    string_split=string_split,
    string_to_hash_bucket_fast=string_to_hash_bucket_fast,
    static_regex_replace=static_regex_replace,
)
