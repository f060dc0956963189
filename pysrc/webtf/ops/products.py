"""Products and diagonals: dot, outer_product, einsum (kernel Einsum) and diag (kernel Diag)."""

from __future__ import annotations

from .. import kernel_names as kn
from ..dtypes import upcast
from ..engine import ENGINE
from ..tensor import Tensor
from .cast import cast
from .checks import check_size
from .matmul import mat_mul
from .op import TensorLike, convert_non_bool, convert_to_tensor, op
from .shape import reshape

__all__ = ["dot", "outer_product", "einsum", "diag"]


@op
def dot(t1: TensorLike, t2: TensorLike) -> Tensor:
    """Dot product of two vectors or matrices (rank 1 or 2 each), through mat_mul."""
    a, b = convert_non_bool(t1, "t1", "dot"), convert_non_bool(t2, "t2", "dot")
    if a.rank not in (1, 2) or b.rank not in (1, 2):
        raise ValueError(
            f"Error in dot: inputs must all be rank 1 or 2, but got ranks {a.rank} and {b.rank}."
        )
    inner_a = a.size if a.rank == 1 else a.shape[1]
    inner_b = b.size if b.rank == 1 else b.shape[0]
    if inner_a != inner_b:
        raise ValueError(
            f"Error in dot: inner dimensions of inputs must match, but got {inner_a} and {inner_b}."
        )
    out = mat_mul(reshape(a, [1, -1]) if a.rank == 1 else a, reshape(b, [-1, 1]) if b.rank == 1 else b)
    if a.rank == 1 and b.rank == 1:
        return reshape(out, [])
    return reshape(out, [out.size]) if a.rank == 1 or b.rank == 1 else out


@op
def outer_product(v1: TensorLike, v2: TensorLike) -> Tensor:
    """v1[:, None] * v2[None, :] of two vectors, through mat_mul."""
    a, b = convert_to_tensor(v1, "v1", "outer_product"), convert_to_tensor(v2, "v2", "outer_product")
    if a.rank != 1 or b.rank != 1:
        raise ValueError(
            f"Error in outer_product: inputs must be rank 1, but got ranks {a.rank} and {b.rank}."
        )
    return mat_mul(reshape(a, [-1, 1]), reshape(b, [1, -1]))


def parse_einsum(equation: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str, dict[str, int]]:
    """(input terms, output term, label -> size) of an einsum equation, with TF.js's errors."""
    eq = "".join(equation.split())
    arrows = eq.count("->")
    if arrows < 1:
        raise ValueError("Error in einsum: equations without an arrow are not supported.")
    if arrows > 1:
        raise ValueError('Error in einsum: equation must contain exactly one arrow ("->").')
    inputs, output = eq.split("->")
    if "..." in inputs:
        raise ValueError('Error in einsum: the ellipsis notation ("...") is not supported yet.')
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"Error in einsum: expected {len(terms)} input tensors, received {len(shapes)}")
    if len(terms) > 2:
        raise ValueError("Error in einsum: support for more than 2 input tensors is not implemented yet.")
    for label in output:
        if not any(label in t for t in terms):
            raise ValueError(
                f"Error in einsum: output subscripts contain the label {label} not present in the input subscripts."
            )
    sizes: dict[str, int] = {}
    for term, shape in zip(terms, shapes, strict=True):
        if len(set(term)) != len(term):
            raise ValueError(
                f"Error in einsum: found duplicate axes in input component {term}. Support for duplicate axes "
                "in input is not implemented yet."
            )
        if len(term) != len(shape):
            raise ValueError(
                f"Error in einsum: input component {term} names {len(term)} axes, but its tensor has rank "
                f"{len(shape)} (shape {list(shape)})"
            )
        for label, dim in zip(term, shape, strict=True):
            if sizes.setdefault(label, dim) != dim:
                raise ValueError(
                    f"Error in einsum: expected dimension {sizes[label]} at axis {label} of the input shaped "
                    f"{list(shape)}, but got dimension {dim}"
                )
    return terms, output, sizes


@op
def einsum(equation: str, *tensors: TensorLike) -> Tensor:
    """Einstein summation of one or two tensors, e.g. einsum('ij,jk->ik', a, b) (kernel Einsum)."""
    if not isinstance(equation, str):
        raise TypeError(
            f"Error in einsum: argument 'equation' must be a str, but got {type(equation).__name__}"
        )
    ts = [convert_to_tensor(t, f"tensors[{i}]", "einsum") for i, t in enumerate(tensors)]
    _, output, sizes = parse_einsum(equation, [t.shape for t in ts])
    check_size([sizes[c] for c in output], "einsum")
    dtype = ts[0].dtype
    for t in ts[1:]:
        dtype = upcast(dtype, t.dtype)
    dtype = "int32" if dtype == "bool" else dtype
    ts = [t if t.dtype == dtype else cast(t, dtype) for t in ts]
    return ENGINE.run_kernel(kn.Einsum, ts, {"equation": "".join(equation.split())})


@op
def diag(x: TensorLike) -> Tensor:
    """A tensor of shape x.shape + x.shape with x on its diagonal (kernel Diag)."""
    t = convert_to_tensor(x, "x", "diag")
    check_size([*t.shape, *t.shape], "diag")
    return ENGINE.run_kernel(kn.Diag, {"x": t})
