"""setdiff1d_async, in_top_k_async, boolean_mask_async, basic_lstm_cell / multi_rnn_cell, next_frame,
tf.image rgb_to_grayscale / grayscale_to_rgb / threshold and tf.math.confusion_matrix against numpy."""

import numpy as np
import pytest

_RNG = np.random.default_rng(19)


def _sig(z):
    return 1 / (1 + np.exp(-z))


def test_async_ops(run):
    x = np.array([5, 1, 7, 3, 1], np.int32)
    pred = _RNG.uniform(size=(4, 5)).astype(np.float32)
    targets = np.array([0, 3, 4, 1], np.int32)
    t3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    mask = np.array([True, False, True])
    out = run(
        "go()",
        setup="async def go():\n    return [await tf.setdiff1d_async(x, y), await tf.in_top_k_async(pred, targets, 2), "
        "await tf.boolean_mask_async(t3, mask, 1), await tf.boolean_mask_async(t3, m2), await tf.next_frame()]",
        x=x,
        y=np.array([1, 3], np.int32),
        pred=pred,
        targets=targets,
        t3=t3,
        mask=mask,
        m2=np.array([[True, False, False], [False, True, True]]),
    )
    assert out[0][0].tolist() == [5, 7] and out[0][1].tolist() == [0, 2]
    top2 = np.argsort(-pred, 1, kind="stable")[:, :2]
    np.testing.assert_array_equal(out[1], [t in row for t, row in zip(targets, top2, strict=True)])
    np.testing.assert_array_equal(out[2], t3[:, mask])
    np.testing.assert_array_equal(out[3], t3[np.array([[True, False, False], [False, True, True]])])
    assert out[4] is None


def test_lstm_cells(run):
    data, c, h = (_RNG.uniform(-1, 1, size=s).astype(np.float32) for s in ((2, 3), (2, 4), (2, 4)))
    kernel = _RNG.uniform(-1, 1, size=(7, 16)).astype(np.float32)
    bias = _RNG.uniform(-1, 1, size=16).astype(np.float32)
    out = run(
        "[tf.basic_lstm_cell(1.0, k, b, data, c, h), "
        "tf.multi_rnn_cell([lambda d, c, h: tf.basic_lstm_cell(1.0, k, b, d, c, h), "
        "lambda d, c, h: tf.basic_lstm_cell(1.0, k2, b, d, c, h)], data, [c, c], [h, h])]",
        k=kernel,
        b=bias,
        data=data,
        c=c,
        h=h,
        k2=kernel[[0, 1, 2, 3, 4, 5, 6, 6]],
    )
    res = np.concatenate([data, h], 1) @ kernel + bias
    i, j, f, o = np.split(res, 4, 1)
    new_c = _sig(i) * np.tanh(j) + c * _sig(1.0 + f)
    new_h = np.tanh(new_c) * _sig(o)
    np.testing.assert_allclose(out[0][0], new_c, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out[0][1], new_h, rtol=1e-4, atol=1e-5)
    (cs, hs) = out[1]
    np.testing.assert_allclose(cs[0], new_c, rtol=1e-4, atol=1e-5)
    assert len(hs) == 2 and hs[1].shape == (2, 4)


def test_image_and_confusion_matrix(run):
    img = _RNG.integers(0, 256, size=(3, 4, 3)).astype(np.float32)
    gray = _RNG.integers(0, 256, size=(3, 4, 1)).astype(np.int32)
    labels, preds = np.array([0, 1, 1, 2, 2, 2], np.int32), np.array([0, 2, 1, 2, 0, 2], np.int32)
    out = run(
        "[tf.image.rgb_to_grayscale(img), tf.image.grayscale_to_rgb(gray), tf.image.threshold(img), "
        "tf.image.threshold(gray, 'binary', True, 0.3), tf.math.confusion_matrix(labels, preds, 3)]",
        img=img,
        gray=gray,
        labels=labels,
        preds=preds,
    )
    luma = img @ np.array([0.2989, 0.5870, 0.1140])
    np.testing.assert_allclose(out[0], luma[..., None], rtol=1e-5)
    np.testing.assert_array_equal(out[1], np.repeat(gray, 3, -1))
    np.testing.assert_array_equal(out[2], np.where(luma[..., None] > 127.5, 255, 0))
    np.testing.assert_array_equal(out[3], np.where(gray <= 0.3 * 255, 255, 0))
    cm = np.zeros((3, 3), np.int32)
    np.add.at(cm, (labels, preds), 1)
    np.testing.assert_array_equal(out[4], cm)
    assert out[4].dtype == np.int32


def test_errors(run):
    f = dict(i=np.ones(3, np.int32), fl=np.ones(3, np.float32), m=np.ones((2, 2), np.float32),
             img=np.ones((2, 2, 2), np.float32))  # fmt: skip
    cases = [
        ("tf.setdiff1d_async(i, fl)", TypeError, "Error in setdiff1d_async: x and y should have the same"),
        ("tf.setdiff1d_async(m, m)", ValueError, "Error in setdiff1d_async: x should be 1D tensor"),
        ("tf.in_top_k_async(m, i)", ValueError, "Error in in_top_k_async: predictions's shape"),
        ("tf.boolean_mask_async(m, True)", ValueError, "Error in boolean_mask_async: mask cannot be scalar"),
        ("tf.image.rgb_to_grayscale(img)", ValueError, "Error in rgb_to_grayscale: last dimension"),
        ("tf.image.grayscale_to_rgb(img)", ValueError, "Error in grayscale_to_rgb: last dimension"),
        ("tf.image.threshold(m)", ValueError, "Error in threshold: image must be rank 3"),
        (
            "tf.math.confusion_matrix(i, m, 2)",
            ValueError,
            "Error in confusion_matrix: expected the rank of pred",
        ),
        ("tf.math.confusion_matrix(i, i, 0)", ValueError, "Error in confusion_matrix: num_classes must be"),
    ]
    for expr, cls, msg in cases:
        with pytest.raises(cls, match=msg):
            run(expr, **f)
