"""GLSL kernels BatchMatMul and _FusedMatMul (shaders/BatchMatMul.glsl; shaders/MatMulRows4.glsl for large
row-major float32 products, also used by pointwise convolutions)."""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ....shapes import broadcast_shapes
from ...base import TensorInfo
from . import rows4
from .common import size_of
from .elementwise import _View
from .fused import Epilogue
from .gather import gather, transpose


def _batches(t: Any, batch: tuple[int, ...], backend: Any, temps: list) -> tuple[Any, int]:
    """t with its batch dims as a count that is 1 or the output's; a broadcast copy when neither fits."""
    own = t.shape[:-2]
    n = size_of(own)
    total = size_of(batch)
    if n in (1, total):
        return t, n
    # general batch broadcast (e.g. [2,1,m,k] x [1,3,k,n]): materialize t over the output batch
    rank = len(batch) + 2
    padded = (1,) * (rank - len(t.shape)) + tuple(t.shape)
    out_shape = (*batch, *t.shape[-2:])
    strides = [0] * rank
    acc = 1
    for d in range(rank - 1, -1, -1):
        strides[d] = 0 if padded[d] == 1 and out_shape[d] != 1 else acc
        acc *= padded[d]
    src = [(0, size_of(padded), 1, 0)]
    out_dims = [(n_out, 0, s) for n_out, s in zip(out_shape, strides, strict=True)]
    info = gather(backend, t, out_shape, out_dims, src)
    temps.append(info)
    return _View(info.data_id, out_shape, t.dtype), total


#: products with fewer rows than this run one row per fragment (BatchMatMul.glsl): for them the second draw
#: of the four-row path costs more than the texel reads it saves
ROWS4_MIN_ROWS = 16


def rows4_fits(backend: Any, m: int, k: int, n: int, dtype: str) -> bool:
    """Whether a row-major [m, k] x [k, n] product runs four rows per fragment (MatMulRows4.glsl)."""
    return m >= ROWS4_MIN_ROWS and k % 4 == 0 and n % 4 == 0 and rows4.fits(backend, dtype)


def matmul_rows4(backend: Any, a: Any, b: Any, m: int, k: int, n: int, epi: Epilogue,
                 out_shape: tuple[int, ...]) -> TensorInfo:  # fmt: skip
    """A [m, k] x B [k, n] (+ epi) into a new tensor of out_shape (m * n elements), four rows per fragment
    (see rows4_fits for when it applies)."""
    key = ("MatMulRows4", epi.key)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "MatMulRows4", ("A", "B", *epi.samplers), 5, 1, ["MRT4", *epi.defines]
    )
    return rows4.run4(backend, prog, (a, b, *epi.inputs), (m, k, n, *epi.ints), epi.floats, n, m, m, out_shape)


def matmul(backend: Any, inputs: Any, attrs: dict[str, Any], fused: bool) -> TensorInfo:
    a, b = inputs["a"], inputs["b"]
    ta, tb = bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b"))
    m, k = (a.shape[-1], a.shape[-2]) if ta else (a.shape[-2], a.shape[-1])
    n = b.shape[-2] if tb else b.shape[-1]
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2], "mat_mul")
    out_shape = (*batch, m, n)
    epi = Epilogue(inputs if fused else {}, attrs if fused else {}, out_shape)
    temps: list = []
    a, na = _batches(a, batch, backend, temps)
    b, nb = _batches(b, batch, backend, temps)
    if ta and k % 4 == 0:
        # A read down its columns costs a texel fetch per element: one transposing draw makes its rows
        # texels, for the K4 path (e.g. the weight gradient x^T @ dy of a dense layer)
        rank = len(a.shape)
        perm = (*range(rank - 2), rank - 1, rank - 2)
        info = transpose(backend, {"x": a}, {"perm": perm})
        temps.append(info)
        a, ta = _View(info.data_id, info.shape, a.dtype), False
    if not ta and not tb and nb == 1 and rows4_fits(backend, na * m, k, n, a.dtype):
        # B shared by every batch: A's batches are more rows of one product
        out = matmul_rows4(backend, a, b, na * m, k, n, epi, out_shape)
    else:
        out = _matmul_rows1(backend, a, b, (ta, tb, m, k, n, na, nb), epi, out_shape)
    for t in temps:
        backend.temp(t)
    return epi.finish(backend, out)


def _matmul_rows1(
    backend: Any, a: Any, b: Any, dims: tuple, epi: Epilogue, out_shape: tuple[int, ...]
) -> TensorInfo:
    """BatchMatMul.glsl: one row (4 columns, or 4 elements) per fragment."""
    ta, tb, m, k, n, na, nb = dims
    vec_n = n % 4 == 0
    k4 = k % 4 == 0
    int_out = a.dtype == "int32"
    key = ("BatchMatMul", ta, tb, vec_n, k4, epi.key, int_out)
    prog = backend.programs.get(key)
    if prog is None:
        defines = [d for d, on in (("TA", ta), ("TB", tb), ("VEC_N", vec_n), ("K4", k4)) if on] + epi.defines
        prog = backend.programs.build(key, "BatchMatMul", ("A", "B", *epi.samplers), 7, 1, defines,
                                      int_output=int_out)  # fmt: skip
    return backend.run(
        prog, (a, b, *epi.inputs), out_shape, a.dtype, (m, k, n, na, nb, *epi.ints), epi.floats
    )


def batch_mat_mul(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """BatchMatMul: shaders/BatchMatMul.glsl."""
    return matmul(backend, inputs, attrs, False)


def fused_mat_mul(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """_FusedMatMul: BatchMatMul + bias + activation (prelu weights, leakyrelu_alpha)."""
    return matmul(backend, inputs, attrs, True)


KERNELS = {kn.BatchMatMul: batch_mat_mul, kn._FusedMatMul: fused_mat_mul}
