"""complex64 and string tensors on every backend, through the numeric kernels the backend already has.

A complex64 buffer is a flat float32 array of interleaved (re, im) pairs; a string buffer is a list of str.
Kernels that only move elements (gather, concat, slice, tile, ...) run on int32 stand-ins: each element
becomes its index in a pool, the backend's own kernel moves the indices and the result's indices pick the
elements back. Complex Add / Sub / Multiply / Cast / ZerosLike / OnesLike split their operands into real and
imaginary float32 parts and run the backend's float kernels on them (TF.js keeps the parts as two tensors).
`for_dtypes` wraps a backend's table with these routes when it is registered; a kernel that routes them
itself (its attribute `for_dtypes` true, e.g. wasm's Add) is left as it is, so the float path pays no wrapper.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Mapping
from typing import Any

from .. import kernel_names as kn
from ..shapes import size_of
from ..tensor import Tensor

Kernel = Callable[[Any, Any, dict[str, Any]], Any]
_NUMERIC = frozenset(("float32", "int32", "bool"))

#: kernels that only move elements: they run on string and complex64 tensors through index stand-ins
MOVING = (
    kn.GatherV2,
    kn.GatherNd,
    kn.Concat,
    kn.Slice,
    kn.StridedSlice,
    kn.Pack,
    kn.Unpack,
    kn.Transpose,
    kn.Tile,
    kn.Reverse,
    kn.SplitV,
    kn.BatchToSpaceND,
    kn.SpaceToBatchND,
    kn.DepthToSpace,
)


def temp(backend: Any, values: Any, shape: tuple[int, ...], dtype: str) -> Tensor:
    """An untracked tensor on `backend` for kernel-internal use (free it with `backend.dispose_data`)."""
    info = backend.output(values, tuple(shape), dtype)
    return Tensor(info.shape, info.dtype, info.data_id, -1)


def split_complex(backend: Any, x: Any) -> tuple[Tensor, Tensor]:
    """The real and imaginary parts of a complex64 tensor as two untracked float32 tensors."""
    v = backend.values(x)
    return temp(backend, v[0::2], x.shape, "float32"), temp(backend, v[1::2], x.shape, "float32")


def merge_complex(backend: Any, re: Any, im: Any) -> Any:
    """A new complex64 buffer (TensorInfo) from float32 tensors `re` and `im` of one shape."""
    r, i = backend.values(re), backend.values(im)
    out = array("f", bytes(8 * len(r)))
    out[0::2] = array("f", r)
    out[1::2] = array("f", i)
    return backend.output(out, tuple(re.shape), "complex64")


def _first(inputs: Any) -> Any:
    if type(inputs) is list:
        return inputs[0] if inputs else None
    for t in inputs.values():
        return t
    return None


def _on_indices(impl: Kernel, backend: Any, inputs: Any, attrs: dict[str, Any], dtype: str) -> Any:
    pool: list[Any] = []
    temps: list[int] = []
    step = 2 if dtype == "complex64" else 1

    def stand_in(t: Any) -> Any:
        if t is None or t.dtype != dtype:
            return t
        start = len(pool) // step
        pool.extend(backend.values(t))
        proxy = temp(backend, array("i", range(start, start + size_of(t.shape))), t.shape, "int32")
        temps.append(proxy.data_id)
        return proxy

    moved = (
        [stand_in(t) for t in inputs] if type(inputs) is list else {k: stand_in(t) for k, t in inputs.items()}
    )
    try:
        outs = impl(backend, moved, attrs)
        single = hasattr(outs, "data_id")
        results = []
        for out in [outs] if single else outs:
            idx = backend.values(out)
            if step == 1:
                vals: Any = [pool[i] for i in idx]
            else:
                vals = array("f", bytes(8 * len(idx)))
                vals[0::2] = array("f", [pool[2 * i] for i in idx])
                vals[1::2] = array("f", [pool[2 * i + 1] for i in idx])
            if out.data_id not in temps:
                backend.dispose_data(out.data_id)
            results.append(backend.output(vals, tuple(out.shape), dtype))
    finally:
        for data_id in temps:
            backend.dispose_data(data_id)
    return results[0] if single else results


def takes_complex(impl: Kernel) -> Kernel:
    """Mark a backend's kernel as running complex64 tensors itself (for_dtypes leaves that dtype to it)."""
    impl.takes_complex = True  # type: ignore[attr-defined]
    return impl


def _moving(impl: Kernel) -> Kernel:
    native = _NUMERIC | {"complex64"} if getattr(impl, "takes_complex", False) else _NUMERIC

    @functools.wraps(impl)
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        first = _first(inputs)
        if first is None or first.dtype in native:
            return impl(backend, inputs, attrs)
        return _on_indices(impl, backend, inputs, attrs, first.dtype)

    return kernel


def _parts(backend: Any, t: Any) -> tuple[Tensor, Tensor | None]:
    """Real and imaginary parts of an operand (imag None for a real operand)."""
    if t.dtype == "complex64":
        return split_complex(backend, t)
    return t, None


