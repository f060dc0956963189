"""GLSL kernels of issue 15 that TF.js's webgl runs on the GPU: Dilation2D, LRNGrad, MaxPoolWithArgmax,
Multinomial, SparseToDense (shaders/ScatterNd.glsl, as TF.js's scatter program) and Einsum (transposes,
one broadcast Multiply and a Sum, as TF.js composes it). Contracts: the cpu kernels."""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ....backend_util import compute_conv_info, compute_pool_info
from ....backend_util.einsum import einsum_plan
from ....backend_util.sparse import scatter_dense
from ...base import TensorInfo
from ...cpu import KERNELS as CPU_KERNELS
from .common import size_of
from .elementwise import _View, binary
from .gather import transpose
from .math import _program, scatter
from .reduce import reduce


def _window_ints(info: Any) -> tuple[int, ...]:
    """h, w, c, oh, ow and the window (shaders/Pool.glsl's uI[1..13])."""
    return (info.in_height, info.in_width, info.in_channels, info.out_height, info.out_width, *info.window)


def dilation2d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Dilation2D: shaders/Dilation2D.glsl."""
    x, f = inputs["x"], inputs["filter"]
    fh, fw, c = f.shape
    info = compute_conv_info(
        x.shape, (fh, fw, c, c), attrs["strides"], attrs.get("dilations", 1), attrs["pad"]
    )
    prog = _program(backend, "Dilation2D", ("X", "F"), 13)
    return backend.run(prog, (x, f), info.out_shape, "float32", _window_ints(info))


def max_pool_with_argmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """MaxPoolWithArgmax: shaders/MaxPoolWithArgmax.glsl, once for the maxima and once (INDEX) for where."""
    x = inputs["x"]
    info = compute_pool_info(x.shape, attrs["filter_size"], attrs["strides"], attrs["pad"])
    ints = (*_window_ints(info), int(bool(attrs.get("include_batch_in_index"))))
    outs = []
    for index in (False, True):
        prog = _program(backend, "MaxPoolWithArgmax", ("X",), 14, 0, index, ("INDEX",) if index else ())
        outs.append(backend.run(prog, (x,), info.out_shape, "int32" if index else "float32", ints))
    return outs


def lrn_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LRNGrad: shaders/LRNGrad.glsl."""
    x, y, dy = inputs["x"], inputs["y"], inputs["dy"]
    prog = _program(backend, "LRNGrad", ("X", "Y", "DY"), 2, 3)
    floats = (float(attrs["bias"]), float(attrs["alpha"]), float(attrs["beta"]))
    return backend.run(
        prog, (x, y, dy), dy.shape, "float32", (dy.shape[-1], int(attrs["depth_radius"])), floats
    )


def multinomial(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Multinomial: shaders/Multinomial.glsl (a hash of the seed and the output index per draw, as TF.js's
    program draws from its seed: the same seed gives the same samples on webgl, not the cpu's)."""
    logits = inputs["logits"]
    batch, classes = logits.shape
    n = int(attrs["num_samples"])
    normalized = bool(attrs.get("normalized"))
    prog = _program(backend, "Multinomial", ("X",), 3, 0, True, ("NORMALIZED",) if normalized else ())
    seed = int(attrs.get("seed") or 0) & 0x7FFFFFFF
    return backend.run(prog, (logits,), (batch, n), "int32", (classes, n, seed))


def sparse_to_dense(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """SparseToDense: shaders/ScatterNd.glsl over the default value (a repeated index keeps its last value);
    indices are checked when on the host. Strings, scalars and outputs of rank above 6 run on the cpu kernel."""
    idx, vals, default = inputs["sparse_indices"], inputs["sparse_values"], inputs["default_value"]
    shape = tuple(attrs["output_shape"])
    if vals.dtype not in ("float32", "int32", "bool") or not 0 < len(shape) <= 6:
        return CPU_KERNELS[kn.SparseToDense](backend, inputs, attrs)
    host = backend.host_values(idx)
    n = idx.shape[0] if idx.shape else 1
    if host is not None:  # out-of-bounds indices raise as on cpu (values stand in: only indices are read)
        scatter_dense(host, n, (0,), 0, shape, backend.max_elements)
    defines = ("T_SCALAR",) + (("U_SCALAR",) if vals.shape == () else ())
    flat = _View(idx.data_id, (n, len(shape)), idx.dtype)
    return scatter(backend, {"indices": flat, "updates": vals}, shape, vals.dtype, default, defines)


def einsum(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Einsum: each operand transposed to the label order (output labels, then summed ones) and broadcast
    to it, their product, then the sum over the summed labels (the cpu kernel when that product is too large
    for a texture)."""
    terms, output, sizes = einsum_plan(attrs["equation"], [t.shape for t in inputs])
    if size_of(sizes.values()) > backend.max_elements:  # the broadcast product would not fit in a texture
        return CPU_KERNELS[kn.Einsum](backend, inputs, attrs)
    labels = list(output) + [c for c in sizes if c not in output]
    pos = {c: i for i, c in enumerate(labels)}
    dtype = inputs[0].dtype
    temps: list[TensorInfo] = []
    product: Any = None
    for term, t in zip(terms, inputs, strict=True):
        perm = sorted(range(len(term)), key=lambda k: pos[term[k]])
        moved = transpose(backend, {"x": t}, {"perm": perm})
        if moved.data_id != t.data_id:
            temps.append(moved)
        full = tuple(sizes[c] if c in term else 1 for c in labels)
        view = _View(moved.data_id, full, dtype)
        if product is None:
            product = view
        else:
            out = binary(backend, product, view, "Multiply", dtype)
            temps.append(out)
            product = _View(out.data_id, out.shape, dtype)
    out_shape = tuple(sizes[c] for c in output)
    summed = tuple(range(len(output), len(labels)))
    if summed:
        result = reduce(backend, product, summed, "SUM", dtype, out_shape, 0)
    else:
        result = TensorInfo(product.data_id, out_shape, dtype)
    for t in temps:
        if t.data_id != result.data_id:
            backend.temp(t)
    return result


KERNELS: dict[str, Any] = {
    kn.Dilation2D: dilation2d,
    kn.MaxPoolWithArgmax: max_pool_with_argmax,
    kn.LRNGrad: lrn_grad,
    kn.Multinomial: multinomial,
    kn.SparseToDense: sparse_to_dense,
    kn.Einsum: einsum,
}
