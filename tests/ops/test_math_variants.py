"""tensor1d..6d, concat/pad/reverse/slice 1d-4d, meshgrid, ensure_shape, buffer, and the random ops
(rand, random_standard_normal, random_uniform_int, random_gamma, multinomial, dropout)."""

import numpy as np
import pytest


def test_variants(run):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = np.arange(5, dtype=np.int32)
    out = run(
        "[tf.tensor1d([1, 2, 3]), tf.tensor2d([1, 2, 3, 4], [2, 2]), tf.tensor3d([[[1.5]]]), "
        "tf.tensor4d([0] * 16, [2, 2, 2, 2], 'int32'), tf.tensor5d([[[[[1]]]]]), "
        "tf.tensor6d([1, 2], [1, 1, 1, 1, 1, 2]), tf.concat1d([v, v]), tf.concat2d([a, a], 1), "
        "tf.pad1d(v, [1, 2], 9), tf.pad2d(a, [[1, 0], [0, 2]]), "
        "tf.reverse1d(v), tf.reverse2d(a, 1), tf.slice1d(v, 1, 3), tf.slice2d(a, [1, 1], [2, -1]), "
        "tf.meshgrid(v, [1.5, 2.5]), tf.meshgrid(v, [1.5, 2.5], 'ij'), tf.ensure_shape(a, [3, None])]",
        a=a,
        v=v,
    )
    refs = [np.array([1, 2, 3]), np.array([[1, 2], [3, 4]]), np.array([[[1.5]]]), np.zeros((2, 2, 2, 2)),
            np.ones((1, 1, 1, 1, 1)), np.array([1, 2]).reshape(1, 1, 1, 1, 1, 2), np.concatenate([v, v]),
            np.concatenate([a, a], 1), np.pad(v, (1, 2), constant_values=9), np.pad(a, ((1, 0), (0, 2))),
            v[::-1], a[:, ::-1], v[1:4], a[1:3, 1:], list(np.meshgrid(v, [1.5, 2.5])),
            list(np.meshgrid(v, [1.5, 2.5], indexing="ij")), a]  # fmt: skip
    for k, (got, ref) in enumerate(zip(out, refs, strict=True)):
        for g, e in zip(got, ref, strict=True) if isinstance(ref, list) else [(got, ref)]:
            assert g.shape == np.shape(e), k
            np.testing.assert_array_equal(g, e, err_msg=str(k))
    assert out[0].dtype == np.int32 and out[3].dtype == np.int32 and out[2].dtype == np.float32


def test_buffer(run):
    out = run(
        "b.to_tensor()",
        setup="b = tf.buffer([2, 3], 'int32')\nb.set(5, 1, 2)\nb.set(b.get(1, 2) + 1, 0, 0)\n"
        "assert b.rank == 2 and b.size == 6 and b.index_to_loc(5) == [1, 2] and b.loc_to_index([1, 0]) == 3",
    )
    np.testing.assert_array_equal(out, [[6, 0, 0], [0, 0, 5]])


def test_random_ops(run):
    out = run(
        "[tf.rand([2, 3], lambda: 2.5), tf.random_standard_normal([4000], 'float32', 7), "
        "tf.random_uniform_int([500], 3, 6, 1), tf.random_gamma([4000], 2.0, 1.5, 'float32', 3), "
        "tf.multinomial(logits, 200, 5), tf.multinomial(probs, 300, 5, True), tf.dropout(ones, 0.25, None, 9), "
        "tf.dropout(ones, 0), tf.random_standard_normal([3], 'float32', 7), "
        "tf.random_standard_normal([3], 'float32', 7)]",
        logits=np.array([[0.0, 0.0, 30.0], [30.0, 0.0, 0.0]], np.float32),
        probs=np.array([0.25, 0.75], np.float32),
        ones=np.ones((40, 50), np.float32),
    )
    np.testing.assert_array_equal(out[0], np.full((2, 3), 2.5))
    assert abs(out[1].mean()) < 0.1 and abs(out[1].std() - 1) < 0.1
    assert out[2].dtype == np.int32 and set(out[2].tolist()) == {3, 4, 5}
    assert abs(out[3].mean() - 3.0) < 0.2 and out[3].min() > 0
    assert out[4].dtype == np.int32 and out[4].shape == (2, 200)
    assert (out[4][0] == 2).all() and (out[4][1] == 0).all()
    assert out[5].shape == (300,) and 0.6 < out[5].mean() < 0.9
    kept = out[6] != 0
    np.testing.assert_allclose(out[6][kept], 1 / 0.75, rtol=1e-6)
    assert 0.65 < kept.mean() < 0.85
    np.testing.assert_array_equal(out[7], np.ones((40, 50)))
    np.testing.assert_array_equal(out[8], out[9])


def test_errors(run):
    f = dict(a=np.ones((2, 2), np.float32), v=np.ones(3, np.float32), i=np.ones(3, np.int32))
    cases = [
        ("tf.tensor1d([[1, 2]])", ValueError, "Error in tensor1d: tensor1d\\(\\) requires values"),
        (
            "tf.tensor2d([1, 2], [2])",
            ValueError,
            "Error in tensor2d: tensor2d\\(\\) requires shape to have 2",
        ),
        ("tf.concat1d([a])", ValueError, "Error in concat1d: tensors\\[0\\] must be rank 1"),
        ("tf.pad2d(a, [1, 1])", ValueError, "Error in pad2d: invalid number of paddings"),
        ("tf.reverse1d(a)", ValueError, "Error in reverse1d: x must be rank 1 but got rank 2"),
        ("tf.slice2d(v, [0], [1])", ValueError, "Error in slice2d: x must be rank 2 but got rank 1"),
        ("tf.meshgrid(v, v, 'xx')", TypeError, "Error in meshgrid: xx is not a valid"),
        ("tf.ensure_shape(a, [2, 3])", ValueError, "Error in ensure_shape: shape of tensor \\[2,2\\]"),
        ("tf.buffer([2], 'float32', [1, 2, 3])", ValueError, "Error in buffer: length of values '3'"),
        ("tf.dropout(i, 0.5)", TypeError, "Error in dropout: x has to be a floating point tensor"),
        ("tf.dropout(v, 1)", ValueError, "Error in dropout: rate must be a float in the range \\[0, 1\\)"),
        ("tf.random_gamma([2], -1)", ValueError, "Error in random_gamma: alpha must be positive"),
    ]
    for expr, cls, msg in cases:
        with pytest.raises(cls, match=msg):
            run(expr, **f)
    with pytest.raises(ValueError, match="Error in multinomial: you need at least 2 outcomes"):
        run("tf.multinomial(one, 2)", one=np.ones((2, 1), np.float32))
    with pytest.raises(ValueError, match="Error in multinomial: rank of probabilities must be 1 or 2"):
        run("tf.multinomial(x3, 2)", x3=np.ones((1, 1, 3), np.float32))
