"""The tf.image namespace: resizing, crop_and_resize, non-max suppression (sync and async), flips, transforms.

Nothing here is re-exported at the top level (`__all__` is empty): call tf.image.resize_bilinear(...).
"""

from __future__ import annotations

import inspect
import math
from array import array
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ParamSpec, TypeVar

from .. import kernel_names as kn
from ..backend_util import NmsResult, non_max_suppression_impl
from ..engine import ENGINE
from ..shapes import fmt
from ..tensor import Tensor
from .checks import MAX_DIM, check_size, choice_arg, flag_arg, is_int, number_arg
from .op import TensorLike, convert_to_tensor, op

__all__: list[str] = []
P = ParamSpec("P")
R = TypeVar("R")


def _size(size: Any, arg: str, name: str, minimum: int = 0) -> tuple[int, int]:
    """Validate a [height, width] pair of integers in [minimum, MAX_DIM] (integral floats accepted)."""
    vals = list(size) if isinstance(size, (list, tuple)) else None
    if vals is None or len(vals) != 2:
        raise ValueError(f"Error in {name}: {arg} must be 2D ([height, width]), but got {size!r}")
    if not all(is_int(v) or (isinstance(v, float) and v.is_integer()) for v in vals):
        raise ValueError(f"Error in {name}: {arg} must hold integers, but got {vals}")
    out = (int(vals[0]), int(vals[1]))
    if min(out) < minimum:
        raise ValueError(f"Error in {name}: {arg} must be at least [{minimum},{minimum}], but was {fmt(out)}")
    if max(out) > MAX_DIM:
        raise ValueError(f"Error in {name}: {arg} must be at most [{MAX_DIM},{MAX_DIM}], but was {fmt(out)}")
    return out


