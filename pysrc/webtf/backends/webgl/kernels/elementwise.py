"""GLSL element-wise kernels: unary math, Cast, ClipByValue, LeakyRelu, Step, Fill/ZerosLike/OnesLike,
binary math with broadcasting, comparisons, logical ops, Prelu, Select, AddN (shaders/Unary.glsl and
shaders/Binary.glsl; OP_<Kernel> selects the function)."""

from __future__ import annotations

from typing import Any

from .... import kernel_names as kn
from ....backend_util import cast_values, fill_kernels, filled, scalar_as
from ....backend_util.elements import takes_complex
from ....shapes import broadcast_shapes
from ...base import TensorInfo
from .common import broadcast_ints, read_mode, size_of
from .complex import complex_binary, from_real, real_part

UNARY = (
    kn.Abs, kn.Neg, kn.Exp, kn.Expm1, kn.Log, kn.Log1p, kn.Sqrt, kn.Rsqrt, kn.Square, kn.Reciprocal, kn.Relu,
    kn.Relu6, kn.Elu, kn.Selu, kn.Sigmoid, kn.Tanh, kn.Softplus, kn.Sin, kn.Cos, kn.Tan, kn.Asin, kn.Acos,
    kn.Atan, kn.Sinh, kn.Cosh, kn.Floor, kn.Ceil, kn.Round, kn.Sign, kn.Erf, kn.IsNan, kn.IsInf, kn.IsFinite,
    kn.LogicalNot, kn.Acosh, kn.Asinh, kn.Atanh,
)  # fmt: skip
_BOOL_UNARY = {"IsNan", "IsInf", "IsFinite", "LogicalNot"}
#: unary kernels whose output is float32 whatever x's dtype (the others keep it)
_FLOAT_UNARY = {
    "Exp", "Expm1", "Log", "Log1p", "Sqrt", "Rsqrt", "Reciprocal", "Tanh", "Selu", "Softplus", "Sin", "Cos",
    "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Erf", "Sigmoid", "Elu",
    "Acosh", "Asinh", "Atanh",
}  # fmt: skip

BINARY = (
    kn.Add, kn.Sub, kn.Multiply, kn.RealDiv, kn.FloorDiv, kn.Mod, kn.Pow, kn.SquaredDifference, kn.Maximum,
    kn.Minimum, kn.Atan2, kn.Equal, kn.NotEqual, kn.Less, kn.LessEqual, kn.Greater, kn.GreaterEqual,
    kn.LogicalAnd, kn.LogicalOr,
)  # fmt: skip
_BOOL_BINARY = {
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr",
}  # fmt: skip
_INT_SENSITIVE = {"FloorDiv", "Mod"}
#: binary kernels that take complex64 operands on the GPU, as TF.js's webgl (shaders/Complex.glsl)
_COMPLEX = {"Add", "Sub", "Multiply"}


# ---- unary ----------------------------------------------------------------------------------------
def unary(backend: Any, x: Any, op: str, dtype: str, floats: tuple = ()) -> TensorInfo:
    """Run OP_<op> of shaders/Unary.glsl over x into a tensor of `dtype`."""
    key = ("Unary", op, dtype == "int32", len(floats))
    prog = backend.programs.get(key) or backend.programs.build(
        key, "Unary", ("X",), 0, len(floats), (f"OP_{op}",), int_output=dtype == "int32"
    )
    return backend.run(prog, (x,), x.shape, dtype, (), floats, x.size)


def _unary_kernel(op: str) -> Any:
    fixed = "bool" if op in _BOOL_UNARY else "float32" if op in _FLOAT_UNARY else None
    share_int = op in ("Floor", "Ceil", "Round")

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        x = inputs["x"]
        if share_int and x.dtype != "float32":
            return TensorInfo(x.data_id, x.shape, x.dtype)
        return unary(backend, x, op, fixed or x.dtype)

    kernel.__name__ = kernel.__qualname__ = f"webgl_{op}"
    kernel.__doc__ = f"{op} in GLSL (shaders/Unary.glsl, OP_{op})."
    return kernel


