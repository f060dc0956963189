"""complex64, tf.spectral / tf.signal and string tensors and tf.string, against numpy and Python's re."""

from __future__ import annotations

import numpy as np
import pytest

from tests.harness.aio import run_sync

RNG = np.random.default_rng(15)
WITH_C = "tf.tidy(lambda: (lambda c: {})(tf.complex(re, im)))"  # temporaries freed inside the expression
WITH_S = "tf.tidy(lambda: (lambda s: {})(tf.tensor([['a', 'bc', ''], ['d', 'é', 'fgh']])))"
WITH_W = "tf.tidy(lambda: (lambda w: {})(tf.tensor(%r)))"


def _rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_complex_parts_and_arithmetic(run):
    re, im, other = _rand(2, 3), _rand(2, 3), _rand(3)
    z = re + 1j * im
    tol = max(run.tol, 1e-5)
    out = run(WITH_C.format("[c, tf.real(c), tf.imag(c), tf.abs(c)]"), re=re, im=im)
    np.testing.assert_allclose(out[0], z, rtol=tol)
    np.testing.assert_array_equal(out[1], re)
    np.testing.assert_array_equal(out[2], im)
    np.testing.assert_allclose(out[3], np.abs(z), rtol=tol)
    expr = "[tf.add(c, c), tf.sub(c, o), tf.mul(c, c), tf.mul(c, o), tf.cast(c, 'float32')]"
    out = run(WITH_C.format(expr), re=re, im=im, o=other)
    for got, want in zip(out, [2 * z, z - other, z * z, z * other, re], strict=False):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    expr = "[tf.cast(o, 'complex64'), tf.zeros_like(c), tf.ones_like(c), tf.zeros([2], 'complex64')]"
    out = run(WITH_C.format(expr), re=re, im=im, o=other)
    np.testing.assert_array_equal(out[0], other.astype(np.complex64))
    np.testing.assert_array_equal(out[1], np.zeros((2, 3), np.complex64))
    np.testing.assert_array_equal(out[2], np.ones((2, 3), np.complex64))
    np.testing.assert_array_equal(out[3], np.zeros(2, np.complex64))


def test_complex_moves_like_numbers(run):
    re, im = _rand(2, 3), _rand(2, 3)
    z = re + 1j * im
    exprs = (
        "[tf.reshape(c, [3, 2]), tf.transpose(c), tf.concat([c, c], 1), tf.slice(c, [0, 1], [2, 2]),"
        " tf.gather(c, [2, 0], 1), tf.stack([c, c]), tf.tile(c, [1, 2]), tf.reverse(c, 1), tf.expand_dims(c, 0)]"
    )
    out = run(WITH_C.format(exprs), re=re, im=im)
    wants = [z.reshape(3, 2), z.T, np.concatenate([z, z], 1), z[:, 1:3], z[:, [2, 0]], np.stack([z, z]),
             np.tile(z, (1, 2)), z[:, ::-1], z[None]]  # fmt: skip
    for got, want in zip(out, wants, strict=False):
        np.testing.assert_array_equal(got, want.astype(np.complex64))


def test_complex_errors(run):
    with pytest.raises(
        ValueError, match=r"Error in complex: real and imag shapes, \[2\] and \[3\], must match"
    ):
        run("tf.complex(a, b)", a=_rand(2), b=_rand(3))
    with pytest.raises(TypeError, match="Error in fft: argument 'input' must be complex64, but got float32"):
        run("tf.spectral.fft(a)", a=_rand(4))
    with pytest.raises(TypeError, match="Error in rfft: argument 'input' must be float32, but got int32"):
        run("tf.spectral.rfft(a)", a=np.arange(4, dtype=np.int32))


@pytest.mark.parametrize("n", [8, 6])
def test_fft_family(run, n):
    re, im = _rand(3, n), _rand(3, n)
    z = (re + 1j * im).astype(np.complex64)
    tol = 1e-4
    expr = (
        "[tf.spectral.fft(c), tf.spectral.ifft(c), tf.spectral.rfft(re), tf.spectral.rfft(re, 5),"
        " tf.spectral.rfft(re, 10)]"
    )
    out = run(WITH_C.format(expr), re=re, im=im)
    wants = [np.fft.fft(z), np.fft.ifft(z), np.fft.rfft(re), np.fft.rfft(re, 5), np.fft.rfft(re, 10)]
    for got, want in zip(out, wants, strict=False):  # float32 sums of n terms (GPU sin/cos on webgl)
        np.testing.assert_allclose(
            got, want, atol=tol * max(1.0, np.abs(want).max()) * (n if "webgl" in run.backend else 1)
        )
    spec = np.fft.rfft(re).astype(np.complex64)
    got = run(
        "tf.tidy(lambda: tf.spectral.irfft(tf.complex(sr, si)))", sr=spec.real.copy(), si=spec.imag.copy()
    )
    np.testing.assert_allclose(got, np.fft.irfft(spec, 2 * (spec.shape[-1] - 1)), rtol=tol, atol=tol)
    got = run(
        "tf.tidy(lambda: tf.spectral.irfft(tf.complex(sr, si)))",
        sr=spec[0].real.copy(),
        si=spec[0].imag.copy(),
    )
    assert got.shape == (1, 2 * (spec.shape[-1] - 1))  # TF.js: rows flattened to [batch, n]


