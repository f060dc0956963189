"""Conv/pool geometry shared by ops (validation, output shapes) and every backend's kernels (padding).

Mirrors TF.js's computeConv2DInfo, NHWC only. `pad` is 'same', 'valid', a number (the same zero padding on
every side) or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]. Output sizes with a number or an
explicit pad are rounded by `dim_rounding_mode` ('floor', 'round', 'ceil'; None truncates, as TF.js).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import kernel_names as kn
from ..shapes import fmt

ROUNDING_MODES = ("floor", "round", "ceil")


@dataclass(frozen=True)
class ConvInfo:
    """The geometry of one NHWC convolution or pooling: sizes, strides, dilations and padding amounts."""

    batch: int
    in_height: int
    in_width: int
    in_channels: int
    out_height: int
    out_width: int
    out_channels: int
    filter_height: int
    filter_width: int
    stride_height: int
    stride_width: int
    dilation_height: int
    dilation_width: int
    pad_top: int
    pad_bottom: int
    pad_left: int
    pad_right: int
    pad_type: str  # 'SAME', 'VALID', 'NUMBER' or 'EXPLICIT'

    @property
    def effective_filter_height(self) -> int:
        """Filter height once dilated: (fh - 1) * dh + 1."""
        return (self.filter_height - 1) * self.dilation_height + 1

    @property
    def effective_filter_width(self) -> int:
        """Filter width once dilated: (fw - 1) * dw + 1."""
        return (self.filter_width - 1) * self.dilation_width + 1

    @property
    def window(self) -> tuple[int, int, int, int, int, int, int, int]:
        """(fh, fw, sh, sw, dh, dw, pad_top, pad_left): how a kernel walks the windows."""
        return (
            self.filter_height, self.filter_width, self.stride_height, self.stride_width,
            self.dilation_height, self.dilation_width, self.pad_top, self.pad_left,
        )  # fmt: skip

    @property
    def in_shape(self) -> tuple[int, int, int, int]:
        """[batch, in_height, in_width, in_channels]."""
        return (self.batch, self.in_height, self.in_width, self.in_channels)

    @property
    def out_shape(self) -> tuple[int, int, int, int]:
        """[batch, out_height, out_width, out_channels]."""
        return (self.batch, self.out_height, self.out_width, self.out_channels)


def _int_like(v: Any) -> bool:
    """An int (or integral float) within int32: strides, dilations and windows reach the kernels as int32."""
    return (
        isinstance(v, (int, float))
        and not isinstance(v, bool)
        and math.isfinite(v)
        and v == int(v)
        and abs(v) < 2**31
    )


def parse_pair(value: Any, op: str, arg: str) -> tuple[int, int]:
    """(h, w) from a number or a [h, w] pair of integers."""
    return parse_ints(value, 2, op, arg)  # type: ignore[return-value]


def parse_triple(value: Any, op: str, arg: str) -> tuple[int, int, int]:
    """(d, h, w) from a number or a [d, h, w] triple of integers (the 3-D convs and pools)."""
    return parse_ints(value, 3, op, arg)  # type: ignore[return-value]


def parse_ints(value: Any, n: int, op: str, arg: str) -> tuple[int, ...]:
    """n integers from a number (repeated) or a sequence of n integers."""
    seq = tuple(value) if isinstance(value, (list, tuple)) and len(value) == n else (value,) * n
    if (
        isinstance(value, (int, float, list, tuple))
        and not isinstance(value, bool)
        and all(map(_int_like, seq))
    ):
        return tuple(int(v) for v in seq)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ValueError(f"Error in {op}: {arg} must be integers (within int32), but got {value}")
    what = "[height, width] pair" if n == 2 else "[depth, height, width] triple"
    raise TypeError(f"Error in {op}: {arg} must be a number or a {what}, but got {value!r:.60}")


def _explicit(pad: Any) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) from [[0,0],[t,b],[l,r],[0,0]], or None when pad is not of that form."""
    if not (isinstance(pad, (list, tuple)) and len(pad) == 4):
        return None
    pairs = []
    for p in pad:
        if not (isinstance(p, (list, tuple)) and len(p) == 2):
            return None
        if not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v == int(v) and v >= 0 for v in p
        ):
            return None
        pairs.append((int(p[0]), int(p[1])))
    if pairs[0] != (0, 0) or pairs[3] != (0, 0):
        return None
    return pairs[1][0], pairs[1][1], pairs[2][0], pairs[2][1]


