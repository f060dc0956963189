"""Lazy async iterators behind a Dataset (TF.js LazyIterator): each stage pulls from its upstream on demand.

Ownership follows TF.js's data: an element handed downstream belongs to the consumer; a stage that drops
an element (skip, filter, a map that does not pass a tensor on, batch once stacked) frees its tensors.
`close()` frees what a stage still buffers (shuffle, prefetch) and closes its upstreams.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Callable, Iterable
from typing import Any

from .containers import batch_rows, clone_element, dispose_element, dispose_replaced, leaves, map_structure


def _tidy(fn: Callable[[], Any]) -> Any:
    from .. import tidy  # the package root defines tidy and imports this module

    return tidy(fn)


class LazyIterator:
    """An async iterator of dataset elements: `async for x in it`, `await anext(it)`, `it.close()`."""

    def __aiter__(self) -> LazyIterator:
        return self

    async def __anext__(self) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        """Free buffered elements and close upstream iterators (after an early stop)."""

    async def to_array(self) -> list[Any]:
        """Every remaining element, in order (the caller owns them)."""
        return [x async for x in self]

    async def for_each_async(self, fn: Callable[[Any], Any]) -> None:
        """Call fn (sync or async) on every remaining element, then free the element's tensors."""
        async for x in self:
            try:
                result = fn(x)
                if inspect.isawaitable(result):
                    await result
            finally:
                dispose_element(x)


class Upstream(LazyIterator):
    """A stage with one upstream iterator."""

    def __init__(self, upstream: LazyIterator) -> None:
        self.upstream = upstream

    def close(self) -> None:
        self.upstream.close()


class ItemsIterator(LazyIterator):
    """The items of a list; tensors are cloned so the list keeps its own (tf.data.array)."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.index = 0

    async def __anext__(self) -> Any:
        if self.index >= len(self.items):
            raise StopAsyncIteration
        self.index += 1
        return clone_element(self.items[self.index - 1])


class GeneratorIterator(LazyIterator):
    """Elements of the (async) iterator that fn() returns, fn being called at the first read."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.it: Any = None

    async def __anext__(self) -> Any:
        if self.it is None:
            it = self.fn()
            if inspect.isawaitable(it) and not hasattr(it, "__anext__"):
                it = await it
            if not hasattr(it, "__anext__"):
                if not isinstance(it, Iterable) or isinstance(it, (str, bytes, dict)):
                    raise TypeError(
                        f"Error in tf.data.generator: the function must return an iterator or async iterator "
                        f"(e.g. be a generator function), got {type(it).__name__}"
                    )
                it = iter(it)
            self.it = it
        if hasattr(self.it, "__anext__"):
            return await self.it.__anext__()
        try:
            return next(self.it)
        except StopIteration:
            raise StopAsyncIteration from None

    def close(self) -> None:
        if self.it is not None and hasattr(self.it, "close") and not hasattr(self.it, "__anext__"):
            self.it.close()


class MapIterator(Upstream):
    """fn(element) (in a tidy scope unless async); the input's tensors fn did not return are freed."""

    def __init__(self, upstream: LazyIterator, fn: Callable[[Any], Any], is_async: bool) -> None:
        super().__init__(upstream)
        self.fn = fn
        self.is_async = is_async

    async def __anext__(self) -> Any:
        item = await self.upstream.__anext__()
        try:
            if self.is_async:
                out = self.fn(item)
                if inspect.isawaitable(out):
                    out = await out
            else:
                out = _tidy(lambda: self.fn(item))
        except BaseException:
            dispose_element(item)
            raise
        dispose_replaced(item, out)
        return out


class FilterIterator(Upstream):
    """The elements for which predicate(element) is true (run in a tidy scope); the others are freed."""

    def __init__(self, upstream: LazyIterator, predicate: Callable[[Any], Any]) -> None:
        super().__init__(upstream)
        self.predicate = predicate

    async def __anext__(self) -> Any:
        while True:
            item = await self.upstream.__anext__()
            try:
                keep = _tidy(lambda item=item: bool(self.predicate(item)))
            except BaseException:
                dispose_element(item)
                raise
            if keep:
                return item
            dispose_element(item)


class TakeIterator(Upstream):
    """The first `count` elements; the upstream is closed once they are read."""

    def __init__(self, upstream: LazyIterator, count: int) -> None:
        super().__init__(upstream)
        self.left = count

    async def __anext__(self) -> Any:
        if self.left <= 0:
            self.upstream.close()
            raise StopAsyncIteration
        self.left -= 1
        return await self.upstream.__anext__()


class SkipIterator(Upstream):
    """All but the first `count` elements, which are freed."""

    def __init__(self, upstream: LazyIterator, count: int) -> None:
        super().__init__(upstream)
        self.left = count

    async def __anext__(self) -> Any:
        while self.left > 0:
            self.left -= 1
            dispose_element(await self.upstream.__anext__())
        return await self.upstream.__anext__()


