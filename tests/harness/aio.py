"""Host tests await webtf's coroutines with run_sync, not asyncio.run.

pytest-playwright drives Playwright's sync API, which keeps an asyncio loop marked running on the main thread
for the whole session, so asyncio.run() (or any second loop) fails there once a browser test has started.
On the host nothing webtf awaits ever suspends (the cpu backend reads at once, model files are read
synchronously), so the coroutine can be stepped to its end with no loop at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run `awaitable` to completion without an event loop and return its result (or raise its exception).

    A bare `yield` (as in asyncio.sleep(0)) is stepped over; waiting on a real future raises RuntimeError.
    """
    steps = awaitable.__await__()
    try:
        while True:
            pending = steps.send(None)
            if pending is not None:
                steps.close()
                raise RuntimeError(f"run_sync: {awaitable!r} waits on {pending!r}, which needs an event loop")
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def run_in_loop(awaitable: Awaitable[T]) -> T:
    """Run `awaitable` on a real asyncio loop (for code that makes tasks, such as tf.data's prefetch).

    While Playwright's loop is marked running on this thread, the loop runs on a short-lived worker thread;
    webtf is used by one thread at a time either way, as the caller waits for the result.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_as_coroutine(awaitable))
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _as_coroutine(awaitable)).result()


async def _as_coroutine(awaitable: Awaitable[T]) -> T:
    return await awaitable