def _reshape(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    return ENGINE.run_kernel(kn.Reshape, {"x": x}, {"shape": shape})


def _resize(
    kernel: str,
    name: str,
    images: TensorLike,
    size: Sequence[int],
    align_corners: bool,
    half_pixel_centers: bool,
) -> Tensor:
    x = convert_to_tensor(images, "images", name)
    if x.rank not in (3, 4):
        raise ValueError(
            f"Error in {name}: images must be rank 3 or 4, but got rank {x.rank} ({fmt(x.shape)})"
        )
    new_size = _size(size, "size", name)
    align_corners = flag_arg(align_corners, "align_corners", name)
    half_pixel_centers = flag_arg(half_pixel_centers, "half_pixel_centers", name)
    if half_pixel_centers and align_corners:
        raise ValueError(f"Error in {name}: if half_pixel_centers is True, align_corners must be False")
    height, width, channels = x.shape[-3:]
    batch = 1 if x.rank == 3 else x.shape[0]
    if height * width == 0 and new_size[0] * new_size[1] * channels * batch > 0:
        raise ValueError(
            f"Error in {name}: cannot resize images of shape {fmt(x.shape)}, which have an empty spatial "
            f"dimension, to size {fmt(new_size)}"
        )
    check_size((batch, *new_size, channels), name, f" (images {fmt(x.shape)})")
    batched = x if x.rank == 4 else _reshape(x, (1, *x.shape))
    attrs = {
        "size": new_size,
        "align_corners": align_corners,
        "half_pixel_centers": half_pixel_centers,
    }
    res = ENGINE.run_kernel(kernel, {"images": batched}, attrs)
    return res if x.rank == 4 else _reshape(res, res.shape[1:])


@op
def resize_bilinear(
    images: TensorLike, size: Sequence[int], align_corners: bool = False, half_pixel_centers: bool = False
) -> Tensor:
    """Bilinear resize of [h,w,c] or [b,h,w,c] images to size=[new_h, new_w]; float32 result."""
    return _resize(kn.ResizeBilinear, "resize_bilinear", images, size, align_corners, half_pixel_centers)


@op
def resize_nearest_neighbor(
    images: TensorLike, size: Sequence[int], align_corners: bool = False, half_pixel_centers: bool = False
) -> Tensor:
    """Nearest-neighbor resize of [h,w,c] or [b,h,w,c] float32/int32 images; keeps the dtype."""
    name = "resize_nearest_neighbor"
    x = convert_to_tensor(images, "images", name)
    if x.dtype not in ("float32", "int32"):
        raise TypeError(f"Error in {name}: images must have dtype int32 or float32, but got {x.dtype}")
    return _resize(kn.ResizeNearestNeighbor, name, x, size, align_corners, half_pixel_centers)


@op
def crop_and_resize(
    image: TensorLike,
    boxes: TensorLike,
    box_ind: TensorLike,
    crop_size: Sequence[int],
    method: str = "bilinear",
    extrapolation_value: float = 0,
) -> Tensor:
    """Crop boxes [y1,x1,y2,x2] (normalized) from image[box_ind] and resize each to crop_size; float32."""
    name = "crop_and_resize"
    img = convert_to_tensor(image, "image", name)
    bx = convert_to_tensor(boxes, "boxes", name, "float32")
    bi = convert_to_tensor(box_ind, "box_ind", name, "int32")
    if img.rank != 4:
        raise ValueError(f"Error in {name}: image must be rank 4, but got rank {img.rank} ({fmt(img.shape)})")
    if img.shape[1] < 1 or img.shape[2] < 1:
        raise ValueError(
            f"Error in {name}: image height and width must be positive, but image is {fmt(img.shape)}"
        )
    if bx.rank != 2 or bx.shape[1] != 4:
        raise ValueError(
            f"Error in {name}: boxes must have shape [num_boxes,4], but had shape {fmt(bx.shape)}"
        )
    num_boxes = bx.shape[0]
    if bi.rank != 1 or bi.shape[0] != num_boxes:
        raise ValueError(
            f"Error in {name}: box_ind must have shape [{num_boxes}], but had shape {fmt(bi.shape)}"
        )
    if bi.dtype != "int32":
        raise TypeError(f"Error in {name}: box_ind must have dtype int32, but got {bi.dtype}")
    crop = _size(crop_size, "crop_size", name, minimum=1)
    method = choice_arg(method, ("bilinear", "nearest"), "method", name)
    check_size((num_boxes, *crop, img.shape[3]), name)
    extrapolation = number_arg(
        0 if extrapolation_value is None else extrapolation_value, "extrapolation_value", name
    )
    attrs = {"crop_size": crop, "method": method, "extrapolation_value": float(extrapolation)}
    return ENGINE.run_kernel(kn.CropAndResize, {"image": img, "boxes": bx, "box_ind": bi}, attrs)


# ---- non max suppression -------------------------------------------------------------------------
def _nms_check(
    name: str,
    boxes: Tensor,
    scores: Tensor,
    max_output_size: int,
    iou_threshold: float,
    score_threshold: float,
    soft_nms_sigma: float = 0.0,
) -> dict[str, Any]:
    """Validate NMS arguments (as TF.js's nonMaxSuppSanityCheck) and return the kernel attrs."""
    iou_threshold = 0.5 if iou_threshold is None else number_arg(iou_threshold, "iou_threshold", name)
    score_threshold = (
        -math.inf if score_threshold is None else number_arg(score_threshold, "score_threshold", name)
    )
    soft_nms_sigma = 0.0 if soft_nms_sigma is None else number_arg(soft_nms_sigma, "soft_nms_sigma", name)
    if not 0 <= iou_threshold <= 1:
        raise ValueError(f"Error in {name}: iou_threshold must be in [0, 1], but was {iou_threshold}")
    if boxes.rank != 2:
        raise ValueError(f"Error in {name}: boxes must be a 2D tensor, but was of rank {boxes.rank}")
    if boxes.shape[1] != 4:
        raise ValueError(
            f"Error in {name}: boxes must have 4 columns, but 2nd dimension was {boxes.shape[1]}"
        )
    if scores.rank != 1:
        raise ValueError(f"Error in {name}: scores must be a 1D tensor, but was of rank {scores.rank}")
    if scores.shape[0] != boxes.shape[0]:
        raise ValueError(
            f"Error in {name}: scores has incompatible shape with boxes. Expected {boxes.shape[0]}, "
            f"but was {scores.shape[0]}"
        )
    if not 0 <= soft_nms_sigma <= 1:
        raise ValueError(f"Error in {name}: soft_nms_sigma must be in [0, 1], but was {soft_nms_sigma}")
    if not is_int(max_output_size):
        raise TypeError(f"Error in {name}: max_output_size must be an int, but got {max_output_size!r}")
    return {
        "max_output_size": min(int(max_output_size), boxes.shape[0]),
        "iou_threshold": float(iou_threshold),
        "score_threshold": float(score_threshold),
        "soft_nms_sigma": float(soft_nms_sigma),
    }


def _nms_inputs(
    name: str, boxes: TensorLike, scores: TensorLike, made: list[Tensor] | None = None
) -> tuple[Tensor, Tensor]:
    """boxes and scores as float32 tensors; those converted here are added to `made` (async ops free them)."""
    out = []
    for arg, value in (("boxes", boxes), ("scores", scores)):
        t = convert_to_tensor(value, arg, name, "float32")
        if t is not value and made is not None:
            made.append(t)
        out.append(t)
    return out[0], out[1]


@op
def non_max_suppression(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
) -> Tensor:
    """Greedy NMS: int32 indices of kept boxes ([n,4] as [y1,x1,y2,x2]) by descending score."""
    name = "non_max_suppression"
    b, s = _nms_inputs(name, boxes, scores)
    attrs = _nms_check(name, b, s, max_output_size, iou_threshold, score_threshold)
    del attrs["soft_nms_sigma"]
    return ENGINE.run_kernel(kn.NonMaxSuppressionV3, {"boxes": b, "scores": s}, attrs)


@op
def non_max_suppression_padded(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    pad_to_max_output_size: bool = False,
) -> dict[str, Tensor]:
    """NMS returning {selected_indices, valid_outputs}; indices zero-padded to max_output_size on request."""
    name = "non_max_suppression_padded"
    b, s = _nms_inputs(name, boxes, scores)
    attrs = _nms_check(name, b, s, max_output_size, iou_threshold, score_threshold)
    del attrs["soft_nms_sigma"]
    attrs["pad_to_max_output_size"] = flag_arg(pad_to_max_output_size, "pad_to_max_output_size", name)
    idx, valid = ENGINE.run_kernel(kn.NonMaxSuppressionV4, {"boxes": b, "scores": s}, attrs)
    return {"selected_indices": idx, "valid_outputs": valid}


@op
def non_max_suppression_with_score(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    soft_nms_sigma: float = 0.0,
) -> dict[str, Tensor]:
    """(Soft-)NMS returning {selected_indices, selected_scores}; soft_nms_sigma > 0 enables Soft-NMS."""
    name = "non_max_suppression_with_score"
    b, s = _nms_inputs(name, boxes, scores)
    attrs = _nms_check(name, b, s, max_output_size, iou_threshold, score_threshold, soft_nms_sigma)
    idx, sel = ENGINE.run_kernel(kn.NonMaxSuppressionV5, {"boxes": b, "scores": s}, attrs)
    return {"selected_indices": idx, "selected_scores": sel}


def _nms_async_twin(
    sync_op: Callable[P, R], result: Callable[[NmsResult], dict[str, Tensor] | Tensor]
) -> Callable[P, Awaitable[R]]:
    """The async form of an NMS op: the same arguments, but boxes and scores are read with await (not
    blocking) and the shared NMS implementation runs on them on the host; `result` makes its tensors."""
    name = f"{sync_op.__name__}_async"
    signature = inspect.signature(sync_op)

    async def nms_async(*args: P.args, **kwargs: P.kwargs) -> R:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        pad = flag_arg(a.get("pad_to_max_output_size", False), "pad_to_max_output_size", name)
        made: list[Tensor] = []  # what this call converted, freed however it ends
        try:
            b, s = _nms_inputs(name, a["boxes"], a["scores"], made)
            attrs = _nms_check(
                name, b, s, a["max_output_size"], a["iou_threshold"], a["score_threshold"],
                a.get("soft_nms_sigma", 0.0),
            )  # fmt: skip
            box_vals = await b.data()
            score_vals = await s.data()
        finally:
            for t in made:
                t.dispose()
        selected = non_max_suppression_impl(box_vals, score_vals, **attrs, pad_to_max_output_size=pad)
        return result(selected)  # type: ignore[return-value]

    nms_async.__name__ = nms_async.__qualname__ = name
    nms_async.__doc__ = f"Async {sync_op.__name__}: awaits the data instead of blocking on it (same result)."
    nms_async.__signature__ = signature  # type: ignore[attr-defined]
    return nms_async


def _int_vector(values: list[int]) -> Tensor:
    return ENGINE.make_tensor(array("i", values), (len(values),), "int32")


def _float_vector(values: list[float]) -> Tensor:
    return ENGINE.make_tensor(array("f", values), (len(values),), "float32")


non_max_suppression_async = _nms_async_twin(non_max_suppression, lambda r: _int_vector(r.selected_indices))
non_max_suppression_padded_async = _nms_async_twin(
    non_max_suppression_padded,
    lambda r: {
        "selected_indices": _int_vector(r.selected_indices),
        "valid_outputs": ENGINE.make_tensor(array("i", [r.valid_outputs]), (), "int32"),
    },
)
non_max_suppression_with_score_async = _nms_async_twin(
    non_max_suppression_with_score,
    lambda r: {
        "selected_indices": _int_vector(r.selected_indices),
        "selected_scores": _float_vector(r.selected_scores),
    },
)


# ---- flips, rotations, projective transforms ----------------------------------------------------
def _image4d(image: TensorLike, name: str, numeric: bool = True) -> Tensor:
    img = convert_to_tensor(image, "image", name, "float32")
    if img.rank != 4:
        raise ValueError(f"Error in {name}: image must be rank 4, but got rank {img.rank} ({fmt(img.shape)})")
    if numeric and img.dtype not in ("float32", "int32"):
        raise TypeError(f"Error in {name}: image must have dtype float32 or int32, but got {img.dtype}")
    return img


def _numbers(value: Any, length: int, arg: str, name: str) -> Any:
    """A number, or a list of `length` numbers."""

    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    if number(value):
        return value
    if isinstance(value, (list, tuple)) and len(value) == length and all(map(number, value)):
        return list(value)
    raise ValueError(
        f"Error in {name}: {arg} must be a number or a list of {length} numbers, but got {value!r}"
    )


@op
def flip_left_right(image: TensorLike) -> Tensor:
    """Mirror [b,h,w,c] images horizontally."""
    img = _image4d(image, "flip_left_right", numeric=False)
    return ENGINE.run_kernel(kn.FlipLeftRight, {"image": img}, {})


@op
def rotate_with_offset(image: TensorLike, radians: float, fill_value: Any = 0, center: Any = 0.5) -> Tensor:
    """Rotate [b,h,w,c] images counter-clockwise about center (fractions of width, height); fill the rest."""
    name = "rotate_with_offset"
    img = _image4d(image, name)
    attrs = {
        "radians": float(number_arg(radians, "radians", name, finite=True)),
        "fill_value": _numbers(fill_value, 3, "fill_value", name),
        "center": _numbers(center, 2, "center", name),
    }
    return ENGINE.run_kernel(kn.RotateWithOffset, {"image": img}, attrs)


@op
def transform(
    image: TensorLike,
    transforms: TensorLike,
    interpolation: str = "nearest",
    fill_mode: str = "constant",
    fill_value: float = 0,
    output_shape: Sequence[int] | None = None,
) -> Tensor:
    """Apply projective transforms (rows [a0,a1,a2,b0,b1,b2,c0,c1] mapping output to input) to images."""
    name = "transform"
    img = _image4d(image, name)
    tr = convert_to_tensor(transforms, "transforms", name, "float32")
    if tr.rank != 2 or tr.shape[0] not in (img.shape[0], 1) or tr.shape[1] != 8:
        raise ValueError(
            f"Error in {name}: transforms must have shape [batch,8] or [1,8] (batch {img.shape[0]}), "
            f"but had shape {fmt(tr.shape)}"
        )
    interpolation = choice_arg(interpolation, ("nearest", "bilinear"), "interpolation", name)
    fill_mode = choice_arg(fill_mode, ("constant", "reflect", "wrap", "nearest"), "fill_mode", name)
    out_shape = None if output_shape is None else _size(output_shape, "output_shape", name)
    if out_shape is not None:
        check_size((img.shape[0], *out_shape, img.shape[3]), name)
    attrs = {
        "interpolation": interpolation,
        "fill_mode": fill_mode,
        "fill_value": float(number_arg(fill_value, "fill_value", name)),
        "output_shape": out_shape,
    }
    return ENGINE.run_kernel(kn.Transform, {"image": img, "transforms": tr}, attrs)


_PUBLIC = (
    "crop_and_resize",
    "flip_left_right",
    "non_max_suppression",
    "non_max_suppression_async",
    "non_max_suppression_padded",
    "non_max_suppression_padded_async",
    "non_max_suppression_with_score",
    "non_max_suppression_with_score_async",
    "resize_bilinear",
    "resize_nearest_neighbor",
    "rotate_with_offset",
    "transform",
)


def __dir__() -> list[str]:
    """The public ops only, so dir(tf.image) and autocompletion skip the helpers imported here."""
    return list(_PUBLIC)


# issue 15 (ops-math): colour ops
from .image_color import grayscale_to_rgb, rgb_to_grayscale, threshold  # noqa: E402, F401
