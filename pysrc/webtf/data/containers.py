"""Dataset elements: tensors, numbers and strings nested in dicts, lists and tuples (TF.js TensorContainer)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..ops.creation import clone, tensor
from ..ops.shape import stack
from ..tensor import Tensor


def leaves(value: Any, out: list[Any] | None = None) -> list[Any]:
    """The values inside dicts, lists and tuples (depth first, in order); a lone value is its own leaf."""
    if out is None:
        out = []
    if isinstance(value, dict):
        for v in value.values():
            leaves(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            leaves(v, out)
    else:
        out.append(value)
    return out


def map_structure(fn: Callable[[Any], Any], value: Any) -> Any:
    """The same nesting of dicts, lists and tuples with fn(leaf) at each leaf."""
    if isinstance(value, dict):
        return {k: map_structure(fn, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(map_structure(fn, v) for v in value)
    return fn(value)


def tensors_in(value: Any) -> list[Tensor]:
    """Every tensor inside an element, in order."""
    return [v for v in leaves(value) if isinstance(v, Tensor)]


def dispose_element(value: Any) -> None:
    """Free every tensor inside an element."""
    for t in tensors_in(value):
        t.dispose()


def dispose_replaced(before: Any, after: Any) -> None:
    """Free the tensors of `before` that `after` does not hold (a transform's input it did not pass on)."""
    kept = {id(t) for t in tensors_in(after)}
    for t in tensors_in(before):
        if id(t) not in kept:
            t.dispose()


def clone_element(value: Any) -> Any:
    """A copy of an element whose tensors are new handles on the same data (each consumer owns its own)."""
    return map_structure(lambda v: clone(v) if isinstance(v, Tensor) else v, value)


def _is_structure(value: Any) -> bool:
    """True when a value holds tensors or dicts (recursed into by batch), False for (nested) numbers."""
    if isinstance(value, (Tensor, dict)):
        return True
    return isinstance(value, (list, tuple)) and any(_is_structure(v) for v in value)


def batch_rows(rows: list[Any], path: str = "") -> Any:
    """Stack a list of elements position by position: tensors -> tf.stack, numbers -> one tensor (TF.js batch)."""
    first = rows[0]
    where = f" at {path}" if path else ""
    if isinstance(first, dict):
        out = {}
        for key in first:
            column = []
            for i, row in enumerate(rows):
                if not isinstance(row, dict) or key not in row:
                    raise ValueError(f"Error in batch: element {i} of the batch has no key '{path}{key}'")
                column.append(row[key])
            out[key] = batch_rows(column, f"{path}{key}.")
        return out
    if isinstance(first, (list, tuple)) and _is_structure(first):
        for i, row in enumerate(rows):
            if not isinstance(row, (list, tuple)) or len(row) != len(first):
                raise ValueError(
                    f"Error in batch: element {i} of the batch does not match element 0's structure{where}"
                )
        return type(first)(batch_rows([row[j] for row in rows], f"{path}{j}.") for j in range(len(first)))
    if isinstance(first, Tensor):
        if not all(isinstance(row, Tensor) for row in rows):
            raise TypeError(f"Error in batch: element 0 is a tensor{where} but another element is not")
        try:
            return stack(rows)
        except (ValueError, TypeError) as e:
            e.add_note(f"Error in batch{where}")
            raise
    return _number_tensor(rows, where)


def _number_tensor(rows: list[Any], where: str) -> Tensor:
    flat = leaves(rows)
    if any(isinstance(v, str) for v in flat):
        raise TypeError(f"Error in batch: cannot batch strings{where} (webtf has no string tensors)")
    if all(isinstance(v, bool) for v in flat):
        dtype = "bool"
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        dtype = "int32"
    else:
        dtype = "float32"
        rows = _none_to_nan(rows)
    return tensor(rows, dtype=dtype)


def _none_to_nan(value: Any) -> Any:
    """A missing value (None, like TF.js's undefined) becomes NaN in a float tensor."""
    return map_structure(lambda v: math.nan if v is None else v, value)