class BatchIterator(Upstream):
    """Groups of `size` elements stacked position by position (the last group may be smaller)."""

    def __init__(self, upstream: LazyIterator, size: int, small_last_batch: bool) -> None:
        super().__init__(upstream)
        self.size = size
        self.small_last_batch = small_last_batch
        self.rows: list[Any] = []

    async def __anext__(self) -> Any:
        rows = self.rows
        try:
            while len(rows) < self.size:
                rows.append(await self.upstream.__anext__())
        except StopAsyncIteration:
            if not (rows and self.small_last_batch):
                self.close()
                raise
        self.rows = []
        try:
            out = _tidy(lambda: batch_rows(rows))
        finally:
            for row in rows:
                dispose_element(row)
        return out

    def close(self) -> None:
        for row in self.rows:
            dispose_element(row)
        self.rows = []
        super().close()


class ChainIterator(LazyIterator):
    """The elements of each iterator that next_iterator() returns in turn, until it returns None.

    With `stop_on_empty`, an iterator that yields nothing ends the chain (an endless repeat of an empty
    dataset ends instead of spinning).
    """

    def __init__(self, next_iterator: Callable[[], LazyIterator | None], stop_on_empty: bool = False) -> None:
        self.next_iterator = next_iterator
        self.stop_on_empty = stop_on_empty
        self.current: LazyIterator | None = None
        self.read_any = True  # has the current iterator yielded an element yet

    async def __anext__(self) -> Any:
        while True:
            if self.current is None:
                if self.stop_on_empty and not self.read_any:
                    raise StopAsyncIteration
                self.current = self.next_iterator()
                if self.current is None:
                    raise StopAsyncIteration
                self.read_any = False
            try:
                item = await self.current.__anext__()
            except StopAsyncIteration:
                self.current = None
                continue
            self.read_any = True
            return item

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.current = None


class ZipIterator(LazyIterator):
    """Elements of several iterators combined in the structure (dict, list or tuple) they were given in."""

    def __init__(self, iterators: Any) -> None:
        self.iterators = iterators

    async def __anext__(self) -> Any:
        got: list[Any] = []
        try:
            for it in leaves(self.iterators):
                got.append(await it.__anext__())
        except BaseException:
            for item in got:  # the streams that did yield this round: their elements are dropped
                dispose_element(item)
            self.close()
            raise
        items = iter(got)
        return map_structure(lambda _: next(items), self.iterators)

    def close(self) -> None:
        for it in leaves(self.iterators):
            it.close()


class ShuffleIterator(Upstream):
    """Elements drawn at random from a window of `size` upstream elements, refilled as it empties."""

    def __init__(self, upstream: LazyIterator, size: int, seed: int) -> None:
        super().__init__(upstream)
        self.size = size
        self.random = random.Random(seed)
        self.window: list[Any] = []
        self.exhausted = False

    async def __anext__(self) -> Any:
        window = self.window
        while not self.exhausted and len(window) < self.size:
            try:
                window.append(await self.upstream.__anext__())
            except StopAsyncIteration:
                self.exhausted = True
        if not window:
            raise StopAsyncIteration
        i = self.random.randrange(len(window))
        window[i], window[-1] = window[-1], window[i]
        return window.pop()

    def close(self) -> None:
        for item in self.window:
            dispose_element(item)
        self.window = []
        super().close()


_END = object()


class PrefetchIterator(Upstream):
    """Reads up to `size` elements ahead in a background task, so upstream awaits overlap the consumer's."""

    def __init__(self, upstream: LazyIterator, size: int) -> None:
        super().__init__(upstream)
        self.size = size
        self.queue: asyncio.Queue[Any] | None = None
        self.task: asyncio.Task[None] | None = None
        self.done = False

    async def _produce(self, queue: asyncio.Queue[Any]) -> None:
        while True:
            try:
                item = await self.upstream.__anext__()
            except StopAsyncIteration:
                item = _END
            except Exception as e:
                item = _Failure(e)
            try:
                await queue.put(item)
            except asyncio.CancelledError:  # closed while the queue was full: nobody will read this one
                _discard(item)
                raise
            if item is _END or isinstance(item, _Failure):
                return

    async def __anext__(self) -> Any:
        if self.done:
            raise StopAsyncIteration
        if self.queue is None:
            self.queue = asyncio.Queue(self.size)
            self.task = asyncio.get_running_loop().create_task(self._produce(self.queue))
        item = await self.queue.get()
        if item is _END:
            self.done = True
            raise StopAsyncIteration
        if isinstance(item, _Failure):
            self.done = True
            raise item.error
        return item

    def close(self) -> None:
        self.done = True
        if self.task is not None:
            self.task.cancel()
        while self.queue is not None and not self.queue.empty():
            _discard(self.queue.get_nowait())
        super().close()


class _Failure:
    def __init__(self, error: Exception) -> None:
        self.error = error


def _discard(item: Any) -> None:
    if item is not _END and not isinstance(item, _Failure):
        dispose_element(item)
