"""Hash tables of a graph model (TF.js's ResourceManager / HashTable) and the ops that use them.

Tables belong to the model: they outlive executions, are shared by the graph, its functions and its
initializer graph, and a HashTable node names its table by node name (the initializer's table is the main
graph's). Each table is made when the model loads, so its handle is a resident tensor like a weight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ... import ops as tf
from ...tensor import Tensor
from .nodes import Node

Handler = Callable[[Node, list[Tensor], Any], Any]
TABLE_OPS = ("HashTable", "HashTableV2")


class HashTable:
    """key (a host value) -> value row; values are resident tensors owned by the table."""

    def __init__(self, key_dtype: str, value_dtype: str) -> None:
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.handle = tf.scalar(0)
        self.items: dict[Any, Tensor] = {}

    def _check(self, keys: Tensor, values: Tensor) -> None:
        if keys.dtype != self.key_dtype:
            raise TypeError(f"Expect key dtype {self.key_dtype}, but got {keys.dtype}")
        if values.dtype != self.value_dtype:
            raise TypeError(f"Expect value dtype {self.value_dtype}, but got {values.dtype}")

    def clear(self) -> None:
        for t in self.items.values():
            t.dispose()
        self.items.clear()

    def import_(self, keys: Tensor, values: Tensor) -> Tensor:
        """Replace the contents by keys[i] -> values[i]; returns the handle."""
        self._check(keys, values)
        ks = list(keys.data_sync())  # (an array, or a list of str)
        n = values.shape[0] if values.rank else 0
        if len(ks) != n:
            raise ValueError(
                f"The number of elements doesn't match, keys has {len(ks)} elements, the values has {n} elements."
            )
        self.clear()
        for k, row in zip(ks, tf.unstack(values, 0), strict=True):
            old = self.items.pop(k, None)
            if old is not None:
                old.dispose()
            row.kept = True  # (tf.keep) imports run inside the executor's tidy
            self.items[k] = row
        return self.handle

    def find(self, keys: Tensor, default: Tensor) -> Tensor:
        """The values of keys (default where missing), stacked."""
        self._check(keys, default)
        return tf.stack([self.items.get(k, default) for k in keys.data_sync()], 0)

    def dispose(self) -> None:
        self.clear()
        self.handle.dispose()


class Tables:
    """The model's tables by HashTable node name, and by handle."""

    def __init__(self, nodes: Iterable[Node]) -> None:
        self.by_name: dict[str, HashTable] = {}
        for n in nodes:
            if n.op in TABLE_OPS and n.name not in self.by_name:
                self.by_name[n.name] = HashTable(n.dtype("key_dtype"), n.dtype("value_dtype"))
        self._by_data = {t.handle.data_id: t for t in self.by_name.values()}
        self.handle_ids = {id(t.handle) for t in self.by_name.values()}

    def table(self, handle: Tensor) -> HashTable:
        got = self._by_data.get(handle.data_id)
        if got is None:
            raise ValueError("the input is not a hash table handle")
        return got

    def dispose(self) -> None:
        for t in self.by_name.values():
            t.dispose()
        self.by_name.clear()
        self._by_data.clear()


def _table(ctx: Any, t: Tensor) -> HashTable:
    return ctx.tables.table(t)


HANDLERS: dict[str, Handler] = {
    **{op: (lambda node, ins, ctx: ctx.tables.by_name[node.name].handle) for op in TABLE_OPS},
    **{
        op: (lambda node, ins, ctx: _table(ctx, ins[0]).import_(ins[1], ins[2]))
        for op in ("InitializeTable", "InitializeTableV2", "LookupTableImport", "LookupTableImportV2")
    },
    **{
        op: (lambda node, ins, ctx: _table(ctx, ins[0]).find(ins[1], ins[2]))
        for op in ("LookupTableFind", "LookupTableFindV2")
    },
    **{
        op: (lambda node, ins, ctx: tf.scalar(len(_table(ctx, ins[0]).items), "int32"))
        for op in ("LookupTableSize", "LookupTableSizeV2")
    },
}
