"""moments, norm, euclidean_norm, batch_norm(2d/3d/4d), local_response_normalization, moving_average vs numpy."""

import numpy as np
import pytest

_RNG = np.random.default_rng(16)


class _R:
    @staticmethod
    def of(shape, dtype, lo, hi):
        if dtype == "int32":
            return _RNG.integers(lo, hi, size=shape).astype(np.int32)
        return _RNG.uniform(lo, hi, size=shape).astype(np.float32)


def _lrn(x, radius, bias, alpha, beta):
    c = x.shape[-1]
    sq = np.stack([np.sum(x[..., max(0, i - radius) : i + radius + 1] ** 2, -1) for i in range(c)], -1)
    return x / (bias + alpha * sq) ** beta


def test_moments_and_norms(run):
    x = _R.of((3, 4, 5), "float32", -3, 3)
    xi = _R.of((4, 5), "int32", -5, 6)
    out = run(
        "[tf.moments(x), tf.moments(x, [0, 2], True), tf.moments(xi, 1), tf.norm(x), tf.norm(x, 1, 1), "
        "tf.norm(x, float('inf'), [-1], True), tf.norm(x, -float('inf'), 0), tf.norm(x, 'fro', [0, 2]), "
        "tf.norm(x, 1, [1, 2]), tf.norm(x, float('inf'), [0, 1], True), tf.euclidean_norm(x, 2), "
        "tf.norm(xi, 2), tf.norm(s)]",
        x=x,
        xi=xi,
        s=np.float32(-2.5),
    )
    x64, xi64 = x.astype(np.float64), xi.astype(np.float64)
    refs = [
        {"mean": x64.mean(), "variance": x64.var()},
        {"mean": x64.mean((0, 2), keepdims=True), "variance": x64.var((0, 2), keepdims=True)},
        {"mean": xi64.mean(1), "variance": xi64.var(1)},
        np.linalg.norm(x64.ravel()),
        np.abs(x64).sum(1),
        np.abs(x64).max(-1, keepdims=True),
        np.abs(x64).min(0),
        np.sqrt((x64**2).sum((0, 2))),
        np.abs(x64).sum(1).max(1),
        np.abs(x64).sum(1).max(0)[None, None],
        np.sqrt((x64**2).sum(2)),
        np.linalg.norm(xi64.ravel()),
        np.float64(2.5),
    ]
    for got, ref in zip(out, refs, strict=True):
        pairs = zip(got.values(), ref.values(), strict=True) if isinstance(ref, dict) else [(got, ref)]
        for g, e in pairs:
            assert g.dtype == np.float32 and g.shape == np.shape(e)
            np.testing.assert_allclose(g, e, rtol=run.tol * 10, atol=run.tol * 10)


def test_batch_norm_lrn_and_moving_average(run):
    x4 = _R.of((2, 3, 2, 4), "float32", -2, 2)
    m, v = _R.of((4,), "float32", -1, 1), _R.of((4,), "float32", 0.5, 2)
    o, s = _R.of((4,), "float32", -1, 1), _R.of((4,), "float32", -2, 2)
    x2 = _R.of((3, 4), "float32", -2, 2)
    m2, v2 = _R.of((3, 4), "float32", -1, 1), _R.of((3, 4), "float32", 0.5, 2)
    x3 = _R.of((3, 2, 5), "float32", -2, 2)
    out = run(
        "[tf.batch_norm4d(x4, m, v, o, s, 0.01), tf.batch_norm(x4, m, v), tf.batch_norm2d(x2, m2, v2, None, m2),"
        " tf.batch_norm3d(x3, z, one, None, None, 0), "
        "tf.local_response_normalization(x4, 1, 2.0, 0.5, 0.75), tf.local_response_normalization(x3), "
        "tf.moving_average(v2, x2, 0.9, 3), tf.moving_average(v2, x2, 0.5, None, False)]",
        x4=x4,
        m=m,
        v=v,
        o=o,
        s=s,
        x2=x2,
        m2=m2,
        v2=v2,
        x3=x3,
        z=np.zeros(5, np.float32),
        one=np.ones(5, np.float32),
    )
    refs = [
        (x4 - m) * s / np.sqrt(v + 0.01) + o,
        (x4 - m) / np.sqrt(v + 0.001),
        (x2 - m2) * m2 / np.sqrt(v2 + 0.001),
        x3,
        _lrn(x4.astype(np.float64), 1, 2.0, 0.5, 0.75),
        _lrn(x3.astype(np.float64), 5, 1.0, 1.0, 0.5),
        v2 + (x2 - v2) * 0.1 / (1 - 0.9**3),
        v2 + (x2 - v2) * 0.5,
    ]
    for got, ref in zip(out, refs, strict=True):
        assert got.dtype == np.float32 and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=run.tol * 10, atol=run.tol * 10)


def test_errors(run):
    with pytest.raises(ValueError, match="Error in norm: invalid ord value"):
        run("tf.norm(x, 3)", x=np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="Error in norm: invalid axis"):
        run("tf.norm(x, 2, [0, 1, 2])", x=np.ones((2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="Error in batch_norm: mean and offset must have equal ranks"):
        run("tf.batch_norm(x, m, m, 1.0)", x=np.ones((2, 2), np.float32), m=np.ones(2, np.float32))
    with pytest.raises(ValueError, match="Error in batch_norm4d: x must be rank 4"):
        run("tf.batch_norm4d(x, m, m)", x=np.ones((2, 2), np.float32), m=np.ones(2, np.float32))
    with pytest.raises(ValueError, match="Error in local_response_normalization: x must be rank 3 or 4"):
        run("tf.local_response_normalization(x)", x=np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="Error in local_response_normalization: argument 'depth_radius'"):
        run("tf.local_response_normalization(x, 1.5)", x=np.ones((1, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="Error in moving_average: step is required|when using zero_debias"):
        run("tf.moving_average(x, x, 0.9)", x=np.ones(2, np.float32))
