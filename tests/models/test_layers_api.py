"""Host tests: building models in Python (tf.layers.*, tf.sequential, tf.model, tf.input, apply), layer
weights as variables, initializers / regularizers / constraints, training-mode layers; numpy oracles."""

from __future__ import annotations

import math

import numpy as np
import pytest

import webtf as tf
from tests.helpers import Rand

rand = Rand(13)


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    variables = set(tf.ENGINE.registered_variables)
    yield
    for name in set(tf.ENGINE.registered_variables) - variables:
        tf.ENGINE.registered_variables[name].dispose()
    assert tf.memory().num_tensors == before


def arr(t: tf.Tensor) -> np.ndarray:
    return np.array(t.data_sync(), dtype=np.float32).reshape(t.shape)


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# -------------------------------------------------------------------------------------------- building


def test_sequential_dense_predict_matches_numpy_and_set_weights():
    m = tf.sequential()
    m.add(tf.layers.dense(units=4, activation="relu", input_shape=[3], name="d1"))
    m.add(tf.layers.dense(units=2, activation="softmax", name="d2"))
    assert [w.original_name for w in m.weights] == ["d1/kernel", "d1/bias", "d2/kernel", "d2/bias"]
    assert all(isinstance(w, tf.Variable) for w in m.weights)
    assert np.all(arr(m.weights[1]) == 0) and np.all(arr(m.weights[3]) == 0)  # zeros bias by default
    k1 = arr(m.weights[0])
    limit = math.sqrt(6 / (3 + 4))  # glorot_uniform
    assert np.all(np.abs(k1) <= limit) and k1.std() > 0
    new = [rand.normal(3, 4), rand.normal(4), rand.normal(4, 2), rand.normal(2)]
    ts = [tf.tensor(v) for v in new]
    m.set_weights(ts)
    tf.dispose(ts)
    x = rand.normal(5, 3)
    xt = tf.tensor(x)
    y = m.predict(xt)
    want = softmax(relu(x @ new[0] + new[1]) @ new[2] + new[3])
    np.testing.assert_allclose(arr(y), want, rtol=1e-5, atol=1e-6)
    assert m.get_layer("d2") is m.layers[1] and m.get_layer(index=0).name == "d1"
    text = m.summary(print_fn=None)
    assert "Total params: 26" in text and "d1 (Dense)" in text
    tf.dispose([xt, y])
    m.dispose()


def test_functional_model_shared_layer_shares_weights():
    inp = tf.input(shape=[3], name="x")
    shared = tf.layers.dense(units=2, name="shared")
    a = shared.apply(inp)
    b = shared.apply(tf.layers.dense(units=3, name="pre").apply(inp))
    out = tf.layers.concatenate(name="cat").apply([a, b])
    assert out.shape == [None, 4]
    m = tf.model(inputs=inp, outputs=out)
    assert [layer.name for layer in m.layers] == ["x", "shared", "pre", "cat"]
    assert len(m.weights) == 4  # the shared layer's kernel and bias once
    w = {v.original_name: arr(v) for v in m.weights}
    x = rand.normal(2, 3)
    xt = tf.tensor(x)
    y = m.predict(xt)
    h = x @ w["pre/kernel"] + w["pre/bias"]
    want = np.concatenate([x @ w["shared/kernel"], h @ w["shared/kernel"]], -1) + np.tile(w["shared/bias"], 2)
    np.testing.assert_allclose(arr(y), want, rtol=1e-5, atol=1e-6)
    tf.dispose([xt, y])
    m.dispose()


def test_eager_apply_builds_and_computes():
    layer = tf.layers.dense(units=3, use_bias=False, kernel_initializer="ones")
    x = rand.normal(2, 4)
    xt = tf.tensor(x)
    y = layer.apply(xt)
    np.testing.assert_allclose(arr(y), x @ np.ones((4, 3), np.float32), rtol=1e-5)
    wrong = tf.zeros([2, 5])
    with pytest.raises(ValueError, match=r"Layer 'dense_Dense\d+' \(Dense\): expected inputs of shape \[null,4\]"):
        layer.apply(wrong)
    tf.dispose([xt, y, wrong])
    layer.dispose_weights()


def test_trainable_flag_moves_weights():
    m = tf.sequential(layers=[tf.layers.dense(units=2, input_shape=[2]), tf.layers.batch_normalization()])
    assert len(m.trainable_weights) == 4 and len(m.non_trainable_weights) == 2
    m.layers[0].trainable = False
    assert len(m.trainable_weights) == 2 and len(m.non_trainable_weights) == 4
    assert not m.layers[0].weights[0].trainable
    assert "Trainable params: 4" in m.summary(print_fn=None)
    m.dispose()