#: the arithmetic kernels that take complex64 operands (through their real and imaginary parts)
COMPLEX_BINARY = (kn.Add, kn.Sub, kn.Multiply)


def complex_binary(table: Mapping[str, Kernel], name: str) -> Kernel:
    """Kernel `name` (one of COMPLEX_BINARY) for operands of which one or both are complex64, run on their
    float32 parts through `table`'s kernels. A backend's own kernel may call it for complex64 operands
    (and set `for_dtypes` on itself), so that its float path pays no wrapper."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        made: list[Any] = []
        a, b = inputs["a"], inputs["b"]

        def run(kernel_name: str, x: Any, y: Any) -> Any:
            out = table[kernel_name](backend, {"a": x, "b": y}, {})
            made.append(out.data_id)
            return Tensor(tuple(out.shape), out.dtype, out.data_id, -1)

        (ar, ai), (br, bi) = _parts(backend, a), _parts(backend, b)
        made.extend(t.data_id for t in (ar, ai, br, bi) if t is not None and t is not a and t is not b)
        try:
            zero = temp(backend, array("f", [0.0]), (), "float32")
            made.append(zero.data_id)
            ai, bi = zero if ai is None else ai, zero if bi is None else bi
            if name == kn.Multiply:
                re = run(kn.Sub, run(kn.Multiply, ar, br), run(kn.Multiply, ai, bi))
                im = run(kn.Add, run(kn.Multiply, ar, bi), run(kn.Multiply, ai, br))
            else:
                re, im = run(name, ar, br), run(name, ai, bi)
            return merge_complex(backend, re, im)
        finally:
            for data_id in made:
                backend.dispose_data(data_id)

    return kernel


def _complex_binary(table: Mapping[str, Kernel], name: str, impl: Kernel) -> Kernel:
    route = complex_binary(table, name)

    @functools.wraps(impl)
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        if inputs["a"].dtype != "complex64" and inputs["b"].dtype != "complex64":
            return impl(backend, inputs, attrs)
        return route(backend, inputs, attrs)

    return kernel


def _complex_cast(impl: Kernel) -> Kernel:
    @functools.wraps(impl)
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        x, dtype = inputs["x"], attrs["dtype"]
        if x.dtype == dtype or (x.dtype != "complex64" and dtype != "complex64"):
            return impl(backend, inputs, attrs)
        if x.dtype == "complex64":  # as TF.js: the real part, cast
            re, im = split_complex(backend, x)
            backend.dispose_data(im.data_id)
            try:
                out = impl(backend, {"x": re}, {"dtype": dtype})
                if out.data_id == re.data_id:
                    return backend.output(backend.values(re), tuple(x.shape), dtype)
                return out
            finally:
                backend.dispose_data(re.data_id)
        vals = backend.values(x)
        out = array("f", bytes(8 * len(vals)))
        out[0::2] = array("f", vals)
        return backend.output(out, tuple(x.shape), "complex64")

    return kernel


def _complex_abs(complex_abs: Kernel, impl: Kernel) -> Kernel:
    @functools.wraps(impl)
    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        return (complex_abs if inputs["x"].dtype == "complex64" else impl)(backend, inputs, attrs)

    return kernel


def _complex_like(value: float) -> Callable[[Kernel], Kernel]:
    def wrap(impl: Kernel) -> Kernel:
        @functools.wraps(impl)
        def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
            x = inputs["x"]
            if x.dtype == "string":
                if value:
                    raise TypeError("onesLike is not supported under string dtype")
                return backend.output([""] * size_of(x.shape), tuple(x.shape), "string")
            if x.dtype != "complex64":
                return impl(backend, inputs, attrs)
            out = array("f", bytes(8 * size_of(x.shape)))
            out[0::2] = array("f", [value]) * size_of(x.shape)
            return backend.output(out, tuple(x.shape), "complex64")

        return kernel

    return wrap


def for_dtypes(table: Mapping[str, Kernel]) -> dict[str, Kernel]:
    """`table` with its element-moving, complex-arithmetic and cast kernels taking complex64 and string
    tensors too (the rest as they are)."""
    out = dict(table)
    wrappers: dict[str, Callable[[Kernel], Kernel]] = dict.fromkeys(MOVING, _moving)
    if all(name in out for name in COMPLEX_BINARY):
        for name in COMPLEX_BINARY:
            wrappers[name] = functools.partial(_complex_binary, table, name)
    if kn.ComplexAbs in out:
        wrappers[kn.Abs] = functools.partial(_complex_abs, table[kn.ComplexAbs])
    wrappers.update(
        {kn.Cast: _complex_cast, kn.ZerosLike: _complex_like(0.0), kn.OnesLike: _complex_like(1.0)}
    )
    for name, wrap in wrappers.items():
        impl = out.get(name)
        if name not in MOVING and name not in (kn.ZerosLike, kn.OnesLike) and getattr(impl, "takes_complex", False):
            continue  # complex64 is all these wrappers add
        if impl is not None and not getattr(impl, "for_dtypes", False):  # a table registered again
            out[name] = wrap(impl)
            out[name].for_dtypes = True  # type: ignore[attr-defined]
    return out
