"""numpy interop wherever numpy imports: the module (or a clear error where it does not), dtype maps, and the
stores of TF.js's typed arrays (float32 rounds, int32 truncates and wraps, bool is x != 0) as numpy calls.

Nothing here imports numpy at import time: webtf runs in browsers whose Pyodide has no numpy.
"""

from __future__ import annotations

from array import array
from types import ModuleType
from typing import Any

#: the dtype webtf gives a numpy dtype kind (as TF.js infers Float64Array -> float32, Uint8Array -> int32)
DTYPE_OF_KIND = {"f": "float32", "i": "int32", "u": "int32", "b": "bool"}


def numpy_or_none() -> ModuleType | None:
    """The numpy module, or None where it cannot be imported."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def require_numpy(what: str) -> ModuleType:
    """The numpy module; ImportError naming `what` and the numpy-free way where it cannot be imported."""
    try:
        import numpy
    except ImportError as e:
        raise ImportError(
            f"{what} needs numpy, which cannot be imported here ({e}); read the values with "
            "data_sync() or await data() (a flat array.array) or array_sync() (nested lists) instead"
        ) from e
    return numpy


def np_dtype(np: ModuleType, dtype: str) -> Any:
    """The numpy dtype storing webtf `dtype` (float32, int32, bool, complex64; string as str objects)."""
    return {"float32": np.float32, "int32": np.int32, "bool": np.bool_, "complex64": np.complex64}.get(
        dtype, object
    )


def dtype_of(np_kind: str, what: str) -> str:
    """The webtf dtype of a numpy dtype kind; TypeError naming `what` for kinds webtf cannot hold."""
    try:
        return DTYPE_OF_KIND[np_kind]
    except KeyError:
        raise TypeError(
            f"{what}: numpy arrays of kind '{np_kind}' are not supported; expected float, int, uint or bool"
        ) from None


def view_of(np: ModuleType, values: array, dtype: str, shape: tuple[int, ...]) -> Any:
    """A numpy array of `shape` sharing the memory of flat `values` (typed for `dtype`): no copy."""
    if dtype == "string":
        out = np.empty(len(values), object)
        out[:] = values
        return out.reshape(shape)
    if not len(values):  # frombuffer refuses some empty buffers
        return np.zeros(shape, np_dtype(np, dtype))
    return np.frombuffer(values, np_dtype(np, dtype)).reshape(shape)


def to_int32(np: ModuleType, x: Any) -> Any:
    """Values stored into an Int32Array: floats truncate toward zero, nan/inf give 0, all wrap modulo 2**32."""
    if x.dtype.kind != "f":
        return x.astype(np.int32)  # integer casts wrap; bools give 0 / 1
    with np.errstate(all="ignore"):
        whole = np.fmod(np.trunc(x.astype(np.float64)), 2.0**32)
        whole = np.where(np.isfinite(whole), whole, 0.0)
    return whole.astype(np.int64).astype(np.int32)


def store_as(np: ModuleType, x: Any, dtype: str) -> Any:
    """`x` (any numeric numpy array) stored as `dtype` the way a JS typed array of it stores numbers."""
    if dtype == "float32":
        return x.astype(np.float32, copy=False)
    if dtype == "int32":
        return x if x.dtype == np.int32 else to_int32(np, x)
    return x if x.dtype == np.bool_ else x != 0
