"""MaxPoolWithArgmax, Dilation2D and Dilation2D's backprop kernels on flat NHWC host arrays."""

from __future__ import annotations

import math
from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util import compute_conv_info, compute_pool_info
from ...base import TensorInfo

_NO_TAP = -9007199254740991.0  # TF.js's start value (Number.MIN_SAFE_INTEGER) for a window with no taps


def _windows(x_shape: tuple[int, ...], info: Any) -> Any:
    """Yield (b, c, taps) per NHWC output in order; taps: the window's in-bounds (ky, kx, y, x), ky-major."""
    b_n, h_in, w_in, c_n = x_shape
    fh, fw, sh, sw, dh, dw, top, left = info.window
    for b in range(b_n):
        for oy in range(info.out_height):
            for ox in range(info.out_width):
                taps = [
                    (ky, kx, y, xx)
                    for ky in range(fh)
                    if 0 <= (y := oy * sh - top + ky * dh) < h_in
                    for kx in range(fw)
                    if 0 <= (xx := ox * sw - left + kx * dw) < w_in
                ]
                for c in range(c_n):
                    yield b, c, taps


def max_pool_with_argmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """MaxPoolWithArgmax: [max of each window, the flat index of its first maximum]."""
    x = inputs["x"]
    info = compute_pool_info(x.shape, attrs["filter_size"], attrs["strides"], attrs["pad"])
    vals = backend.values(x)
    _, h_in, w_in, c_n = x.shape
    with_batch = bool(attrs.get("include_batch_in_index"))
    out, idx = array("f"), array("i")
    for b, c, taps in _windows(x.shape, info):
        best, where = -math.inf, -1
        for _, _, y, xx in taps:
            v = vals[((b * h_in + y) * w_in + xx) * c_n + c]
            if v > best or where < 0:
                best, where = v, ((b * h_in if with_batch else 0) + y) * w_in * c_n + xx * c_n + c
        out.append(best)
        idx.append(where)
    shape = info.out_shape
    return [backend.output(out, shape, "float32"), backend.output(idx, shape, "int32")]


def _dilation_walk(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
    """Yield (output flat index, best value, input flat index or -1, filter flat index or -1) per output."""
    x, f = inputs["x"], inputs["filter"]
    fh, fw, c_n = f.shape
    info = compute_conv_info(
        x.shape, (fh, fw, c_n, c_n), attrs["strides"], attrs.get("dilations", 1), attrs["pad"]
    )
    xs, fs = backend.values(x), backend.values(f)
    _, h_in, w_in, _ = x.shape
    for n, (b, c, taps) in enumerate(_windows(x.shape, info)):
        best, at_x, at_f = _NO_TAP, -1, -1
        for ky, kx, y, xx in taps:
            xi, fi = ((b * h_in + y) * w_in + xx) * c_n + c, (ky * fw + kx) * c_n + c
            v = xs[xi] + fs[fi]
            if v > best:
                best, at_x, at_f = v, xi, fi
        yield n, best, at_x, at_f


def dilation2d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Dilation2D: the max over each dilated window of x + filter (grayscale morphological dilation)."""
    x, f = inputs["x"], inputs["filter"]
    fh, fw, c_n = f.shape
    info = compute_conv_info(
        x.shape, (fh, fw, c_n, c_n), attrs["strides"], attrs.get("dilations", 1), attrs["pad"]
    )
    out = array("f", (best for _, best, _, _ in _dilation_walk(backend, inputs, attrs)))
    return backend.output(out, info.out_shape, "float32")


def _routed(key: str, slot: int, doc: str) -> Any:
    """A kernel summing dy into inputs[key] at each window's winner (`slot` of the walk's tuples)."""

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        dy, target = backend.values(inputs["dy"]), inputs[key]
        out = [0.0] * len(backend.values(target))
        for step in _dilation_walk(backend, inputs, attrs):
            if step[slot] >= 0:
                out[step[slot]] += dy[step[0]]
        return backend.output(array("f", out), target.shape, "float32")

    kernel.__doc__ = doc
    return kernel


dilation2d_backprop_input = _routed("x", 2, "Dilation2DBackpropInput: dy routed to the x element that won each window.")
dilation2d_backprop_filter = _routed(
    "filter", 3, "Dilation2DBackpropFilter: dy routed to the filter tap that won each window."
)


KERNELS: dict[str, Any] = {
    kn.MaxPoolWithArgmax: max_pool_with_argmax,
    kn.Dilation2D: dilation2d,
    kn.Dilation2DBackpropInput: dilation2d_backprop_input,
    kn.Dilation2DBackpropFilter: dilation2d_backprop_filter,
}
