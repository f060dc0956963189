"""tf.wasm.set_threads_count / get_threads_count outside the browser: TF.js's contract (the count is read when
the wasm backend starts; get raises until one started), argument checks, and no threaded build without a page."""

from __future__ import annotations

import pytest

import webtf as tf
from webtf.backends.wasm import threads


def test_threads_count_contract_on_the_host() -> None:
    assert tf.wasm.set_threads_count is threads.set_threads_count
    before = threads.requested()
    try:
        tf.wasm.set_threads_count(2)
        assert threads.requested() == 2
        with pytest.raises(TypeError, match="set_threads_count: count must be an int, got str"):
            tf.wasm.set_threads_count("2")  # type: ignore[arg-type]
        assert threads.requested() == 2
        # no browser: no cores to read, so no pool and never the threaded build
        assert threads.pool_size() == 0 and threads.wanted() is False
    finally:
        tf.wasm.set_threads_count(before)
    with pytest.raises(RuntimeError, match="WASM backend not initialized."):  # none starts on the host
        tf.wasm.get_threads_count()
