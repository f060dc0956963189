"""max_pool_with_argmax, pool (dilated max / avg) and dilation2d against numpy."""

import numpy as np
import pytest

from tests.grad.cases import _dilation

_RNG = np.random.default_rng(20)


def _pool_valid(x, k, stride, dil, reduce):
    eh = (k - 1) * dil + 1
    oh, ow = (x.shape[1] - eh) // stride + 1, (x.shape[2] - eh) // stride + 1
    span_h, span_w = (oh - 1) * stride + 1, (ow - 1) * stride + 1
    taps = [x[:, ky * dil : ky * dil + span_h : stride, kx * dil : kx * dil + span_w : stride]
            for ky in range(k) for kx in range(k)]  # fmt: skip
    return reduce(np.stack(taps), 0)


def test_pools_and_dilation(run):
    x = _RNG.uniform(-2, 2, size=(2, 6, 6, 3)).astype(np.float32)
    f = _RNG.uniform(-1, 1, size=(2, 3, 3)).astype(np.float32)
    out = run(
        "[tf.max_pool_with_argmax(x, 2, 2, 'valid'), tf.max_pool_with_argmax(x, 3, 2, 'same', True), "
        "tf.pool(x, [2, 2], 'max', 'valid', 2), tf.pool(x, 3, 'avg', 'valid', [2, 2]), "
        "tf.pool(x, [2, 2], 'max', 'same', None, 2), tf.dilation2d(x, f, 1, 'valid', 2), "
        "tf.dilation2d(x0, f, 2, 'valid')]",
        x=x,
        f=f,
        x0=x[0],
    )
    res, idx = out[0]["result"], out[0]["indexes"]
    np.testing.assert_array_equal(res, _pool_valid(x, 2, 2, 1, np.max))
    per_image = x.reshape(2, -1)
    for b in range(2):
        np.testing.assert_array_equal(per_image[b][idx[b]], res[b])
    res2, idx2 = out[1]["result"], out[1]["indexes"]
    np.testing.assert_array_equal(x.ravel()[idx2], res2)
    np.testing.assert_allclose(out[2], _pool_valid(x, 2, 1, 2, np.max), rtol=1e-6)
    np.testing.assert_allclose(out[3], _pool_valid(x, 3, 1, 2, np.mean), rtol=1e-5, atol=1e-6)
    assert out[4].shape == (2, 3, 3, 3)
    np.testing.assert_allclose(out[5], _dilation(x, f, 1, 2), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out[6], _dilation(x[:1], f, 2, 1)[0], rtol=1e-6, atol=1e-6)


def test_errors(run):
    f = dict(
        x=np.ones((1, 4, 4, 2), np.float32), x2=np.ones((4, 4), np.float32), f3=np.ones((2, 2, 3), np.float32)
    )
    cases = [
        (
            "tf.max_pool_with_argmax(x2, 2, 2, 'valid')",
            ValueError,
            "Error in max_pool_with_argmax: input must be rank 4",
        ),
        ("tf.pool(x, 2, 'min', 'valid')", ValueError, "Error in pool: pooling_type must be"),
        (
            "tf.pool(x, 2, 'max', 'valid', 2, 2)",
            ValueError,
            "Error in pool: either strides or dilations must be 1",
        ),
        (
            "tf.dilation2d(x, f3, 1, 'valid')",
            ValueError,
            "Error in dilation2d: input and filter must have the same",
        ),
        ("tf.dilation2d(x2, f3, 1, 'valid')", ValueError, "Error in dilation2d: input must be rank 3 or 4"),
    ]
    for expr, cls, msg in cases:
        with pytest.raises(cls, match=msg):
            run(expr, **f)
