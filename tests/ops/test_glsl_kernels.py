"""The kernels issue 15 moved to GLSL on webgl (Dilation2D, LRNGrad, MaxPoolWithArgmax, Multinomial,
SparseToDense, Einsum, complex64 Add / Sub / Multiply / Cast / Concat) against numpy on every target, and on
webgl a check that they ran on the GPU (their outputs are textures the host has not seen, where the cpu
fallback leaves host arrays). complex64 neg and div raise, as TF.js's kernels take no complex64."""

from __future__ import annotations

import numpy as np
import pytest

RNG = np.random.default_rng(33)


def _rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def lrn_grad_ref(x, dy, r, bias, alpha, beta):
    """The gradient of y = x * (bias + alpha * sum of x^2 over channels c - r..c + r) ** -beta, weighted by dy."""
    x, dy = x.astype(np.float64), dy.astype(np.float64)
    c = x.shape[-1]
    win = np.array([[abs(i - j) <= r for j in range(c)] for i in range(c)], np.float64)  # win[i, j]: j in W(i)
    norm = bias + alpha * (x * x) @ win.T
    out = dy * norm**-beta
    coef = dy * -2 * alpha * beta * x * norm ** (-beta - 1)  # per i
    return out + x * (coef @ win)


def test_issue15_glsl_kernels_match_numpy(run):
    x, w = _rand(1, 2, 3, 6), _rand(1, 2, 3, 6)
    a, b, b3, v = _rand(2, 3), _rand(3, 4), _rand(2, 3, 4), _rand(3)
    ai, bi = RNG.integers(-5, 5, (2, 3)).astype(np.int32), RNG.integers(-5, 5, (3, 2)).astype(np.int32)
    out = run(
        "tf.tidy(lambda: [tf.grad(lambda t: tf.sum(tf.local_response_normalization(t, 2, 1.5, 0.3, 0.75) * w))(x), "
        "tf.einsum('ij,jk->ik', a, b), tf.einsum('bij,j->bi', tf.transpose(b3, [0, 2, 1]), v), "
        "tf.einsum('ij->', a), tf.einsum('i,j->ji', v, v), tf.einsum('ij,ij->i', a, a), "
        "tf.einsum('ij,jk->ki', ai, bi), tf.einsum('ij->ji', a), "
        "tf.sparse_to_dense(tf.tensor([[0, 1], [2, 0], [0, 1]], None, 'int32'), tf.tensor([1., 2., 3.]), [3, 2], 9.0), "
        "tf.sparse_to_dense(tf.tensor([3, 0], None, 'int32'), tf.scalar(7, 'int32'), [5], tf.scalar(-1, 'int32'))])",
        x=x, w=w, a=a, b=b, b3=b3, v=v, ai=ai, bi=bi,
    )  # fmt: skip
    tol = max(run.tol, 1e-5)
    np.testing.assert_allclose(out[0], lrn_grad_ref(x, w, 2, 1.5, 0.3, 0.75), rtol=tol, atol=tol)
    refs = [a @ b, np.einsum("bji,j->bi", b3, v), a.sum(), np.outer(v, v).T, (a * a).sum(1), (ai @ bi).T, a.T]
    for got, ref in zip(out[1:8], refs, strict=True):
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
    assert out[6].dtype == np.int32
    np.testing.assert_array_equal(out[8], [[9, 3], [9, 9], [2, 9]])
    np.testing.assert_array_equal(out[9], [7, -1, -1, 7, -1])


def test_multinomial_draws_follow_the_probabilities(run):
    probs = np.array([[0.2, 0.5, 0.3], [0.0, 0.0, 1.0]], np.float32)
    out = run(
        "tf.tidy(lambda: [tf.multinomial(p, 1500, 4, True), tf.multinomial(tf.log(p), 8, 11), "
        "tf.multinomial(tf.log(p), 8, 11)])",
        p=probs,
    )
    freq = np.bincount(out[0][0], minlength=3) / 1500
    np.testing.assert_allclose(freq, probs[0], atol=0.05)
    assert (out[0][1] == 2).all()
    np.testing.assert_array_equal(out[1], out[2])  # one seed, one draw


