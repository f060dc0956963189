"""Dataset (TF.js tf.data.Dataset): a recipe for a stream of elements, re-run by every iteration.

`async for x in ds` (or `await ds.iterator()`) starts a fresh pass; each transform returns a new Dataset
whose `size` follows TF.js's rules (None when unknown, math.inf when endless).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from .containers import leaves, map_structure
from .iterators import (
    BatchIterator,
    ChainIterator,
    FilterIterator,
    GeneratorIterator,
    ItemsIterator,
    LazyIterator,
    MapIterator,
    PrefetchIterator,
    ShuffleIterator,
    SkipIterator,
    TakeIterator,
    ZipIterator,
)

Size = int | float | None  # a count, math.inf, or None (unknown)


def _count(value: Any, name: str, op: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Error in Dataset.{op}: {name} must be an int, got {value!r}")
    return value


class Dataset:
    """An ordered stream of elements (tensors, numbers, strings in dicts/lists/tuples)."""

    def __init__(self, make_iterator: Callable[[], LazyIterator], size: Size = None) -> None:
        self._make_iterator = make_iterator
        self.size = size

    def __aiter__(self) -> LazyIterator:
        return self._make_iterator()

    async def iterator(self) -> LazyIterator:
        """A fresh pass over the elements (close() it to stop early and free what it buffers)."""
        return self._make_iterator()

    def batch(self, batch_size: int, small_last_batch: bool = True) -> Dataset:
        """Groups of batch_size elements, stacked: tensors with tf.stack, numbers into one tensor, dicts by key."""
        batch_size = _count(batch_size, "batch_size", "batch")
        if batch_size <= 0:
            raise ValueError(f"Error in Dataset.batch: batch_size must be positive, got {batch_size}")
        size = self.size
        if size is not None and size != math.inf:
            size = math.ceil(size / batch_size) if small_last_batch else size // batch_size
        return Dataset(lambda: BatchIterator(self._make_iterator(), batch_size, small_last_batch), size)

    def concatenate(self, other: Dataset) -> Dataset:
        """This dataset's elements, then other's."""
        if not isinstance(other, Dataset):
            raise TypeError(f"Error in Dataset.concatenate: expected a Dataset, got {type(other).__name__}")
        if math.inf in (self.size, other.size):
            size: Size = math.inf
        elif self.size is not None and other.size is not None:
            size = self.size + other.size
        else:
            size = None

        def make() -> LazyIterator:
            parts = [other, self]
            return ChainIterator(lambda: parts.pop()._make_iterator() if parts else None)

        return Dataset(make, size)

    def filter(self, predicate: Callable[[Any], Any]) -> Dataset:
        """The elements for which predicate(element) is true (run in a tidy scope)."""
        return Dataset(
            lambda: FilterIterator(self._make_iterator(), predicate),
            math.inf if self.size == math.inf else None,
        )

    async def for_each_async(self, fn: Callable[[Any], Any]) -> None:
        """Call fn (sync or async) on every element; each element is freed after fn returns."""
        await self._make_iterator().for_each_async(fn)

    def map(self, transform: Callable[[Any], Any]) -> Dataset:
        """transform(element) in a tidy scope; the input's tensors it does not return are freed."""
        return Dataset(lambda: MapIterator(self._make_iterator(), transform, False), self.size)

    def map_async(self, transform: Callable[[Any], Any]) -> Dataset:
        """await transform(element) (no tidy scope: free temporaries yourself); unreturned inputs are freed."""
        return Dataset(lambda: MapIterator(self._make_iterator(), transform, True), self.size)

    def prefetch(self, buffer_size: int) -> Dataset:
        """Read up to buffer_size elements ahead, in a background task."""
        buffer_size = _count(buffer_size, "buffer_size", "prefetch")
        if buffer_size < 1:
            raise ValueError(f"Error in Dataset.prefetch: buffer_size must be at least 1, got {buffer_size}")
        return Dataset(lambda: PrefetchIterator(self._make_iterator(), buffer_size), self.size)

    def repeat(self, count: int | None = None) -> Dataset:
        """The elements `count` times over (None or a negative count: endlessly), each pass a fresh iteration."""
        if count is not None:
            count = _count(count, "count", "repeat")
        if count == 0 or self.size == 0:
            size: Size = 0
        elif count is not None and count > 0:
            size = None if self.size is None else self.size * count
        else:
            size = None if self.size is None else math.inf

        def make() -> LazyIterator:
            left = [math.inf if count is None or count < 0 else count]

            def next_pass() -> LazyIterator | None:
                if left[0] <= 0:
                    return None
                left[0] -= 1
                return self._make_iterator()

            return ChainIterator(next_pass, stop_on_empty=True)

        return Dataset(make, size)

    def skip(self, count: int) -> Dataset:
        """All but the first `count` elements (a negative count skips none)."""
        count = max(_count(count, "count", "skip"), 0)
        size = self.size if self.size is None or self.size == math.inf else max(self.size - count, 0)
        return Dataset(lambda: SkipIterator(self._make_iterator(), count), size)

    def shuffle(
        self, buffer_size: int, seed: int | str | None = None, reshuffle_each_iteration: bool = True
    ) -> Dataset:
        """Elements drawn at random from a window of buffer_size; a seed makes the order reproducible.

        The seed feeds Python's random.Random, so the order differs from TF.js's seedrandom for the same seed.
        With reshuffle_each_iteration, every pass draws a new order (the sequence of orders is seeded too).
        """
        buffer_size = _count(buffer_size, "buffer_size", "shuffle")
        if buffer_size < 1:
            hint = f"; to shuffle everything, pass the dataset's size ({self.size})" if self.size else ""
            raise ValueError(
                f"Error in Dataset.shuffle: buffer_size must be at least 1, got {buffer_size}{hint}"
            )
        seeds = random.Random(seed) if seed is not None else random.Random()
        first = seeds.getrandbits(64)

        def make() -> LazyIterator:
            pass_seed = seeds.getrandbits(64) if reshuffle_each_iteration else first
            return ShuffleIterator(self._make_iterator(), buffer_size, pass_seed)

        return Dataset(make, self.size)

    def take(self, count: int) -> Dataset:
        """The first `count` elements (a negative count takes all)."""
        count = _count(count, "count", "take")
        if count < 0:
            return Dataset(self._make_iterator, self.size)
        size = None if self.size is None else min(self.size, count)
        return Dataset(lambda: TakeIterator(self._make_iterator(), count), size)

    async def to_array(self) -> list[Any]:
        """Every element in a list (the caller owns their tensors)."""
        if self.size == math.inf:
            raise ValueError("Error in Dataset.to_array: cannot convert an endless dataset to a list")
        return await self._make_iterator().to_array()


