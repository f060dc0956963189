"""MaxPoolWithArgmax, Dilation2D and Dilation2D's backprop kernels on flat NHWC host arrays."""

from __future__ import annotations

import math
from array import array
from typing import Any

from .... import kernel_names as kn
from ....backend_util import compute_conv_info, compute_pool_info
from ...base import TensorInfo

_NO_TAP = -9007199254740991.0  # TF.js's start value (Number.MIN_SAFE_INTEGER) for a window with no taps


def max_pool_with_argmax(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """MaxPoolWithArgmax: [max of each window, the flat index of its first maximum]."""
    x = inputs["x"]
    info = compute_pool_info(x.shape, attrs["filter_size"], attrs["strides"], attrs["pad"])
    vals = backend.values(x)
    b_n, h_in, w_in, c_n = x.shape
    fh, fw, sh, sw, dh, dw, top, left = info.window
    with_batch = bool(attrs.get("include_batch_in_index"))
    out, idx = array("f"), array("i")
    for b in range(b_n):
        for oy in range(info.out_height):
            for ox in range(info.out_width):
                for c in range(c_n):
                    best, where = -math.inf, -1
                    for ky in range(fh):
                        y = oy * sh - top + ky * dh
                        if not 0 <= y < h_in:
                            continue
                        for kx in range(fw):
                            xx = ox * sw - left + kx * dw
                            if 0 <= xx < w_in:
                                v = vals[((b * h_in + y) * w_in + xx) * c_n + c]
                                if v > best or where < 0:
                                    best, where = (
                                        v,
                                        ((b * h_in if with_batch else 0) + y) * w_in * c_n + xx * c_n + c,
                                    )
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
    b_n, h_in, w_in, _ = x.shape
    _, _, sh, sw, dh, dw, top, left = info.window
    n = 0
    for b in range(b_n):
        for oy in range(info.out_height):
            for ox in range(info.out_width):
                for c in range(c_n):
                    best, at_x, at_f = _NO_TAP, -1, -1
                    for ky in range(fh):
                        y = oy * sh - top + ky * dh
                        if not 0 <= y < h_in:
                            continue
                        for kx in range(fw):
                            xx = ox * sw - left + kx * dw
                            if 0 <= xx < w_in:
                                xi, fi = ((b * h_in + y) * w_in + xx) * c_n + c, (ky * fw + kx) * c_n + c
                                v = xs[xi] + fs[fi]
                                if v > best:
                                    best, at_x, at_f = v, xi, fi
                    yield n, best, at_x, at_f
                    n += 1


def dilation2d(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Dilation2D: the max over each dilated window of x + filter (grayscale morphological dilation)."""
    x, f = inputs["x"], inputs["filter"]
    fh, fw, c_n = f.shape
    info = compute_conv_info(
        x.shape, (fh, fw, c_n, c_n), attrs["strides"], attrs.get("dilations", 1), attrs["pad"]
    )
    out = array("f", (best for _, best, _, _ in _dilation_walk(backend, inputs, attrs)))
    return backend.output(out, info.out_shape, "float32")


def dilation2d_backprop_input(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Dilation2DBackpropInput: dy routed to the x element that won each window."""
    x = inputs["x"]
    dy = backend.values(inputs["dy"])
    dx = [0.0] * len(backend.values(x))
    for n, _, at_x, _ in _dilation_walk(backend, inputs, attrs):
        if at_x >= 0:
            dx[at_x] += dy[n]
    return backend.output(array("f", dx), x.shape, "float32")


def dilation2d_backprop_filter(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Dilation2DBackpropFilter: dy routed to the filter tap that won each window."""
    f = inputs["filter"]
    dy = backend.values(inputs["dy"])
    df = [0.0] * len(backend.values(f))
    for n, _, _, at_f in _dilation_walk(backend, inputs, attrs):
        if at_f >= 0:
            df[at_f] += dy[n]
    return backend.output(array("f", df), f.shape, "float32")


KERNELS: dict[str, Any] = {
    kn.MaxPoolWithArgmax: max_pool_with_argmax,
    kn.Dilation2D: dilation2d,
    kn.Dilation2DBackpropInput: dilation2d_backprop_input,
    kn.Dilation2DBackpropFilter: dilation2d_backprop_filter,
}
