import numpy as np
import pytest

from tests.helpers import Rand, ref_activation

rand = Rand(7).normal


def ref_matmul(a, b, ta=False, tb=False):
    a = np.swapaxes(a, -1, -2) if ta else a
    b = np.swapaxes(b, -1, -2) if tb else b
    return np.matmul(a.astype(np.float64), b.astype(np.float64))


def test_mat_mul_2d(run):
    a, b = rand(3, 4), rand(4, 5)
    np.testing.assert_allclose(run("tf.mat_mul(a, b)", a=a, b=b), ref_matmul(a, b), rtol=1e-5, atol=1e-5)
    out = run("tf.mat_mul([[1, 2], [3, 4]], [[5], [6]])")
    assert out.dtype == np.int32 and out.tolist() == [[17], [39]]


@pytest.mark.parametrize("ta,tb", [(False, True), (True, False), (True, True)])
def test_mat_mul_transposes(run, ta, tb):
    a = rand(4, 3) if ta else rand(3, 4)
    b = rand(5, 4) if tb else rand(4, 5)
    out = run(f"tf.mat_mul(a, b, {ta}, {tb})", a=a, b=b)
    assert out.shape == (3, 5)
    np.testing.assert_allclose(out, ref_matmul(a, b, ta, tb), rtol=1e-5, atol=1e-5)


def test_mat_mul_batched_and_broadcast(run):
    a, b = rand(2, 3, 4), rand(2, 4, 5)
    np.testing.assert_allclose(run("tf.mat_mul(a, b)", a=a, b=b), ref_matmul(a, b), rtol=1e-5, atol=1e-5)
    # rank-3 by rank-2: b is shared by every batch
    b2 = rand(4, 5)
    np.testing.assert_allclose(run("tf.mat_mul(a, b)", a=a, b=b2), ref_matmul(a, b2), rtol=1e-5, atol=1e-5)
    # [2, 1] x [1, 3] batch dims broadcast to [2, 3], with transposes
    a3, b3 = rand(2, 1, 4, 3), rand(1, 3, 5, 4)
    out = run("tf.mat_mul(a, b, transpose_a=True, transpose_b=True)", a=a3, b=b3)
    assert out.shape == (2, 3, 3, 5)
    np.testing.assert_allclose(out, ref_matmul(a3, b3, True, True), rtol=1e-5, atol=1e-5)
    # rank-2 by rank-4
    a4, b4 = rand(3, 4), rand(2, 2, 4, 2)
    np.testing.assert_allclose(run("tf.mat_mul(a, b)", a=a4, b=b4), ref_matmul(a4, b4), rtol=1e-5, atol=1e-5)


def test_mat_mul_medium(run):
    a, b = rand(40, 70), rand(70, 30)
    np.testing.assert_allclose(run("tf.mat_mul(a, b)", a=a, b=b), ref_matmul(a, b), rtol=1e-4, atol=1e-4)


def test_mat_mul_dtypes(run):
    a = np.array([[1, -2], [3, 4]], dtype=np.int32)
    b = np.array([[5, 6], [7, -8]], dtype=np.int32)
    out = run("tf.mat_mul(a, b)", a=a, b=b)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, a @ b)
    big = np.array([[2**30, 2**30]], dtype=np.int32)
    two = np.array([[2], [2]], dtype=np.int32)
    assert run("tf.mat_mul(a, b)", a=big, b=two).tolist() == [[0]]  # wraps like an Int32Array
    f = rand(2, 3)
    mixed = run("tf.mat_mul(a, b)", a=a, b=f)
    assert mixed.dtype == np.float32
    np.testing.assert_allclose(mixed, a.astype(np.float64) @ f, rtol=1e-5, atol=1e-5)


def test_mat_mul_empty(run):
    assert run("tf.mat_mul(a, b)", a=rand(0, 3), b=rand(3, 4)).shape == (0, 4)
    out = run("tf.mat_mul(a, b)", a=rand(2, 0), b=rand(0, 3))
    assert out.shape == (2, 3) and not out.any()
    assert run("tf.mat_mul(a, b)", a=rand(0, 2, 3), b=rand(3, 4)).shape == (0, 2, 4)


