"""numpy kernels of string tensors: the cpu table's own (string buffers are lists of str on both backends;
the math is backend_util.strings, shared as TF.js's backends share the cpu impls)."""

from __future__ import annotations

from .... import kernel_names as kn
from ...cpu import KERNELS as CPU_KERNELS

NAMES = (kn.StringToHashBucketFast, kn.StaticRegexReplace, kn.StringSplit, kn.StringNGrams)
KERNELS = {name: CPU_KERNELS[name] for name in NAMES}
