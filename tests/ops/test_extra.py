import numpy as np
import pytest


def test_broadcast_to(run):
    x = np.array([1.5, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(run("tf.broadcast_to(x, [2, 3])", x=x), np.broadcast_to(x, (2, 3)))
    c = np.arange(3, dtype=np.int32).reshape(3, 1)
    out = run("tf.broadcast_to(c, [2, 3, 4])", c=c)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.broadcast_to(c, (2, 3, 4)))
    b = np.array([[True], [False]])
    np.testing.assert_array_equal(run("tf.broadcast_to(b, [2, 2])", b=b), np.broadcast_to(b, (2, 2)))
    np.testing.assert_array_equal(run("tf.broadcast_to(x, [3])", x=x), x)  # no-op: a copy
    np.testing.assert_array_equal(run("tf.broadcast_to(x, [1, 3])", x=x), x[None])
    assert run("tf.broadcast_to(7.0, [0, 2])").shape == (0, 2)


def test_broadcast_to_errors(run):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(
        ValueError, match=r"Error in broadcast_to: x with shape \[2,3\] cannot be broadcast to \[4,3\]"
    ):
        run("tf.broadcast_to(x, [4, 3])", x=x)
    with pytest.raises(
        ValueError, match=r"shape \[3\] has fewer dims \(1\) than x has \(shape \[2,3\], rank 2\)"
    ):
        run("tf.broadcast_to(x, [3])", x=x)
    with pytest.raises(
        ValueError, match=r"argument 'shape' must hold dims in \[0, 2147483647\], but shape\[0\] is -1"
    ):
        run("tf.broadcast_to(x, [-1, 3])", x=x)
    with pytest.raises(TypeError, match="Error in broadcast_to: argument 'shape' must contain only integers"):
        run("tf.broadcast_to(x, [2.0, 3])", x=x)


def test_where_async(run):
    x = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, -1.0]], np.float32)
    out = run("tf.where_async(x)", x=x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.argwhere(x))
    b = np.random.default_rng(0).random((3, 4, 5)) > 0.5
    np.testing.assert_array_equal(run("tf.where_async(b)", b=b), np.argwhere(b))
    v = np.array([True, False, True])
    np.testing.assert_array_equal(run("tf.where_async(v)", v=v), [[0], [2]])
    assert run("tf.where_async(z)", z=np.zeros((2, 2), bool)).shape == (0, 2)
    np.testing.assert_array_equal(run("tf.where_async([[True, False]])"), [[0, 0]])


def test_where_async_disposed(run):
    with pytest.raises(ValueError, match="Error in where_async: argument 'condition' is a disposed tensor"):
        run("tf.where_async(t)", setup="t = tf.tensor([True]); t.dispose()")


def test_sparse_to_dense(run):
    idx = np.array([[0, 1], [2, 0]], np.int32)
    vals = np.array([5.0, 7.5], np.float32)
    out = run("tf.sparse_to_dense(idx, vals, [3, 2], 0.5)", idx=idx, vals=vals)
    np.testing.assert_array_equal(out, [[0.5, 5.0], [0.5, 0.5], [7.5, 0.5]])
    iv = np.array([4, 1, 4], np.int32)  # repeated index: the last value wins
    out = run("tf.sparse_to_dense(iv, [1, 2, 3], [6])", iv=iv)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [0, 2, 0, 0, 3, 0])
    # scalar values are broadcast to every index; a scalar index sets one element
    np.testing.assert_array_equal(run("tf.sparse_to_dense(iv, 9, [5], -1)", iv=iv[:2]), [-1, 9, -1, -1, 9])
    np.testing.assert_array_equal(run("tf.sparse_to_dense(2, True, [3], False)"), [False, False, True])
    assert run(
        "tf.sparse_to_dense(e, ev, [2, 2])", e=np.zeros((0, 2), np.int32), ev=np.zeros(0, np.float32)
    ).tolist() == [
        [0, 0],
        [0, 0],
    ]


def test_sparse_to_dense_errors(run):
    idx = np.array([[0, 1], [2, 0]], np.int32)
    vals = np.array([5.0, 7.5], np.float32)
    with pytest.raises(
        ValueError, match=r"output_shape \[6\] has 1 elements, but sparse_indices with shape \[2,2\]"
    ):
        run("tf.sparse_to_dense(idx, vals, [6])", idx=idx, vals=vals)
    with pytest.raises(ValueError, match=r"sparse_values has incorrect shape \[3\], should be \[\] or \[2\]"):
        run("tf.sparse_to_dense(idx, [1.0, 2.0, 3.0], [3, 3])", idx=idx)
    with pytest.raises(
        TypeError, match=r"sparse_values.dtype \(float32\) must match default_value.dtype \(int32\)"
    ):
        run("tf.sparse_to_dense(idx, vals, [3, 3], d)", idx=idx, vals=vals, d=np.int32(1))
    with pytest.raises(
        ValueError, match=r"sparse_indices\[1\] = \[2, 0\] is out of bounds for output_shape \[2,2\]"
    ):
        run("tf.sparse_to_dense(idx, vals, [2, 2])", idx=idx, vals=vals)
    with pytest.raises(
        ValueError, match=r"sparse_indices should be a scalar, vector, or matrix, but got shape \[1,1,2\]"
    ):
        run("tf.sparse_to_dense(i3, vals, [2, 2])", vals=vals, i3=np.zeros((1, 1, 2), np.int32))
    with pytest.raises(TypeError, match="sparse_indices must be int32, but got float32"):
        run("tf.sparse_to_dense(f, vals, [2])", vals=vals, f=np.zeros(2, np.float32))
    with pytest.raises(ValueError, match=r"default_value must be a scalar, but got shape \[1\]"):
        run("tf.sparse_to_dense(idx, vals, [3, 3], [0.0])", idx=idx, vals=vals)
