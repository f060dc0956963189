"""Host tests: training steps recorded once and replayed (models/step_capture.py), against numpy.

fit with Adam on the test_training MLP equals an Adam loop in float64 numpy while most steps replay; a net
with batch normalization (moving statistics assigned in the step), a max-norm constraint (a variable read
after its update) and an accuracy metric trains to the same bits replayed as run the normal way; what changes
between steps (the learning rate, weights set by hand, a layer made untrainable, the batch size) is used;
dropout's random values refuse the capture. Every test checks tf.memory() and the replay counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models.test_layers import artifacts, layer, load, sequential
from tests.models.test_training import B1, B2, W1, W2, X, Y, fit, mlp
from webtf.models import capture


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def counts() -> dict[str, int]:
    return dict(capture.STATS)


def delta(before: dict[str, int]) -> dict[str, int]:
    return {k: capture.STATS[k] - v for k, v in before.items() if capture.STATS[k] != v}


def numpy_adam(lr: float, batch: int, epochs: int) -> tuple[list[float], list[np.ndarray]]:
    """Loss per epoch and final weights of the MLP trained by Adam (beta 0.9 / 0.999, epsilon 1e-7) in float64."""
    ws = [w.astype(np.float64) for w in (W1, B1, W2, B2)]
    ms = [np.zeros_like(w) for w in ws]
    vs = [np.zeros_like(w) for w in ws]
    t, history = 0, []
    for _ in range(epochs):
        total = 0.0
        for s in range(0, len(X), batch):
            xb, yb = X[s : s + batch].astype(np.float64), Y[s : s + batch]
            n = len(xb)
            h = np.maximum(xb @ ws[0] + ws[1], 0)
            z = h @ ws[2] + ws[3]
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            total += -(yb * np.log(np.clip(p, 1e-7, 1 - 1e-7))).sum(1).mean() * n
            dz = (p - yb) / n
            dh = dz @ ws[2].T * (h > 0)
            t += 1
            for w, m, v, g in zip(ws, ms, vs, [xb.T @ dh, dh.sum(0), h.T @ dz, dz.sum(0)], strict=True):
                m[:] = 0.9 * m + 0.1 * g
                v[:] = 0.999 * v + 0.001 * g * g
                w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-7)
        history.append(total / len(X))
    return history, ws


def test_adam_fit_replays_and_matches_numpy():
    model = mlp()
    model.compile(tf.train.adam(0.05, 0.9, 0.999, 1e-7), "categoricalCrossentropy", ["accuracy"])
    before = counts()
    hist = fit(model, X, Y, batch_size=4, epochs=4, shuffle=False, verbose=0)
    # 12 steps: the first makes Adam's slots; batches of 4 and of 2 are each recorded once, the rest replay
    assert delta(before) == {"captured": 2, "replayed": 9}
    losses, ws = numpy_adam(0.05, 4, 4)
    np.testing.assert_allclose(hist.history["loss"], losses, rtol=1e-5)
    for got, ref in zip(model.get_weights(), ws, strict=True):
        np.testing.assert_allclose(got.data_sync(), ref.ravel(), rtol=1e-4, atol=1e-5)
    assert model.optimizer.iterations == 12
    model.optimizer.dispose()  # (a given optimizer outlives the model, as in TF.js)
    model.dispose()


def bn_net() -> Any:
    rng = np.random.default_rng(5)
    topo = sequential(
        layer("Dense", "d1", units=6, activation="relu", batch_input_shape=[None, 4],
              kernel_constraint={"class_name": "MaxNorm", "config": {"max_value": 0.8, "axis": 0}}),
        layer("BatchNormalization", "bn", momentum=0.7),
        layer("Dense", "d2", units=3, activation="softmax"),
    )  # fmt: skip
    weights = {
        "d1/kernel": rng.normal(size=(4, 6)) * 0.6, "d1/bias": rng.normal(size=6) * 0.1,
        "bn/gamma": 1 + rng.normal(size=6) * 0.1, "bn/beta": rng.normal(size=6) * 0.1,
        "bn/moving_mean": np.zeros(6), "bn/moving_variance": np.ones(6),
        "d2/kernel": rng.normal(size=(6, 3)) * 0.6, "d2/bias": np.zeros(3),
    }  # fmt: skip
    return load(*artifacts(topo, weights))


def train_bn(enabled: bool) -> tuple[list[float], list[Any], dict[str, int]]:
    model = bn_net()
    model.compile(tf.train.adam(0.02, 0.9, 0.999, 1e-7), "categoricalCrossentropy", ["accuracy"])
    before = counts()
    capture.ENABLED = enabled
    try:
        hist = fit(model, X, Y, batch_size=3, epochs=3, shuffle=False, verbose=0)
    finally:
        capture.ENABLED = True
    weights = [list(w.data_sync()) for w in model.get_weights()]
    model.optimizer.dispose()
    model.dispose()
    return hist.history["loss"] + hist.history["acc"], weights, delta(before)


def test_batch_norm_and_constraint_replay_bit_exact():
    eager_hist, eager_ws, eager_stats = train_bn(False)
    hist, ws, stats = train_bn(True)
    assert eager_stats == {}
    assert stats == {"captured": 2, "replayed": 9}  # batches of 3 and of 1
    assert hist == eager_hist
    assert ws == eager_ws  # moving mean and variance included (assigned in the step)
    assert max(abs(w) for w in np.array(ws[0]).reshape(4, 6).T.ravel()) > 0  # (trained, not zeros)
    norms = np.sqrt((np.array(ws[0]).reshape(4, 6) ** 2).sum(0))
    assert norms.max() <= 0.8 + 1e-6  # the constraint held after replayed steps


def test_changes_between_steps_are_used():
    model = mlp()
    optimizer = tf.train.sgd(0.1)
    model.compile(optimizer, "categoricalCrossentropy")
    x, y = tf.tensor(X[:4]), tf.tensor(Y[:4])
    before = counts()
    for _ in range(3):
        run_sync(model.train_on_batch(x, y))
    assert delta(before) == {"captured": 1, "replayed": 1}
    # weights set by hand and a new learning rate: the next replayed step starts from them
    new = [tf.tensor(w) for w in (W1 * 0.5, B1, W2, B2)]
    model.set_weights(new)
    tf.dispose(new)
    optimizer.learning_rate = 0.3
    run_sync(model.train_on_batch(x, y))
    assert delta(before) == {"captured": 1, "replayed": 2}
    xb, yb = X[:4].astype(np.float64), Y[:4]
    ws = [w.astype(np.float64) for w in (W1 * np.float32(0.5), B1, W2, B2)]
    h = np.maximum(xb @ ws[0] + ws[1], 0)
    z = h @ ws[2] + ws[3]
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dz = (p - yb) / 4
    dh = dz @ ws[2].T * (h > 0)
    for got, w, g in zip(model.get_weights(), ws, [xb.T @ dh, dh.sum(0), h.T @ dz, dz.sum(0)], strict=True):
        np.testing.assert_allclose(got.data_sync(), (w - 0.3 * g).ravel(), rtol=1e-5, atol=1e-6)
    # an untrainable layer: other variables, so another recording; its weights stay
    model.layers[0].trainable = False
    frozen = model.layers[0].get_weights()[0].data_sync()
    for _ in range(2):
        run_sync(model.train_on_batch(x, y))
    assert delta(before) == {"captured": 2, "replayed": 3}
    assert model.layers[0].get_weights()[0].data_sync() == frozen
    tf.dispose([x, y])
    model.dispose()


def test_dropout_refuses():
    topo = sequential(
        layer("Dense", "d1", units=5, activation="relu", batch_input_shape=[None, 4]),
        layer("Dropout", "drop", rate=0.5),
        layer("Dense", "d2", units=3, activation="softmax"),
    )
    model = load(*artifacts(topo, {"d1/kernel": W1, "d1/bias": B1, "d2/kernel": W2, "d2/bias": B2}))
    model.compile("adam", "categoricalCrossentropy")
    before = counts()
    hist = fit(model, X, Y, batch_size=5, epochs=3, shuffle=False, verbose=0)
    assert delta(before) == {"refused": 1}  # recorded once, refused: every step runs the normal way
    assert all(np.isfinite(hist.history["loss"]))
    model.dispose()


def adam_steps(enabled: bool) -> tuple[list[float], list[Any], dict[str, int]]:
    model = mlp()
    optimizer = tf.train.adam(0.05, 0.9, 0.999, 1e-7)
    model.compile(optimizer, "categoricalCrossentropy")
    x, y = tf.tensor(X[:5]), tf.tensor(Y[:5])
    before = counts()
    capture.ENABLED = enabled
    try:
        losses = [run_sync(model.train_on_batch(x, y)) for _ in range(3)]
        state = optimizer.get_weights()  # the slots back as new variables: the recording reads the old ones
        run_sync(optimizer.set_weights(state))
        tf.dispose(state[0].tensor)
        losses += [run_sync(model.train_on_batch(x, y)) for _ in range(4)]
    finally:
        capture.ENABLED = True
    weights = [list(w.data_sync()) for w in model.get_weights()]
    tf.dispose([x, y])
    optimizer.dispose()
    model.dispose()
    return losses, weights, delta(before)


def test_replaced_optimizer_slots_record_again():
    eager_losses, eager_ws, _ = adam_steps(False)
    losses, ws, stats = adam_steps(True)
    # steps: slots made, recorded, replayed | slots replaced: dropped (runs normally), recorded, replayed x 2
    assert stats == {"captured": 2, "replayed": 3, "dropped": 1}
    assert losses == eager_losses
    assert ws == eager_ws


def test_stateful_rnn_steps_are_not_recorded():
    model = tf.sequential()
    model.add(tf.layers.simple_rnn(units=3, stateful=True, batch_input_shape=[2, 4, 2]))
    model.add(tf.layers.dense(units=2))
    model.compile("sgd", "meanSquaredError")
    x, y = tf.tensor(np.linspace(-1, 1, 16).reshape(2, 4, 2)), tf.tensor(np.ones((2, 2)))
    before = counts()
    for _ in range(3):
        run_sync(model.train_on_batch(x, y))
    assert delta(before) == {}
    model.reset_states()  # frees the states training kept (TF.js's keptStates)
    tf.dispose([x, y, *model.layers[0].states])  # (model.dispose() leaves a stateful RNN's states)
    model.dispose()
