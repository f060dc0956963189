"""GLSL reductions (Sum, Mean, Prod, Max, Min, All, Any, ArgMax, ArgMin; shaders/Reduce.glsl), Softmax and
LogSoftmax (shaders/Softmax.glsl), Cumsum and Cumprod (shaders/Cumsum.glsl), TopK (topk.py).

Reduced axes that are not one contiguous block of the input are first moved last with a transpose; a long
reduction with few outputs runs in two passes (chunks of ~sqrt(n), then the chunks) to spread the work.
"""

from __future__ import annotations

from math import isqrt, prod
from typing import Any

from .... import kernel_names as kn
from ....shapes import normalize_axes, normalize_axis
from ...base import TensorInfo
from .elementwise import _View, fill_value, unary
from .gather import _src, gather
from .topk import top_k

_TWO_PASS_N = 8192  # reductions at least this long with at most _TWO_PASS_OUT outputs use two passes
_TWO_PASS_OUT = 4096


def _out_shape(shape: tuple[int, ...], axes: tuple[int, ...], keep_dims: bool) -> tuple[int, ...]:
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _blocks(backend: Any, x: Any, axes: tuple[int, ...], temps: list) -> tuple[Any, int, int, int]:
    """(tensor-like, outer, n, inner): x seen as [outer, n, inner] with the reduced axes as n."""
    shape = x.shape
    real = [a for a in axes if shape[a] != 1]
    n = prod(shape[a] for a in axes)
    if not real:
        return x, x.size, 1, 1
    kept_between = [d for d in range(real[0], real[-1] + 1) if d not in axes and shape[d] != 1]
    if not kept_between:
        inner = prod(shape[real[-1] + 1 :])
        return x, x.size // (n * inner) if n * inner else 0, n, inner
    # move the reduced axes last: [kept..., reduced...]
    perm = [d for d in range(len(shape)) if d not in axes] + list(axes)
    out_shape = tuple(shape[p] for p in perm)
    info = gather(backend, x, out_shape, [(shape[p], p, 1) for p in perm], _src(shape))
    temps.append(info)
    return _View(info.data_id, out_shape, x.dtype), x.size // n if n else 0, n, 1


def _reduce_program(backend: Any, op: str, vec: bool, row4: bool, int_out: bool) -> Any:
    key = ("Reduce", op, vec, row4, int_out)
    prog = backend.programs.get(key)
    if prog is None:
        defines = [f"OP_{op}"] + [d for d, on in (("VEC", vec), ("ROW4", row4)) if on]
        prog = backend.programs.build(key, "Reduce", ("X",), 4, 1, defines, int_output=int_out)
    return prog


def _pass(backend: Any, x: Any, op: str, outer: int, n: int, inner: int, chunks: int, size: int,
          dtype: str, scale: float) -> TensorInfo:  # fmt: skip
    arg = op in ("ARGMAX", "ARGMIN")
    vec = inner % 4 == 0 and not arg
    row4 = inner == 1 and n % 4 == 0 and size % 4 == 0
    prog = _reduce_program(backend, op, vec, row4, dtype == "int32")
    return backend.run(prog, (x,), (outer * chunks * inner,), dtype, (n, inner, chunks, size), (scale,))


