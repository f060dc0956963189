"""GLSL kernels of issue 15's math share: FusedBatchNorm, Diag, BitwiseAnd, LRN, ScatterNd,
TensorScatterUpdate, UnsortedSegmentSum and SearchSorted (shaders/<Kernel>.glsl)."""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ...base import TensorInfo
from .common import size_of


def _program(
    backend: Any,
    kernel: str,
    samplers: tuple[str, ...],
    ni: int,
    nf: int = 0,
    ints: bool = False,
    defines: tuple[str, ...] = (),
) -> Any:
    key = (kernel, ints, defines)
    return backend.programs.get(key) or backend.programs.build(
        key, kernel, samplers, ni, nf, defines, int_output=ints
    )


def fused_batch_norm(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FusedBatchNorm: shaders/FusedBatchNorm.glsl (absent offset / scale bind mean, size 0)."""
    x, mean = inputs["x"], inputs["mean"]
    off, scale = inputs.get("offset"), inputs.get("scale")
    prog = _program(backend, "FusedBatchNorm", ("X", "M", "V", "O", "S"), 4, 1)
    sizes = (
        mean.size,
        inputs["variance"].size,
        off.size if off is not None else 0,
        scale.size if scale is not None else 0,
    )
    texes = (
        x,
        mean,
        inputs["variance"],
        off if off is not None else mean,
        scale if scale is not None else mean,
    )
    eps = float(attrs.get("variance_epsilon", 0.001))
    return backend.run(prog, texes, x.shape, "float32", sizes, (eps,))


def diag(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Diag: shaders/Diag.glsl."""
    x = inputs["x"]
    prog = _program(backend, "Diag", ("X",), 1, 0, x.dtype == "int32")
    return backend.run(prog, (x,), (*x.shape, *x.shape), x.dtype, (size_of(x.shape),))


def bitwise_and(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BitwiseAnd: shaders/BitwiseAnd.glsl."""
    a, b = inputs["a"], inputs["b"]
    prog = _program(backend, "BitwiseAnd", ("A", "B"), 0, 0, True)
    return backend.run(prog, (a, b), a.shape, "int32")


def lrn(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LRN: shaders/LRN.glsl."""
    x = inputs["x"]
    prog = _program(backend, "LRN", ("X",), 2, 3)
    floats = (float(attrs["bias"]), float(attrs["alpha"]), float(attrs["beta"]))
    return backend.run(prog, (x,), x.shape, "float32", (x.shape[-1], int(attrs["depth_radius"])), floats)


def scatter(
    backend: Any, inputs: Any, shape: tuple[int, ...], dtype: str, base: Any, defines: tuple[str, ...] = ()
) -> TensorInfo:
    """shaders/ScatterNd.glsl: updates summed into zeros (base None) or written over base (the last wins)."""
    indices, updates = inputs["indices"], inputs["updates"]
    depth = indices.shape[-1] if len(indices.shape) > 1 else 1
    if depth > 6:
        raise NotImplementedError("webgl scatter: index depth above 6")
    size = size_of(shape[depth:])
    strides = [size_of(shape[d + 1 : depth]) for d in range(depth)] + [0] * (6 - depth)
    n = size_of(indices.shape) // depth if depth else 0
    samplers, texes = (
        ("I", "U") if base is None else ("I", "U", "T"),
        (indices, updates) if base is None else (indices, updates, base),
    )
    prog = _program(
        backend, "ScatterNd", samplers, 9, 0, dtype == "int32", (("OP_SUM",) if base is None else ()) + defines
    )
    return backend.run(prog, texes, shape, dtype, (n, size, depth, *strides))


def scatter_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ScatterNd: shaders/ScatterNd.glsl (OP_SUM); indices are not range-checked on the GPU, as in TF.js."""
    return scatter(backend, inputs, tuple(attrs["shape"]), inputs["updates"].dtype, None)


def tensor_scatter_update(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """TensorScatterUpdate: shaders/ScatterNd.glsl (the last matching update wins)."""
    t = inputs["tensor"]
    return scatter(backend, inputs, t.shape, t.dtype, t)


def unsorted_segment_sum(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """UnsortedSegmentSum: shaders/UnsortedSegmentSum.glsl."""
    x, ids = inputs["x"], inputs["segment_ids"]
    n = int(attrs["num_segments"])
    row = size_of(x.shape[1:])
    prog = _program(backend, "UnsortedSegmentSum", ("X", "S"), 2, 0, x.dtype == "int32")
    return backend.run(prog, (x, ids), (n, *x.shape[1:]), x.dtype, (x.shape[0], row))


def search_sorted(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """SearchSorted: shaders/SearchSorted.glsl (a binary search per value)."""
    seq, vals = inputs["sorted_sequence"], inputs["values"]
    prog = _program(backend, "SearchSorted", ("Q", "V"), 3, 0, True)
    right = int(attrs.get("side", "left") == "right")
    return backend.run(prog, (seq, vals), vals.shape, "int32", (seq.shape[1], vals.shape[1], right))


KERNELS: dict[str, Any] = {
    kn.FusedBatchNorm: fused_batch_norm,
    kn.Diag: diag,
    kn.BitwiseAnd: bitwise_and,
    kn.LRN: lrn,
    kn.ScatterNd: scatter_nd,
    kn.TensorScatterUpdate: tensor_scatter_update,
    kn.UnsortedSegmentSum: unsorted_segment_sum,
    kn.SearchSorted: search_sorted,
}
