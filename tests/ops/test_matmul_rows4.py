"""Products large enough for webgl's four-rows-per-fragment program (MatMulRows4.glsl: 16+ rows, k and n
multiples of 4, float32), and the pointwise convolutions that run as such products, against numpy on every
target: row counts not a multiple of 4, folded batches, fused bias / activations / prelu, out channels
padded to 4, and the 1x1 convs that keep the window program (strides, padding, odd in channels)."""

from __future__ import annotations

import numpy as np

from tests.helpers import ref_activation
from tests.ops.test_conv import ref_conv2d, ref_depthwise

RNG = np.random.default_rng(47)


def _rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_rows4_products_and_pointwise_convs_match_numpy(run):
    a, b, a3, col = _rand(67, 8), _rand(8, 12), _rand(3, 33, 12), _rand(67, 1)
    b3, bias, alpha = _rand(12, 8), _rand(8), _rand(8)
    x, f, f6, b6 = _rand(2, 7, 9, 12), _rand(1, 1, 12, 8), _rand(1, 1, 12, 6), _rand(6)
    x5, f5 = _rand(1, 9, 11, 5), _rand(1, 1, 5, 8)
    out = run(
        "tf.tidy(lambda: [tf.mat_mul(a, b), tf.mat_mul(a3, b3), "
        "tf.fused.mat_mul(a3, b3, bias=bias, activation='prelu', prelu_activation_weights=alpha), "
        "tf.fused.mat_mul(a, b, bias=col, activation='relu'), "
        "tf.conv2d(x, f, 1, 'same'), tf.fused.conv2d(x, f, 1, 'valid', bias=bias, activation='relu6'), "
        "tf.fused.conv2d(x, f6, 1, 'same', bias=b6, activation='leakyrelu', leakyrelu_alpha=0.1), "
        "tf.conv2d(x, f, 2, 'same'), tf.conv2d(x, f, 1, [[0, 0], [1, 0], [0, 2], [0, 0]]), "
        "tf.conv2d(x5, f5, 1, 'same')])",
        a=a, b=b, col=col, a3=a3, b3=b3, bias=bias, alpha=alpha, x=x, f=f, f6=f6, b6=b6, x5=x5, f5=f5,
    )  # fmt: skip
    a64, a364 = a.astype(np.float64), a3.astype(np.float64)
    refs = [
        a64 @ b,
        a364 @ b3,
        ref_activation(a364 @ b3 + bias, "prelu", alpha),
        np.maximum(a64 @ b + col, 0),
        ref_conv2d(x, f, 1, "same"),
        np.clip(ref_conv2d(x, f, 1, "valid") + bias, 0, 6),
        ref_activation(ref_conv2d(x, f6, 1, "same") + b6, "leakyrelu", leaky=0.1),
        ref_conv2d(x, f, 2, "same"),
        ref_conv2d(x, f, 1, [[0, 0], [1, 0], [0, 2], [0, 0]]),
        ref_conv2d(x5, f5, 1, "same"),
    ]
    tol = max(run.tol, 1e-5)
    for got, want in zip(out, refs, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    if run.backend == "webgl":  # the four-row program and its merge ran (they compile on first use)
        assert run("'Merge4' in tf.backend().programs.programs") is True


def test_depthwise_four_pixels_match_numpy(run):
    """Depthwise convs with multiplier 1 and channels % 4 == 0 (DepthwiseConv2dX4.glsl on webgl): widths not a
    multiple of 4, strides, dilation, padding, a 5x5 window, batches, fused bias and relu6; multiplier 2 and
    6 channels keep the one-pixel program."""
    x, x2, x6 = _rand(2, 6, 7, 8), _rand(1, 9, 13, 4), _rand(1, 5, 6, 6)
    f, f5, f2, f6, bias = _rand(3, 3, 8, 1), _rand(5, 5, 4, 1), _rand(3, 3, 8, 2), _rand(3, 3, 6, 1), _rand(8)
    cases = [
        ("x, f, 1, 'same'", (x, f, 1, "same", 1)),
        ("x, f, 2, 'same'", (x, f, 2, "same", 1)),
        ("x, f, 1, 'valid', 'NHWC', 2", (x, f, 1, "valid", 2)),
        ("x, f, [1, 2], 'valid'", (x, f, (1, 2), "valid", 1)),
        ("x2, f5, 1, 'same'", (x2, f5, 1, "same", 1)),
        ("x2, f5, 2, [[0, 0], [1, 2], [3, 0], [0, 0]]", (x2, f5, 2, [[0, 0], [1, 2], [3, 0], [0, 0]], 1)),
        ("x, f2, 1, 'same'", (x, f2, 1, "same", 1)),
        ("x6, f6, 1, 'same'", (x6, f6, 1, "same", 1)),
    ]
    exprs = [f"tf.depthwise_conv2d({args})" for args, _ in cases]
    exprs.append("tf.fused.depthwise_conv2d(x, f, 1, 'same', bias=bias, activation='relu6')")
    out = run(f"tf.tidy(lambda: [{', '.join(exprs)}])", x=x, x2=x2, x6=x6, f=f, f5=f5, f2=f2, f6=f6, bias=bias)
    refs = [ref_depthwise(xi, fi, s, p, d) for _, (xi, fi, s, p, d) in cases]
    refs.append(np.clip(ref_depthwise(x, f, 1, "same") + bias, 0, 6))
    tol = max(run.tol, 1e-5)
    for got, want in zip(out, refs, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    if run.backend == "webgl":
        assert run("any(k[0] == 'DepthwiseConv2dX4' for k in tf.backend().programs.programs)") is True


def test_conv_four_pixels_match_numpy(run):
    """Convs with out channels % 4 == 0 that are not pointwise (Conv2DX4.glsl on webgl): 3 and 8 in channels,
    widths not a multiple of 4, strides, dilation, explicit padding, batches, fused prelu; 6 out channels
    (padded to 8), and a width below 4 keeps the one-pixel program."""
    x3, x8, xn = _rand(1, 9, 11, 3), _rand(2, 6, 7, 8), _rand(1, 5, 3, 8)
    f3, f8, f5, f6, w = _rand(3, 3, 3, 8), _rand(3, 3, 8, 4), _rand(5, 5, 8, 4), _rand(3, 3, 3, 6), _rand(4)
    cases = [
        ("x3, f3, 2, 'same'", (x3, f3, 2, "same", 1)),
        ("x3, f3, 1, 'valid'", (x3, f3, 1, "valid", 1)),
        ("x8, f8, 1, 'same', 'NHWC', 2", (x8, f8, 1, "same", 2)),
        ("x8, f8, [2, 1], [[0, 0], [2, 1], [0, 3], [0, 0]]", (x8, f8, (2, 1), [[0, 0], [2, 1], [0, 3], [0, 0]], 1)),
        ("x8, f5, 1, 'same'", (x8, f5, 1, "same", 1)),
        ("x3, f6, 2, 'valid'", (x3, f6, 2, "valid", 1)),
        ("xn, f8, 1, 'same'", (xn, f8, 1, "same", 1)),
    ]
    exprs = [f"tf.conv2d({args})" for args, _ in cases]
    exprs.append("tf.fused.conv2d(x8, f8, 1, 'same', bias=w, activation='prelu', prelu_activation_weights=w)")
    out = run(f"tf.tidy(lambda: [{', '.join(exprs)}])", x3=x3, x8=x8, xn=xn, f3=f3, f8=f8, f5=f5, f6=f6, w=w)
    refs = [ref_conv2d(xi, fi, s, p, d) for _, (xi, fi, s, p, d) in cases]
    refs.append(ref_activation(ref_conv2d(x8, f8, 1, "same") + w, "prelu", w))
    tol = max(run.tol, 1e-5)
    for got, want in zip(out, refs, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    if run.backend == "webgl":
        assert run("{k[1] for k in tf.backend().programs.programs if k[0] == 'Conv2DX4'} == {True, False}") is True
