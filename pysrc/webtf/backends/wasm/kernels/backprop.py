"""wasm backward kernels: Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropFilter/Input, MaxPoolGrad,
AvgPoolGrad, ResizeBilinearGrad, ResizeNearestNeighborGrad and EluGrad (float32; contracts: the cpu kernels
in backends/cpu/kernels/conv_grad.py, image_grad.py, unary.py).

The binary has no Conv2DBackpropFilter (TF.js cannot train a conv net on wasm): here it is an im2col of x,
written transposed by a JS loop over the heap, times dy through the binary's XNNPACK BatchMatMul. The
depthwise gradients and MaxPoolGrad are JS loops over the heap too (the binary's MaxPoolGrad starts each
window's maximum at FLT_MIN, so all-negative windows lose their gradient). AvgPoolGrad, EluGrad and the
resize gradients call the binary's exports; AvgPoolGrad's divides by the full window, so dy is first scaled
where a window is clipped, and the resize exports compute source indices in float32, so they run only when
those match the forward kernel's (checked per axis on the host), else the cpu kernel does.
"""

from __future__ import annotations

import math
import struct
from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util import (
    ConvInfo,
    bilinear_axis,
    conv_info_from_attrs,
    nearest_axis,
    pool_info_from_attrs,
    window_counts,
)
from ...base import TensorInfo
from . import elementwise
from .common import Kernel, cpu, nonempty, with_fallback
from .nn import batch_mat_mul

#: the most float32s one im2col block holds (64 MiB); larger batches are done a block of images at a time
_IM2COL_MAX = 1 << 24

# x's im2col, transposed: out[(r * fw + s) * c + ch][(b * oh + oy) * ow + ox] = x at that tap (0 in padding)
_IM2COL_T = """(memory) => (x, out, b, h, w, c, oh, ow, fh, fw, sh, sw, dh, dw, pt, pl) => {
  b |= 0; h |= 0; w |= 0; c |= 0; oh |= 0; ow |= 0; fh |= 0; fw |= 0; sh |= 0; sw |= 0; dh |= 0; dw |= 0;
  pt |= 0; pl |= 0;
  const n = b * oh * ow;
  const X = new Float32Array(memory.buffer, x, b * h * w * c);
  const O = new Float32Array(memory.buffer, out, fh * fw * c * n);
  let o = 0;
  for (let r = 0; r < fh; r++) for (let s = 0; s < fw; s++) {
    // the output columns whose tap lands inside the row: ox in [lo, hi)
    const x0 = s * dw - pl;
    const lo = Math.min(ow, Math.max(0, Math.ceil(-x0 / sw))) | 0;
    const hi = Math.max(lo, Math.min(ow, Math.ceil((w - x0) / sw))) | 0;
    for (let ch = 0; ch < c; ch++) {
      for (let bb = 0; bb < b; bb++) for (let oy = 0; oy < oh; oy++) {
        const iy = oy * sh - pt + r * dh;
        if (iy < 0 || iy >= h) { O.fill(0, o, o + ow); o += ow; continue; }
        let k = o, src = ((bb * h + iy) * w + lo * sw + x0) * c + ch;
        const step = sw * c, start = o + lo, end = o + hi;
        o += ow;
        while (k < start) O[k++] = 0;
        for (; k < end; k++, src += step) O[k] = X[src];
        while (k < o) O[k++] = 0;
      }
    }
  }
}"""

# the geometry arguments as int32s (Pyodide may pass them as doubles, which slows the index arithmetic)
_INTS = """
  b |= 0; h |= 0; w |= 0; c |= 0; m |= 0; oh |= 0; ow |= 0; fh |= 0; fw |= 0; sh |= 0; sw |= 0; dh |= 0;
  dw |= 0; pt |= 0; pl |= 0;"""

# calls body(d0, x0, f0) for every in-bounds tap: d0 = dy pixel offset / (c * m), x0 = x pixel offset / c,
# f0 = filter tap index; shared by the two depthwise gradients
_DEPTHWISE_LOOP = """
  for (let bb = 0; bb < b; bb++) for (let oy = 0; oy < oh; oy++) for (let ox = 0; ox < ow; ox++) {
    const d0 = ((bb * oh + oy) * ow + ox) * cm;
    for (let r = 0; r < fh; r++) {
      const iy = oy * sh - pt + r * dh;
      if (iy < 0 || iy >= h) continue;
      for (let s = 0; s < fw; s++) {
        const ix = ox * sw - pl + s * dw;
        if (ix < 0 || ix >= w) continue;
        const x0 = ((bb * h + iy) * w + ix) * c, f0 = (r * fw + s) * cm;
        BODY
      }
    }
  }"""

