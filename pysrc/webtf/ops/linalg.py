"""The tf.linalg namespace: band_part, gram_schmidt and qr (composites of other ops, as in TF.js).

Nothing here is re-exported at the top level: call tf.linalg.qr(...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tensor import Tensor
from . import binary as B
from . import reduce as R
from . import unary as U
from .cast import cast
from .checks import is_int
from .creation import eye, ones, scalar, zeros
from .creation import range as range_
from .matmul import mat_mul
from .norm import norm
from .op import TensorLike, convert_to_tensor, op
from .shape import concat, reshape, split, squeeze, stack, unstack
from .slicing import slice as slice_

__all__: list[str] = []


def _bound(value: Any, size: int, arg: str, dim: str) -> Tensor:
    if isinstance(value, Tensor):
        if value.dtype != "int32":
            raise TypeError(f"Error in band_part: {arg}'s dtype must be an int32, but got {value.dtype}")
        return B.where(B.less(value, 0), size, B.minimum(value, size))
    if not is_int(value):
        raise ValueError(f"Error in band_part: {arg} must be an integer, got {value}.")
    if value > size:
        raise ValueError(
            f"Error in band_part: {arg} ({value}) must not be greater than the number of {dim} ({size})."
        )
    return scalar(size if value < 0 else int(value), "int32")


@op
def band_part(a: TensorLike, num_lower: Any, num_upper: Any) -> Tensor:
    """a with everything outside num_lower diagonals below and num_upper above zeroed (< 0: keep all)."""
    t = convert_to_tensor(a, "a", "band_part")
    if t.rank < 2:
        raise ValueError(f"Error in band_part: rank must be at least 2, got {t.rank}.")
    m, n = t.shape[-2:]
    lower, upper = _bound(num_lower, m, "num_lower", "rows"), _bound(num_upper, n, "num_upper", "columns")
    ij = B.sub(reshape(range_(0, m, 1, "int32"), [-1, 1]), range_(0, n, 1, "int32"))
    in_band = B.logical_and(B.less_equal(ij, lower), B.greater_equal(ij, B.mul(upper, -1)))
    zero = zeros([m, n], t.dtype)
    mats = [B.where(in_band, mat, zero) for mat in unstack(reshape(t, [-1, m, n]))]
    return reshape(stack(mats), t.shape)


@op
def gram_schmidt(xs: Sequence[TensorLike] | TensorLike) -> Any:
    """Orthonormalize the rows of a matrix (returns a matrix) or a list of vectors (returns a list)."""
    as_matrix = not isinstance(xs, (list, tuple))
    if as_matrix:
        mat = convert_to_tensor(xs, "xs", "gram_schmidt")
        vectors = [squeeze(v, [0]) for v in split(mat, mat.shape[0], 0)]
    else:
        if not xs:
            raise ValueError("Error in gram_schmidt: input must not be null, undefined, or empty")
        vectors = [convert_to_tensor(v, f"xs[{i}]", "gram_schmidt") for i, v in enumerate(xs)]
        dim = vectors[0].shape[0]
        for v in vectors[1:]:
            if v.shape[0] != dim:
                raise ValueError(
                    f"Error in gram_schmidt: non-unique lengths found in the input vectors: ({v.shape[0]} vs. {dim})"
                )
    if len(vectors) > vectors[0].shape[0]:
        raise ValueError(
            f"Error in gram_schmidt: number of vectors ({len(vectors)}) exceeds number of dimensions "
            f"({vectors[0].shape[0]})."
        )
    ys: list[Tensor] = []
    for x in vectors:
        for y in ys:
            x = B.sub(x, B.mul(R.sum(B.mul(y, x)), y))
        ys.append(B.div(x, norm(x, "euclidean")))
    return stack(ys, 0) if as_matrix else ys


def _qr2d(x: Tensor, full_matrices: bool) -> tuple[Tensor, Tensor]:
    """Householder QR of one [m, n] matrix: q [m, m] (or [m, n]) orthogonal, r upper triangular."""
    m, n = x.shape
    q, r = eye(m), x if x.dtype == "float32" else cast(x, "float32")
    one = ones([1, 1])
    for j in range(min(m, n)):
        col = slice_(r, [j, j], [m - j, 1])
        col_norm = norm(col)
        rjj = slice_(r, [j, j], [1, 1])
        s = B.where(B.greater(rjj, 0), U.neg(one), one)
        u1 = B.sub(rjj, B.mul(s, col_norm))
        w_pre = B.div(col, u1)
        w = one if m - j == 1 else concat([one, slice_(w_pre, [1, 0], [m - j - 1, 1])], 0)
        tau_w = B.mul(U.neg(B.div(B.mul(s, u1), col_norm)), w)
        rows = slice_(r, [j, 0], [m - j, n])
        rows = B.sub(rows, mat_mul(tau_w, mat_mul(w, rows, True)))
        r = rows if j == 0 else concat([slice_(r, [0, 0], [j, n]), rows], 0)
        cols = slice_(q, [0, j], [m, m - j])
        cols = B.sub(cols, mat_mul(mat_mul(cols, w), tau_w, False, True))
        q = cols if j == 0 else concat([slice_(q, [0, 0], [m, j]), cols], 1)
    if not full_matrices and m > n:
        q, r = slice_(q, [0, 0], [m, n]), slice_(r, [0, 0], [n, n])
    return q, r


@op
def qr(x: TensorLike, full_matrices: bool = False) -> tuple[Tensor, Tensor]:
    """(q, r) of the QR decomposition of each innermost matrix of x (Householder, as TF.js)."""
    t = convert_to_tensor(x, "x", "qr")
    if t.rank < 2:
        raise ValueError(
            f"Error in qr: qr() requires input tensor to have a rank >= 2, but got rank {t.rank}"
        )
    if t.rank == 2:
        return _qr2d(t, full_matrices)
    outer, (m, n) = list(t.shape[:-2]), t.shape[-2:]
    pairs = [_qr2d(mat, full_matrices) for mat in unstack(reshape(t, [-1, m, n]))]
    qs, rs = stack([p[0] for p in pairs]), stack([p[1] for p in pairs])
    return reshape(qs, outer + list(qs.shape[1:])), reshape(rs, outer + list(rs.shape[1:]))


__all__ += ["band_part", "gram_schmidt", "qr"]
