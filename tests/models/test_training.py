"""Host tests: compile / fit / evaluate / train_on_batch / save of layers models, against numpy.

A two-layer MLP (relu, softmax) trained by SGD is replayed in float64 numpy; callbacks order, early
stopping, validation split, class weights, fit_dataset, bad input and trainingConfig round trips get their
own tests. The autouse fixture checks that no test leaks a tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models.test_layers import artifacts, layer, load, sequential
from webtf.models.layers import LayersModel, load_layers_model


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


rng = np.random.default_rng(3)
W1 = (rng.normal(size=(4, 5)) * 0.5).astype(np.float32)
B1 = (rng.normal(size=5) * 0.1).astype(np.float32)
W2 = (rng.normal(size=(5, 3)) * 0.5).astype(np.float32)
B2 = (rng.normal(size=3) * 0.1).astype(np.float32)
X = rng.normal(size=(10, 4)).astype(np.float32)
LABELS = rng.integers(0, 3, 10)
Y = np.eye(3, dtype=np.float32)[LABELS]


def mlp() -> LayersModel:
    topo = sequential(
        layer("Dense", "d1", units=5, activation="relu", batch_input_shape=[None, 4], use_bias=True),
        layer("Dense", "d2", units=3, activation="softmax", use_bias=True),
    )
    return load(*artifacts(topo, {"d1/kernel": W1, "d1/bias": B1, "d2/kernel": W2, "d2/bias": B2}))


def numpy_sgd(
    lr: float, batch: int, epochs: int, weights: Any = None
) -> tuple[list[float], list[np.ndarray]]:
    """Loss per epoch (batch-size-weighted mean of batch losses) and final weights of SGD in float64."""
    ws = [w.astype(np.float64) for w in (W1, B1, W2, B2)]
    history = []
    for _ in range(epochs):
        total = 0.0
        for s in range(0, len(X), batch):
            xb, yb = X[s : s + batch].astype(np.float64), Y[s : s + batch]
            n = len(xb)
            sw = np.ones(n) if weights is None else weights[s : s + batch]
            h = np.maximum(xb @ ws[0] + ws[1], 0)
            z = h @ ws[2] + ws[3]
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            total += (-(yb * np.log(np.clip(p, 1e-7, 1 - 1e-7))).sum(1) * sw).mean() * n
            dz = (p - yb) * sw[:, None] / n
            dh = dz @ ws[2].T * (h > 0)
            for w, g in zip(ws, [xb.T @ dh, dh.sum(0), h.T @ dz, dz.sum(0)], strict=True):
                w -= lr * g
        history.append(total / len(X))
    return history, ws


def fit(model: LayersModel, *args: Any, **kwargs: Any) -> Any:
    xs = [tf.tensor(a) for a in args]
    try:
        return run_sync(model.fit(*xs, **kwargs))
    finally:
        tf.dispose(xs)


def test_fit_mlp_matches_numpy_sgd():
    model = mlp()
    model.compile(tf.train.sgd(0.1), "categoricalCrossentropy", ["accuracy"])
    counts: list[int] = []
    hist = fit(model, X, Y, batch_size=4, epochs=3, shuffle=False, verbose=0,
               callbacks={"on_epoch_end": lambda e, logs: counts.append(tf.memory().num_tensors)})  # fmt: skip
    losses, ws = numpy_sgd(0.1, 4, 3)
    assert hist.epoch == [0, 1, 2]
    assert sorted(hist.history) == ["acc", "loss"]
    np.testing.assert_allclose(hist.history["loss"], losses, rtol=1e-5)
    for got, ref in zip(model.get_weights(), ws, strict=True):
        np.testing.assert_allclose(got.data_sync(), ref.ravel(), rtol=1e-4, atol=1e-6)
    assert len(set(counts)) == 1, counts
    model.dispose()


def test_snake_case_names_and_evaluate():
    model = mlp()
    model.compile("sgd", "categorical_crossentropy", ["categorical_accuracy", "mse"])
    x, y = tf.tensor(X), tf.tensor(Y)
    loss, acc, mse = model.evaluate(x, y, batch_size=3)
    p = model.predict(x)
    probs = np.array(p.data_sync()).reshape(10, 3)
    ref_loss = -(Y * np.log(np.clip(probs, 1e-7, 1 - 1e-7))).sum(1).mean()
    assert abs(loss.data_sync()[0] - ref_loss) < 1e-5
    assert abs(acc.data_sync()[0] - (probs.argmax(1) == LABELS).mean()) < 1e-6
    assert abs(mse.data_sync()[0] - ((probs - Y) ** 2).mean()) < 1e-6
    tf.dispose([loss, acc, mse, p, x, y])
    model.dispose()


def test_train_on_batch_and_class_weight():
    model = mlp()
    model.compile(tf.train.sgd(0.2), "categoricalCrossentropy")
    weights = {0: 1.0, 1: 2.0, 2: 0.5}
    x, y = tf.tensor(X), tf.tensor(Y)
    loss = run_sync(model.train_on_batch(x, y, class_weight=weights))
    ref, ws = numpy_sgd(0.2, 10, 1, np.array([weights[int(c)] for c in LABELS]))
    assert abs(loss - ref[0]) < 1e-5
    np.testing.assert_allclose(model.get_weights()[0].data_sync(), ws[0].ravel(), rtol=1e-4, atol=1e-6)
    tf.dispose([x, y])
    model.dispose()


class Recorder(tf.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[Any] = []

    async def on_train_begin(self, logs=None):
        self.events.append("train_begin")

    async def on_epoch_begin(self, epoch, logs=None):
        self.events.append(("epoch_begin", epoch))

    async def on_batch_begin(self, batch, logs=None):
        self.events.append(("batch_begin", batch))

    def on_batch_end(self, batch, logs=None):  # a sync hook works too
        self.events.append(("batch_end", batch, sorted(logs)))

    async def on_epoch_end(self, epoch, logs=None):
        self.events.append(("epoch_end", epoch, sorted(logs)))

    async def on_train_end(self, logs=None):
        self.events.append("train_end")


def test_callbacks_order_and_validation_split():
    model = mlp()
    model.compile(tf.train.sgd(0.1), "categoricalCrossentropy", ["acc"])
    rec = Recorder()
    hist = fit(model, X, Y, batch_size=5, epochs=2, shuffle=False, verbose=0, validation_split=0.2,
               callbacks=[rec], initial_epoch=0)  # fmt: skip
    keys = ["acc", "loss", "val_acc", "val_loss"]
    batch_keys = ["acc", "batch", "loss", "size"]
    assert rec.events == [
        "train_begin",
        ("epoch_begin", 0), ("batch_begin", 0), ("batch_end", 0, batch_keys), ("batch_begin", 1),
        ("batch_end", 1, batch_keys), ("epoch_end", 0, keys),
        ("epoch_begin", 1), ("batch_begin", 0), ("batch_end", 0, batch_keys), ("batch_begin", 1),
        ("batch_end", 1, batch_keys), ("epoch_end", 1, keys),
        "train_end",
    ]  # fmt: skip
    # validation: the last 20% of the samples, evaluated with the weights after each epoch
    assert sorted(hist.history) == keys
    xv, yv = tf.tensor(X[8:]), tf.tensor(Y[8:])
    loss, _ = model.evaluate(xv, yv)
    assert abs(loss.data_sync()[0] - hist.history["val_loss"][-1]) < 1e-6
    tf.dispose([xv, yv, loss, _])
    model.dispose()


def test_early_stopping():
    model = mlp()
    model.compile(tf.train.sgd(0.0), "categoricalCrossentropy")  # nothing improves
    hist = fit(model, X, Y, epochs=10, verbose=0, validation_data=None, validation_split=0.3,
               callbacks=[tf.callbacks.early_stopping(monitor="val_loss", patience=2)])  # fmt: skip
    assert hist.epoch == [0, 1, 2]
    model.compile(tf.train.sgd(0.5), "categoricalCrossentropy")
    hist = fit(model, X, Y, epochs=4, verbose=0, shuffle=False,
               callbacks=[tf.callbacks.early_stopping(monitor="loss", patience=0)])  # fmt: skip
    assert hist.epoch == [0, 1, 2, 3]  # the training loss keeps falling
    model.dispose()


def test_fit_dataset_matches_fit():
    model, other = mlp(), mlp()
    model.compile(tf.train.sgd(0.1), "categoricalCrossentropy", ["accuracy"])
    other.compile(tf.train.sgd(0.1), "categoricalCrossentropy", ["accuracy"])
    ds = tf.data.zip({"xs": tf.data.array(X.tolist()), "ys": tf.data.array(Y.tolist())}).batch(4)
    h1 = run_sync(model.fit_dataset(ds, epochs=2, verbose=0))
    h2 = fit(other, X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-6)
    np.testing.assert_allclose(h1.history["acc"], h2.history["acc"], rtol=1e-6)
    model.dispose()
    other.dispose()


def test_save_round_trip_with_optimizer():
    model = mlp()
    model.compile("adam", "sparseCategoricalCrossentropy", ["accuracy"])
    labels = LABELS.reshape(-1, 1).astype(np.float32)
    fit(model, X, labels, epochs=2, batch_size=4, verbose=0, shuffle=False)
    saved: list[Any] = []
    run_sync(model.save(tf.io.with_save_handler(saved.append), include_optimizer=True))
    a = saved[0]
    assert a.training_config == {
        "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"],
        "optimizer_config": {"class_name": "Adam", "config": {"learningRate": 0.001, "beta1": 0.9, "beta2": 0.999,
                                                             "epsilon": 1e-07}},
    }  # fmt: skip
    groups = [(s.name, s.group) for s in a.weight_specs]
    assert groups[4:6] == [("iter", "optimizer"), ("d1/kernel/m", "optimizer")] and len(groups) == 4 + 1 + 8
    copy = run_sync(load_layers_model(tf.io.from_memory(a)))
    assert copy.optimizer.iterations == 6
    h1 = fit(model, X, labels, epochs=2, batch_size=4, verbose=0, shuffle=False)
    h2 = fit(copy, X, labels, epochs=2, batch_size=4, verbose=0, shuffle=False)
    assert h1.history == h2.history
    model.dispose()
    copy.dispose()


def test_user_defined_metadata_round_trip():
    model = tf.sequential([tf.layers.dense(units=2, input_shape=[3])])
    assert model.get_user_defined_metadata() is None
    model.set_user_defined_metadata({"classes": ["cat", "dog"]})
    saved: list[Any] = []
    run_sync(model.save(tf.io.with_save_handler(saved.append)))
    assert saved[0].user_defined_metadata == {"classes": ["cat", "dog"]}
    copy = run_sync(load_layers_model(tf.io.from_memory(saved[0])))
    assert copy.get_user_defined_metadata() == {"classes": ["cat", "dog"]}
    with pytest.raises(TypeError, match="set_user_defined_metadata: metadata must be a dict"):
        model.set_user_defined_metadata(["cat"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        model.set_user_defined_metadata({"bad": object()})
    model.dispose()
    copy.dispose()


def test_bad_input():
    model = mlp()
    x, y = tf.tensor(X), tf.tensor(Y[:7])
    with pytest.raises(RuntimeError, match="fit: you must compile"):
        run_sync(model.fit(x, y))
    with pytest.raises(ValueError, match="unknown loss 'meanSquaredErr' in loss"):
        model.compile("sgd", "meanSquaredErr")
    with pytest.raises(ValueError, match="unknown metric 'acuracy' in metrics"):
        model.compile("sgd", "mse", ["acuracy"])
    with pytest.raises(ValueError, match="unknown optimizer 'adamw'"):
        model.compile("adamw", "mse")
    model.compile("sgd", "mse")
    with pytest.raises(
        ValueError, match=r"fit: all input arrays \(x\) and target arrays \(y\) .* \[10,4\].*\[7,3\]"
    ):
        run_sync(model.fit(x, y))
    with pytest.raises(ValueError, match="fit: batch_size must be a positive integer"):
        run_sync(model.fit(x, y, batch_size=0))
    with pytest.raises(ValueError, match="evaluate: all input arrays"):
        model.evaluate(x, y)
    tf.dispose([x, y])
    model.dispose()
