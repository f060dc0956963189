"""Host tests await webtf's coroutines with run_sync, not asyncio.run.

pytest-playwright drives Playwright's sync API, which keeps an asyncio loop marked running on the main thread
for the whole session, so asyncio.run() (or any second loop) fails there once a browser test has started.
On the host nothing webtf awaits ever suspends (the cpu backend reads at once, model files are read
synchronously), so the coroutine can be stepped to its end with no loop at all.
"""

from __future__ import annotations

from collections.abc import Awaitable
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