def check_pad(op: str, pad: Any, dim_rounding_mode: str | None = None) -> None:
    """Raise a TF.js-like error for a pad not 'same'/'valid'/a number/explicit, or a bad rounding mode."""
    if isinstance(pad, str):
        if pad not in ("same", "valid"):
            raise ValueError(
                f"Error in {op}: unknown padding parameter '{pad}'; expected 'same', 'valid', a number or "
                "[[0, 0], [top, bottom], [left, right], [0, 0]]"
            )
    elif isinstance(pad, (int, float)) and not isinstance(pad, bool):
        if not _int_like(pad) or pad < 0:
            raise ValueError(f"Error in {op}: pad must be a non-negative integer, but got {pad}")
    elif _explicit(pad) is None:
        raise ValueError(
            f"Error in {op}: unknown padding parameter {pad!r}; expected 'same', 'valid', a number or "
            "[[0, 0], [top, bottom], [left, right], [0, 0]] with non-negative integers"
        )
    if dim_rounding_mode is not None:
        if not isinstance(dim_rounding_mode, str) or dim_rounding_mode not in ROUNDING_MODES:
            raise ValueError(
                f"Error in {op}: unknown dim_rounding_mode '{dim_rounding_mode}'; "
                "expected floor, round or ceil"
            )
        if isinstance(pad, str):
            raise ValueError(
                f"Error in {op}: pad must be an integer when using dim_rounding_mode {dim_rounding_mode} "
                f"but got pad {pad}"
            )


def _round(value: float, mode: str | None) -> int:
    if mode is None:
        return math.trunc(value)
    if mode == "floor":
        return math.floor(value)
    if mode == "ceil":
        return math.ceil(value)
    return math.floor(value + 0.5)  # JS Math.round: halves go up


