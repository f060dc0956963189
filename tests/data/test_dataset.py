"""Host tests: tf.data datasets against plain-Python oracles (values, order, sizes, seeds, ownership).

Every test checks that the live tensor count returns to where it started once the test disposes what it
owns (the items it made and the elements it consumed).
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_in_loop


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def run(coro: Any) -> Any:
    return run_in_loop(coro)


def plain(x: Any) -> Any:
    """An element as plain Python (tensors -> (dtype, nested values)), disposing its tensors."""
    if isinstance(x, tf.Tensor):
        out = (x.dtype, x.array_sync())
        x.dispose()
        return out
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    return x


def collect(ds: tf.data.Dataset) -> list[Any]:
    return [plain(x) for x in run(ds.to_array())]


def numbers(n: int) -> tf.data.Dataset:
    return tf.data.array(list(range(n)))


def test_array_yields_copies_each_pass():
    items = [tf.tensor([i, i + 1]) for i in range(3)]
    ds = tf.data.array(items)
    assert ds.size == 3
    expected = [("int32", [i, i + 1]) for i in range(3)]
    assert collect(ds) == expected
    assert collect(ds) == expected  # a second pass: the list still owns its tensors
    assert all(not t.is_disposed for t in items)
    tf.dispose(items)


def test_async_for_and_iterator():
    async def main() -> list[Any]:
        out = []
        async for x in numbers(4).map(lambda v: v * 10):
            out.append(x)
        it = await numbers(2).iterator()
        out.append(await anext(it))
        out.append(await anext(it))
        with pytest.raises(StopAsyncIteration):
            await anext(it)
        return out

    assert run(main()) == [0, 10, 20, 30, 0, 1]


def test_batch_numbers_tensors_dicts_and_tuples():
    assert collect(numbers(5).batch(2)) == [("int32", [0, 1]), ("int32", [2, 3]), ("int32", [4])]
    assert collect(numbers(5).batch(2, small_last_batch=False)) == [("int32", [0, 1]), ("int32", [2, 3])]
    assert numbers(5).batch(2).size == 3 and numbers(5).batch(2, False).size == 2
    assert collect(tf.data.array([0.5, 1, 2]).batch(3)) == [("float32", [0.5, 1.0, 2.0])]
    assert collect(tf.data.array([True, False]).batch(2)) == [("bool", [True, False])]
    assert collect(tf.data.array([[1, 2], [3, 4]]).batch(2)) == [("int32", [[1, 2], [3, 4]])]

    rng = np.random.default_rng(0)
    xs = rng.normal(size=(5, 2, 3)).astype(np.float32)
    items = [{"xs": tf.tensor(xs[i]), "ys": i % 2, "meta": {"w": tf.tensor([float(i)])}} for i in range(5)]
    got = collect(tf.data.array(items).batch(3))
    assert [g["ys"] for g in got] == [("int32", [0, 1, 0]), ("int32", [1, 0])]
    np.testing.assert_array_equal(np.array(got[0]["xs"][1]), xs[:3])
    np.testing.assert_array_equal(np.array(got[1]["xs"][1]), xs[3:])
    assert got[1]["meta"]["w"] == ("float32", [[3.0], [4.0]])
    tf.dispose(items)

    pairs = [(tf.tensor([i, i]), tf.scalar(i * 1.5)) for i in range(4)]
    got = collect(tf.data.array(pairs).batch(4))
    assert got == [(("int32", [[0, 0], [1, 1], [2, 2], [3, 3]]), ("float32", [0.0, 1.5, 3.0, 4.5]))]
    tf.dispose(pairs)


def test_batch_errors():
    with pytest.raises(ValueError, match="batch_size must be positive"):
        numbers(3).batch(0)
    with pytest.raises(TypeError, match="cannot batch strings"):
        collect(tf.data.array(["a", "b"]).batch(2))
    items = [tf.zeros([2]), tf.zeros([3])]
    with pytest.raises(ValueError, match=r"(?s)matching shapes.*\nError in batch"):
        collect(tf.data.array(items).batch(2))
    with pytest.raises(ValueError, match="element 1 of the batch has no key 'b'"):
        collect(tf.data.array([{"a": 1, "b": 2}, {"a": 3}]).batch(2))
    tf.dispose(items)


def test_map_frees_inputs_and_temporaries():
    items = [tf.tensor([float(i), 2.0 * i]) for i in range(4)]
    ds = tf.data.array(items).map(lambda x: {"sum": x.sum(), "double": x * 2, "same": x})
    got = collect(ds)
    assert [g["sum"] for g in got] == [("float32", 3.0 * i) for i in range(4)]
    assert [g["double"][1] for g in got] == [[2.0 * i, 4.0 * i] for i in range(4)]
    assert [g["same"][1] for g in got] == [[float(i), 2.0 * i] for i in range(4)]
    # a map that drops the tensor: the clone array() made is freed by the map
    assert collect(tf.data.array(items).map(lambda x: x.shape[0])) == [2, 2, 2, 2]
    tf.dispose(items)


def test_map_async_and_for_each_async():
    items = [tf.tensor([i, -i]) for i in range(3)]

    async def to_list(x: tf.Tensor) -> list[int]:
        return await x.array()

    assert collect(tf.data.array(items).map_async(to_list)) == [[0, 0], [1, -1], [2, -2]]

    seen: list[Any] = []

    async def main() -> None:
        await tf.data.array(items).for_each_async(lambda x: seen.append(x.array_sync()))

        async def visit(x: tf.Tensor) -> None:
            seen.append(await x.array())

        await tf.data.array(items).take(1).for_each_async(visit)

    run(main())
    assert seen == [[0, 0], [1, -1], [2, -2], [0, 0]]  # for_each_async freed each element after fn
    tf.dispose(items)


def test_filter_take_skip():
    assert collect(numbers(10).filter(lambda v: v % 3 == 0)) == [0, 3, 6, 9]
    items = [tf.scalar(float(i)) for i in range(6)]
    got = collect(tf.data.array(items).filter(lambda t: t.greater(2.5)))  # a tensor predicate
    assert got == [("float32", 3.0), ("float32", 4.0), ("float32", 5.0)]
    assert collect(tf.data.array(items).skip(4)) == [("float32", 4.0), ("float32", 5.0)]
    assert collect(tf.data.array(items).take(2)) == [("float32", 0.0), ("float32", 1.0)]
    tf.dispose(items)
    assert collect(numbers(5).take(-1)) == list(range(5))
    assert collect(numbers(5).skip(-1)) == list(range(5))
    assert numbers(5).take(3).size == 3 and numbers(2).take(3).size == 2 and numbers(5).skip(7).size == 0
    assert numbers(5).filter(bool).size is None


def test_repeat_concatenate_sizes():
    assert collect(numbers(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert numbers(3).repeat(2).size == 6 and numbers(3).repeat(0).size == 0
    assert numbers(3).repeat().size == math.inf
    assert collect(numbers(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert collect(numbers(0).repeat()) == [] and numbers(0).repeat().size == 0  # an endless repeat of nothing ends
    assert collect(numbers(3).filter(lambda v: v > 5).repeat()) == []
    assert collect(numbers(2).concatenate(numbers(0)).concatenate(numbers(3))) == [0, 1, 0, 1, 2]
    assert numbers(2).concatenate(numbers(3)).size == 5
    assert numbers(2).concatenate(numbers(3).repeat()).size == math.inf
    with pytest.raises(ValueError, match="endless"):
        run(numbers(2).repeat().to_array())


def test_generator_sync_and_async_rerun_each_pass():
    calls = []

    def gen():
        calls.append(1)
        for i in range(3):
            yield {"x": tf.scalar(i)}

    async def agen():
        for i in range(2):
            await asyncio.sleep(0)
            yield [i, tf.tensor([i, i])]

    ds = tf.data.generator(gen)
    assert ds.size is None
    assert collect(ds) == [{"x": ("int32", i)} for i in range(3)]
    assert collect(ds.batch(2)) == [{"x": ("int32", [0, 1])}, {"x": ("int32", [2])}]
    assert len(calls) == 2
    assert collect(tf.data.generator(agen)) == [[0, ("int32", [0, 0])], [1, ("int32", [1, 1])]]
    with pytest.raises(TypeError, match="pass the function"):
        tf.data.generator(gen())
    assert collect(tf.data.generator(lambda: [1, 2])) == [1, 2]
    with pytest.raises(TypeError, match="must return an iterator"):
        collect(tf.data.generator(lambda: 5))


def test_zip_structures_end_with_shortest():
    ds = tf.data.zip({"a": numbers(3), "b": [numbers(5).map(lambda v: v * 2), tf.data.array(["x", "y", "z", "w"])]})
    assert ds.size == 3
    assert collect(ds) == [{"a": i, "b": [2 * i, "xyz"[i]]} for i in range(3)]
    items = [tf.scalar(i) for i in range(4)]
    # the longer stream's extra element read on the last round is freed
    assert collect(tf.data.zip((tf.data.array(items), numbers(2)))) == [(("int32", 0), 0), (("int32", 1), 1)]
    tf.dispose(items)
    with pytest.raises(TypeError, match="must be Datasets"):
        tf.data.zip([numbers(2), 3])


def test_shuffle_is_a_seeded_windowed_permutation():
    n, window = 50, 5
    ds = numbers(n).shuffle(window, seed=7)
    first, second = collect(ds), collect(ds)
    assert sorted(first) == sorted(second) == list(range(n))
    assert first != list(range(n)) and first != second  # each pass reshuffles
    again = numbers(n).shuffle(window, seed=7)
    assert collect(again) == first and collect(again) == second  # the sequence of orders is seeded
    assert collect(numbers(n).shuffle(window, seed=8)) != first
    for pos, value in enumerate(first):  # a window of 5: output i comes from inputs 0..i+4
        assert value < pos + window
    fixed = numbers(n).shuffle(window, seed=3, reshuffle_each_iteration=False)
    assert collect(fixed) == collect(fixed)
    assert collect(numbers(n).shuffle(1, seed=1)) == list(range(n))
    assert collect(numbers(3).shuffle(10, seed="a string seed")) in ([0, 1, 2], [0, 2, 1], [1, 0, 2],
                                                                      [1, 2, 0], [2, 0, 1], [2, 1, 0])  # fmt: skip
    with pytest.raises(ValueError, match="buffer_size must be at least 1"):
        numbers(3).shuffle(0)


def test_prefetch_keeps_order_and_errors():
    assert collect(numbers(20).map(lambda v: v + 1).prefetch(4)) == list(range(1, 21))

    def broken():
        yield 1
        raise RuntimeError("source failed")

    with pytest.raises(RuntimeError, match="source failed"):
        collect(tf.data.generator(broken).prefetch(2))
    with pytest.raises(ValueError, match="buffer_size must be at least 1"):
        numbers(3).prefetch(0)


def test_early_stop_frees_buffered_elements():
    items = [tf.tensor([float(i)]) for i in range(20)]
    base = tf.data.array(items)
    # take() closes its upstream: the shuffle window and prefetch queue hold clones that must be freed
    assert len(collect(base.shuffle(8, seed=1).take(3))) == 3
    assert len(collect(base.prefetch(5).take(2))) == 2
    assert len(collect(base.batch(3).take(1))) == 1

    async def stop_early() -> None:
        before = tf.memory().num_tensors
        it = await base.map(lambda x: x * 2).shuffle(6, seed=2).prefetch(3).iterator()
        first = await anext(it)
        for _ in range(5):
            await asyncio.sleep(0)  # let the prefetch task fill its queue
        first.dispose()
        assert tf.memory().num_tensors >= before + 5 + 3  # the shuffle window and the prefetch queue
        it.close()
        await asyncio.sleep(0)

    run(stop_early())
    tf.dispose(items)


def test_errors_in_transforms_free_the_element():
    items = [tf.tensor([1.0, 2.0])]

    def bad(x: tf.Tensor) -> tf.Tensor:
        y = x * 2  # a temporary the tidy scope frees
        return y.reshape([3])

    with pytest.raises(ValueError, match="reshape"):
        collect(tf.data.array(items).map(bad))
    with pytest.raises(TypeError, match="tidy"):
        collect(tf.data.array(items).map(lambda x: asyncio.sleep(0)))
    tf.dispose(items)
