"""Host tests: sample_weight, loss_weights and per-output losses, activity regularizers, LSTM
unit_forget_bias, nested models (build, fit, save/load), and more bad input; numpy is the oracle."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models.test_training import LABELS, X, Y, fit, mlp, numpy_sgd
from webtf.models.layers import load_layers_model


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def test_sample_weight_fit_evaluate_train_on_batch():
    sw = np.linspace(0.2, 2.0, 10).astype(np.float32)
    model = mlp()
    model.compile(tf.train.sgd(0.1), "categoricalCrossentropy")
    x, y, w = tf.tensor(X), tf.tensor(Y), tf.tensor(sw)
    hist = run_sync(model.fit(x, y, sample_weight=w, batch_size=4, epochs=2, shuffle=False, verbose=0))
    losses, ws = numpy_sgd(0.1, 4, 2, sw.astype(np.float64))
    np.testing.assert_allclose(hist.history["loss"], losses, rtol=1e-5)
    for got, ref in zip(model.get_weights(), ws, strict=True):
        np.testing.assert_allclose(got.data_sync(), ref.ravel(), rtol=1e-4, atol=1e-6)
    # evaluate: mean of the weighted per-sample losses
    p = model.predict(x)
    probs = np.array(p.data_sync()).reshape(10, 3)
    ce = -(Y * np.log(np.clip(probs, 1e-7, 1 - 1e-7))).sum(1)
    loss = model.evaluate(x, y, batch_size=3, sample_weight=w)
    assert abs(loss.data_sync()[0] - (ce * sw).mean()) < 1e-5
    # train_on_batch with sample and class weights: their product weights each sample
    cw = {0: 1.0, 1: 2.0, 2: 0.5}
    fresh = mlp()
    fresh.compile(tf.train.sgd(0.2), "categoricalCrossentropy")
    got = run_sync(fresh.train_on_batch(x, y, class_weight=cw, sample_weight=sw.tolist()))
    ref, ws = numpy_sgd(0.2, 10, 1, sw * np.array([cw[int(c)] for c in LABELS]))
    assert abs(got - ref[0]) < 1e-5
    np.testing.assert_allclose(fresh.get_weights()[0].data_sync(), ws[0].ravel(), rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match=r"fit: sample_weight for output 'd2' must have shape \[10\].*\[7\]"):
        run_sync(model.fit(x, y, sample_weight=sw[:7].tolist()))
    tf.dispose([x, y, w, p, loss])
    model.dispose()
    fresh.dispose()


def two_outputs() -> Any:
    inp = tf.input(shape=[4])
    a = tf.layers.dense(units=2, name="a", kernel_initializer="ones", bias_initializer="zeros").apply(inp)
    b = tf.layers.dense(units=1, name="b", kernel_initializer="ones", bias_initializer="zeros").apply(inp)
    return tf.model(inputs=inp, outputs=[a, b])


def test_loss_weights_and_per_output_losses():
    model = two_outputs()
    model.compile(
        tf.train.sgd(0.01), ["meanSquaredError", "meanAbsoluteError"], loss_weights={"a": 0.5, "b": 2.0}
    )
    ya = np.arange(20, dtype=np.float32).reshape(10, 2) / 10
    yb = np.ones((10, 1), np.float32)
    x, ta, tb = tf.tensor(X), tf.tensor(ya), tf.tensor(yb)
    out = model.evaluate(x, [ta, tb])
    pa = X @ np.ones((4, 2))
    pb = X @ np.ones((4, 1))
    mse, mae = ((pa - ya) ** 2).mean(), np.abs(pb - yb).mean()
    np.testing.assert_allclose([t.data_sync()[0] for t in out], [0.5 * mse + 2 * mae, mse, mae], rtol=1e-5)
    h = run_sync(model.fit(x, [ta, tb], epochs=1, batch_size=10, verbose=0))
    assert sorted(h.history) == ["a_loss", "b_loss", "loss"]
    assert abs(h.history["loss"][0] - (0.5 * mse + 2 * mae)) < 1e-4
    # one step of SGD on b's kernel: grad = 2 * d(mae)/dw
    gb = 2 * (X * np.sign(pb - yb)).mean(0)
    np.testing.assert_allclose(model.get_layer("b").get_weights()[0].data_sync(), 1 - 0.01 * gb, rtol=1e-5)
    with pytest.raises(ValueError, match="compile: loss_weights has 1 entries, but the model has 2 outputs"):
        model.compile("sgd", "mse", loss_weights=[1.0])
    with pytest.raises(ValueError, match="compile: loss_weights must be a list of numbers"):
        model.compile("sgd", "mse", loss_weights="x")
    tf.dispose(out + [x, ta, tb])
    model.dispose()


def test_activity_regularizer_adds_its_loss():
    inp = tf.input(shape=[4])
    out = tf.layers.dense(
        units=3, kernel_initializer="ones", activity_regularizer=tf.regularizers.l2(0.1)
    ).apply(inp)
    model = tf.model(inputs=inp, outputs=out)
    model.compile(tf.train.sgd(0.0), "meanSquaredError")
    y = np.zeros((10, 3), np.float32)
    h = fit(model, X, y, batch_size=5, epochs=1, shuffle=False, verbose=0)
    p = X @ np.ones((4, 3))
    per_batch = [(p[s : s + 5] ** 2).mean() + 0.1 * (p[s : s + 5] ** 2).sum() / 5 for s in (0, 5)]
    assert abs(h.history["loss"][0] - np.mean(per_batch)) < 1e-4
    model.dispose()


def test_lstm_initializers_and_unit_forget_bias():
    model = tf.sequential(layers=[tf.layers.lstm(units=3, input_shape=[2, 4], unit_forget_bias=True)])
    kernel, recurrent, bias = (np.array(w.data_sync()) for w in model.get_weights())
    np.testing.assert_array_equal(bias, [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    rk = recurrent.reshape(3, 12)
    np.testing.assert_allclose(rk @ rk.T, np.eye(3), atol=1e-5)  # orthogonal (TF.js's recurrent default)
    assert kernel.shape == (48,)
    plain = tf.sequential(layers=[tf.layers.lstm(units=2, input_shape=[2, 4])])
    np.testing.assert_array_equal(plain.get_weights()[2].data_sync(), np.zeros(8))
    model.dispose()
    plain.dispose()


def test_nested_models_build_fit_save_load():
    inner = tf.sequential(layers=[tf.layers.dense(units=5, activation="relu", input_shape=[4], name="in_d")])
    outer = tf.sequential(name="outer")
    outer.add(inner)
    outer.add(tf.layers.dense(units=3, activation="softmax", name="out_d"))
    assert len(outer.get_weights()) == 4
    inp = tf.input(shape=[4])
    functional = tf.model(inputs=inp, outputs=tf.layers.dense(units=2, name="f_d").apply(inner.apply(inp)))
    outer.compile(tf.train.sgd(0.1), "categoricalCrossentropy")
    h = fit(outer, X, Y, batch_size=5, epochs=2, verbose=0, shuffle=False)
    assert h.history["loss"][1] < h.history["loss"][0]
    saved: list[Any] = []
    run_sync(outer.save(tf.io.with_save_handler(saved.append)))
    layers = saved[0].model_topology["config"]["layers"]
    assert [entry["class_name"] for entry in layers] == ["Sequential", "Dense"]
    copy = run_sync(load_layers_model(tf.io.from_memory(saved[0])))
    x = tf.tensor(X)
    a, b = outer.predict(x), copy.predict(x)
    np.testing.assert_allclose(a.data_sync(), b.data_sync(), rtol=1e-6)
    h2 = fit(copy, X, Y, batch_size=5, epochs=1, verbose=0, shuffle=False)
    h1 = fit(outer, X, Y, batch_size=5, epochs=1, verbose=0, shuffle=False)
    assert h1.history == h2.history
    saved.clear()
    run_sync(functional.save(tf.io.with_save_handler(saved.append)))
    again = run_sync(load_layers_model(tf.io.from_memory(saved[0])))
    c, d = functional.predict(x), again.predict(x)
    np.testing.assert_allclose(c.data_sync(), d.data_sync(), rtol=1e-6)
    tf.dispose([x, a, b, c, d])
    for m in (outer, copy, again):
        m.dispose()
    functional.get_layer("f_d").dispose_weights()


def test_custom_loss_function_takes_its_own_target_shape():
    model = mlp()

    def first_column_mse(y_true, y_pred):  # targets [batch, 1] for a [batch, 3] output
        return tf.mean(tf.square(tf.sub(tf.slice(y_pred, [0, 0], [-1, 1]), y_true)), -1)

    model.compile(tf.train.sgd(0.0), first_column_mse)
    x, y = tf.tensor(X), tf.tensor(Y[:, :1])
    loss = model.evaluate(x, y)
    p = model.predict(x)
    ref = ((np.array(p.data_sync()).reshape(10, 3)[:, 0] - Y[:, 0]) ** 2).mean()
    assert abs(loss.data_sync()[0] - ref) < 1e-6
    tf.dispose([x, y, loss, p])
    model.dispose()


def test_more_bad_input():
    model = mlp()
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match=r"\[10,5\]") as e:
        fit(model, np.zeros((10, 5), np.float32), Y)
    assert "d1" in str(e.value) or "input" in str(e.value)
    x, y = tf.tensor(X), tf.tensor(Y)
    with pytest.raises(ValueError, match="y has 2 arrays, but the model has 1"):
        run_sync(model.fit(x, [y, y]))
    tf.dispose([x, y])
    with pytest.raises(AttributeError, match="dence"):
        tf.layers.dence(units=2)
    with pytest.raises(ValueError, match=r"Layer 'bad' \(Dense\): units must be a positive integer"):
        tf.layers.dense(units=-1, name="bad")
    with pytest.raises(ValueError, match=r"Layer 'bad2' \(Dense\): unknown argument\(s\) 'unitz'"):
        tf.layers.dense(units=2, unitz=3, name="bad2")
    with pytest.raises(
        ValueError, match=r"Layer 'a' \(Dense\): activity_regularizer: Unknown regularizer 'l3'"
    ):
        tf.layers.dense(units=2, activity_regularizer="l3", name="a")
    with pytest.raises(
        ValueError, match=r"Layer 'k' \(Dense\): kernel_initializer: Unknown initializer 'foo'"
    ):
        tf.layers.dense(units=2, kernel_initializer="foo", name="k")
    x, y = tf.tensor(X), tf.tensor(Y[:, :2])
    with pytest.raises(
        ValueError, match=r"fit: expected target \(y\) of output 'd2' to have shape \[null,3\]"
    ):
        run_sync(model.fit(x, y))
    tf.dispose([x, y])
    model.dispose()
