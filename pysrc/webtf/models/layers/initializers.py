"""tf.initializers: the values a layer's weights start from (TF.js defaults; a seed repeats the values)."""

from __future__ import annotations

import math
import random
import re
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from ...engine import ENGINE
from ...ops import creation

Shape = Sequence[int]


class Initializer:
    """Makes a tensor of a shape: __call__(shape, dtype)."""

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this initializer."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}


class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        return creation.zeros(shape, dtype)


class Ones(Initializer):
    """All ones."""

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        return creation.ones(shape, dtype)


class Constant(Initializer):
    """Every value `value`."""

    def __init__(self, value: float = 0.0) -> None:
        self.value = float(value)

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        return creation.fill(shape, self.value, dtype)


class RandomUniform(Initializer):
    """Uniform in [minval, maxval)."""

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None) -> None:
        self.minval, self.maxval, self.seed = float(minval), float(maxval), seed

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        return creation.random_uniform(shape, self.minval, self.maxval, dtype, self.seed)


class RandomNormal(Initializer):
    """Normal with mean and stddev."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = float(mean), float(stddev), seed

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        return creation.random_normal(shape, self.mean, self.stddev, dtype, self.seed)


class TruncatedNormal(RandomNormal):
    """Normal with mean and stddev, values beyond two stddevs re-drawn."""

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        return creation.truncated_normal(shape, self.mean, self.stddev, dtype, self.seed)


def compute_fans(shape: Shape) -> tuple[float, float]:
    """(fan_in, fan_out) of a channels_last weight shape, as TF.js computes them."""
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    if len(shape) in (3, 4, 5):
        receptive = math.prod(shape[:-2])
        return float(shape[-2] * receptive), float(shape[-1] * receptive)
    root = math.sqrt(math.prod(shape))
    return root, root


class VarianceScaling(Initializer):
    """Scaled by the fans: truncated normal (stddev sqrt(scale / n)) or uniform (limit sqrt(3 scale / n))."""

    MODES = {"fan_in", "fan_out", "fan_avg"}

    def __init__(
        self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "normal", seed: int | None = None
    ) -> None:
        mode = snake(mode)
        distribution = snake(distribution)
        if scale <= 0:
            raise ValueError(f"VarianceScaling: scale must be positive, but got {scale}")
        if mode not in self.MODES:
            raise ValueError(f"VarianceScaling: mode must be one of {sorted(self.MODES)}, but got '{mode}'")
        if distribution not in ("normal", "uniform", "truncated_normal"):
            raise ValueError(f"VarianceScaling: distribution must be normal or uniform, got '{distribution}'")
        self.scale, self.mode, self.distribution, self.seed = float(scale), mode, distribution, seed

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3 * scale)
            return creation.random_uniform(shape, -limit, limit, dtype, self.seed)
        return creation.truncated_normal(shape, 0, math.sqrt(scale), dtype, self.seed)


def _scaling(name: str, scale: float, mode: str, distribution: str) -> type[VarianceScaling]:
    def init(self: VarianceScaling, seed: int | None = None) -> None:
        VarianceScaling.__init__(self, scale, mode, distribution, seed)

    doc = f"VarianceScaling(scale={scale}, mode={mode}, distribution={distribution})."
    cls = type(name, (VarianceScaling,), {"__init__": init, "__doc__": doc, "__module__": __name__})
    cls.get_config = lambda self: {"seed": self.seed}  # type: ignore[method-assign]
    return cls


GlorotUniform = _scaling("GlorotUniform", 1.0, "fan_avg", "uniform")
GlorotNormal = _scaling("GlorotNormal", 1.0, "fan_avg", "normal")
HeUniform = _scaling("HeUniform", 2.0, "fan_in", "uniform")
HeNormal = _scaling("HeNormal", 2.0, "fan_in", "normal")
LeCunUniform = _scaling("LeCunUniform", 1.0, "fan_in", "uniform")
LeCunNormal = _scaling("LeCunNormal", 1.0, "fan_in", "normal")


class Orthogonal(Initializer):
    """A random orthogonal matrix (Gram-Schmidt of a normal one) times gain; 2-D shapes only, as in TF.js."""

    def __init__(self, gain: float = 1.0, seed: int | None = None) -> None:
        self.gain, self.seed = float(gain), seed

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        if len(shape) != 2:
            raise ValueError(f"Orthogonal initializer needs a 2-D shape, but got {list(shape)}")
        rows, cols = int(shape[0]), int(shape[1])
        rng = random.Random(self.seed)
        # orthonormal vectors of length max(rows, cols), min(rows, cols) of them
        n, k = max(rows, cols), min(rows, cols)
        basis: list[list[float]] = []
        while len(basis) < k:
            v = [rng.gauss(0.0, 1.0) for _ in range(n)]
            for b in basis:
                dot = sum(x * y for x, y in zip(v, b, strict=True))
                v = [x - dot * y for x, y in zip(v, b, strict=True)]
            norm = math.sqrt(sum(x * x for x in v))
            if norm > 1e-6:
                basis.append([x / norm for x in v])
        flat = array("f", [0.0]) * (rows * cols)
        for i in range(rows):
            for j in range(cols):
                # rows > cols: the basis vectors are the columns; else the rows
                flat[i * cols + j] = self.gain * (basis[j][i] if rows > cols else basis[i][j])
        return ENGINE.make_tensor(flat, (rows, cols), "float32")


class Identity(Initializer):
    """gain times the identity matrix (2-D square shapes only, as in TF.js)."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = float(gain)

    def __call__(self, shape: Shape, dtype: str = "float32") -> Any:
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"Identity initializer needs a square 2-D shape, but got {list(shape)}")
        eye = creation.eye(int(shape[0]))
        if self.gain == 1.0:
            return eye
        out = creation.fill(shape, self.gain)
        from ...ops.binary import mul

        try:
            return mul(eye, out)
        finally:
            eye.dispose()
            out.dispose()


