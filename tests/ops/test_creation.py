import numpy as np
import pytest


def test_tensor_roundtrip_dtypes(run):
    a = np.arange(6, dtype=np.float32).reshape(2, 3) / 3
    np.testing.assert_allclose(run("tf.tensor(a.array_sync())", a=a), a, rtol=1e-6)
    i = np.array([[1, -2], [3, 4]], dtype=np.int32)
    out = run("tf.tensor([[1, -2], [3, 4]])")
    assert out.dtype == np.int32 and np.array_equal(out, i)
    assert run("tf.tensor([True, False])").tolist() == [True, False]


def test_tensor_with_shape_and_errors(run):
    assert run("tf.tensor([1, 2, 3, 4], [2, 2], 'float32')").tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match=r"shape, \[3,2\], the tensor should have 6 values but has 4"):
        run("tf.tensor([1, 2, 3, 4], [3, 2])")
    with pytest.raises(ValueError, match="ragged"):
        run("tf.tensor([[1, 2], [3]])")
    with pytest.raises(TypeError, match="unsupported dtype 'int8'"):
        run("tf.tensor([1], None, 'int8')")
    assert run("tf.tensor([1, 2], None, 'complex64')").tolist() == [1, 2]  # complex64: zero imaginary parts


def test_fill_zeros_ones_like(run):
    assert run("tf.zeros([2, 3])").tolist() == np.zeros((2, 3)).tolist()
    assert run("tf.ones([2], 'int32')").dtype == np.int32
    assert run("tf.fill([2, 2], 7)").tolist() == [[7, 7], [7, 7]]
    x = np.array([[1.5, 2.0]], dtype=np.float32)
    assert run("tf.zeros_like(x)", x=x).tolist() == [[0, 0]]
    assert run("tf.ones_like(x)", x=x).tolist() == [[1, 1]]


def test_range_linspace_eye(run):
    np.testing.assert_allclose(run("tf.range(0, 10, 3)"), np.arange(0, 10, 3))
    np.testing.assert_allclose(run("tf.range(5, 0, -1.5)"), np.arange(5, 0, -1.5), rtol=1e-6)
    assert run("tf.range(3, dtype='int32')").dtype == np.int32
    np.testing.assert_allclose(run("tf.linspace(0, 1, 5)"), np.linspace(0, 1, 5), rtol=1e-6)
    np.testing.assert_array_equal(run("tf.eye(3, 4)"), np.eye(3, 4))
    assert run("tf.eye(2, batch_shape=[3])").shape == (3, 2, 2)


def test_random_seeded(run):
    u = run("tf.random_uniform([2000], -1, 3, seed=7)")
    assert u.min() >= -1 and u.max() < 3 and abs(u.mean() - 1) < 0.1
    n = run("tf.random_normal([4000], 2, 0.5, seed=3)")
    assert abs(n.mean() - 2) < 0.05 and abs(n.std() - 0.5) < 0.05
    same = run("[tf.random_normal([5], seed=1), tf.random_normal([5], seed=1)]")
    np.testing.assert_array_equal(same[0], same[1])


def test_cast(run):
    x = np.array([1.7, -1.7, 0.0], dtype=np.float32)
    assert run("tf.cast(x, 'int32')", x=x).tolist() == [1, -1, 0]
    assert run("tf.cast(x, 'bool')", x=x).tolist() == [True, True, False]
    with pytest.raises(TypeError, match="Error in cast: unsupported dtype 'int8'"):
        run("tf.cast(x, 'int8')", x=x)
