"""Normalization and norms: moments, norm, euclidean_norm, batch_norm (kernel FusedBatchNorm),
local_response_normalization (kernel LRN) and moving_average; composites follow TF.js's."""

from __future__ import annotations

import functools
import inspect
import math
from typing import Any

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import broadcast_shapes, fmt
from ..tensor import Tensor
from . import binary as B
from . import reduce as R
from . import unary as U
from .cast import cast
from .checks import MAX_DIM, axes_arg, flag_arg, int_arg, number_arg
from .creation import scalar
from .op import TensorLike, convert_to_tensor, op
from .shape import reshape

__all__ = [
    "moments", "norm", "euclidean_norm", "batch_norm", "batch_norm2d", "batch_norm3d", "batch_norm4d",
    "local_response_normalization", "moving_average",
]  # fmt: skip


def _keep_dims_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> list[int]:
    return [1 if i in axes else d for i, d in enumerate(shape)]


@op
def moments(x: TensorLike, axis: Any = None, keep_dims: bool = False) -> dict[str, Tensor]:
    """{'mean', 'variance'} of x over `axis` (None = all), float32 (composite, as TF.js's moments)."""
    t = convert_to_tensor(x, "x", "moments")
    axes = axes_arg(axis, t.rank, "moments")
    keep_dims = flag_arg(keep_dims, "keep_dims", "moments")
    mean = R.mean(t, list(axes), keep_dims)
    centred = B.sub(cast(t, "float32"), reshape(mean, _keep_dims_shape(t.shape, axes)))
    return {"mean": mean, "variance": R.mean(U.square(centred), list(axes), keep_dims)}


def _norm(x: Tensor, ord: Any, axis: Any, name: str) -> Tensor:
    if x.rank == 0:
        return U.abs(x)
    if x.rank != 1 and axis is None:
        return _norm(reshape(x, [-1]), ord, None, name)
    axes = [axis] if isinstance(axis, int) else list(axis) if axis is not None else None
    if x.rank == 1 or (axes is not None and len(axes) == 1):
        if ord == 1:
            return R.sum(U.abs(x), axes)
        if ord == math.inf:
            return R.max(U.abs(x), axes)
        if ord == -math.inf:
            return R.min(U.abs(x), axes)
        if ord in ("euclidean", 2):
            return U.sqrt(R.sum(U.square(U.abs(x)), axes))
        raise ValueError(f"Error in {name}: invalid ord value: {ord}")
    if axes is not None and len(axes) == 2:
        a0, a1 = axes
        if ord == 1:
            return R.max(R.sum(U.abs(x), a0), a1 - 1)
        if ord == math.inf:
            return R.max(R.sum(U.abs(x), a1), a0)
        if ord == -math.inf:
            return R.min(R.sum(U.abs(x), a1), a0)
        if ord in ("fro", "euclidean"):
            return U.sqrt(R.sum(U.square(x), axes))
        raise ValueError(f"Error in {name}: invalid ord value: {ord}")
    raise ValueError(f"Error in {name}: invalid axis: {axis}")


@op
def norm(x: TensorLike, ord: Any = "euclidean", axis: Any = None, keep_dims: bool = False) -> Tensor:
    """Vector norm (ord 1, 2 / 'euclidean', inf, -inf) or matrix norm over two axes (1, inf, -inf, 'fro')."""
    return _norm_op(x, ord, axis, keep_dims, "norm")