def test_signal(run):
    x = np.sin(np.arange(20, dtype=np.float32))
    out = run("[tf.signal.hann_window(5), tf.signal.hamming_window(6), tf.signal.frame(x, 5, 3),"
              " tf.signal.frame(x, 6, 4, True, 9.0), tf.signal.stft(x, 8, 4),"
              " tf.cosine_window(4, 0.3, 0.7)]", x=x)  # fmt: skip
    periodic = lambda n, a, b: a - b * np.cos(2 * np.pi * np.arange(n) / (n if n % 2 == 0 else n - 1))  # noqa: E731
    np.testing.assert_allclose(out[0], np.hanning(5), atol=1e-6)
    np.testing.assert_allclose(out[1], periodic(6, 0.54, 0.46), atol=1e-6)
    np.testing.assert_array_equal(out[2], np.stack([x[i : i + 5] for i in range(0, 16, 3)]))
    padded = np.concatenate([x, np.full(6, 9.0, np.float32)])
    np.testing.assert_array_equal(out[3], np.stack([padded[i : i + 6] for i in range(0, 20, 4)]))
    frames = np.stack([x[i : i + 8] for i in range(0, 13, 4)]) * periodic(8, 0.5, 0.5).astype(np.float32)
    np.testing.assert_allclose(out[4], np.fft.rfft(frames, 8), atol=1e-4)
    np.testing.assert_allclose(out[5], periodic(4, 0.3, 0.7), atol=1e-6)


def test_string_tensors_move_like_numbers(run):
    out = run(WITH_S.format("[s, tf.reshape(s, [3, 2]), tf.transpose(s), tf.concat([s, s], 0),"
              " tf.slice(s, [0, 1], [2, 2]),"
              " tf.gather(s, [2, 0], 1), tf.stack([s, s], 1), tf.tile(s, [1, 2]), tf.reverse(s, 1),"
              " tf.unstack(s)[1], tf.split(s, 3, 1)[2], tf.zeros_like(s)]"))  # fmt: skip
    s = np.array([["a", "bc", ""], ["d", "é", "fgh"]], object)
    wants = [s, s.reshape(3, 2), s.T, np.concatenate([s, s]), s[:, 1:3], s[:, [2, 0]], np.stack([s, s], 1),
             np.tile(s, (1, 2)), s[:, ::-1], s[1], s[:, 2:], np.full((2, 3), "", object)]  # fmt: skip
    for got, want in zip(out, wants, strict=False):
        assert got.shape == want.shape and got.tolist() == want.tolist()


def test_string_memory_and_data():
    import webtf as tf

    before = tf.memory()
    s = tf.tensor(["ab", "é"])
    m = tf.memory()
    assert (m.num_tensors - before.num_tensors, m.num_bytes - before.num_bytes) == (1, 4)  # UTF-8 bytes
    assert m.unreliable and "string tensors" in m.reasons[-1]
    assert s.dtype == "string" and s.data_sync() == ["ab", "é"] and s.array_sync() == ["ab", "é"]
    assert run_sync(s.bytes()) == [b"ab", "é".encode()]
    c = tf.complex([1.0, 2.0], [3.0, 4.0])
    assert tf.memory().num_bytes == m.num_bytes  # as TF.js: complex64 counts no bytes of its own
    assert c.array_sync() == [1.0, 3.0, 2.0, 4.0]  # TF.js: re, im pairs along the innermost dim
    # the engine counts live string buffers (memory() reads the count, not a scan of every buffer)
    from webtf.engine import ENGINE

    def scan() -> int:
        return sum(d[3] == "string" for d in ENGINE.data_info.values())  # [backend, bytes, refs, dtype, shape]

    shared = tf.reshape(s, [2, 1])  # a second tensor on the same buffer: still one buffer
    assert ENGINE.num_string_buffers == scan() >= 1
    tf.dispose([s, c])
    assert ENGINE.num_string_buffers == scan() >= 1 and tf.memory().unreliable  # shared keeps the buffer
    shared.dispose()
    assert ENGINE.num_string_buffers == scan()
    assert tf.memory().unreliable == (scan() > 0)
    assert (tf.memory().num_tensors, tf.memory().num_bytes) == (before.num_tensors, before.num_bytes)
    with pytest.raises(TypeError, match="Error in tensor: argument 'values' of a string tensor holds int"):
        tf.tensor(["a", 1])
    with pytest.raises(TypeError, match="Can not upcast string with float32"):
        tf.tidy(lambda: tf.add(tf.tensor(["a"]), tf.tensor([1.0])))
    assert tf.memory().num_tensors == before.num_tensors