def reduce(backend: Any, x: Any, axes: tuple[int, ...], op: str, dtype: str, out_shape: tuple[int, ...],
           empty: float) -> TensorInfo:  # fmt: skip
    """Reduce x over `axes` with OP_<op> of shaders/Reduce.glsl into a `dtype` tensor of out_shape."""
    n_out = prod(out_shape)
    if n_out == 0:
        return backend.output(_empty(dtype), out_shape, dtype)
    n = prod(x.shape[a] for a in axes)
    if n == 0:
        return fill_value(backend, out_shape, dtype, empty)
    temps: list = []
    src, outer, n, inner = _blocks(backend, x, axes, temps)
    scale = 1.0 / n if op == "MEAN" else 1.0
    if n >= _TWO_PASS_N and outer * inner <= _TWO_PASS_OUT and op not in ("ARGMAX", "ARGMIN"):
        size = (isqrt(n) + 3) & ~3
        chunks = -(-n // size)
        first_op = "SUM" if op == "MEAN" else op
        part = _pass(backend, src, first_op, outer, n, inner, chunks, size, "float32", 1.0)
        temps.append(part)
        view = _View(part.data_id, (outer, chunks, inner), "float32")
        out = _pass(backend, view, op, outer, chunks, inner, 1, chunks, dtype, scale)
    else:
        out = _pass(backend, src, op, outer, n, inner, 1, n, dtype, scale)
    for t in temps:
        backend.temp(t)
    return TensorInfo(out.data_id, out_shape, dtype)


def _empty(dtype: str) -> Any:
    from array import array

    from ....dtypes import TYPECODE

    return array(TYPECODE[dtype])


def _reduce_kernel(op: str, axis_attr: str, name: str) -> Any:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        axes = normalize_axes(attrs.get(axis_attr), len(x.shape), name)
        out_shape = _out_shape(x.shape, axes, bool(attrs.get("keep_dims", False)))
        if op in ("SUM", "PROD"):
            dtype = "float32" if x.dtype == "float32" else "int32"
        elif op == "MEAN":
            dtype = "float32"
        elif op in ("ALL", "ANY"):
            dtype = "bool"
        else:
            dtype = x.dtype
        if not axes:  # identity (in the kernel's output dtype)
            if dtype == x.dtype:
                return TensorInfo(x.data_id, out_shape, dtype)
            return TensorInfo(unary(backend, x, "Identity", dtype).data_id, out_shape, dtype)
        empty = {"SUM": 0, "PROD": 1, "MEAN": float("nan"), "ALL": 1, "ANY": 0}.get(op)
        if empty is None:
            empty = float("nan") if x.dtype == "float32" else 0
        return reduce(backend, x, axes, op, dtype, out_shape, empty)

    kernel.__name__ = kernel.__qualname__ = f"webgl_{name}"
    kernel.__doc__ = f"{name} in GLSL (shaders/Reduce.glsl, OP_{op}); attrs {axis_attr}, keep_dims."
    return kernel


def _arg_kernel(op: str, name: str) -> Any:
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        axis = normalize_axis(int(attrs.get("axis", 0)), len(x.shape), name)
        out_shape = _out_shape(x.shape, (axis,), False)
        return reduce(backend, x, (axis,), op, "int32", out_shape, 0)

    kernel.__name__ = kernel.__qualname__ = f"webgl_{name}"
    kernel.__doc__ = f"{name} in GLSL: index of the first extreme along the int attr axis (int32)."
    return kernel


def _softmax(backend: Any, inputs: Any, log: bool) -> TensorInfo:
    x = inputs["logits"]
    if x.size == 0:
        return backend.output(_empty("float32"), x.shape, "float32")
    n = x.shape[-1] if x.shape else 1
    rows = x.size // n
    row4 = n % 4 == 0
    key = ("SoftmaxStats", row4)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Softmax", ("X",), 1, 0, ["STATS"] + (["ROW4"] if row4 else [])
    )
    stats = backend.run(prog, (x,), (rows, 2), "float32", (n,))
    key = ("Softmax", log, row4)
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Softmax", ("X", "S"), 1, 0, [d for d, on in (("LOG", log), ("ROW4", row4)) if on]
    )
    out = backend.run(prog, (x, stats), x.shape, "float32", (n,))
    backend.temp(stats)
    return out


def softmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Softmax: row statistics, then one pass."""
    return _softmax(backend, inputs, False)


def log_softmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LogSoftmax: row statistics, then one pass."""
    return _softmax(backend, inputs, True)


def _scan(backend: Any, inputs: Any, attrs: dict[str, Any], op: str, name: str) -> TensorInfo:
    x = inputs["x"]
    axis = normalize_axis(int(attrs.get("axis", 0)), len(x.shape), name)
    dtype = "float32" if x.dtype == "float32" else "int32"
    n, inner = x.shape[axis], prod(x.shape[axis + 1 :])
    key = ("Cumsum", op, dtype == "int32")
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Cumsum", ("X",), 4, 0, [f"OP_{op}"], int_output=dtype == "int32"
    )
    ints = (n, inner, int(bool(attrs.get("exclusive"))), int(bool(attrs.get("reverse"))))
    return backend.run(prog, (x,), x.shape, dtype, ints)


def cumsum(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Cumsum: shaders/Cumsum.glsl."""
    return _scan(backend, inputs, attrs, "SUM", "cumsum")


def cumprod(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Cumprod: shaders/Cumsum.glsl."""
    return _scan(backend, inputs, attrs, "PROD", "cumprod")


KERNELS = {
    kn.Sum: _reduce_kernel("SUM", "axis", "sum"),
    kn.Mean: _reduce_kernel("MEAN", "axis", "mean"),
    kn.Prod: _reduce_kernel("PROD", "axis", "prod"),
    kn.Max: _reduce_kernel("MAX", "reduction_indices", "max"),
    kn.Min: _reduce_kernel("MIN", "axis", "min"),
    kn.All: _reduce_kernel("ALL", "axis", "all"),
    kn.Any: _reduce_kernel("ANY", "axis", "any"),
    kn.ArgMax: _arg_kernel("ARGMAX", "arg_max"),
    kn.ArgMin: _arg_kernel("ARGMIN", "arg_min"),
    kn.Softmax: softmax,
    kn.LogSoftmax: log_softmax,
    kn.Cumsum: cumsum,
    kn.Cumprod: cumprod,
    kn.TopK: top_k,
}