@op
def euclidean_norm(x: TensorLike, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """The euclidean norm over `axis` (norm with ord 'euclidean')."""
    return _norm_op(x, "euclidean", axis, keep_dims, "euclidean_norm")


def _norm_op(x: TensorLike, ord: Any, axis: Any, keep_dims: Any, name: str) -> Tensor:
    t = convert_to_tensor(x, "x", name)
    if isinstance(ord, bool) or not isinstance(ord, (str, int, float)):
        raise ValueError(f"Error in {name}: invalid ord value: {type(ord).__name__}")
    keep_dims = flag_arg(keep_dims, "keep_dims", name)
    axes = axes_arg(axis, t.rank, name)
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        axis = list(axes) if len(axes) == 2 else axis
    elif axis is not None and not isinstance(axis, (list, tuple)):
        axis = axes[0]
    result = _norm(t, ord, axis, name)
    return reshape(result, _keep_dims_shape(t.shape, axes)) if keep_dims else result


def _as_4d(x: Tensor) -> Tensor:
    if x.rank in (0, 1):
        return reshape(x, [1, 1, 1, x.size])
    if x.rank == 2:
        return reshape(x, [1, 1, *x.shape])
    if x.rank == 3:
        return reshape(x, [1, *x.shape])
    return x


@op
def batch_norm(
    x: TensorLike,
    mean: TensorLike,
    variance: TensorLike,
    offset: TensorLike | None = None,
    scale: TensorLike | None = None,
    variance_epsilon: float | None = None,
) -> Tensor:
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset (kernel FusedBatchNorm; eps 0.001)."""
    name = "batch_norm"
    eps = 0.001 if variance_epsilon is None else number_arg(variance_epsilon, "variance_epsilon", name)
    tx = convert_to_tensor(x, "x", name)
    params = {
        "mean": convert_to_tensor(mean, "mean", name),
        "variance": convert_to_tensor(variance, "variance", name),
    }
    params["offset"] = None if offset is None else convert_to_tensor(offset, "offset", name)
    params["scale"] = None if scale is None else convert_to_tensor(scale, "scale", name)
    for key in ("variance", "offset", "scale"):
        p = params[key]
        if p is not None and p.rank != params["mean"].rank:
            raise ValueError(
                f"Error in {name}: mean and {key} must have equal ranks, but got shapes "
                f"{fmt(params['mean'].shape)} and {fmt(p.shape)}"
            )
    for key, p in params.items():
        if p is not None and p.size and tx.size % p.size:
            raise ValueError(
                f"Error in {name}: {key} of shape {fmt(p.shape)} does not broadcast against x of shape "
                f"{fmt(tx.shape)}"
            )
    f32 = {k: (v if v is None or v.dtype == "float32" else cast(v, "float32")) for k, v in params.items()}
    x4 = _as_4d(cast(tx, "float32") if tx.dtype != "float32" else tx)
    inputs = {
        "x": x4,
        "mean": f32["mean"],
        "variance": f32["variance"],
        "offset": f32["offset"],
        "scale": f32["scale"],
    }
    out = ENGINE.run_kernel(kn.FusedBatchNorm, inputs, {"variance_epsilon": eps})
    return reshape(out, tx.shape)


def _batch_norm_nd(rank: int) -> Any:
    """batch_norm (its signature and typing, through __wrapped__) checking x's rank and each parameter's."""
    name = f"batch_norm{rank}d"
    params = inspect.signature(batch_norm)

    @functools.wraps(batch_norm)
    def batch_norm_nd(*args: Any, **kwargs: Any) -> Tensor:
        bound = params.bind(*args, **kwargs)
        t = bound.arguments["x"] = convert_to_tensor(bound.arguments["x"], "x", name)
        if t.rank != rank:
            raise ValueError(f"Error in {name}: x must be rank {rank} but got rank {t.rank}.")
        for arg in ("mean", "variance", "offset", "scale"):
            value = bound.arguments.get(arg)
            p = None if value is None else convert_to_tensor(value, arg, name)
            if p is not None and p.rank not in (1, rank):
                if p is not value:
                    p.dispose()
                raise ValueError(f"Error in {name}: {arg} must be rank {rank} or rank 1 but got rank {p.rank}.")
        return batch_norm(*bound.args, **bound.kwargs)

    batch_norm_nd.__name__ = batch_norm_nd.__qualname__ = name
    batch_norm_nd.__doc__ = f"batch_norm for a rank-{rank} x (parameters rank 1 or {rank})."
    return op(batch_norm_nd)


batch_norm2d = _batch_norm_nd(2)
batch_norm3d = _batch_norm_nd(3)
batch_norm4d = _batch_norm_nd(4)


@op
def local_response_normalization(
    x: TensorLike, depth_radius: int = 5, bias: float = 1, alpha: float = 1, beta: float = 0.5
) -> Tensor:
    """x / (bias + alpha * sum of squares over 2 * depth_radius + 1 channels) ** beta (kernel LRN)."""
    name = "local_response_normalization"
    t = convert_to_tensor(x, "x", name)
    if t.rank not in (3, 4):
        raise ValueError(f"Error in {name}: x must be rank 3 or 4 but got rank {t.rank}.")
    radius = int_arg(depth_radius, "depth_radius", name)
    if radius < -MAX_DIM:
        raise ValueError(f"Error in {name}: depth_radius must be >= {-MAX_DIM}, but got {radius}")
    radius = min(radius, t.shape[-1])  # a window wider than the channels is all of them (and fits an int32)
    attrs = {
        "depth_radius": radius,
        "bias": number_arg(bias, "bias", name),
        "alpha": number_arg(alpha, "alpha", name),
        "beta": number_arg(beta, "beta", name),
    }
    x4 = reshape(t, [1, *t.shape]) if t.rank == 3 else t
    if x4.dtype != "float32":
        x4 = cast(x4, "float32")
    out = ENGINE.run_kernel(kn.LRN, {"x": x4}, attrs)
    return reshape(out, t.shape) if t.rank == 3 else out


@op
def moving_average(
    v: TensorLike, x: TensorLike, decay: TensorLike, step: TensorLike | None = None, zero_debias: bool = True
) -> Tensor:
    """v + (x - v) * (1 - decay), divided by 1 - decay ** step when zero_debias (composite)."""
    name = "moving_average"
    tv, tx = convert_to_tensor(v, "v", name), convert_to_tensor(x, "x", name)
    td = convert_to_tensor(decay, "decay", name)
    if tv.dtype != tx.dtype:
        raise TypeError(
            f"Error in {name}: v and x must have the same dtype, but got {tv.dtype} and {tx.dtype}"
        )
    if tv.shape != tx.shape:
        raise ValueError(f"Error in {name}: shape mismatch in v {fmt(tv.shape)} and x {fmt(tx.shape)}")
    if broadcast_shapes(tv.shape, td.shape, name) != tv.shape:
        raise ValueError(f"Error in {name}: decay of shape {fmt(td.shape)} does not fit v {fmt(tv.shape)}")
    zero_debias = flag_arg(zero_debias, "zero_debias", name)
    one = scalar(1)
    update = B.mul(B.sub(tx, tv), B.sub(one, td))
    if zero_debias:
        if step is None:
            raise ValueError(f"Error in {name}: when using zero_debias=True, step is required")
        update = B.div(update, B.sub(one, B.pow(td, convert_to_tensor(step, "step", name))))
    return B.add(tv, update)
