"""Random ops beyond creation's: rand, random_standard_normal, random_uniform_int, random_gamma (values made on
the host, as TF.js does), multinomial (kernel Multinomial) and dropout (a composite)."""

from __future__ import annotations

import builtins
import random as _random
from array import array
from collections.abc import Callable, Sequence

from .. import kernel_names as kn
from ..engine import ENGINE
from ..shapes import size_of
from ..tensor import Tensor
from . import binary as B
from . import unary as U
from .checks import count_arg, dtype_arg, flag_arg, int_arg, number_arg, output_shape
from .creation import clone, normal, random_uniform, uniform
from .op import TensorLike, convert_to_tensor, op
from .shape import reshape

__all__ = ["rand", "random_standard_normal", "random_uniform_int", "random_gamma", "multinomial", "dropout"]


def rand(shape: Sequence[int], rand_function: Callable[[], float], dtype: str = "float32") -> Tensor:
    """A tensor of `shape` filled by calling rand_function() once per element."""
    out = output_shape(shape, "shape", "rand")
    dtype_arg(dtype, "rand", ("float32", "int32", "bool"))
    if not callable(rand_function):
        raise TypeError(
            f"Error in rand: argument 'rand_function' must be callable, but got {type(rand_function).__name__}"
        )
    values = [rand_function() for _ in builtins.range(size_of(out))]
    code = {"float32": "f", "int32": "i", "bool": "B"}[dtype]
    try:
        return ENGINE.make_tensor(array(code, values if dtype == "float32" else map(int, values)), out, dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"Error in rand: rand_function must return {dtype} numbers ({e})") from None


def random_standard_normal(shape: Sequence[int], dtype: str = "float32", seed: int | None = None) -> Tensor:
    """Standard normal values (random_normal with mean 0 and stddev 1)."""
    return normal(shape, 0, 1, dtype, seed, "random_standard_normal")


def random_uniform_int(shape: Sequence[int], minval: int, maxval: int, seed: int | None = None) -> Tensor:
    """Uniform int32 values in [minval, maxval)."""
    return uniform(shape, minval, maxval, "int32", seed, "random_uniform_int")


def random_gamma(
    shape: Sequence[int], alpha: float, beta: float = 1, dtype: str = "float32", seed: int | None = None
) -> Tensor:
    """Gamma-distributed values of shape alpha, scaled by beta (float32 or int32)."""
    out = output_shape(shape, "shape", "random_gamma")
    a = number_arg(alpha, "alpha", "random_gamma", finite=True)
    b = number_arg(beta, "beta", "random_gamma", finite=True)
    if not a > 0:
        raise ValueError(f"Error in random_gamma: alpha must be positive, but got {alpha}")
    if not b > 0:
        raise ValueError(f"Error in random_gamma: beta must be positive, but got {beta}")
    dtype_arg(dtype, "random_gamma", ("float32", "int32"))
    rng = _random.Random(int_arg(seed, "seed", "random_gamma")) if seed is not None else _random.Random()
    values = [rng.gammavariate(a, b) for _ in builtins.range(size_of(out))]
    flat = array("f", values) if dtype == "float32" else array("i", [int(v) for v in values])
    return ENGINE.make_tensor(flat, out, dtype)


@op
def multinomial(
    logits: TensorLike, num_samples: int, seed: int | None = None, normalized: bool = False
) -> Tensor:
    """int32 class samples from each row of logits (probabilities when normalized) (kernel Multinomial)."""
    name = "multinomial"
    t = convert_to_tensor(logits, "logits", name)
    if t.rank not in (1, 2):
        raise ValueError(f"Error in {name}: rank of probabilities must be 1 or 2, but is {t.rank}")
    if t.size and t.shape[-1] < 2:
        raise ValueError(f"Error in {name}: you need at least 2 outcomes, but got {t.shape[-1]}.")
    n = count_arg(num_samples, "num_samples", name)
    attrs = {
        "num_samples": n,
        "seed": int_arg(seed, "seed", name) if seed is not None else _random.randrange(1 << 31),
        "normalized": flag_arg(normalized, "normalized", name),
    }
    x2 = reshape(t, [1, -1]) if t.rank == 1 else t
    out = ENGINE.run_kernel(kn.Multinomial, {"logits": x2 if x2.dtype == "float32" else U.abs(x2)}, attrs)
    return reshape(out, [n]) if t.rank == 1 else out


@op
def dropout(
    x: TensorLike, rate: float, noise_shape: Sequence[int] | None = None, seed: int | None = None
) -> Tensor:
    """x with elements zeroed with probability rate and the rest scaled by 1 / (1 - rate)."""
    t = convert_to_tensor(x, "x", "dropout")
    if t.dtype != "float32":
        raise TypeError(
            "Error in dropout: x has to be a floating point tensor since it's going to be scaled, but got a "
            f"{t.dtype} tensor instead."
        )
    r = number_arg(rate, "rate", "dropout")
    if not 0 <= r < 1:
        raise ValueError(f"Error in dropout: rate must be a float in the range [0, 1), but got {rate}.")
    if r == 0:
        return clone(t)
    shape = (
        list(t.shape)
        if noise_shape is None
        else [d if d is not None else t.shape[i] for i, d in enumerate(noise_shape)]
    )
    keep = 1 - r
    noise = random_uniform(shape, 0, 1, "float32", seed)
    multiplier = B.div(U.floor(B.add(noise, keep)), keep)
    return B.mul(t, multiplier)