def test_complex_arithmetic_broadcasts_and_casts(run):
    re, im, re2, im2 = _rand(2, 1), _rand(2, 1), _rand(3), _rand(3)
    z, z2 = re + 1j * im, re2 + 1j * im2
    out = run(
        "tf.tidy(lambda: (lambda c, d: [tf.add(c, d), tf.sub(d, c), tf.mul(c, d), tf.mul(d, tf.scalar(2.0)), "
        "tf.concat([d, d], 0), tf.concat([c, c], -1), tf.cast(c, 'int32'), tf.cast(c, 'bool')])"
        "(tf.complex(re, im), tf.complex(re2, im2)))",
        re=re, im=im, re2=re2, im2=im2,
    )  # fmt: skip
    tol = max(run.tol, 1e-5)
    wants = [z + z2, z2 - z, z * z2, z2 * 2, np.concatenate([z2, z2]), np.concatenate([z, z], -1)]
    for got, want in zip(out, wants, strict=False):
        np.testing.assert_allclose(got, want.astype(np.complex64), rtol=tol, atol=tol)
    np.testing.assert_array_equal(out[6], re.astype(np.int32))
    np.testing.assert_array_equal(out[7], re != 0)


def test_complex_neg_and_div_raise(run):
    for expr, msg in (("tf.neg(c)", "Error in neg: complex64"), ("tf.div(c, c)", "Error in div: complex64")):
        with pytest.raises(TypeError, match=msg):
            run(f"tf.tidy(lambda: (lambda c: {expr})(tf.complex(re, re)))", re=_rand(2))


GPU_SETUP = """
be = tf.backend()
gpu = lambda t: tf.add(t, tf.zeros_like(t))  # a float32 tensor drawn by a GLSL kernel: it lives in a texture
gpu_int = lambda t: tf.cast(gpu(tf.cast(t, "float32")), "int32")
on_gpu = lambda ts: [be.data[t.data_id].values is None and be.data[t.data_id].tex is not None for t in ts]
"""


def test_webgl_runs_them_on_the_gpu(run):
    """None of them runs the cpu fallback on webgl (which leaves its output on the host)."""
    if run.backend != "webgl":
        pytest.skip("webgl only")
    exprs = [
        "tf.dilation2d(gpu(x), gpu(f), 1, 'same')",
        "*tf.max_pool_with_argmax(gpu(x), 2, 2, 'valid').values()",
        "tf.ENGINE.run_kernel('LRNGrad', {'x': gpu(x), 'y': gpu(x), 'dy': gpu(x)}, "
        "{'depth_radius': 1, 'bias': 1.0, 'alpha': 0.5, 'beta': 0.75})",
        "tf.multinomial(gpu(p), 4, 3)",
        "tf.sparse_to_dense(gpu_int(i), gpu(v), [5], gpu(tf.scalar(0.5)))",
        "tf.einsum('ij,jk->ik', gpu(a), gpu(a))",
        "tf.einsum('ij->i', gpu(a))",
        "tf.add(tf.complex(gpu(a), gpu(a)), tf.complex(gpu(a), gpu(a)))",
        "tf.sub(tf.complex(gpu(a), gpu(a)), tf.complex(gpu(a), gpu(a)))",
        "tf.mul(tf.complex(gpu(a), gpu(a)), tf.complex(gpu(a), gpu(a)))",
        "tf.cast(gpu(a), 'complex64')",
        "tf.cast(tf.complex(gpu(a), gpu(a)), 'int32')",
        "tf.concat([tf.complex(gpu(a), gpu(a))] * 2, 1)",
    ]
    flags = run(
        f"tf.tidy(lambda: on_gpu([{', '.join(exprs)}]))",
        setup=GPU_SETUP, x=_rand(1, 4, 4, 3), f=_rand(2, 2, 3), p=_rand(2, 3), a=_rand(3, 3),
        i=np.array([4, 1], np.int32), v=_rand(2),
    )  # fmt: skip
    assert flags == [True] * (len(exprs) + 1)
