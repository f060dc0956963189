"""Recurrent layers, wrappers and masking on the host against numpy implementations of TF.js's equations."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.helpers import Rand
from tests.models.test_layers import artifacts, layer, load, run, sequential
from webtf.models.layers.base import LAYERS

R = Rand(11)


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def hsig(x):
    return np.clip(0.2 * x + 0.5, 0, 1)


def ref_rnn(kind, x, w, units, seq=False, backwards=False, mask=None, h0=None):
    """numpy forward of TF.js's SimpleRNN / LSTM / GRU (tanh, hard_sigmoid): (outputs, final states)."""
    b, t, _ = x.shape
    k, rk, bias = w["kernel"], w["recurrent_kernel"], w.get("bias", 0)
    states = h0 or [np.zeros((b, units), np.float32) for _ in range(2 if kind == "LSTM" else 1)]
    steps = range(t - 1, -1, -1) if backwards else range(t)
    outs = []
    for i in steps:
        h = states[0]
        if kind == "SimpleRNN":
            new = [np.tanh(x[:, i] @ k + h @ rk + bias)]
        elif kind == "LSTM":
            z = x[:, i] @ k + h @ rk + bias
            zi, zf, zc, zo = np.split(z, 4, 1)
            c = hsig(zf) * states[1] + hsig(zi) * np.tanh(zc)
            new = [hsig(zo) * np.tanh(c), c]
        else:
            xz, xr, xh = np.split(x[:, i] @ k + bias, 3, 1)
            z = hsig(xz + h @ rk[:, :units])
            r = hsig(xr + h @ rk[:, units : 2 * units])
            hh = np.tanh(xh + (r * h) @ rk[:, 2 * units :])
            new = [z * h + (1 - z) * hh]
        if mask is not None:
            m = mask[:, i : i + 1].astype(bool)
            new = [np.where(m, a, s) for a, s in zip(new, states, strict=False)]
        states = new
        outs.append(states[0])
    return (np.stack(outs, 1) if seq else outs[-1]), states


GATES = {"SimpleRNN": 1, "LSTM": 4, "GRU": 3}


def weights(kind, d, units, prefix=""):
    g = GATES[kind] * units
    return {f"{prefix}kernel": R.normal(d, g, scale=0.5), f"{prefix}recurrent_kernel": R.normal(units, g, scale=0.5),
            f"{prefix}bias": R.normal(g, scale=0.3)}  # fmt: skip


def model_of(*entries, weights_=None):
    return load(*artifacts(sequential(*entries), weights_ or {}))


@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("seq,backwards", [(False, False), (True, False), (True, True)])
def test_rnn_layers(kind, seq, backwards):
    x, w = R.normal(2, 5, 3), weights(kind, 3, 4)
    entry = layer(
        kind, "r", batch_input_shape=[None, 5, 3], units=4, return_sequences=seq, go_backwards=backwards
    )
    m = model_of(entry, weights_={f"r/{k}": v for k, v in w.items()})
    try:
        np.testing.assert_allclose(run(m, x), ref_rnn(kind, x, w, 4, seq, backwards)[0], rtol=1e-5, atol=1e-5)
        assert [tuple(t.shape) for t in m.get_weights()] == [v.shape for v in w.values()]
    finally:
        m.dispose()


def test_lstm_return_state_and_keras_weight_names():
    x, w = R.normal(3, 4, 2), weights("LSTM", 2, 3)
    entry = layer("LSTM", "lstm", batch_input_shape=[None, 4, 2], units=3, return_state=True)
    m = model_of(entry, weights_={f"lstm/lstm_cell/{k}": v for k, v in w.items()})  # TF 2.2+ names
    try:
        out, (h, c) = ref_rnn("LSTM", x, w, 3)
        np.testing.assert_allclose(run(m, x), out, rtol=1e-5, atol=1e-5)
        xt = tf.tensor(x)
        got = m.layers[0].call(xt, {})  # [output, h, c]
        for a, b in zip(got, [out, h, c], strict=False):
            np.testing.assert_allclose(arr(a), b, rtol=1e-5, atol=1e-5)
        tf.dispose(got + [xt])
    finally:
        m.dispose()


