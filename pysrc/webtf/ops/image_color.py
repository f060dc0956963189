"""tf.image colour ops: rgb_to_grayscale, grayscale_to_rgb and threshold (binary or Otsu), composites as TF.js."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import binary as B
from . import unary as U
from .cast import cast
from .checks import choice_arg, flag_arg, number_arg
from .creation import tensor
from .op import TensorLike, convert_to_tensor, op
from .products import einsum
from .scatter import bincount
from .shape import expand_dims, split, tile

_LUMA = (0.2989, 0.5870, 0.1140)  # CCIR 601 luma weights, as TF.js


def _image(image: TensorLike, name: str, channels: int, kind: str) -> Tensor:
    """image as a tensor of rank >= 2 whose last dim is `channels` (a clear error naming the op otherwise)."""
    t = convert_to_tensor(image, "image", name)
    if t.rank < 2:
        raise ValueError(f"Error in {name}: images must be at least rank 2, but got rank {t.rank}.")
    if t.shape[-1] != channels:
        raise ValueError(
            f"Error in {name}: last dimension of {kind} image should be size {channels}, but got size "
            f"{t.shape[-1]}."
        )
    return t


@op
def rgb_to_grayscale(image: TensorLike) -> Tensor:
    """Luma of an RGB image (last dim 3) with a last dim of 1, in the image's dtype."""
    t = _image(image, "rgb_to_grayscale", 3, "an RGB")
    labels = "ijklmn"[: t.rank - 1]
    gray = einsum(f"{labels}z,z->{labels}", cast(t, "float32"), tensor(list(_LUMA), None, "float32"))
    return cast(expand_dims(gray, -1), t.dtype)


@op
def grayscale_to_rgb(image: TensorLike) -> Tensor:
    """A grayscale image (last dim 1) repeated to 3 channels."""
    t = _image(image, "grayscale_to_rgb", 1, "a grayscale")
    return tile(t, [1] * (t.rank - 1) + [3])


def _otsu(histogram: list[float], total: int) -> float:
    """The Otsu threshold of a 256-bin histogram (TF.js's loop: the first best split wins)."""
    best, best_var = -1.0, 0.0
    for index in range(len(histogram) - 1):
        first, second = histogram[: index + 1], histogram[index + 1 :]
        n1, n2 = sum(first), sum(second)
        m1 = sum(i * v for i, v in enumerate(first)) / n1 if n1 else float("nan")
        m2 = sum((i + len(first)) * v for i, v in enumerate(second)) / n2 if n2 else float("nan")
        var = (n1 / total) * (n2 / total) * (m1 - m2) ** 2
        if var > best_var:
            best, best_var = float(index), var
    return best


@op
def threshold(
    image: TensorLike, method: str = "binary", inverted: bool = False, thresh_value: float = 0.5
) -> Tensor:
    """int32 0 / 255 mask of a rank-3 image (1 or 3 channels) above thresh_value * 255, or Otsu's threshold."""
    t = convert_to_tensor(image, "image", "threshold")
    if t.rank != 3:
        raise ValueError(f"Error in threshold: image must be rank 3, but got rank {t.rank}.")
    if t.shape[2] not in (1, 3):
        raise ValueError(
            f"Error in threshold: image color channel must be equal to 3 or 1 but got {t.shape[2]}."
        )
    if t.dtype not in ("int32", "float32"):
        raise TypeError(f"Error in threshold: image dtype must be int32 or float32, but got dtype {t.dtype}.")
    choice_arg(method, ("binary", "otsu"), "method", "threshold")
    flip = flag_arg(inverted, "inverted", "threshold")
    level: Any = number_arg(thresh_value, "thresh_value", "threshold") * 255
    if t.shape[2] == 3:
        r, g, b = split(t, [1, 1, 1], -1)
        gray = B.add(B.add(B.mul(r, _LUMA[0]), B.mul(g, _LUMA[1])), B.mul(b, _LUMA[2]))
    else:
        gray = t
    if method == "otsu":
        hist = bincount(cast(U.round(gray), "int32").reshape([-1]), tensor([], None, "float32"), 256)
        level = _otsu(list(hist.data_sync()), t.shape[0] * t.shape[1])
    mask = B.less_equal(gray, level) if flip else B.greater(gray, level)
    return cast(B.mul(mask, 255), "int32")