_DEPTHWISE_FILTER = (
    """(memory) => (x, dy, out, b, h, w, c, m, oh, ow, fh, fw, sh, sw, dh, dw, pt, pl) => {"""
    + _INTS
    + """
  const cm = c * m;
  const X = new Float32Array(memory.buffer, x, b * h * w * c);
  const D = new Float32Array(memory.buffer, dy, b * oh * ow * cm);
  const acc = new Float64Array(fh * fw * cm);"""
    + _DEPTHWISE_LOOP.replace(
        "BODY",
        "for (let ch = 0; ch < c; ch++) { const v = X[x0 + ch]; "
        "for (let j = ch * m; j < ch * m + m; j++) acc[f0 + j] += v * D[d0 + j]; }",
    )
    + """
  new Float32Array(memory.buffer, out, fh * fw * cm).set(acc);
}"""
)

_DEPTHWISE_INPUT = (
    """(memory) => (dy, f, out, b, h, w, c, m, oh, ow, fh, fw, sh, sw, dh, dw, pt, pl) => {"""
    + _INTS
    + """
  const cm = c * m;
  const D = new Float32Array(memory.buffer, dy, b * oh * ow * cm);
  const F = new Float32Array(memory.buffer, f, fh * fw * cm);
  const acc = new Float64Array(b * h * w * c);"""
    + _DEPTHWISE_LOOP.replace(
        "BODY",
        "for (let ch = 0; ch < c; ch++) { let v = 0; "
        "for (let j = ch * m; j < ch * m + m; j++) v += D[d0 + j] * F[f0 + j]; acc[x0 + ch] += v; }",
    )
    + """
  new Float32Array(memory.buffer, out, b * h * w * c).set(acc);
}"""
)

# each window's dy to its first maximum (NaN never wins; a window without a maximum above -inf gives nothing)
_MAX_POOL_GRAD = """(memory) => (x, dy, out, b, h, w, c, oh, ow, fh, fw, sh, sw, pt, pl) => {
  b |= 0; h |= 0; w |= 0; c |= 0; oh |= 0; ow |= 0; fh |= 0; fw |= 0; sh |= 0; sw |= 0; pt |= 0; pl |= 0;
  const X = new Float32Array(memory.buffer, x, b * h * w * c);
  const D = new Float32Array(memory.buffer, dy, b * oh * ow * c);
  const O = new Float32Array(memory.buffer, out, b * h * w * c);
  const best = new Float32Array(c), pos = new Int32Array(c);
  O.fill(0);
  for (let bb = 0; bb < b; bb++) for (let oy = 0; oy < oh; oy++) for (let ox = 0; ox < ow; ox++) {
    for (let ch = 0; ch < c; ch++) { best[ch] = -Infinity; pos[ch] = -1; }
    const r0 = Math.max(0, pt - oy * sh) | 0, r1 = Math.min(fh, h + pt - oy * sh) | 0;
    const s0 = Math.max(0, pl - ox * sw) | 0, s1 = Math.min(fw, w + pl - ox * sw) | 0;
    for (let r = r0; r < r1; r++) {
      const row = (bb * h + oy * sh - pt + r) * w + ox * sw - pl;
      for (let s = s0; s < s1; s++) {
        const i0 = (row + s) * c;
        for (let ch = 0; ch < c; ch++) {
          const v = X[i0 + ch];
          if (v > best[ch]) { best[ch] = v; pos[ch] = i0 + ch; }
        }
      }
    }
    const d0 = ((bb * oh + oy) * ow + ox) * c;
    for (let ch = 0; ch < c; ch++) if (pos[ch] >= 0) O[pos[ch]] += D[d0 + ch];
  }
}"""


def _geometry(info: ConvInfo) -> tuple[int, ...]:
    """b, h, w, c, oh, ow, fh, fw, sh, sw, dh, dw, pt, pl: the shared tail of the JS functions' arguments."""
    return (
        info.batch, info.in_height, info.in_width, info.in_channels, info.out_height, info.out_width,
        info.filter_height, info.filter_width, info.stride_height, info.stride_width,
        info.dilation_height, info.dilation_width, info.pad_top, info.pad_left,
    )  # fmt: skip



def _zeros(backend: Any, shape: tuple[int, ...]) -> TensorInfo:
    return backend.output(array("f", bytes(4 * math.prod(shape))), shape, "float32")