def test_mat_mul_method_and_operator(run):
    a, b = rand(2, 3), rand(3, 2)
    np.testing.assert_allclose(run("a.mat_mul(b)", a=a, b=b), ref_matmul(a, b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run("a @ b", a=a, b=b), ref_matmul(a, b), rtol=1e-5, atol=1e-5)


def test_mat_mul_errors(run):
    a, b = rand(2, 3), rand(4, 5)
    with pytest.raises(
        ValueError,
        match=r"^Error in mat_mul: inner shapes \(3\) and \(4\) of tensors with shapes \[2,3\] and \[4,5\] "
        r"must match$",
    ):
        run("tf.mat_mul(a, b)", a=a, b=b)
    with pytest.raises(
        ValueError, match=r"inner shapes \(2\) and \(4\) .* \(transpose_a=True, transpose_b=False\)"
    ):
        run("tf.mat_mul(a, b, True)", a=a, b=b)
    with pytest.raises(
        ValueError, match=r"Error in mat_mul: inputs must have rank at least 2, but got ranks 1 and 2"
    ):
        run("tf.mat_mul(a, b)", a=rand(3), b=rand(3, 2))
    with pytest.raises(
        ValueError, match=r"Error in mat_mul: batch dimensions \[2\] and \[3\] .* cannot be broadcast"
    ):
        run("tf.mat_mul(a, b)", a=rand(2, 2, 3), b=rand(3, 3, 2))
    with pytest.raises(
        TypeError, match="Error in mat_mul: argument 'b' has dtype bool; expected float32 or int32"
    ):
        run("tf.mat_mul(a, b)", a=rand(2, 2), b=np.ones((2, 2), dtype=bool))
    with pytest.raises(ValueError, match="Error in mat_mul: argument 'a' is a disposed tensor"):
        run("tf.mat_mul(a, b)", setup="a.dispose()", a=rand(2, 2), b=rand(2, 2))


@pytest.mark.parametrize("activation", ["linear", "relu", "relu6", "elu", "prelu", "leakyrelu", "sigmoid"])
def test_fused_mat_mul_activations(run, activation):
    a, b, bias = rand(2, 3, 4) * 3, rand(4, 5) * 3, rand(5)
    alpha = rand(5)
    extra = ", prelu_activation_weights=alpha" if activation == "prelu" else ""
    out = run(
        f"tf.fused.mat_mul(a, b, bias=bias, activation='{activation}'{extra}, leakyrelu_alpha=0.3)",
        a=a,
        b=b,
        bias=bias,
        alpha=alpha,
    )
    ref = ref_activation(ref_matmul(a, b) + bias, activation, alpha, 0.3)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_fused_mat_mul_bias_shapes_and_defaults(run):
    a, b = rand(3, 4), rand(5, 4)
    out = run("tf.fused.mat_mul(a, b, transpose_b=True)", a=a, b=b)
    np.testing.assert_allclose(out, ref_matmul(a, b, False, True), rtol=1e-5, atol=1e-5)
    col = rand(3, 1)  # broadcast along columns, not just the last dim
    out = run("tf.fused.mat_mul(a, b, False, True, bias=c, activation='relu')", a=a, b=b, c=col)
    np.testing.assert_allclose(out, np.maximum(ref_matmul(a, b, False, True) + col, 0), rtol=1e-5, atol=1e-5)
    out = run("tf.fused.mat_mul(a, b, False, True, bias=2.5)", a=a, b=b)
    np.testing.assert_allclose(out, ref_matmul(a, b, False, True) + 2.5, rtol=1e-5, atol=1e-5)
    full = rand(3, 5)
    x = ref_matmul(a, b, False, True) + full
    out = run(
        "tf.fused.mat_mul(a, b, False, True, bias=c, activation='prelu', prelu_activation_weights=w)",
        a=a, b=b, c=full, w=full,
    )  # fmt: skip
    np.testing.assert_allclose(out, np.where(x < 0, full * x, x), rtol=1e-5, atol=1e-5)
    leaky = run("tf.fused.mat_mul(a, b, False, True, activation='leakyrelu')", a=a, b=b)
    y = ref_matmul(a, b, False, True)
    np.testing.assert_allclose(leaky, np.where(y < 0, 0.2 * y, y), rtol=1e-5, atol=1e-5)
    assert run("tf.mat_mul is not tf.fused.mat_mul and tf.fused.__all__ == []") is True


def test_fused_mat_mul_errors(run):
    a, b = rand(2, 3), rand(3, 4)
    with pytest.raises(ValueError, match=r"Error in fused.mat_mul: inner shapes \(3\) and \(2\)"):
        run("tf.fused.mat_mul(a, a)", a=a)
    with pytest.raises(
        ValueError, match=r"Error in fused.mat_mul: bias of shape \[3\] cannot be broadcast to .* \[2,4\]"
    ):
        run("tf.fused.mat_mul(a, b, bias=c)", a=a, b=b, c=rand(3))
    with pytest.raises(ValueError, match="Error in fused.mat_mul: unknown activation 'tanh'"):
        run("tf.fused.mat_mul(a, b, activation='tanh')", a=a, b=b)
    with pytest.raises(
        ValueError, match="Error in fused.mat_mul: activation 'prelu' needs prelu_activation_weights"
    ):
        run("tf.fused.mat_mul(a, b, activation='prelu')", a=a, b=b)
    with pytest.raises(TypeError, match="Error in fused.mat_mul: argument 'a' has dtype bool"):
        run("tf.fused.mat_mul(a, b)", a=np.ones((2, 3), dtype=bool), b=b)
