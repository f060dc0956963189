"""numpy kernels of sparse and ragged tensors: the cpu table's own (index bookkeeping in backend_util.sparse,
shared as TF.js's backends share the cpu impls)."""

from __future__ import annotations

from .... import kernel_names as kn
from ...cpu import KERNELS as CPU_KERNELS

NAMES = (
    kn.SparseFillEmptyRows,
    kn.SparseReshape,
    kn.SparseSegmentSum,
    kn.SparseSegmentMean,
    kn.RaggedRange,
    kn.RaggedGather,
    kn.RaggedTensorToTensor,
    kn.SparseToDense,
)
KERNELS = {name: CPU_KERNELS[name] for name in NAMES}