def _float32(*tensors: Any) -> bool:
    return all(t.dtype == "float32" for t in tensors)


def _dispose(backend: Any, *tensors: Any) -> None:
    for t in tensors:
        backend.dispose_data(t.data_id)


def conv2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Conv2DBackpropFilter {x, dy}: x's transposed im2col (a JS loop) times dy (XNNPACK), per block of images."""
    x, dy = inputs["x"], inputs["dy"]
    shape = tuple(int(d) for d in attrs["filter_shape"])
    if not _float32(x, dy):
        return cpu(kn.Conv2DBackpropFilter)(backend, inputs, attrs)
    info = conv_info_from_attrs(tuple(x.shape), tuple(shape), attrs, False)
    k, o, pixels = shape[0] * shape[1] * shape[2], shape[3], info.out_height * info.out_width
    if not (k and o and pixels and info.batch):
        return _zeros(backend, shape)
    b, h, w, c, *rest = _geometry(info)
    im2col = backend.heap_function(_IM2COL_T)
    per = max(1, _IM2COL_MAX // (k * pixels))
    total: TensorInfo | None = None
    for b0 in range(0, b, per):
        nb = min(per, b - b0)
        n = nb * pixels
        cols = backend.make_output((1, k, n), "float32")
        im2col(backend.pointer(x) + 4 * b0 * h * w * c, backend.pointer(cols), nb, h, w, c, *rest)
        # a fresh copy of dy's rows: XNNPACK caches the packed right operand under its tensor id
        g = backend.make_output((1, n, o), "float32")
        backend.copy(backend.pointer(dy) + 4 * b0 * pixels * o, backend.pointer(g), (n * o,), (1,), (1,), 4)
        part = batch_mat_mul(backend, {"a": cols, "b": g}, {})
        _dispose(backend, cols, g)
        if total is not None:
            summed = elementwise.KERNELS[kn.Add](backend, {"a": total, "b": part}, {})
            _dispose(backend, total, part)
            part = summed
        total = part
    assert total is not None
    return TensorInfo(total.data_id, shape, "float32")


def _depthwise(name: str, source: str, filter_grad: bool) -> Kernel:
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        dy = inputs["dy"]
        other = inputs["x"] if filter_grad else inputs["filter"]
        if not _float32(dy, other):
            return fallback(backend, inputs, attrs)
        if filter_grad:
            x_shape, f_shape = other.shape, tuple(int(d) for d in attrs["filter_shape"])
        else:
            x_shape, f_shape = tuple(int(d) for d in attrs["input_shape"]), other.shape
        out_shape = f_shape if filter_grad else x_shape
        info = conv_info_from_attrs(tuple(x_shape), tuple(f_shape), attrs, True)
        if not nonempty(out_shape) or not nonempty(dy.shape):
            return _zeros(backend, out_shape)
        out = backend.make_output(out_shape, "float32")
        b, h, w, c, *rest = _geometry(info)
        first, second = (other, dy) if filter_grad else (dy, other)
        backend.heap_function(source)(
            backend.pointer(first),
            backend.pointer(second),
            backend.pointer(out),
            b,
            h,
            w,
            c,
            f_shape[3],
            *rest,
        )
        return out

    kernel.__doc__ = f"{name} (a JS loop over the heap)."
    return kernel



def max_pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MaxPoolGrad {dy, input, output}: each window's dy to its first maximum (a JS loop over the heap)."""
    x, dy = inputs["input"], inputs["dy"]
    if not _float32(x, dy):
        return cpu(kn.MaxPoolGrad)(backend, inputs, attrs)
    info = pool_info_from_attrs(x.shape, attrs)
    if not nonempty(x.shape) or not nonempty(dy.shape):
        return _zeros(backend, x.shape)
    out = backend.make_output(x.shape, "float32")
    b, h, w, c, oh, ow, fh, fw, sh, sw, _, _, pt, pl = _geometry(info)
    backend.heap_function(_MAX_POOL_GRAD)(
        backend.pointer(x),
        backend.pointer(dy),
        backend.pointer(out),
        b,
        h,
        w,
        c,
        oh,
        ow,
        fh,
        fw,
        sh,
        sw,
        pt,
        pl,
    )
    return out


def avg_pool_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AvgPoolGrad {dy, input}: the binary's AvgPoolGrad, on dy scaled by window size / in-bounds count
    where a window is clipped (the export divides by the full window)."""
    x, dy = inputs["input"], inputs["dy"]
    if not _float32(x, dy):
        return cpu(kn.AvgPoolGrad)(backend, inputs, attrs)
    info = pool_info_from_attrs(x.shape, attrs)
    if not nonempty(x.shape) or not nonempty(dy.shape):
        return _zeros(backend, x.shape)
    b, h, w, c, oh, ow, fh, fw, sh, sw, _, _, pt, pl = _geometry(info)
    ch = window_counts(oh, sh, pt, h, fh)
    cw = window_counts(ow, sw, pl, w, fw)
    g, scale = dy, None
    if any(n != fh for n in ch) or any(n != fw for n in cw):
        factors = array("f", [fh * fw / (p * q) if p * q > 0 else 0.0 for p in ch for q in cw])
        scale = backend.output(factors, (1, oh, ow, 1), "float32")
        g = elementwise.KERNELS[kn.Multiply](backend, {"a": dy, "b": scale}, {})
    out = backend.make_output(x.shape, "float32")
    backend.abi.AvgPoolGrad(g, out, b, c, h, w, oh, ow, sh, sw, 1, 1, fh, fw, pt, pl, fh, fw)
    if scale is not None:
        _dispose(backend, scale, g)
    return out


def elu_grad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """EluGrad {dy, y}: the binary's EluGrad."""
    dy, y = inputs["dy"], inputs["y"]
    if not _float32(dy, y):
        return cpu(kn.EluGrad)(backend, inputs, attrs)
    out = backend.make_output(y.shape, "float32")
    if nonempty(y.shape):
        backend.abi.EluGrad(y, dy, out)
    return out


def _f32(v: float) -> float:
    """v rounded to float32 (the binary's arithmetic: one float op, correctly rounded, is one f32 rounding)."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _export_axis_ok(n_in: int, n_out: int, align: bool, bilinear: bool) -> bool:
    """True when the binary's resize gradient finds the same source indices as the forward kernel along an
    axis (it computes them in float32; the forward in float64)."""
    a = 1 if align and n_out > 1 else 0
    scale = _f32((n_in - a) / (n_out - a))
    src = [_f32(i * scale) for i in range(n_out)]
    if bilinear:
        lo, hi, _ = bilinear_axis(n_in, n_out, align, False)
        return lo == [int(v) for v in src] and hi == [min(math.ceil(v), n_in - 1) for v in src]
    mine = [min(n_in - 1, int(math.floor(v + 0.5) if align else v)) for v in src]
    if mine != nearest_axis(n_in, n_out, align, False):
        return False
    # the export looks for each source index's dy positions only in a window around index / scale
    window = math.ceil(1.0 / scale) * 2 + 2
    for o, i in enumerate(mine):
        start = int(_f32(i / scale)) - window // 2
        if not start <= o < start + window:
            return False
    return True


def _resize_grad(name: str) -> Kernel:
    fallback = cpu(name)
    bilinear = name == kn.ResizeBilinearGrad

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        images, dy = inputs["images"], inputs["dy"]
        align = bool(attrs["align_corners"])
        (_, h, w, _), (_, nh, nw, _) = images.shape, dy.shape
        if (
            dy.dtype != "float32"
            or attrs.get("half_pixel_centers")
            or not nonempty(images.shape)
            or not nonempty(dy.shape)
            or not _export_axis_ok(h, nh, align, bilinear)
            or not _export_axis_ok(w, nw, align, bilinear)
        ):
            return fallback(backend, inputs, attrs)
        out = backend.make_output(images.shape, "float32")
        getattr(backend.abi, name)(images, dy, out, images.shape, dy.shape, align)
        return out

    kernel.__doc__ = f"{name}: the binary's export where its float32 source indices are the forward's."
    return kernel


KERNELS: dict[str, Kernel] = {
    name: with_fallback(name, fn)
    for name, fn in {
        kn.Conv2DBackpropFilter: conv2d_backprop_filter,
        kn.DepthwiseConv2dNativeBackpropFilter: _depthwise(
            kn.DepthwiseConv2dNativeBackpropFilter, _DEPTHWISE_FILTER, True
        ),
        kn.DepthwiseConv2dNativeBackpropInput: _depthwise(
            kn.DepthwiseConv2dNativeBackpropInput, _DEPTHWISE_INPUT, False
        ),
        kn.MaxPoolGrad: max_pool_grad,
        kn.AvgPoolGrad: avg_pool_grad,
        kn.EluGrad: elu_grad,
        kn.ResizeBilinearGrad: _resize_grad(kn.ResizeBilinearGrad),
        kn.ResizeNearestNeighborGrad: _resize_grad(kn.ResizeNearestNeighborGrad),
    }.items()
}
