"""The models' one runner (slots, last-reader freeing, a scope per step, replay) and the shared TensorSpec."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import webtf as tf
from webtf.models.graph.model import TensorSpec as GraphSpec
from webtf.models.layers import TensorSpec as LayersSpec
from webtf.models.runner import Step, TensorSpec, compile_steps, run


class Fn(Step):
    """A step that calls fn(*inputs)."""

    __slots__ = ("fn",)

    def __init__(self, key: str, inputs: list[tuple[str, int]], fn: Any, replay: bool = False) -> None:
        super().__init__(key, inputs, f"node '{key}' (op Test)", set() if replay else None)
        self.fn = fn

    def call(self, ins: list[tf.Tensor]) -> Any:
        return self.fn(*ins)


def test_one_tensor_spec_both_conventions():
    assert GraphSpec is TensorSpec and LayersSpec is TensorSpec
    graph, layers = TensorSpec("x", [-1, 4], "float32"), TensorSpec("x", [None, 4], "float32")
    for spec in (graph, layers):
        assert spec.accepts((7, 4)) and not spec.accepts((7, 5)) and not spec.accepts((4,))
        assert spec.example_shape() == [1, 4]
    assert TensorSpec("x", None, "float32").accepts((2, 3, 4))


def test_run_frees_each_value_after_its_last_reader():
    x = tf.tensor([1.0, 2.0, 3.0])
    before = tf.memory().num_tensors
    seen: list[int] = []

    def probe(t: tf.Tensor) -> tf.Tensor:
        seen.append(tf.memory().num_tensors)
        return tf.mul(t, 2)

    steps = [
        Fn("a", [("x", 0)], lambda t: tf.add(tf.add(t, 1), 1)),  # its inner temporary dies with its scope
        Fn("same", [("a", 0)], lambda t: t),  # passes its input on: one tensor in two slots
        Fn("b", [("same", 0)], probe),  # a and same are read for the last time here
        Fn("c", [("b", 0), ("x", 0)], tf.sub),
    ]
    program = compile_steps(steps, ["x"], [("c", 0)], {}, str, "Node")
    out = run(program, [x], set())
    np.testing.assert_allclose(out[0].data_sync(), (np.array([1, 2, 3]) + 2) * 2 - np.array([1, 2, 3]))
    assert seen == [before + 1]  # only a's output alive when b runs
    assert tf.memory().num_tensors == before + 1 and not x.is_disposed
    out[0].dispose()
    x.dispose()


def test_a_failing_step_frees_everything_and_says_where():
    x = tf.tensor([1.0, 2.0])
    before = tf.memory().num_tensors

    def boom(t: tf.Tensor) -> tf.Tensor:
        tf.add(t, 1)
        raise ValueError("boom")

    steps = [Fn("a", [("x", 0)], lambda t: tf.add(t, 1)), Fn("bad", [("a", 0)], boom)]
    program = compile_steps(steps, ["x"], [("bad", 0)], {}, str, "Node")
    with pytest.raises(ValueError, match=r"^boom\nError in node 'bad' \(op Test\)$"):
        run(program, [x], set())
    with pytest.raises(ValueError, match="Expected 1 inputs, but got 2"):
        run(program, [x, x], set())
    assert tf.memory().num_tensors == before
    x.dispose()


def test_replay_runs_the_recorded_kernels_on_new_inputs():
    calls: list[int] = []

    def relu_sub(a: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
        calls.append(1)
        return tf.relu(tf.sub(a, b))

    steps = [Fn("a", [("x", 0), ("y", 0)], relu_sub, replay=True)]
    program = compile_steps(steps, ["x", "y"], [("a", 0)], {}, str, "Node")
    for xs, ys in (([0.0, 2.0, 5.0], [1.0, 1.0, 1.0]), ([3.0, -1.0, 1.5], [0.5, -2.0, 4.0])):
        x, y = tf.tensor(xs), tf.tensor(ys)
        before = tf.memory().num_tensors
        out = run(program, [x, y], set())[0]  # the second run is a replay
        np.testing.assert_allclose(out.data_sync(), np.maximum(np.array(xs) - np.array(ys), 0))
        assert tf.memory().num_tensors == before + 1
        tf.dispose([out, x, y])
    assert len(calls) == 1 and [r is not None for r in steps[0].replays.values()] == [True]
