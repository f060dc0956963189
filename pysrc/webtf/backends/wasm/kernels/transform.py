"""wasm kernels that move or resample elements: Tile, Reverse, PadV2, MirrorPad, GatherV2, GatherNd, OneHot,
DepthToSpace and the image kernels (resize, crop, flip, rotate, transform, non-max suppression).

Contracts: webtf.kernel_names. Index inputs are checked on the host first (a bad index raises the cpu kernel's
error instead of reading outside a buffer).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .... import kernel_names as kn
from ....backend_util import resize_info, rotate_info
from ....shapes import strides_of
from ...base import TensorInfo
from .common import Kernel, any_outside, call_export, cpu, nonempty, with_fallbacks

_NUMERIC = frozenset({"float32", "int32"})
_ANY = frozenset({"float32", "int32", "bool"})


def tile(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Tile: natively."""
    x = inputs["x"]
    reps = tuple(int(r) for r in attrs["reps"])
    out_shape = tuple(d * r for d, r in zip(x.shape, reps, strict=True))
    if x.dtype not in _ANY or not x.shape:
        return cpu(kn.Tile)(backend, inputs, attrs)
    return call_export(backend, "Tile", out_shape, x.dtype, x, x.shape, out_shape, x.dtype)


def reverse(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Reverse: natively."""
    x = inputs["x"]
    dims = tuple(sorted({int(d) for d in attrs["dims"] if x.shape[int(d)] > 1}))
    if not dims or x.dtype not in _NUMERIC:
        return cpu(kn.Reverse)(backend, inputs, attrs)
    return call_export(backend, "Reverse", x.shape, x.dtype, x, dims, x.shape)


def _pads(attrs: dict[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    paddings = [tuple(int(v) for v in p) for p in attrs["paddings"]]
    return tuple(p[0] for p in paddings), tuple(p[1] for p in paddings)


@contextmanager
def _float32(backend: Any, t: Any) -> Iterator[Any]:
    """t as float32: t itself, or a native cast of it disposed on leaving."""
    if t.dtype == "float32":
        yield t
        return
    cast = backend.cast(t, "float32")
    try:
        yield cast
    finally:
        backend.dispose_data(cast.data_id)


def pad_v2(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """PadV2: natively (float32, and int32 / bool with a pad value exact in float32)."""
    x = inputs["x"]
    pre, post = _pads(attrs)
    out_shape = tuple(d + lo + hi for d, lo, hi in zip(x.shape, pre, post, strict=True))
    value = attrs.get("constant_value", 0)
    # int32 / bool take the value through a float32 argument: natively when it survives that exactly
    exact = x.dtype == "float32" or (x.dtype in _ANY and array("f", [value])[0] == value)
    if not exact or out_shape == x.shape or not nonempty(x.shape) or not x.shape:
        return cpu(kn.PadV2)(backend, inputs, attrs)
    out = backend.make_output(out_shape, x.dtype)
    backend.abi.PadV2(x, x.shape, x.dtype, pre, post, value, out)
    return out


def mirror_pad(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """MirrorPad: natively."""
    x = inputs["x"]
    pre, post = _pads(attrs)
    out_shape = tuple(d + lo + hi for d, lo, hi in zip(x.shape, pre, post, strict=True))
    if x.dtype not in _NUMERIC or out_shape == x.shape or not nonempty(x.shape) or not x.shape:
        return cpu(kn.MirrorPad)(backend, inputs, attrs)
    out = backend.make_output(out_shape, x.dtype)
    backend.abi.MirrorPad(x, x.shape, x.dtype, pre, post, 0 if attrs["mode"] == "reflect" else 1, out)
    return out


def _in_range(values: array, lo: int, hi: int) -> bool:
    return not values or (min(values) >= lo and max(values) < hi)


def gather_v2(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """GatherV2: indices are checked on the host first."""
    x, indices = inputs["x"], inputs["indices"]
    axis, batch_dims = int(attrs["axis"]), int(attrs.get("batch_dims", 0))
    dim = x.shape[axis]
    if (
        x.dtype not in _ANY
        or indices.dtype != "int32"
        or not nonempty(x.shape)
        or not nonempty(indices.shape)
        or not _in_range(backend.values(indices), 0, dim)
    ):
        return cpu(kn.GatherV2)(backend, inputs, attrs)
    if batch_dims:
        return _gather_batched(backend, x, indices, axis, batch_dims)
    out = backend.gather(x, indices, axis)
    return TensorInfo(out.data_id, (*x.shape[:axis], *indices.shape, *x.shape[axis + 1 :]), x.dtype)


def _gather_batched(backend: Any, x: Any, indices: Any, axis: int, batch_dims: int) -> TensorInfo:
    """GatherV2 with batch_dims > 0: the binary's Gather over x as [batch, outer, dim, slice]."""
    batch = math.prod(x.shape[:batch_dims])
    outer, dim, inner = math.prod(x.shape[batch_dims:axis]), x.shape[axis], math.prod(x.shape[axis + 1 :])
    per_batch = math.prod(indices.shape) // batch
    out_shape = (*x.shape[:axis], *indices.shape[batch_dims:], *x.shape[axis + 1 :])
    out = backend.make_output(out_shape, x.dtype)
    # the export reads index (b, j) at b * <its batch_size argument> + j: it gets the per-batch count (TF.js
    # passes the batch size, which only works when the two are equal)
    x_strides = (outer * dim * inner, dim * inner, inner)
    out_strides = (outer * per_batch * inner, per_batch * inner, inner)
    backend.abi.Gather(x, x.dtype, x_strides, indices, per_batch, out_strides, out)
    return out


def gather_nd(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """GatherNd: the indices are checked natively first (any_outside: a guard in a compiled replay)."""
    params, indices = inputs["params"], inputs["indices"]
    depth = indices.shape[-1] if indices.shape else 0
    n = math.prod(indices.shape[:-1])
    if (
        params.dtype not in _ANY
        or indices.dtype != "int32"
        or not depth
        or not n
        or not nonempty(params.shape)
    ):
        return cpu(kn.GatherNd)(backend, inputs, attrs)
    if any_outside(backend, indices, 0, list(params.shape[:depth])):
        return cpu(kn.GatherNd)(backend, inputs, attrs)
    slice_size = math.prod(params.shape[depth:])
    out_shape = (*indices.shape[:-1], *params.shape[depth:])
    out = backend.make_output(out_shape, params.dtype)
    strides = tuple(s // slice_size for s in strides_of(params.shape)[:depth]) if slice_size else ()
    backend.abi.GatherNd(params, params.dtype, indices, n, depth, slice_size, strides, out)
    return out


def one_hot(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """OneHot: natively for int32 outputs."""
    indices = inputs["indices"]
    depth, dtype = int(attrs["depth"]), attrs.get("dtype", "int32")
    on, off = attrs.get("on_value", 1), attrs.get("off_value", 0)
    if dtype != "int32" or indices.dtype != "int32" or on != int(on) or off != int(off):
        return cpu(kn.OneHot)(backend, inputs, attrs)
    out_shape = (*indices.shape, depth)
    return call_export(backend, "OneHot", out_shape, "int32", indices, depth, int(on), int(off))


def depth_to_space(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """DepthToSpace: natively."""
    x = inputs["x"]
    bs, fmt = int(attrs["block_size"]), attrs.get("data_format", "NHWC")
    if x.dtype != "float32":
        return cpu(kn.DepthToSpace)(backend, inputs, attrs)
    if fmt == "NHWC":
        b, h, w, c = x.shape
        out_shape = (b, h * bs, w * bs, c // (bs * bs))
    else:
        b, c, h, w = x.shape
        out_shape = (b, c // (bs * bs), h * bs, w * bs)
    out = backend.make_output(out_shape, "float32")
    if nonempty(out_shape):
        backend.abi.DepthToSpace(
            x, bs, fmt == "NHWC", strides_of(x.shape)[:-1], out_shape, strides_of(out_shape)[:-1], out
        )
    return out


def _resize(name: str) -> Kernel:
    fallback = cpu(name)

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        images = inputs["images"]
        if images.dtype != "float32" or not nonempty(images.shape):
            return fallback(backend, inputs, attrs)
        info = resize_info(images.shape, attrs)  # the export takes its fields in their order
        return call_export(backend, name, info.out_shape, "float32", images, *info)

    kernel.__doc__ = f"{name} (float32 natively)."
    return kernel


def resize_bilinear(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ResizeBilinear: the binary's (XNNPACK's) resize, as TF.js's wasm backend (int32 / bool images cast to
    float32 first, as TF.js). Its interpolation weights are float32: results differ from the cpu kernel's
    (float64 positions) in the last bits, e.g. 2e-6 at 100 output columns."""
    images = inputs["images"]
    info = resize_info(images.shape, attrs)
    if images.dtype not in _ANY or not nonempty(images.shape) or not nonempty(info.out_shape):
        return cpu(kn.ResizeBilinear)(backend, inputs, attrs)
    with _float32(backend, images) as x:
        return call_export(backend, "ResizeBilinear", info.out_shape, "float32", x, *info)


def flip_left_right(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """FlipLeftRight: float32 natively."""
    image = inputs["image"]
    if image.dtype != "float32":
        return cpu(kn.FlipLeftRight)(backend, inputs, attrs)
    return call_export(backend, "FlipLeftRight", image.shape, "float32", image, *image.shape)


def _upright(boxes: array) -> bool:
    """True when every box [y1, x1, y2, x2] has y1 <= y2 and x1 <= x2 (the binary gets flipped ones wrong)."""
    return all(map(float.__le__, boxes[0::4], boxes[2::4])) and all(
        map(float.__le__, boxes[1::4], boxes[3::4])
    )


def crop_and_resize(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """CropAndResize: bilinear natively (int32 / bool images cast to float32 first, as TF.js)."""
    image, boxes, box_ind = inputs["image"], inputs["boxes"], inputs["box_ind"]
    ch, cw = (int(v) for v in attrs["crop_size"])
    n = boxes.shape[0]
    # nearest: the export finds source positions in float32, so one at exactly .5 (a box at 0.1-0.9 of 4 rows)
    # can round the other way than the cpu kernel's float64 position
    if (
        attrs["method"] == "nearest"
        or image.dtype not in _ANY
        or boxes.dtype != "float32"
        or box_ind.dtype != "int32"
        or not nonempty(image.shape)
        or not _in_range(backend.values(box_ind), 0, image.shape[0])
        or not _upright(backend.values(boxes))
    ):
        return cpu(kn.CropAndResize)(backend, inputs, attrs)
    out_shape = (n, ch, cw, image.shape[3])
    out = backend.make_output(out_shape, "float32")
    if nonempty(out_shape):
        with _float32(backend, image) as x:
            backend.abi.CropAndResize(
                x, boxes, box_ind, n, image.shape, ch, cw, 0, attrs["extrapolation_value"], out
            )
    return out


def _nms_result(backend: Any, ptr: int) -> tuple[int, int, int, int]:
    fields = array("i")
    fields.frombytes(backend.module.read(ptr, 16))
    backend.abi.free(ptr)
    return fields[0] & 0xFFFFFFFF, fields[1], fields[2] & 0xFFFFFFFF, fields[3] & 0xFFFFFFFF


def _nms_ok(inputs: Any) -> bool:
    boxes, scores = inputs["boxes"], inputs["scores"]
    return boxes.dtype == "float32" and scores.dtype == "float32" and nonempty(boxes.shape)


def nms_v3(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """NonMaxSuppressionV3: natively."""
    if not _nms_ok(inputs):
        return cpu(kn.NonMaxSuppressionV3)(backend, inputs, attrs)
    ptr = backend.abi.NonMaxSuppressionV3(
        inputs["boxes"], inputs["scores"], int(attrs["max_output_size"]), attrs["iou_threshold"],
        attrs["score_threshold"],
    )  # fmt: skip
    p_indices, size, p_scores, p_valid = _nms_result(backend, ptr & 0xFFFFFFFF)
    backend.abi.free(p_scores)
    backend.abi.free(p_valid)
    return backend.adopt(p_indices, (size,), "int32")


def nms_v4(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """NonMaxSuppressionV4: natively."""
    if not _nms_ok(inputs):
        return cpu(kn.NonMaxSuppressionV4)(backend, inputs, attrs)
    ptr = backend.abi.NonMaxSuppressionV4(
        inputs["boxes"], inputs["scores"], int(attrs["max_output_size"]), attrs["iou_threshold"],
        attrs["score_threshold"], bool(attrs["pad_to_max_output_size"]),
    )  # fmt: skip
    p_indices, size, p_scores, p_valid = _nms_result(backend, ptr & 0xFFFFFFFF)
    backend.abi.free(p_scores)
    return [backend.adopt(p_indices, (size,), "int32"), backend.adopt(p_valid, (), "int32")]


def nms_v5(backend: Any, inputs: Any, attrs: dict[str, Any]) -> list[TensorInfo]:
    """NonMaxSuppressionV5: natively."""
    if not _nms_ok(inputs):
        return cpu(kn.NonMaxSuppressionV5)(backend, inputs, attrs)
    ptr = backend.abi.NonMaxSuppressionV5(
        inputs["boxes"], inputs["scores"], int(attrs["max_output_size"]), attrs["iou_threshold"],
        attrs["score_threshold"], attrs["soft_nms_sigma"],
    )  # fmt: skip
    p_indices, size, p_scores, p_valid = _nms_result(backend, ptr & 0xFFFFFFFF)
    backend.abi.free(p_valid)
    return [backend.adopt(p_indices, (size,), "int32"), backend.adopt(p_scores, (size,), "float32")]


def lin_space(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LinSpace: natively for two or more values (the export steps from start by float32 additions)."""
    num = int(attrs["num"])
    if num < 2:
        return cpu(kn.LinSpace)(backend, inputs, attrs)
    out = backend.make_output((num,), "float32")
    backend.abi.LinSpace(out, attrs["start"], attrs["stop"], num)
    return out


def _quarter_turn(radians: float) -> bool:
    """Whether radians is a multiple of pi/2, where source coordinates land on exact halves that the export
    rounds away from zero in float32 (the cpu kernel: up, as JS Math.round)."""
    return min(abs(math.sin(radians)), abs(math.cos(radians))) < 1e-6 and radians != 0


def rotate_with_offset(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """RotateWithOffset: natively for float32 images, integer fill values and turns other than quarter ones."""
    image = inputs["image"]
    fills = rotate_info(image.shape, attrs).fills
    if (
        image.dtype != "float32"
        or not all(float(v).is_integer() for v in fills)  # the export takes int32 fill values
        or not nonempty(image.shape)
        or _quarter_turn(float(attrs["radians"]))
    ):
        return cpu(kn.RotateWithOffset)(backend, inputs, attrs)
    b, h, w, c = image.shape
    center = attrs["center"]
    cx = w * (center if isinstance(center, (int, float)) else center[0])
    cy = h * (center if isinstance(center, (int, float)) else center[1])
    out = backend.make_output(image.shape, "float32")
    backend.abi.RotateWithOffset(image, b, h, w, c, attrs["radians"], cx, cy, [int(v) for v in fills], out)
    return out


_FILL_MODES = {"constant": 1, "wrap": 3, "nearest": 4}  # (the export's 'reflect', 2, mirrors wrongly)


def transform(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Transform: natively for bilinear float32 images with fill modes constant, wrap and nearest (the export
    rounds nearest-neighbor halves away from zero, the cpu kernel up as JS Math.round)."""
    image, transforms = inputs["image"], inputs["transforms"]
    mode = _FILL_MODES.get(attrs["fill_mode"])
    if (
        image.dtype != "float32"
        or transforms.dtype != "float32"
        or mode is None
        or attrs["interpolation"] != "bilinear"
        or not nonempty(image.shape)
    ):
        return cpu(kn.Transform)(backend, inputs, attrs)
    b, h, w, c = image.shape
    oh, ow = (int(v) for v in attrs["output_shape"] or (h, w))
    out_shape = (b, oh, ow, c)
    out = backend.make_output(out_shape, "float32")
    if nonempty(out_shape):
        backend.abi.Transform(
            image, transforms, transforms.shape[0] > 1, b, oh, ow, c, w, h, strides_of(image.shape)[:3],
            strides_of(out_shape)[:3], 2, mode, attrs["fill_value"], out,
        )  # fmt: skip
    return out


KERNELS: dict[str, Kernel] = with_fallbacks(
    {
        kn.Tile: tile,
        kn.Reverse: reverse,
        kn.PadV2: pad_v2,
        kn.MirrorPad: mirror_pad,
        kn.GatherV2: gather_v2,
        kn.GatherNd: gather_nd,
        kn.OneHot: one_hot,
        kn.DepthToSpace: depth_to_space,
        kn.ResizeBilinear: resize_bilinear,
        kn.ResizeNearestNeighbor: _resize(kn.ResizeNearestNeighbor),
        kn.FlipLeftRight: flip_left_right,
        kn.CropAndResize: crop_and_resize,
        kn.NonMaxSuppressionV3: nms_v3,
        kn.NonMaxSuppressionV4: nms_v4,
        kn.NonMaxSuppressionV5: nms_v5,
        kn.LinSpace: lin_space,
        kn.RotateWithOffset: rotate_with_offset,
        kn.Transform: transform,
    }
)