def test_stacked_cells_and_bidirectional_and_time_distributed():
    x = R.normal(2, 4, 3)
    w1, w2 = weights("LSTM", 3, 4), weights("GRU", 4, 2)
    cells = [
        {"class_name": "LSTMCell", "config": {"units": 4}},
        {"class_name": "GRUCell", "config": {"units": 2}},
    ]
    rnn = layer(
        "RNN", "rnn", batch_input_shape=[None, 4, 3], cell=cells, return_sequences=True, return_state=True
    )
    wts = {
        **{f"rnn/RNNCell_0/{k}": v for k, v in w1.items()},
        **{f"rnn/RNNCell_1/{k}": v for k, v in w2.items()},
    }
    m = model_of(rnn, weights_=wts)
    try:
        seq1, (h1, c1) = ref_rnn("LSTM", x, w1, 4, seq=True)
        seq2, (h2,) = ref_rnn("GRU", seq1, w2, 2, seq=True)
        np.testing.assert_allclose(run(m, x), seq2, rtol=1e-5, atol=1e-5)
        xt = tf.tensor(x)
        got = m.layers[0].call(xt, {})
        for a, b in zip(got, [seq2, h2, h1, c1], strict=False):  # states: last cell first
            np.testing.assert_allclose(arr(a), b, rtol=1e-5, atol=1e-5)
        tf.dispose(got + [xt])
    finally:
        m.dispose()
    for mode, merge in [("concat", lambda a, b: np.concatenate([a, b], -1)), ("sum", np.add), ("mul", np.multiply),
                        ("ave", lambda a, b: (a + b) / 2)]:  # fmt: skip
        wf, wb = weights("GRU", 3, 2), weights("GRU", 3, 2)
        inner = {"class_name": "GRU", "config": {"name": "gru", "units": 2, "return_sequences": True}}
        bi = layer("Bidirectional", "bi", batch_input_shape=[None, 4, 3], layer=inner, merge_mode=mode)
        td = layer(
            "TimeDistributed", "td", layer={"class_name": "Dense", "config": {"units": 3, "name": "d"}}
        )
        k, bias = R.normal(4 if mode == "concat" else 2, 3), R.normal(3)
        wts = {f"bi/forward_gru/{n}": v for n, v in wf.items()} | {
            f"bi/backward_gru/{n}": v for n, v in wb.items()
        }
        wts |= {"td/kernel": k, "td/bias": bias}
        m = model_of(bi, td, weights_=wts)
        try:
            fw = ref_rnn("GRU", x, wf, 2, seq=True)[0]
            bw = ref_rnn("GRU", x, wb, 2, seq=True, backwards=True)[0][:, ::-1]
            np.testing.assert_allclose(run(m, x), merge(fw, bw) @ k + bias, rtol=1e-5, atol=1e-5)
        finally:
            m.dispose()


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_masking_and_embedding_mask_zero(kind):
    x = R.normal(3, 5, 2)
    x[0, 1] = 0
    x[1, 3:] = 0
    x[2, 0] = 0
    mask = np.any(x != 0, -1)
    w = weights(kind, 2, 3)
    entries = (layer("Masking", "mask", batch_input_shape=[None, 5, 2], mask_value=0),
               layer(kind, "r", units=3, return_sequences=True), layer("Dropout", "drop", rate=0.5),
               layer(kind, "r2", units=3))  # fmt: skip
    w2 = weights(kind, 3, 3)
    m = model_of(
        *entries, weights_={**{f"r/{k}": v for k, v in w.items()}, **{f"r2/{k}": v for k, v in w2.items()}}
    )
    try:
        seq = ref_rnn(kind, x, w, 3, seq=True, mask=mask)[0]
        np.testing.assert_allclose(run(m, x), ref_rnn(kind, seq, w2, 3, mask=mask)[0], rtol=1e-5, atol=1e-5)
    finally:
        m.dispose()
    ids = np.array([[1, 2, 0, 3], [0, 0, 4, 1]], np.float32)
    emb = R.normal(5, 2)
    entries = (layer("Embedding", "emb", batch_input_shape=[None, 4], input_dim=5, output_dim=2, mask_zero=True),
               layer(kind, "r", units=3))  # fmt: skip
    m = model_of(*entries, weights_={"emb/embeddings": emb, **{f"r/{k}": v for k, v in w.items()}})
    try:
        ref = ref_rnn(kind, emb[ids.astype(int)], w, 3, mask=ids != 0)[0]
        np.testing.assert_allclose(run(m, ids), ref, rtol=1e-5, atol=1e-5)
    finally:
        m.dispose()


def arr(t):
    return np.array(t.data_sync(), np.float32).reshape(t.shape)


def make(class_name: str, input_shape: tuple, **config: Any):
    """A built layer with random weights (eager use)."""
    obj = LAYERS[class_name](class_name.lower(), config, class_name)
    obj.apply_shape(input_shape)
    for d in obj.weight_defs:
        obj.add_weight(d, tf.tensor(R.normal(*d.shape, scale=0.5)))
    return obj


