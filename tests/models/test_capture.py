"""Capture and replay of whole model runs (models/capture.py) on the host: replayed outputs against numpy, the
free plan against poisoned buffers, invalidation, and the runs that must not be captured."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from webtf.engine import ENGINE
from webtf.models.capture import STATS
from webtf.models.runner import Step, compile_steps, run


class Fn(Step):
    """A step that calls fn(*inputs)."""

    __slots__ = ("fn",)

    def __init__(self, key: str, inputs: list[tuple[str, int]], fn: Any) -> None:
        super().__init__(key, inputs, f"node '{key}' (op Test)")
        self.fn = fn

    def call(self, ins: list[tf.Tensor]) -> Any:
        return self.fn(*ins)


@pytest.fixture(params=["cpu", "numpy"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    previous = tf.get_backend()
    assert run_sync(tf.set_backend(request.param))
    yield request.param
    run_sync(tf.set_backend(previous))


def _program(w: tf.Tensor) -> Any:
    """x -> a = x * w + 1 (a number made in the run), same = a (one buffer, two slots), s = split(same) (two
    outputs), out0 = s0 - x, out1 = reshape(s1) (shares s1's buffer); b, an unused branch."""
    steps = [
        Fn("a", [("x", 0), ("w", 0)], lambda x, w: tf.add(tf.mul(x, w), 1)),
        Fn("same", [("a", 0)], lambda t: t),
        Fn("unused", [("x", 0)], lambda t: tf.exp(t)),
        Fn("s", [("same", 0)], lambda t: tf.split(t, 2, 1)),
        Fn("out0", [("s", 0), ("x", 0)], lambda s0, x: tf.sub(s0, tf.slice(x, [0, 0], [-1, 2]))),
        Fn("out1", [("s", 1)], lambda s1: tf.reshape(s1, [-1])),
    ]
    return compile_steps(steps, ["x"], [("out0", 0), ("out1", 0)], {"w": w}, str, "Node")


def _expected(xv: np.ndarray, wv: np.ndarray) -> list[np.ndarray]:
    a = xv * wv + 1
    return [a[:, :2] - xv[:, :2], a[:, 2:].reshape(-1)]


def _check(program: Any, xv: np.ndarray, wv: np.ndarray) -> None:
    x = tf.tensor(xv.astype(np.float32))
    outs = run(program, [x], set(), capture=True)
    for got, want in zip(outs, _expected(xv, wv), strict=True):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
        assert got.shape == want.shape
    tf.dispose(outs)
    x.dispose()


def test_replay_matches_numpy_and_frees_everything(backend: str):
    wv = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)
    w = tf.tensor(wv)
    program = _program(w)
    before, stats = tf.memory().num_tensors, dict(STATS)
    rng = np.random.default_rng(0)
    for _ in range(3):
        _check(program, rng.uniform(-1, 1, (3, 4)), wv)
        assert tf.memory().num_tensors == before
    assert STATS["captured"] - stats["captured"] == 1 and STATS["replayed"] - stats["replayed"] == 2
    assert ENGINE.memory().num_bytes == w.size * 4
    w.dispose()


def test_free_plan_never_frees_a_live_buffer(backend: str, monkeypatch: pytest.MonkeyPatch):
    """Every freed buffer is overwritten with NaN first: a buffer freed while a later kernel still reads it
    would show up as NaN in the outputs."""
    b = ENGINE.backend
    free = b.dispose_data

    def poison(data_id: int) -> None:
        values = b.data.get(data_id)
        if values is not None:
            if hasattr(values, "fill"):  # a numpy array
                if values.dtype.kind == "f":
                    values.fill(np.nan)
            elif values.typecode == "f":
                values[:] = type(values)("f", [float("nan")] * len(values))
        free(data_id)

    monkeypatch.setattr(b, "dispose_data", poison)
    wv = np.array([[0.5, -1.0, 2.0, 3.0]], np.float32)
    w = tf.tensor(wv)
    program = _program(w)
    for seed in range(3):
        _check(program, np.random.default_rng(seed).uniform(-1, 1, (2, 4)), wv)
    assert program.captures and all(c is not None for c in program.captures.values())
    w.dispose()


