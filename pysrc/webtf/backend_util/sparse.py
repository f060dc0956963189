"""The sparse and ragged kernels' shared math (tfjs-backend-cpu's *_impl) on flat sequences: fill empty rows,
reshape, segment sum / mean, ragged range / gather / to-tensor. Errors carry TF.js's messages after the op."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..shapes import size_of, strides_of


def _error(op: str, message: str) -> ValueError:
    return ValueError(f"Error in {op}: {message}")


def check_count(n: int, limit: int, op: str, what: str) -> None:
    """Refuse a data-dependent output of n elements past the backend's limit, before it is built."""
    if n > limit:
        raise _error(op, f"{what} would hold {n} elements, more than the {limit} a tensor may hold")


def fill_empty_rows(
    indices: Sequence[int], rank: int, values: Sequence[Any], dense_rows: int, default: Any, limit: int
) -> tuple[list[int], list[Any], list[bool], list[int]]:
    """Sparse rows with no entry get one (row, 0, ...) = default; returns indices, values, empty-row flags and
    each input entry's position in the output. Entries keep their order within a row."""
    n = len(values)
    rows = [indices[i * rank] for i in range(n)]
    if dense_rows == 0 and n:
        raise _error(
            "sparse_fill_empty_rows",
            f"Received SparseTensor with denseShape[0] = 0 but indices.shape[0] = {n}",
        )
    check_count(dense_rows + n, limit, "sparse_fill_empty_rows", f"the output of {dense_rows} rows")
    counts = [0] * dense_rows
    for i, row in enumerate(rows):
        if row < 0:
            raise _error("sparse_fill_empty_rows", f"indices({i}, 0) is invalid: {row} < 0")
        if row >= dense_rows:
            raise _error("sparse_fill_empty_rows", f"indices({i}, 0) is invalid: {row} >= {dense_rows}")
        counts[row] += 1
    empty = [c == 0 for c in counts]
    starts, total = [], 0
    for c in counts:
        starts.append(total)
        total += max(c, 1)
    out_idx: list[int] = [0] * (total * rank)
    out_val: list[Any] = [default] * total
    filled = [0] * dense_rows
    reverse = [0] * n
    for i, row in enumerate(rows):
        pos = starts[row] + filled[row]
        filled[row] += 1
        out_idx[pos * rank : (pos + 1) * rank] = indices[i * rank : (i + 1) * rank]
        out_val[pos] = values[i]
        reverse[i] = pos
    for row in range(dense_rows):
        if empty[row]:
            out_idx[starts[row] * rank] = row
    return out_idx, out_val, empty, reverse


