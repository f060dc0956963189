"""cast: change a tensor's dtype (kernel Cast)."""

from __future__ import annotations

from .. import kernel_names as kn
from ..dtypes import check_dtype
from ..engine import ENGINE
from ..tensor import Tensor
from .op import TensorLike, convert_to_tensor, op


@op
def cast(x: TensorLike, dtype: str) -> Tensor:
    """x converted to `dtype` (float->int truncates toward zero, non-zero->True for bool)."""
    x = convert_to_tensor(x, "x", "cast")
    check_dtype(dtype, "cast")
    return ENGINE.run_kernel(kn.Cast, {"x": x}, {"dtype": dtype})