def test_cells_step_and_stateful():
    cell = make("LSTMCell", (None, 3), units=2)
    x, h, c = R.normal(2, 3), R.normal(2, 2), R.normal(2, 2)
    w = {k: arr(v) for k, v in cell.vars.items()}
    ts = [tf.tensor(a) for a in (x, h, c)]
    out = cell.call(ts, {})
    _, (rh, rc) = ref_rnn("LSTM", x[:, None], w, 2, h0=[h, c])
    for a, b in zip(out, [rh, rh, rc], strict=False):
        np.testing.assert_allclose(arr(a), b, rtol=1e-5, atol=1e-5)
    tf.dispose(out + ts + list(cell.vars.values()))
    # stateful: the second call starts where the first ended; reset_states zeroes
    lay = make("GRU", (2, 3, 3), units=2, stateful=True)
    w = {k: arr(v) for k, v in lay.vars.items()}
    x1, x2 = R.normal(2, 3, 3), R.normal(2, 3, 3)
    _, s1 = ref_rnn("GRU", x1, w, 2)
    ref2 = ref_rnn("GRU", x2, w, 2, h0=s1)[0]
    for xi, ref in [(x1, s1[0]), (x2, ref2)]:
        t = tf.tensor(xi)
        y = lay.call(t, {})
        np.testing.assert_allclose(arr(y), ref, rtol=1e-5, atol=1e-5)
        tf.dispose([t, y])
    lay.reset_states()
    assert not arr(lay.states[0]).any()
    tf.dispose(lay.states + list(lay.vars.values()))


def test_dropout_training_mode():
    lay = make("SimpleRNN", (None, 4, 3), units=5, dropout=0.5, recurrent_dropout=0.5, return_sequences=True)
    x = tf.tensor(R.normal(2, 4, 3))
    a, b, c = lay.call(x, {}), lay.call(x, {"training": True}), lay.call(x, {})
    assert np.array_equal(arr(a), arr(c))  # inference: no dropout
    assert not np.allclose(arr(a), arr(b))
    tf.dispose([x, a, b, c, *lay.vars.values()])


@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_weight_gradients_match_finite_differences(kind):
    lay = make(kind, (None, 3, 2), units=2, return_sequences=True)
    names = list(lay.vars)
    vals = [arr(lay.vars[n]).astype(np.float64) for n in names]
    x = R.normal(2, 3, 2)
    xt = tf.tensor(x)

    def loss(*ws):
        lay.vars.update(zip(names, ws, strict=False))
        return tf.sum(tf.square(lay.call(xt, {})))

    kept = dict(lay.vars)
    grads = tf.grads(loss)([kept[n] for n in names])
    lay.vars.update(kept)
    for gi, (n, v) in enumerate(zip(names, vals, strict=False)):
        num = np.zeros_like(v)
        for idx in np.ndindex(v.shape):
            f = []
            for s in (1, -1):
                vv = dict(zip(names, vals, strict=False))
                vv[n] = v.copy()
                vv[n][idx] += s * 1e-3
                y = ref_rnn(kind, x.astype(np.float64), vv, 2, seq=True)[0]
                f.append((y**2).sum())
            num[idx] = (f[0] - f[1]) / 2e-3
        np.testing.assert_allclose(arr(grads[gi]), num, rtol=2e-3, atol=2e-3)
    tf.dispose([xt, *grads, *kept.values()])


def test_bad_configs_name_the_layer():
    with pytest.raises(ValueError, match=r"Layer 'gru' \(GRU\): reset_after"):
        LAYERS["GRU"]("gru", {"units": 2, "reset_after": True}, "GRU")
    with pytest.raises(ValueError, match=r"Layer 'lstm' \(LSTM\): expects inputs of rank 3"):
        LAYERS["LSTM"]("lstm", {"units": 2}, "LSTM").apply_shape((None, 4))
    with pytest.raises(ValueError, match=r"Layer 'bi' \(Bidirectional\): merge_mode"):
        LAYERS["Bidirectional"]("bi", {"layer": {"class_name": "LSTM", "config": {"units": 2}}, "merge_mode": "x"},
                                "Bidirectional")  # fmt: skip
    with pytest.raises(ValueError, match=r"Layer 'flatten' \(Flatten\): does not support masking"):
        model_of(layer("Masking", "m", batch_input_shape=[None, 3, 2]), layer("Flatten", "flatten"))
    lay = make("LSTM", (None, 3, 2), units=2)
    x = tf.tensor(R.normal(2, 3))
    with pytest.raises(ValueError, match=r"Layer 'lstm' \(LSTM\): expects inputs of rank 3"):
        lay.call(x, {})
    tf.dispose([x, *lay.vars.values()])