def test_new_signature_flags_or_backend_capture_anew(backend: str):
    wv = np.ones((1, 4), np.float32)
    w = tf.tensor(wv)
    program = _program(w)
    stats = dict(STATS)
    _check(program, np.ones((2, 4)), wv)
    _check(program, np.ones((2, 4)), wv)  # replayed
    _check(program, np.ones((5, 4)), wv)  # another batch size: a new capture
    tf.env().set("KEEP_INTERMEDIATE_TENSORS", False)  # any flag set: a new capture
    _check(program, np.ones((2, 4)), wv)
    other = "numpy" if backend == "cpu" else "cpu"
    run_sync(tf.set_backend(other))
    _check(program, np.ones((2, 4)), wv)  # another backend
    run_sync(tf.set_backend(backend))
    assert STATS["captured"] - stats["captured"] == 4 and STATS["replayed"] - stats["replayed"] == 1
    assert len(program.captures) == 4
    w.dispose()


def test_a_disposed_weight_stops_the_replay(backend: str):
    wv = np.full((1, 4), 2.0, np.float32)
    w = tf.tensor(wv)
    program = _program(w)
    _check(program, np.ones((2, 4)), wv)
    w.dispose()
    x = tf.tensor(np.ones((2, 4), np.float32))
    before = tf.memory().num_tensors
    with pytest.raises(ValueError, match="disposed"):
        run(program, [x], set(), capture=True)
    assert tf.memory().num_tensors == before
    x.dispose()


def test_data_dependent_and_random_runs_are_not_captured(backend: str):
    stats = dict(STATS)
    for fn in (
        lambda t: tf.mul(t, float(tf.max(t).data_sync()[0])),  # reads its input's values
        lambda t: tf.add(t, tf.random_uniform(list(t.shape))),  # random values
    ):
        program = compile_steps([Fn("y", [("x", 0)], fn)], ["x"], [("y", 0)], {}, str, "Node")
        for scale in (1.0, 2.0):
            x = tf.tensor(np.full((2, 2), scale, np.float32))
            (y,) = run(program, [x], set(), capture=True)
            if fn.__code__.co_names.count("max"):
                np.testing.assert_allclose(y.numpy(), np.full((2, 2), scale * scale))
            else:
                assert ((y.numpy() >= scale) & (y.numpy() < scale + 1)).all()
            tf.dispose([x, y])
        assert list(program.captures.values()) == [None]
    assert STATS["refused"] - stats["refused"] == 2 and STATS["replayed"] == stats["replayed"]


def test_arena_plan_never_overlaps_live_blocks():
    """backends/wasm/replay.plan: blocks whose live ranges overlap never share bytes; others may."""
    from webtf.backends.wasm.replay import plan

    rng = np.random.default_rng(0)
    for _ in range(20):
        blocks = {}
        for i in range(60):
            start = int(rng.integers(-1, 100))
            end = None if rng.random() < 0.1 else start + int(rng.integers(0, 30))
            blocks[i] = [0, int(rng.integers(0, 5000)), 0, start, end]
        offsets, size = plan(blocks, 130)
        spans = {i: (b[3], 131 if b[4] is None else max(b[4], b[3] + 1)) for i, b in blocks.items()}
        for i, a in blocks.items():
            assert offsets[i] % 64 == 0 and offsets[i] + a[1] <= size
            for j, b in blocks.items():
                if i < j and spans[i][0] < spans[j][1] and spans[j][0] < spans[i][1]:
                    assert offsets[i] + a[1] <= offsets[j] or offsets[j] + b[1] <= offsets[i], (i, j)
        assert size < sum(b[1] + 64 for b in blocks.values())  # bytes are shared