def test_string_ops(run):
    import re

    words = ["Hello", "TensorFlow", "2.x", "", "a" * 20, "b" * 50, "héllo wörld " * 9]
    out = run((WITH_W % words).format("[tf.string.string_to_hash_bucket_fast(w, 3),"
              " tf.string.string_to_hash_bucket_fast(w, 2**31 - 1),"
              " tf.string.static_regex_replace(w, r'(l+)', '<$1>'),"
              " tf.string.static_regex_replace(w, 'l', 'L', False)]"))  # fmt: skip
    assert out[0][:3].tolist() == [
        0,
        2,
        2,
    ]  # TF's documented to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3)
    assert out[1][3] == 0x9AE16A3B2F90404F % (2**31 - 1)  # Fingerprint64 of b"": FarmHash's k2
    assert out[2].tolist() == [re.sub("(l+)", r"<\1>", w) for w in words]
    assert out[3].tolist() == [re.sub("l", "L", w, count=1) for w in words]
    out = run("tf.tidy(lambda: tf.string.string_split(tf.tensor(['a b  c', 'de', '']), ' ', True))")
    assert out["indices"].tolist() == [[0, 0], [0, 1], [0, 2], [1, 0]]
    assert out["values"].tolist() == ["a", "b", "c", "de"] and out["shape"].tolist() == [3, 3]
    out = run("tf.tidy(lambda: tf.string.string_split(tf.tensor(['a,b;;c']), ',;', False))")
    assert out["values"].tolist() == ["a", "b", "", "c"] and out["shape"].tolist() == [1, 4]
    out = run("tf.tidy(lambda: tf.string.string_n_grams(tf.tensor(list('abcde')), sp, '|', [1, 3], 'L', 'R', -1,"
              " False))",
              sp=np.array([0, 2, 5], np.int32))  # fmt: skip
    assert out["n_grams"].tolist() == ["a", "b", "L|L|a", "L|a|b", "a|b|R", "b|R|R", "c", "d", "e", "L|L|c",
                                       "L|c|d", "c|d|e", "d|e|R", "e|R|R"]  # fmt: skip
    assert out["n_grams_splits"].tolist() == [0, 6, 14]
    out = run("tf.tidy(lambda: tf.string.string_n_grams(tf.tensor(list('abc')), sp, ' ', [4], '<', '>', 0, True))",
              sp=np.array([0, 1, 3], np.int32))  # fmt: skip
    assert out["n_grams"].tolist() == ["a", "b c"] and out["n_grams_splits"].tolist() == [0, 1, 2]


def test_string_op_errors(run):
    with pytest.raises(
        TypeError, match="Error in string_to_hash_bucket_fast: argument 'input' must be a string"
    ):
        run("tf.string.string_to_hash_bucket_fast(x, 3)", x=_rand(2))
    with pytest.raises(ValueError, match="Error in string_split: input should be 1-D, but got shape"):
        run("tf.tidy(lambda: tf.string.string_split(tf.tensor([['a']]), ' '))")
    with pytest.raises(ValueError, match="Error in string_n_grams: data_splits must start at 0"):
        run("tf.tidy(lambda: tf.string.string_n_grams(tf.tensor(['a']), sp, ' ', [1], '', '', 0, False))",
            sp=np.array([0, 2], np.int32))  # fmt: skip


def test_complex_abs_gradient(run):
    re, im = np.array([3.0, -1.0, 0.0], np.float32), np.array([4.0, 2.0, 1.0], np.float32)
    expr = (
        "tf.tidy(lambda: tf.grad(lambda c: tf.ENGINE.run_kernel('ComplexAbs', {'x': c}))(tf.complex(re, im)))"
    )
    got = run(expr, re=re, im=im)
    np.testing.assert_array_equal(got, np.where(re > 0, 1.0, -1.0))  # TF.js: Abs's gradient of the real part