def leaky_relu(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """LeakyRelu: x < 0 ? alpha * x : x."""
    x = inputs["x"]
    return unary(backend, x, "LeakyRelu", "float32", (float(attrs.get("alpha", 0.2)),))


def step(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Step: x > 0 ? 1 : alpha; NaN stays NaN."""
    x = inputs["x"]
    return unary(backend, x, "Step", x.dtype, (float(attrs.get("alpha", 0.0)),))


def clip_by_value(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """ClipByValue: clamp(x, clip_value_min, clip_value_max); NaN stays NaN."""
    x = inputs["x"]
    bounds = (float(attrs["clip_value_min"]), float(attrs["clip_value_max"]))
    return unary(backend, x, "ClipByValue", x.dtype, bounds)


def cast(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Cast: float -> int32 truncates, anything -> bool is x != 0; the same dtype shares the buffer."""
    x, dtype = inputs["x"], attrs["dtype"]
    if dtype == x.dtype:
        return TensorInfo(x.data_id, x.shape, x.dtype)
    if dtype == "complex64":
        return from_real(backend, x)
    if x.dtype == "complex64":  # as TF.js: the real part, cast
        re = real_part(backend, x)
        if dtype == "float32":
            return re
        out = cast(backend, {"x": _View(re.data_id, re.shape, "float32")}, {"dtype": dtype})
        backend.temp(re)
        return out
    host = backend.host_values(x)
    if host is not None and x.size <= 4096:  # still on the host: convert there, no GPU round trip
        return backend.output(cast_values(host, x.dtype, dtype), x.shape, dtype)
    op = {"bool": "CastBool", "int32": "CastInt"}.get(dtype, "Identity")
    if op == "CastInt" and x.dtype == "bool":
        op = "Identity"
    return unary(backend, x, op, dtype)


def fill_value(backend: Any, shape: tuple[int, ...], dtype: str, value: Any) -> TensorInfo:
    """A tensor of `shape` filled with `value`: on the host when small, else drawn on the GPU."""
    n = size_of(shape)
    v = scalar_as(dtype, value)
    if n <= 4096:
        return backend.output(filled(n, dtype, v), shape, dtype)
    key = ("Unary", "Fill")
    prog = backend.programs.get(key) or backend.programs.build(key, "Unary", (), 0, 1, ("OP_Fill",))
    return backend.run(prog, (), shape, dtype, (), (float(v),), n)


# ---- binary ---------------------------------------------------------------------------------------
def binary(backend: Any, a: Any, b: Any, op: str, dtype: str, c: Any = None) -> TensorInfo:
    """Run OP_<op> of shaders/Binary.glsl on a, b (and the condition c for Select), broadcasting."""
    operands = (a, b) if c is None else (a, b, c)
    out_shape = a.shape if a.shape == b.shape else broadcast_shapes(a.shape, b.shape, op)
    if c is not None and c.shape != out_shape:
        out_shape = broadcast_shapes(out_shape, c.shape, op)
    n = size_of(out_shape)
    modes = tuple(read_mode(t.shape, t.size, out_shape, n) for t in operands)
    rank, bints = broadcast_ints(operands, out_shape, modes)
    int_in = a.dtype == "int32" and op in _INT_SENSITIVE
    key = ("Binary", op, modes, rank, int_in, dtype == "int32")
    prog = backend.programs.get(key)
    if prog is None:
        defines = [
            f"OP_{op}",
            f"A_MODE {modes[0]}",
            f"B_MODE {modes[1]}",
            f"C_MODE {modes[2] if c is not None else 0}",
        ]
        if int_in:
            defines.append("INT")
        ni = 4 + rank * (1 + len(operands))
        prog = backend.programs.build(key, "Binary", ("A", "B", "C")[: len(operands)], ni, 0, defines,
                                      int_output=dtype == "int32")  # fmt: skip
    ints = [a.size, b.size, c.size if c is not None else 0, rank, *bints]
    return backend.run(prog, operands, out_shape, dtype, ints, (), n)


class _View:
    """A tensor-like view (data_id, shape, dtype, size) of a buffer under another shape."""

    __slots__ = ("data_id", "shape", "dtype", "size")

    def __init__(self, data_id: int, shape: tuple[int, ...], dtype: str) -> None:
        self.data_id, self.shape, self.dtype = data_id, shape, dtype
        self.size = size_of(shape)


def _binary_kernel(op: str) -> Any:
    fixed = "bool" if op in _BOOL_BINARY else "float32" if op in ("RealDiv", "Atan2") else None
    if op == "FloorDiv":
        fixed = "int32"

    def kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        a, b = inputs["a"], inputs["b"]
        dtype = fixed or a.dtype
        return binary(backend, a, b, op, dtype)

    def complex_kernel(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
        a, b = inputs["a"], inputs["b"]
        if a.dtype == "complex64" or b.dtype == "complex64":
            return complex_binary(backend, a, b, op)
        return binary(backend, a, b, op, a.dtype)

    if op in _COMPLEX:
        kernel = complex_kernel
    kernel.__name__ = kernel.__qualname__ = f"webgl_{op}"
    kernel.__doc__ = f"{op} in GLSL with broadcasting (shaders/Binary.glsl, OP_{op})."
    return takes_complex(kernel) if op in _COMPLEX else kernel


def prelu(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Prelu: x < 0 ? alpha * x : x, alpha broadcast to x."""
    x = inputs["x"]
    return binary(backend, x, inputs["alpha"], "Prelu", "float32")


def select(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """Select: condition ? t : e, the three shapes broadcast together."""
    t = inputs["t"]
    return binary(backend, t, inputs["e"], "Select", t.dtype, inputs["condition"])


def add_n(backend: Any, inputs: Any, attrs: dict[str, Any]) -> TensorInfo:
    """AddN: the sum of a list of tensors of one shape and dtype."""
    tensors = list(inputs)
    if len(tensors) == 1:
        t = tensors[0]
        return TensorInfo(t.data_id, t.shape, t.dtype)
    acc = binary(backend, tensors[0], tensors[1], "Add", tensors[0].dtype)
    for t in tensors[2:]:
        view = _View(acc.data_id, acc.shape, acc.dtype)
        nxt = binary(backend, view, t, "Add", t.dtype)
        backend.temp(acc)
        acc = nxt
    return acc


KERNELS: dict[str, Any] = {op: _unary_kernel(op) for op in UNARY}
KERNELS.update({op: _binary_kernel(op) for op in BINARY})
KERNELS.update(
    {
        kn.LeakyRelu: leaky_relu,
        kn.Step: step,
        kn.ClipByValue: clip_by_value,
        kn.Cast: takes_complex(cast),
        **fill_kernels(fill_value),
        kn.Prelu: prelu,
        kn.Select: select,
        kn.AddN: add_n,
    }
)