def sparse_reshape(
    indices: Sequence[int], in_shape: Sequence[int], target: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Indices of a sparse tensor of `in_shape` re-addressed for `target` (one -1 inferred); returns the new
    flat indices and the output shape."""
    op = "sparse_reshape"
    dense = size_of(in_shape)
    out_shape, product, unknown = [], 1, -1
    for d, size in enumerate(target):
        if size == -1:
            if unknown != -1:
                raise _error(op, f"only one output dimension may be -1, not both {unknown} and {d}")
            unknown = d
            out_shape.append(1)
        elif size < 0:
            raise _error(op, f"size {d} must be non-negative, not {size}")
        else:
            product *= size
            out_shape.append(size)
    shown = f"inputShape={','.join(map(str, in_shape))} outputShape={','.join(map(str, out_shape))}"
    if unknown != -1:
        if product <= 0:
            raise _error(
                op,
                "reshape cannot infer the missing input size for an empty tensor unless all specified input "
                "sizes are non-zero",
            )
        missing = dense // product
        if product * missing != dense:
            raise _error(
                op,
                f"Input to reshape is a SparseTensor with {dense} dense values, but the requested shape "
                f"requires a multiple of {product}. {shown}",
            )
        out_shape[unknown] = missing
    if size_of(out_shape) != dense:
        raise _error(
            op,
            f"Input to reshape is a tensor with {dense} dense values, but the requested shape has "
            f"{size_of(out_shape)}. {shown}",
        )
    rank_in, rank_out = len(in_shape), len(out_shape)
    in_strides, out_strides = strides_of(in_shape), strides_of(out_shape)
    out: list[int] = []
    for i in range(len(indices) // rank_in if rank_in else 0):
        flat = sum(indices[i * rank_in + j] * in_strides[j] for j in range(rank_in))
        for j in range(rank_out):
            out.append(flat // out_strides[j])
            flat %= out_strides[j]
    return out, out_shape


def segment_reduce(
    data: Sequence[float],
    shape: Sequence[int],
    indices: Sequence[int],
    segment_ids: Sequence[int],
    mean: bool,
    op: str,
    limit: int,
) -> tuple[list[float], list[int]]:
    """Rows data[indices[i]] summed (or averaged) into segment segment_ids[i] (sorted ids; rows of segments
    with no entry are 0); returns flat values and the output shape."""
    rows = shape[0]
    cols = size_of(shape[1:])
    n = len(indices)
    out_rows = segment_ids[-1] + 1 if n else 0
    if out_rows < 0:
        raise _error(op, "segment ids must be >= 0")
    check_count(out_rows * cols, limit, op, f"the output of {out_rows} segments")
    out = [0.0] * (out_rows * cols)
    start = 0
    while start < n:
        seg = segment_ids[start]
        end = start + 1
        while end < n and segment_ids[end] == seg:
            end += 1
        if end < n and segment_ids[end] < seg:
            raise _error(op, "segment ids are not increasing")
        if not 0 <= seg < out_rows:
            raise _error(
                op,
                f"Segment id {seg} out of range [0, {out_rows}), possibly because segmentIds input is not sorted.",
            )
        acc = out[seg * cols : (seg + 1) * cols]
        for i in range(start, end):
            row = indices[i]
            if not 0 <= row < rows:
                raise _error(op, f"Bad: indices[{i}] == {row} out of range [0, {rows})")
            acc = [a + b for a, b in zip(acc, data[row * cols : (row + 1) * cols], strict=True)]
        if mean:
            acc = [a / (end - start) for a in acc]
        out[seg * cols : (seg + 1) * cols] = acc
        start = end
    return out, [out_rows, *shape[1:]]


def ragged_range(
    starts: Sequence[Any],
    limits: Sequence[Any],
    deltas: Sequence[Any],
    sizes: Sequence[int | None],
    most: int,
) -> tuple[list[int], list[Any]]:
    """Rows range(starts[i], limits[i], deltas[i]) (a None size: a scalar broadcast to every row); returns the
    row splits and the values."""
    op = "ragged_range"
    known = {s for s in sizes if s is not None}
    if len(known) > 1:
        raise _error(op, "starts, limits, and deltas must have the same shape")
    n = known.pop() if known else 1
    pick = [
        (lambda i, v=v: v[0]) if s is None else (lambda i, v=v: v[i])
        for v, s in zip((starts, limits, deltas), sizes, strict=True)
    ]
    splits, values = [0], []
    for row in range(n):
        start, limit, delta = (p(row) for p in pick)
        if delta == 0:
            raise _error(op, "Requires delta != 0")
        size = (
            0
            if (delta > 0 and limit < start) or (delta < 0 and limit > start)
            else math.ceil(abs((limit - start) / delta))
        )
        if size > 2**31 - 1:
            raise _error(op, f"Requires ((limit - start) / delta) <= {2**31 - 1}")
        check_count(len(values) + size, most, op, "the values")
        value = start
        for _ in range(size):
            values.append(value)
            value += delta
        splits.append(splits[-1] + size)
    return splits, values


def ragged_gather(
    nested_splits: Sequence[Sequence[int]], indices: Sequence[int], indices_shape: Sequence[int]
) -> tuple[list[list[int]], list[int]]:
    """Rows `indices` of a ragged tensor (its nested row splits): the output's nested splits (uniform ones for
    the indices' own inner dims first) and the dense-value rows to take, in order."""
    op = "ragged_gather"
    n_rows = len(nested_splits[0]) - 1
    out: list[list[int]] = []
    for k in range(1, len(indices_shape)):  # the indices' dims beyond the first are uniform rows
        out.append(list(range(0, size_of(indices_shape[: k + 1]) + 1, indices_shape[k])))
    gathered: list[list[int]] = [[0] for _ in nested_splits]
    take: list[int] = []
    for pos, i in enumerate(indices):
        if not 0 <= i < n_rows:
            raise _error(op, f"indices[{pos}] = {i} is not in [0, {n_rows})")
        start, limit = i, i + 1
        for level, splits in enumerate(nested_splits):
            row_starts = splits[start : limit + 1]
            acc = gathered[level]
            for a, b in zip(row_starts, row_starts[1:], strict=False):
                acc.append(acc[-1] + b - a)
            start, limit = splits[start], splits[limit]
        take.extend(range(start, limit))
    return out + gathered, take


def ragged_to_dense(
    shape: Sequence[int] | None,
    values_shape: Sequence[int],
    partitions: Sequence[tuple[str, Sequence[int]]],
    limit: int,
) -> tuple[list[int], list[tuple[int, int]]]:
    """The dense shape of a ragged tensor (partitions: (type, values) as ROW_SPLITS / VALUE_ROWIDS after an
    optional FIRST_DIM_SIZE; `shape` entries of -1 or None are computed) and, for each values row in bounds,
    (its flat output row, the values row)."""
    op = "ragged_tensor_to_tensor"
    kind, first = partitions[0]
    if kind == "FIRST_DIM_SIZE":
        n_rows, parts = first[0], partitions[1:]
        check_count(n_rows, limit, op, "the first dim")
    elif kind == "ROW_SPLITS":
        n_rows, parts = len(first) - 1, partitions
    else:
        raise _error(op, f"the first row partition type must be FIRST_DIM_SIZE or ROW_SPLITS, not {kind}")
    coords: list[tuple[int, ...]] = [(i,) for i in range(n_rows)]
    widths = [n_rows]
    for kind, part in parts:
        children: list[tuple[int, ...]] = []
        if kind == "ROW_SPLITS":
            for parent, (a, b) in enumerate(zip(part, part[1:], strict=False)):
                children.extend((*coords[parent], j) for j in range(b - a))
            width = max((b - a for a, b in zip(part, part[1:], strict=False)), default=0)
        elif kind == "VALUE_ROWIDS":
            seen: dict[int, int] = {}
            for parent in part:
                if not 0 <= parent < len(coords):
                    raise _error(op, f"value rowid {parent} is not in [0, {len(coords)})")
                j = seen[parent] = seen.get(parent, -1) + 1
                children.append((*coords[parent], j))
            width = max(seen.values(), default=-1) + 1
        else:
            raise _error(op, f"unsupported row partition type {kind}")
        coords, widths = children, [*widths, width]
    dims = [*widths, *values_shape[1:]]
    if shape is not None:
        if len(shape) != len(dims):  # a scalar shape too, as TF.js
            raise _error(
                op,
                f"rt input.shape and shape={','.join(map(str, shape))} are incompatible: rt input.rank = "
                f"{len(dims)}, but shape.rank = {len(shape)}",
            )
        dims = [d if s is None or s < 0 else s for d, s in zip(dims, shape, strict=True)]
    check_count(size_of(dims), limit, op, f"the output of shape [{','.join(map(str, dims))}]")
    ragged = dims[: len(widths)]
    strides = strides_of(ragged)
    pairs = [
        (sum(c * s for c, s in zip(coord, strides, strict=True)), row)
        for row, coord in enumerate(coords)
        if all(c < d for c, d in zip(coord, ragged, strict=True))
    ]
    return dims, pairs


def scatter_dense(
    indices: Sequence[int], n: int, values: Sequence[Any], default: Any, shape: Sequence[int], limit: int
) -> list[Any]:
    """A flat dense tensor of `shape` holding `default`, values[i] (or the one value) written at the i-th of the
    n index tuples (a repeated index keeps its last value)."""
    op = "sparse_to_dense"
    check_count(size_of(shape), limit, op, f"the output of shape [{','.join(map(str, shape))}]")
    out = [default] * size_of(shape)
    strides = strides_of(shape)
    rank = len(shape)
    for i in range(n):
        coords = indices[i * rank : (i + 1) * rank]
        if any(not 0 <= c < d for c, d in zip(coords, shape, strict=True)):
            raise _error(
                op,
                f"sparse_indices[{i}] = {list(coords)} is out of bounds for output_shape [{','.join(map(str, shape))}]",
            )
        out[sum(c * s for c, s in zip(coords, strides, strict=True))] = values[i if len(values) > 1 else 0]
    return out