def array(items: list[Any]) -> Dataset:
    """A dataset of the items of a list; each pass yields copies, so the list keeps its tensors."""
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"Error in tf.data.array: expected a list of elements, got {type(items).__name__}")
    items = list(items)
    return Dataset(lambda: ItemsIterator(items), len(items))


def generator(fn: Callable[[], Any]) -> Dataset:
    """A dataset of what fn() yields: a generator function, sync or async, called once per pass (it may also
    return any iterable, async iterator or awaitable of one)."""
    if not callable(fn):
        raise TypeError(
            f"Error in tf.data.generator: expected a function that returns an iterator (e.g. a generator "
            f"function), got {type(fn).__name__}; pass the function, not the generator it returns"
        )
    return Dataset(lambda: GeneratorIterator(fn))


def zip_datasets(datasets: Any) -> Dataset:
    """Elements of several datasets side by side, in their structure (tf.data.zip: a dict, list or tuple).

    It ends with the shortest dataset.
    """
    if not isinstance(datasets, (dict, list, tuple)):
        raise TypeError(f"Error in tf.data.zip: expected a dict, list or tuple of Datasets, got {datasets!r}")
    datasets_in = leaves(datasets)
    for d in datasets_in:
        if not isinstance(d, Dataset):
            raise TypeError(f"Error in tf.data.zip: the leaves of the structure must be Datasets, got {d!r}")
    sizes = [d.size for d in datasets_in]
    size = None if None in sizes or not sizes else min(sizes)  # type: ignore[type-var]
    return Dataset(lambda: ZipIterator(map_structure(lambda d: d._make_iterator(), datasets)), size)