def test_weight_gradients_of_a_dense_layer():
    layer = tf.layers.dense(units=2, activation="tanh", kernel_initializer=tf.initializers.random_normal(seed=3))
    x = rand.normal(4, 3)
    xt = tf.tensor(x)
    layer.apply(xt).dispose()  # build
    kernel, bias = (arr(v) for v in layer.weights)
    got = tf.variable_grads(lambda: tf.sum(layer.apply(xt)), layer.trainable_weights)
    pre = x @ kernel + bias
    dpre = 1 - np.tanh(pre) ** 2
    grads = {k.split("/")[-1]: arr(v) for k, v in got.grads.items()}
    np.testing.assert_allclose(grads["kernel"], x.T @ dpre, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(grads["bias"], dpre.sum(0), rtol=1e-4, atol=1e-5)
    tf.dispose([xt, got.value, list(got.grads.values())])
    layer.dispose_weights()


# ------------------------------------------------------------------------------------------- training


def test_dropout_training_and_inference():
    layer = tf.layers.dropout(rate=0.5, seed=1)
    x = np.ones((40, 50), np.float32)
    xt = tf.tensor(x)
    same = layer.apply(xt)
    np.testing.assert_array_equal(arr(same), x)
    yt = layer.apply(xt, training=True)
    y = arr(yt)
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.4 < (y == 0).mean() < 0.6
    tf.dispose([xt, same, yt])


def test_batch_norm_training_uses_batch_stats_and_updates_moving_stats():
    layer = tf.layers.batch_normalization(momentum=0.9, epsilon=1e-3)
    x = rand.normal(8, 3) * 2 + 1
    xt = tf.tensor(x)
    y = layer.apply(xt, training=True)
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(arr(y), (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    mm, mv = arr(layer.vars["moving_mean"]), arr(layer.vars["moving_variance"])
    np.testing.assert_allclose(mm, 0.1 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv, 0.9 + 0.1 * var, rtol=1e-5, atol=1e-6)
    z = layer.apply(xt)  # inference: the moving statistics
    np.testing.assert_allclose(arr(z), (x - mm) / np.sqrt(mv + 1e-3), rtol=1e-4, atol=1e-4)
    tf.dispose([xt, y, z])
    layer.dispose_weights()


# ------------------------------------------------------------------------ initializers, regularizers


def test_initializers_follow_tfjs_defaults_and_seeds():
    def draw(init, shape=(20, 30)):
        t = init(list(shape))
        try:
            return arr(t)
        finally:
            t.dispose()

    a = draw(tf.initializers.glorot_normal(seed=5))
    np.testing.assert_array_equal(a, draw(tf.initializers.glorot_normal(seed=5)))
    assert abs(a.std() - math.sqrt(2 / 50) * 0.88) < 0.02  # truncated at 2 stddevs: std * 0.88
    u = draw(tf.initializers.he_uniform(seed=1))
    assert np.abs(u).max() <= math.sqrt(6 / 20) and np.abs(u).max() > 0.9 * math.sqrt(6 / 20)
    assert np.all(draw(tf.initializers.constant(value=2.5)) == 2.5)
    assert np.all(draw(tf.initializers.ones()) == 1) and np.all(draw(tf.initializers.zeros()) == 0)
    r = draw(tf.initializers.random_uniform(seed=2))
    assert r.min() >= -0.05 and r.max() < 0.05
    o = draw(tf.initializers.orthogonal(seed=4), (30, 20))
    np.testing.assert_allclose(o.T @ o, np.eye(20), atol=1e-5)
    np.testing.assert_array_equal(draw(tf.initializers.identity(gain=2), (3, 3)), 2 * np.eye(3))
    lecun = draw(tf.initializers.variance_scaling(scale=1, mode="fanIn", distribution="uniform", seed=3))
    assert np.abs(lecun).max() <= math.sqrt(3 / 20)
    with pytest.raises(ValueError, match="Unknown initializer 'glorotUnifrm'"):
        tf.layers.dense(units=2, input_shape=[2], kernel_initializer="glorotUnifrm").apply(tf.input(shape=[2]))


def test_regularizers_and_constraints_match_numpy():
    w = rand.normal(4, 3)
    wt = tf.tensor(w)
    for reg, want in (
        (tf.regularizers.l1(), 0.01 * np.abs(w).sum()),
        (tf.regularizers.l2(l2=0.5), 0.5 * (w**2).sum()),
        (tf.regularizers.l1l2(l1=0.1, l2=0.2), 0.1 * np.abs(w).sum() + 0.2 * (w**2).sum()),
    ):
        t = reg(wt)
        np.testing.assert_allclose(float(t), want, rtol=1e-5)
        t.dispose()
    norms = np.sqrt((w**2).sum(0, keepdims=True))
    for con, want in (
        (tf.constraints.max_norm(max_value=1.0), w * np.minimum(norms, 1.0) / (norms + 1e-7)),
        (tf.constraints.unit_norm(), w / (norms + 1e-7)),
        (tf.constraints.non_neg(), np.maximum(w, 0)),
        (tf.constraints.min_max_norm(min_value=0.5, max_value=0.8), w * np.clip(norms, 0.5, 0.8) / (norms + 1e-7)),
    ):
        t = con(wt)
        np.testing.assert_allclose(arr(t), want, rtol=1e-5, atol=1e-6)
        t.dispose()
    wt.dispose()


def test_layer_regularizer_and_constraint_hooks():
    m = tf.sequential()
    m.add(tf.layers.dense(units=2, input_shape=[3], kernel_regularizer="l2", kernel_constraint="nonNeg",
                          kernel_initializer=tf.initializers.random_normal(seed=9, stddev=1.0)))  # fmt: skip
    k = arr(m.weights[0])
    losses = m.regularization_losses()
    assert len(losses) == 1
    np.testing.assert_allclose(float(losses[0]), 0.01 * (k**2).sum(), rtol=1e-5)
    tf.dispose(losses)
    m.apply_constraints()
    np.testing.assert_allclose(arr(m.weights[0]), np.maximum(k, 0))
    m.dispose()


# ----------------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: tf.layers.dnse, "tf.layers has no layer 'dnse'; did you mean dense"),
        (lambda: tf.layers.dense(), r"\(Dense\): missing required argument 'units'"),
        (lambda: tf.layers.dense(units=2, unitz=3), r"\(Dense\): unknown argument\(s\) 'unitz'"),
        (lambda: tf.layers.dropout(rate=1.5), r"\(Dropout\): rate must be in \[0, 1\)"),
        (lambda: tf.layers.conv2d(filters=2, kernel_size=3, padding="full"), "padding 'full' is not supported"),
        (lambda: tf.sequential([tf.layers.dense(units=2)]), "must get an input_shape or batch_input_shape"),
        (lambda: tf.model(inputs=tf.input(shape=[2]), outputs=tf.layers.dense(units=1).apply(tf.input(shape=[2]))),
         "Graph disconnected"),
        (lambda: tf.layers.conv2d(filters=2, kernel_size=3).apply(tf.input(shape=[4, 4])),
         r"\(Conv2D\): expects inputs of rank 4, but got shape \[null,4,4\]"),
    ],
)  # fmt: skip
def test_bad_configs_and_shapes_raise_named_errors(make, message):
    with pytest.raises((ValueError, AttributeError), match=message):
        make()


def test_set_weights_checks_shapes_first():
    m = tf.sequential([tf.layers.dense(units=2, input_shape=[3], name="dd")])
    before = [arr(w) for w in m.weights]
    bad = [tf.zeros([3, 2]), tf.zeros([3])]
    with pytest.raises(ValueError, match=r"weight 'dd/bias' has shape \[2\], but the value given has shape \[3\]"):
        m.set_weights(bad)
    assert all(np.array_equal(a, arr(w)) for a, w in zip(before, m.weights, strict=True))
    tf.dispose(bad)
    m.dispose()


@pytest.mark.parametrize("kind", ["sequential", "functional"])
def test_built_model_saves_and_loads_with_the_same_outputs(kind):
    from tests.harness.aio import run_sync

    if kind == "sequential":
        m = tf.sequential([
            tf.layers.conv2d(filters=2, kernel_size=3, activation="relu", input_shape=[5, 5, 1],
                             kernel_initializer=tf.initializers.he_normal(seed=1)),
            tf.layers.batch_normalization(), tf.layers.flatten(), tf.layers.dropout(rate=0.2),
            tf.layers.dense(units=3, activation="softmax", kernel_regularizer=tf.regularizers.l2()),
        ])  # fmt: skip
        x = rand.normal(2, 5, 5, 1)
    else:
        inp = tf.input(shape=[4])
        d = tf.layers.dense(units=4, activation="tanh")
        out = tf.layers.add().apply([d.apply(inp), d.apply(d.apply(inp))])
        m = tf.model(inputs=inp, outputs=out)
        x = rand.normal(3, 4)
    captured = []
    run_sync(m.save(tf.io.with_save_handler(captured.append)))
    m2 = run_sync(tf.load_layers_model(tf.io.from_memory(captured[0])))
    assert [w.original_name for w in m2.weights] == [w.original_name for w in m.weights]
    xt = tf.tensor(x)
    a, b = m.predict(xt), m2.predict(xt)
    np.testing.assert_array_equal(arr(a), arr(b))
    tf.dispose([xt, a, b])
    m.dispose()
    m2.dispose()