def snake(name: str) -> str:
    """snake_case of a TF.js camelCase identifier (glorotUniform -> glorot_uniform, fanIn -> fan_in)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


INITIALIZERS: dict[str, Callable[..., Initializer]] = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_uniform": RandomUniform,
    "random_normal": RandomNormal, "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal, "he_uniform": HeUniform,
    "he_normal": HeNormal, "lecun_uniform": LeCunUniform, "lecun_normal": LeCunNormal,
    "le_cun_uniform": LeCunUniform, "le_cun_normal": LeCunNormal, "orthogonal": Orthogonal,
    "identity": Identity,
}  # fmt: skip


def from_identifier(
    identifier: Any,
    table: dict[str, Callable[..., Any]],
    kind: str,
    fix: Callable[[str, dict], None] | None = None,
) -> Any:
    """The `kind` (initializer, constraint) `identifier` names: a name in any case ('glorotUniform',
    'GlorotUniform') or a Keras {class_name, config} entry, made from `table` with its config (keys in
    snake_case; `fix(key, config)` may adjust it)."""
    config: dict[str, Any] = {}
    if isinstance(identifier, dict):
        config = {snake(k): v for k, v in (identifier.get("config") or {}).items()}
        identifier = identifier.get("class_name")
    key = snake(str(identifier))
    cls = table.get(key)
    if cls is None:
        raise ValueError(f"Unknown {kind} '{identifier}' (known: {', '.join(sorted(table))})")
    if fix is not None:
        fix(key, config)
    try:
        return cls(**config)
    except TypeError as e:
        raise ValueError(f"{kind.capitalize()} '{identifier}': bad config {config} ({e})") from None


def _snake_mode(key: str, config: dict[str, Any]) -> None:
    if key == "variance_scaling" and "mode" in config:
        config["mode"] = snake(str(config["mode"]))


def get(identifier: Any) -> Initializer:
    """An initializer from a name ('glorot_uniform', 'glorotUniform', 'GlorotUniform'), a Keras
    {class_name, config} entry or an Initializer."""
    if isinstance(identifier, Initializer):
        return identifier
    return from_identifier(identifier, INITIALIZERS, "initializer", _snake_mode)


def __getattr__(name: str) -> Any:
    """tf.initializers.<snake_name>(**config): glorot_uniform(seed=1), constant(value=2), ..."""
    cls = INITIALIZERS.get(name)
    if cls is None:
        raise AttributeError(
            f"tf.initializers has no initializer '{name}' (known: {', '.join(sorted(INITIALIZERS))})"
        )
    return cls
