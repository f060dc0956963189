"""Handlers of the TensorArray* and TensorList* ops (inputs and outputs as in TF's op definitions).

They run only in the dynamic executor, whose run object (`ctx`) has `values(t)` and `resources`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import ops as tf
from ...tensor import Tensor
from .nodes import Node

Handler = Callable[[Node, list[Tensor], Any], Any]


def _resources() -> Any:
    """graph/resources.py, imported with the data-driven executor (graph/dynamic.py) that runs these ops: a
    model without control flow never imports either."""
    from . import resources

    return resources


def _int(ctx: Any, t: Tensor) -> int:
    return int(ctx.values(t)[0])


def _ints(ctx: Any, t: Tensor) -> list[int]:
    return [int(v) for v in ctx.values(t)]


def _shape_in(ctx: Any, t: Tensor) -> Any:
    return _resources().element_shape(t, ctx.values(t))


# ------------------------------------------------------------------------------------------- TensorArray


def _ta_new(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    size = _int(ctx, ins[0])
    arr = _resources().TensorArray(
        node.str("tensor_array_name") or node.name,
        node.dtype("dtype"),
        size,
        node.shape("element_shape"),
        node.bool("identical_element_shapes"),
        node.bool("dynamic_size"),
        node.bool("clear_after_read", True),
        ctx.resources.new_handle(),
    )
    handle = ctx.resources.add(arr)
    return [handle, handle]  # the flow output is the handle too: it only orders the ops


def _ta_read(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return ctx.resources.array(ins[0]).read(_int(ctx, ins[1]))


def _ta_write(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    ctx.resources.array(ins[0]).write(_int(ctx, ins[1]), ins[2])
    return ins[0]


def _ta_gather(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    arr = ctx.resources.array(ins[0])
    return arr.gather(_ints(ctx, ins[1]), node.dtype("dtype", arr.dtype), node.shape("element_shape"))


def _ta_scatter(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    ctx.resources.array(ins[0]).scatter(_ints(ctx, ins[1]), ins[2])
    return ins[0]


def _ta_concat(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    arr = ctx.resources.array(ins[0])
    lengths = [t.shape[0] if t is not None and t.rank else 1 for t in arr.items]
    value = arr.concat(node.dtype("dtype", arr.dtype))
    return [value, tf.tensor(lengths, [len(lengths)], "int32")]


def _ta_split(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    ctx.resources.array(ins[0]).split(_ints(ctx, ins[2]), ins[1])
    return ins[0]


def _ta_size(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.scalar(ctx.resources.array(ins[0]).size(), "int32")


def _ta_close(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    ctx.resources.array(ins[0]).close()
    return []


# -------------------------------------------------------------------------------------------- TensorList


def _list(ctx: Any, items: list[Tensor | None], shape: Any, dtype: str, max_size: int) -> Tensor:
    return ctx.resources.add(
        _resources().TensorList(items, shape, dtype, max_size, ctx.resources.new_handle())
    )


def _tl_reserve(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    n = _int(ctx, ins[1])
    if n < 0:
        raise ValueError(f"TensorListReserve: num_elements must be >= 0, got {n}")
    return _list(ctx, [None] * n, _shape_in(ctx, ins[0]), node.dtype("element_dtype"), n)


def _owned_rows(t: Tensor) -> list[Tensor | None]:
    return list(tf.unstack(t, 0)) if t.shape[0] else []


def _tl_from_tensor(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    t, shape = ins[0], _shape_in(ctx, ins[1])
    dtype = node.dtype("element_dtype", t.dtype)
    if t.dtype != dtype:
        raise TypeError(f"TensorListFromTensor: the tensor is {t.dtype}, but element_dtype is {dtype}")
    if t.rank == 0:
        raise ValueError("TensorListFromTensor: the tensor must have rank >= 1")
    lst = _resources().TensorList([], shape, dtype, -1, None)  # type: ignore[arg-type]  (the handle once checked)
    lst._check(None, list(t.shape[1:]), "tensor element")
    lst.handle, lst.items = ctx.resources.new_handle(), _owned_rows(t)
    return ctx.resources.add(lst)


def _tl_get(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    lst = ctx.resources.list(ins[0])
    return lst.get_item(_int(ctx, ins[1]), _shape_in(ctx, ins[2]), node.dtype("element_dtype", lst.dtype))


def _tl_set(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    ctx.resources.list(ins[0]).set_item(_int(ctx, ins[1]), ins[2])
    return ins[0]


def _tl_stack(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    lst = ctx.resources.list(ins[0])
    return lst.stack(
        _shape_in(ctx, ins[1]), node.dtype("element_dtype", lst.dtype), node.int("num_elements", -1)
    )


def _tl_gather(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    lst = ctx.resources.list(ins[0])
    return lst.gather(_ints(ctx, ins[1]), _shape_in(ctx, ins[2]), node.dtype("element_dtype", lst.dtype))


def _tl_length(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return tf.scalar(len(ctx.resources.list(ins[0]).items), "int32")


def _tl_push(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    ctx.resources.list(ins[0]).push_back(ins[1])
    return ins[0]


def _tl_pop(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    lst = ctx.resources.list(ins[0])
    return [ins[0], lst.pop_back(_shape_in(ctx, ins[1]), node.dtype("element_dtype", lst.dtype))]


def _tl_scatter(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    t, indices, shape = ins[0], _ints(ctx, ins[1]), _shape_in(ctx, ins[2])
    if t.rank == 0 or len(indices) != t.shape[0]:
        raise ValueError(f"TensorListScatter: {len(indices)} indices for a tensor with shape {list(t.shape)}")
    size = max(indices, default=-1) + 1
    if len(ins) > 3:  # TensorListScatterV2: num_elements
        size = max(size, _int(ctx, ins[3]))
    lst = _resources().TensorList([None] * size, shape, t.dtype, -1, None)  # type: ignore[arg-type]  (the handle once checked)
    lst._check(None, list(t.shape[1:]), "tensor element")
    lst.handle = ctx.resources.new_handle()
    for i, row in zip(indices, _owned_rows(t), strict=True):
        if lst.items[i] is not None:
            lst.items[i].dispose()  # type: ignore[union-attr]
        lst.items[i] = row
    return ctx.resources.add(lst)


def _tl_split(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    t, shape, lengths = ins[0], _shape_in(ctx, ins[1]), _ints(ctx, ins[2])
    if t.rank == 0 or sum(lengths) != t.shape[0]:
        raise ValueError(
            f"TensorListSplit: lengths {lengths} do not sum to the rows of shape {list(t.shape)}"
        )
    lst = _resources().TensorList([], shape, t.dtype, -1, ctx.resources.new_handle())
    lst.items = list(tf.split(t, lengths, 0)) if lengths else []
    return ctx.resources.add(lst)


def _tl_concat(node: Node, ins: list[Tensor], ctx: Any) -> list[Tensor]:
    lst = ctx.resources.list(ins[0])
    shape = _shape_in(ctx, ins[1]) if len(ins) > 1 else node.shape("element_shape")
    return lst.concat(shape, node.dtype("element_dtype", lst.dtype))


def _tl_element_shape(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    shape = ctx.resources.list(ins[0]).element_shape
    if shape is None:
        return tf.scalar(-1, "int32")
    return tf.tensor(shape, [len(shape)], "int32")


def _tl_empty(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    return _list(ctx, [], _shape_in(ctx, ins[0]), node.dtype("element_dtype"), _int(ctx, ins[1]))


def _tl_resize(node: Node, ins: list[Tensor], ctx: Any) -> Tensor:
    """A new list of `size` elements: the first ones (copies) of the input list, then unset ones."""
    src, size = ctx.resources.list(ins[0]), _int(ctx, ins[1])
    if size < 0:
        raise ValueError(f"TensorListResize expects size to be non-negative. Got: {size}")
    if src.max_size != -1 and size > src.max_size:
        raise ValueError(f"TensorListResize input size {size} is greater maxNumElement {src.max_size}.")
    items = [None if t is None else tf.clone(t) for t in src.items[:size]]
    return _list(ctx, items + [None] * (size - len(items)), src.element_shape, src.dtype, src.max_size)


HANDLERS: dict[str, Handler] = {
    "TensorArrayV3": _ta_new,
    "TensorArrayReadV3": _ta_read,
    "TensorArrayWriteV3": _ta_write,
    "TensorArrayGatherV3": _ta_gather,
    "TensorArrayScatterV3": _ta_scatter,
    "TensorArrayConcatV3": _ta_concat,
    "TensorArraySplitV3": _ta_split,
    "TensorArraySizeV3": _ta_size,
    "TensorArrayCloseV3": _ta_close,
    "TensorListReserve": _tl_reserve,
    "TensorListFromTensor": _tl_from_tensor,
    "TensorListGetItem": _tl_get,
    "TensorListSetItem": _tl_set,
    "TensorListStack": _tl_stack,
    "TensorListGather": _tl_gather,
    "TensorListLength": _tl_length,
    "TensorListPushBack": _tl_push,
    "TensorListPopBack": _tl_pop,
    "TensorListScatter": _tl_scatter,
    "TensorListScatterV2": _tl_scatter,
    "TensorListSplit": _tl_split,
    "TensorListConcat": _tl_concat,
    "TensorListConcatV2": _tl_concat,
    "TensorListElementShape": _tl_element_shape,
    "EmptyTensorList": _tl_empty,
    "TensorListResize": _tl_resize,
}