def _pad_and_out(
    pad: Any, size: int, stride: int, eff_filter: int, mode: str | None, explicit: tuple[int, int] | None
) -> tuple[int, int, int]:
    """(pad_before, pad_after, out_size) along one spatial dimension."""
    if pad == "same":
        out = -(-size // stride)
        total = max(0, (out - 1) * stride + eff_filter - size)
        return total // 2, total - total // 2, out
    if pad == "valid":
        return 0, 0, max(0, -(-(size - eff_filter + 1) // stride))
    before, after = explicit if explicit is not None else (int(pad), int(pad))
    return before, after, max(0, _round((size - eff_filter + before + after) / stride + 1, mode))


def _frozen(v: Any) -> Any:
    """v with lists made tuples, so it can be a cache key (a tuple holding a list stays unhashable)."""
    return tuple(_frozen(i) for i in v) if type(v) is list else v


#: results by arguments: a model runs each conv with the same ones on every call, and ops and kernels both ask
_INFO_CACHE: dict[tuple, ConvInfo] = {}
_INFO_CACHE_MAX = 1024


def compute_conv_info(
    in_shape: Sequence[int],
    filter_shape: Sequence[int],
    strides: Any,
    dilations: Any,
    pad: Any,
    dim_rounding_mode: str | None = None,
    depthwise: bool = False,
    op: str = "conv2d",
) -> ConvInfo:
    """Geometry of a conv2d (filter [fh, fw, in, out]) or depthwise one (filter [fh, fw, in, multiplier])."""
    key = (
        tuple(in_shape), tuple(filter_shape), _frozen(strides), _frozen(dilations), _frozen(pad),
        dim_rounding_mode, depthwise,
    )  # fmt: skip
    try:
        info = _INFO_CACHE.get(key)
    except TypeError:  # an unhashable argument: the uncached path reports what is wrong with it
        return _conv_info(in_shape, filter_shape, strides, dilations, pad, dim_rounding_mode, depthwise, op)
    if info is None:
        info = _conv_info(in_shape, filter_shape, strides, dilations, pad, dim_rounding_mode, depthwise, op)
        if len(_INFO_CACHE) >= _INFO_CACHE_MAX:
            _INFO_CACHE.clear()
        _INFO_CACHE[key] = info
    return info


def _conv_info(
    in_shape: Sequence[int],
    filter_shape: Sequence[int],
    strides: Any,
    dilations: Any,
    pad: Any,
    dim_rounding_mode: str | None,
    depthwise: bool,
    op: str,
) -> ConvInfo:
    batch, in_h, in_w, in_c = (int(d) for d in in_shape)
    fh, fw = int(filter_shape[0]), int(filter_shape[1])
    sh, sw = parse_pair(strides, op, "strides")
    dh, dw = parse_pair(dilations if dilations is not None else 1, op, "dilations")
    check_pad(op, pad, dim_rounding_mode)
    if fh <= 0 or fw <= 0:
        raise ValueError(
            f"Error in {op}: the filter must be at least 1x1, but its shape is {fmt(filter_shape)}"
        )
    eff_h, eff_w = (fh - 1) * dh + 1, (fw - 1) * dw + 1
    explicit = _explicit(pad) if isinstance(pad, (list, tuple)) else None
    if pad != "same":
        pads = (0, 0, 0, 0) if pad == "valid" else explicit if explicit else (int(pad),) * 4
        if in_h + pads[0] + pads[1] < eff_h or in_w + pads[2] + pads[3] < eff_w:
            raise ValueError(
                f"Error in {op}: the filter ({eff_h}x{eff_w} with dilations) is larger than the input "
                f"{in_h}x{in_w} padded by {fmt(pads)} (top, bottom, left, right): the output would be empty "
                f"(input shape {fmt(in_shape)}, filter shape {fmt(filter_shape)}, pad {pad!r})"
            )
    top, bottom, out_h = _pad_and_out(
        pad, in_h, sh, eff_h, dim_rounding_mode, explicit[:2] if explicit else None
    )
    left, right, out_w = _pad_and_out(
        pad, in_w, sw, eff_w, dim_rounding_mode, explicit[2:] if explicit else None
    )
    if isinstance(pad, str):
        pad_type = pad.upper()
    else:
        pad_type = "VALID" if top == bottom == left == right == 0 else "EXPLICIT" if explicit else "NUMBER"
    out_c = int(filter_shape[3]) * in_c if depthwise else int(filter_shape[3])
    return ConvInfo(
        batch,
        in_h,
        in_w,
        in_c,
        out_h,
        out_w,
        out_c,
        fh,
        fw,
        sh,
        sw,
        dh,
        dw,
        top,
        bottom,
        left,
        right,
        pad_type,
    )


def compute_pool_info(
    in_shape: Sequence[int],
    filter_size: Any,
    strides: Any,
    pad: Any,
    dim_rounding_mode: str | None = None,
    dilations: Any = 1,
    op: str = "max_pool",
) -> ConvInfo:
    """Geometry of a 2-D pooling window of `filter_size` (a number or [fh, fw]) over an NHWC input."""
    fh, fw = parse_pair(filter_size, op, "filter_size")
    channels = int(in_shape[3])
    return compute_conv_info(
        in_shape, (fh, fw, channels, channels), strides, dilations, pad, dim_rounding_mode, False, op
    )


def _trim(size: int, window: int, stride: int, before: int, out: int) -> tuple[int, int, int] | None:
    """Along one axis: (window, pad before, pad after) keeping only the window taps that land on the input for
    some output, with the same outputs; None when every tap does (or none)."""
    first, end = max(0, before - (out - 1) * stride), min(window, before + size)
    if out <= 0 or end <= first or (first, end) == (0, window):
        return None
    kept, pad = end - first, before - first
    return kept, pad, max(0, (out - 1) * stride + kept - size - pad)


def trim_pool_window(info: ConvInfo) -> tuple[tuple[int, int], Any] | None:
    """(filter_size, explicit pad) for a pool whose window reaches taps that never land on the input (a 'same'
    window larger than the input): the same outputs from the taps that do, since padding takes no part in a
    pool. None when there is nothing to trim. Keeps a huge window from costing (or allocating) its size."""
    rows = _trim(info.in_height, info.filter_height, info.stride_height, info.pad_top, info.out_height)
    cols = _trim(info.in_width, info.filter_width, info.stride_width, info.pad_left, info.out_width)
    if rows is None and cols is None:
        return None
    fh, top, bottom = rows or (info.filter_height, info.pad_top, info.pad_bottom)
    fw, left, right = cols or (info.filter_width, info.pad_left, info.pad_right)
    return (fh, fw), ((0, 0), (top, bottom), (left, right), (0, 0))


def check_conv_args(op: str, strides: Any, dilations: Any, pad: Any, dim_rounding_mode: str | None) -> None:
    """The checks TF.js makes before every conv/pool: positive strides and dilations, not both > 1."""
    sh, sw = parse_pair(strides, op, "strides")
    dh, dw = parse_pair(dilations if dilations is not None else 1, op, "dilations")
    if sh <= 0 or sw <= 0:
        raise ValueError(f"Error in {op}: strides should be larger than 0, but got {fmt((sh, sw))}")
    if dh <= 0 or dw <= 0:
        raise ValueError(f"Error in {op}: dilation rates should be larger than 0, but got {fmt((dh, dw))}")
    if (sh, sw) != (1, 1) and (dh, dw) != (1, 1):
        raise ValueError(
            f"Error in {op}: either strides or dilations must be 1. Got strides {fmt((sh, sw))} "
            f"and dilations {fmt((dh, dw))}"
        )
    check_pad(op, pad, dim_rounding_mode)


def check_data_format(op: str, data_format: str) -> None:
    """Only NHWC is implemented (as TF.js's fused ops and its cpu depthwise kernel)."""
    if isinstance(data_format, str) and data_format == "NHWC":
        return
    if isinstance(data_format, str) and data_format == "NCHW":
        raise ValueError(f"Error in {op}: got data_format NCHW but only NHWC is supported")
    raise ValueError(f"Error in {op}: unknown data_format {data_format!r:.40}; only NHWC is supported")


def conv_info_from_attrs(
    in_shape: Sequence[int], filter_shape: Sequence[int], attrs: dict[str, Any], depthwise: bool = False
) -> ConvInfo:
    """The geometry of a conv kernel call from its attrs: strides, pad, dilations, dim_rounding_mode."""
    return compute_conv_info(
        in_shape,
        filter_shape,
        attrs.get("strides", 1),
        attrs.get("dilations", 1),
        attrs["pad"],
        attrs.get("dim_rounding_mode"),
        depthwise,
    )


def pool_info_from_attrs(in_shape: Sequence[int], attrs: dict[str, Any]) -> ConvInfo:
    """The geometry of a MaxPool/AvgPool kernel call from its attrs: filter_size, strides, pad, rounding."""
    return compute_pool_info(
        in_shape, attrs["filter_size"], attrs.get("strides", 1), attrs["pad"], attrs.get("dim_rounding_mode")
    )


def is_identity_pool(info: ConvInfo) -> bool:
    """True for a 1x1 window that keeps the shape and pads nothing: pooling returns its input."""
    return (
        info.filter_height == info.filter_width == 1
        and info.out_shape == info.in_shape
        and not info.pad_top + info.pad_left
    )


def flipped_conv_pads(info: ConvInfo) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right): the padding under which a stride-1 conv2d of dy (info.out_shape) with the
    filter flipped spatially (in and out channels swapped) gives dx (info.in_shape), the gradient of a
    stride-1, dilation-1 conv2d; None when that would need negative padding."""
    fh, fw = info.filter_height, info.filter_width
    top, left = fh - 1 - info.pad_top, fw - 1 - info.pad_left
    bottom = info.in_height - info.out_height + fh - 1 - top
    right = info.in_width - info.out_width + fw - 1 - left
    return None if min(top, bottom, left, right) < 0 else (top, bottom, left, right)


def window_counts(n_out: int, stride: int, pad: int, size: int, window: int) -> list[int]:
    """How many of each output position's window taps fall inside [0, size) (avg-pool divisors)."""
    return [min(k * stride - pad + window, size) - max(k * stride - pad, 0) for k in range(n_out)]


KernelFn = Callable[[Any, Any, dict[str, Any]], Any]
ConvImpl = Callable[[Any, Any, dict[str, Any], bool, bool], Any]
PoolImpl = Callable[[Any, Any, dict[str, Any], bool], Any]


def _kernel(name: str, impl: Callable[..., Any], *flags: bool) -> KernelFn:
    """The kernel function `name` that runs impl(backend, inputs, attrs, *flags)."""

    def run(backend: Any, inputs: Any, attrs: dict[str, Any]) -> Any:
        return impl(backend, inputs, attrs, *flags)

    run.__name__ = run.__qualname__ = name
    return run


def conv_kernels(conv: ConvImpl) -> dict[str, KernelFn]:
    """The Conv2D, DepthwiseConv2dNative, FusedConv2D and FusedDepthwiseConv2D kernels of a backend's
    conv(backend, inputs, attrs, depthwise, fused): fused adds inputs bias and prelu_activation_weights and
    attrs activation and leakyrelu_alpha."""
    return {
        kn.Conv2D: _kernel("conv2d", conv, False, False),
        kn.DepthwiseConv2dNative: _kernel("depthwise_conv2d", conv, True, False),
        kn.FusedConv2D: _kernel("fused_conv2d", conv, False, True),
        kn.FusedDepthwiseConv2D: _kernel("fused_depthwise_conv2d", conv, True, True),
    }


def pool_kernels(pool: PoolImpl) -> dict[str, KernelFn]:
    """The MaxPool and AvgPool kernels of a backend's pool(backend, inputs, attrs, is_max) over {x}."""
    return {kn.MaxPool: _kernel("max_pool", pool, True), kn.AvgPool: _kernel("avg_pool", pool, False)}


def pool3d_kernels(pool: PoolImpl, pool_grad: PoolImpl) -> dict[str, KernelFn]:
    """The MaxPool3D, AvgPool3D, MaxPool3DGrad and AvgPool3DGrad kernels of a backend's
    pool(backend, inputs, attrs, is_max) over {x} and pool_grad(backend, inputs, attrs, is_max) over {dy, input}
    (MaxPool3DGrad also gets output)."""
    return {
        kn.MaxPool3D: _kernel("max_pool3d", pool, True),
        kn.AvgPool3D: _kernel("avg_pool3d", pool, False),
        kn.MaxPool3DGrad: _kernel("max_pool3d_grad", pool_grad, True),
        kn.AvgPool3DGrad: _kernel("avg_pool3d_grad", pool_grad, False),
    }


@dataclass(frozen=True)
class Conv3DInfo:
    """The geometry of one NDHWC convolution or pooling; spatial values are (depth, height, width) tuples."""

    batch: int
    in_size: tuple[int, int, int]
    in_channels: int
    out_size: tuple[int, int, int]
    out_channels: int
    filter_size: tuple[int, int, int]
    strides: tuple[int, int, int]
    dilations: tuple[int, int, int]
    pad_before: tuple[int, int, int]  # front, top, left
    pad_after: tuple[int, int, int]  # back, bottom, right
    pad_type: str  # 'SAME', 'VALID' or 'NUMBER'

    @property
    def in_shape(self) -> tuple[int, ...]:
        """[batch, in_depth, in_height, in_width, in_channels]."""
        return (self.batch, *self.in_size, self.in_channels)

    @property
    def out_shape(self) -> tuple[int, ...]:
        """[batch, out_depth, out_height, out_width, out_channels]."""
        return (self.batch, *self.out_size, self.out_channels)


def check_pad_3d(op: str, pad: Any, dim_rounding_mode: str | None = None) -> None:
    """check_pad for the 3-D ops: 'same', 'valid' or a number (TF.js has no explicit 3-D padding)."""
    if isinstance(pad, (list, tuple)):
        raise ValueError(
            f"Error in {op}: unknown padding parameter {pad!r:.60}; expected 'same', 'valid' or a number"
        )
    check_pad(op, pad, dim_rounding_mode)


def compute_conv3d_info(
    in_shape: Sequence[int],
    filter_shape: Sequence[int],
    strides: Any,
    dilations: Any,
    pad: Any,
    dim_rounding_mode: str | None = None,
    op: str = "conv3d",
) -> Conv3DInfo:
    """Geometry of a conv3d (filter [fd, fh, fw, in, out]) over x [b, d, h, w, c] (TF.js computeConv3DInfo)."""
    batch, *size, in_c = (int(d) for d in in_shape)
    window = tuple(int(d) for d in filter_shape[:3])
    st = parse_triple(strides, op, "strides")
    dil = parse_triple(1 if dilations is None else dilations, op, "dilations")
    check_pad_3d(op, pad, dim_rounding_mode)
    if min(window) <= 0:
        raise ValueError(
            f"Error in {op}: the filter must be at least 1x1x1, but its shape is {fmt(filter_shape)}"
        )
    eff = tuple((f - 1) * d + 1 for f, d in zip(window, dil, strict=True))
    if pad != "same":
        p = 0 if pad == "valid" else int(pad)
        if any(n + 2 * p < e for n, e in zip(size, eff, strict=True)):
            raise ValueError(
                f"Error in {op}: the filter ({'x'.join(map(str, eff))} with dilations) is larger than the input "
                f"{'x'.join(map(str, size))} padded by {p}: the output would be empty (input shape "
                f"{fmt(in_shape)}, filter shape {fmt(filter_shape)}, pad {pad!r})"
            )
    axes = [
        _pad_and_out(pad, n, s, e, dim_rounding_mode, None) for n, s, e in zip(size, st, eff, strict=True)
    ]
    before = tuple(a[0] for a in axes)
    after = tuple(a[1] for a in axes)
    pad_type = pad.upper() if isinstance(pad, str) else "VALID" if not any(before + after) else "NUMBER"
    return Conv3DInfo(
        batch, tuple(size), in_c, tuple(a[2] for a in axes), int(filter_shape[4]), window, st, dil,  # type: ignore[arg-type]
        before, after, pad_type,  # type: ignore[arg-type]
    )  # fmt: skip


def compute_pool3d_info(
    in_shape: Sequence[int], filter_size: Any, strides: Any, pad: Any, dim_rounding_mode: str | None = None,
    op: str = "max_pool3d",
) -> Conv3DInfo:  # fmt: skip
    """Geometry of a 3-D pooling window of `filter_size` (a number or [fd, fh, fw]) over an NDHWC input."""
    window = parse_triple(filter_size, op, "filter_size")
    c = int(in_shape[4])
    return compute_conv3d_info(in_shape, (*window, c, c), strides, 1, pad, dim_rounding_mode, op)


def conv3d_info_from_attrs(
    in_shape: Sequence[int], filter_shape: Sequence[int] | None, attrs: dict[str, Any]
) -> Conv3DInfo:
    """The geometry of a 3-D conv kernel (filter_shape given) or pool kernel (None: attrs filter_size)."""
    if filter_shape is None:
        return compute_pool3d_info(
            in_shape,
            attrs["filter_size"],
            attrs.get("strides", 1),
            attrs["pad"],
            attrs.get("dim_rounding_mode"),
        )
    return compute_conv3d_info(
        in_shape, filter_shape, attrs.get("strides", 1), attrs.get("dilations", 1), attrs["pad"],
        attrs.get("dim_rounding_mode"),
    )  # fmt: skip


@functools.lru_cache(maxsize=64)
def window_taps(info: Conv3DInfo) -> tuple[tuple[int, ...], ...]:
    """Per output position (depth, row, column order) the input position (flat over d, h, w) of each filter
    tap (fd, fh, fw order), -1 where the tap lands in the padding: every 3-D kernel walks its windows so.
    Cached: a model calls its kernels (and their gradients) with the same geometry every step."""
    axes = []
    for n, out, window, s, dil, before in zip(
        info.in_size, info.out_size, info.filter_size, info.strides, info.dilations, info.pad_before,
        strict=True,
    ):  # fmt: skip
        axes.append([[o * s - before + k * dil for k in range(window)] for o in range(out)])
        axes[-1] = [[i if 0 <= i < n else -1 for i in taps] for taps in axes[-1]]
    _, h, w = info.in_size
    return tuple(
        tuple(-1 if min(d, r, c) < 0 else (d * h + r) * w + c for d in td for r in th for c in tw)
        for td in axes[0]
        for th in axes[1]
        for tw in axes[2]
    )
