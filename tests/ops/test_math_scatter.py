"""scatter_nd, tensor_scatter_update, unsorted_segment_sum, bincount, dense_bincount, unique, search_sorted,
lower_bound, upper_bound, bitwise_and and broadcast_args against numpy."""

import numpy as np
import pytest

_RNG = np.random.default_rng(18)


def _scatter(indices, updates, shape, add=True, base=None):
    out = np.zeros(shape, updates.dtype) if base is None else base.copy()
    for n, idx in enumerate(indices.reshape(-1, indices.shape[-1])):
        if add:
            out[tuple(idx)] += updates.reshape(-1, *updates.shape[indices.ndim - 1 :])[n]
        else:
            out[tuple(idx)] = updates.reshape(-1, *updates.shape[indices.ndim - 1 :])[n]
    return out


def test_scatter_and_segments(run):
    idx = np.array([[1, 0], [2, 1], [1, 0]], np.int32)
    upd = _RNG.uniform(-2, 2, size=(3, 4)).astype(np.float32)
    idx1 = np.array([[3], [0]], np.int32)
    upd_i = np.array([[1, 2], [3, 4]], np.int32)
    base = _RNG.integers(-5, 5, size=(4, 2)).astype(np.int32)
    x = _RNG.uniform(-2, 2, size=(5, 3)).astype(np.float32)
    ids = np.array([2, 0, 2, -1, 4], np.int32)
    out = run(
        "[tf.scatter_nd(idx, upd, [3, 2, 4]), tf.scatter_nd(idx1, upd_i, [4, 2]), "
        "tf.tensor_scatter_update(base, idx1, upd_i), tf.unsorted_segment_sum(x, ids, 3), "
        "tf.unsorted_segment_sum(ids, ids, 5)]",
        idx=idx,
        upd=upd,
        idx1=idx1,
        upd_i=upd_i,
        base=base,
        x=x,
        ids=ids,
    )
    seg = np.stack([x[ids == k].sum(0) for k in range(3)])
    refs = [_scatter(idx, upd, (3, 2, 4)), _scatter(idx1, upd_i, (4, 2)),
            _scatter(idx1, upd_i, (4, 2), False, base), seg,
            np.array([(ids * (ids == k)).sum() for k in range(5)])]  # fmt: skip
    for got, ref in zip(out, refs, strict=True):
        assert got.shape == ref.shape and got.dtype == (np.float32 if ref.dtype.kind == "f" else np.int32)
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_counting_unique_and_search(run):
    x = np.array([1, 1, 3, 7, 0, 3], np.int32)
    w = _RNG.uniform(0, 2, size=6).astype(np.float32)
    x2 = np.array([[1, 1, 0], [2, 4, 2]], np.int32)
    seq = np.sort(_RNG.uniform(-3, 3, size=(2, 6)).astype(np.float32), 1)
    vals = np.concatenate([seq[:, :3], _RNG.uniform(-4, 4, size=(2, 3)).astype(np.float32)], 1)
    u2 = np.array([[1, 0, 1, 2], [3, 0, 3, 2]], np.int32)
    out = run(
        "[tf.bincount(x, empty, 5), tf.bincount(x, w, 4), tf.dense_bincount(x2, empty, 3), "
        "tf.dense_bincount(x2, empty, 5, True), tf.unique(uf), tf.unique(u2, 1), tf.unique(u2, 0), "
        "tf.search_sorted(seq, vals), tf.search_sorted(seq, vals, 'right'), tf.lower_bound(seq0, vals0), "
        "tf.upper_bound(seq, vals), tf.bitwise_and(a, b), tf.broadcast_args(s0, s1)]",
        x=x,
        w=w,
        x2=x2,
        seq0=seq[0],
        vals0=vals[0],
        empty=np.zeros(0, np.float32),
        seq=seq,
        vals=vals,
        u2=u2,
        uf=np.array([2.5, 1.0, 2.5, -1.0, 1.0], np.float32),
        a=np.array([5, -1, 12, 0], np.int32),
        b=np.array([3, 7, 10, 9], np.int32),
        s0=np.array([2, 1, 3], np.int32),
        s1=np.array([4, 1], np.int32),
    )
    np.testing.assert_array_equal(out[0], np.bincount(x, minlength=8)[:5])
    np.testing.assert_allclose(out[1], [w[x == k].sum() for k in range(4)], rtol=1e-6)
    np.testing.assert_array_equal(out[2], [np.bincount(r, minlength=3)[:3] for r in x2])
    np.testing.assert_array_equal(out[3], [np.bincount(r, minlength=5)[:5] > 0 for r in x2])
    assert out[4]["values"].tolist() == [2.5, 1.0, -1.0] and out[4]["indices"].tolist() == [0, 1, 0, 2, 1]
    assert out[5]["values"].tolist() == [[1, 0, 2], [3, 0, 2]] and out[5]["indices"].tolist() == [0, 1, 0, 2]
    assert out[6]["values"].tolist() == u2.tolist() and out[6]["indices"].tolist() == [0, 1]
    for got, side in ((out[7], "left"), (out[8], "right")):
        np.testing.assert_array_equal(
            got, [np.searchsorted(s, v, side) for s, v in zip(seq, vals, strict=True)]
        )
    np.testing.assert_array_equal(out[9], np.searchsorted(seq[0], vals[0], "left"))
    np.testing.assert_array_equal(out[10], out[8])
    np.testing.assert_array_equal(out[11], np.array([5, -1, 12, 0]) & np.array([3, 7, 10, 9]))
    np.testing.assert_array_equal(out[12], [2, 4, 3])


def test_errors(run):
    f = dict(i1=np.array([[0], [1]], np.int32), u=np.ones((2, 3), np.float32), t=np.ones((4, 3), np.int32),
             x=np.ones(3, np.int32), xf=np.ones(3, np.float32), m=np.ones((2, 2), np.int32),
             m3=np.ones((1, 2, 2), np.int32), s=np.float32(1))  # fmt: skip
    cases = [
        ("tf.scatter_nd(i1, u, [4, 2])", ValueError, "Error in scatter_nd: must have updates.shape"),
        ("tf.scatter_nd(i1, u, [])", ValueError, "Error in scatter_nd: output rank must be greater"),
        (
            "tf.tensor_scatter_update(t, i1, u)",
            TypeError,
            "Error in tensor_scatter_update: tensor and updates",
        ),
        (
            "tf.unsorted_segment_sum(u, x, 2)",
            ValueError,
            "Error in unsorted_segment_sum: segment_ids must be 1-D",
        ),
        ("tf.bincount(xf, xf, 3)", TypeError, "Error in bincount: input dtype must be int32"),
        ("tf.bincount(x, xf, -1)", ValueError, "Error in bincount: size must be non-negative"),
        ("tf.bincount(x, u, 2)", ValueError, "Error in bincount: weights must have the same size"),
        ("tf.dense_bincount(m3, xf, 2)", ValueError, "at most rank 2"),
        ("tf.unique(s)", ValueError, "Error in unique: the input tensor must be at least 1D"),
        ("tf.search_sorted(u, xf)", ValueError, "Error in search_sorted: leading dimension"),
        ("tf.search_sorted(xf, xf, 'middle')", ValueError, "Error in search_sorted: side must be"),
        ("tf.bitwise_and(x, m)", ValueError, "Error in bitwise_and: tensors must have the same shape"),
        ("tf.bitwise_and(xf, xf)", TypeError, "Error in bitwise_and: only supports 'int32'"),
        ("tf.broadcast_args(m, x)", ValueError, "Error in broadcast_args: first input must be a vector"),
    ]
    for expr, cls, msg in cases:
        with pytest.raises(cls, match=msg):
            run(expr, **f)


def test_inputs_made_on_the_device(run):
    """The same kernels on inputs an earlier kernel made (on webgl: GPU-resident, so the GLSL versions run)."""
    fi = np.array([[1, 0], [2, 1], [1, 0]], np.float32)
    upd = _RNG.uniform(-2, 2, size=(3, 4)).astype(np.float32)
    x = _RNG.uniform(-2, 2, size=(5, 3)).astype(np.float32)
    fids = np.array([2, 0, 2, -1, 4], np.float32)
    base = _RNG.uniform(-2, 2, size=(3, 2, 4)).astype(np.float32)
    out = run(
        "tf.tidy(lambda: [tf.scatter_nd(tf.cast(fi + 0, 'int32'), upd + 0, [3, 2, 4]), "
        "tf.tensor_scatter_update(base + 0, tf.cast(fi + 0, 'int32'), upd + 0), "
        "tf.unsorted_segment_sum(x + 0, tf.cast(fids + 0, 'int32'), 3), "
        "tf.bitwise_and(tf.cast(fids + 7, 'int32'), tf.cast(fids + 3, 'int32')), tf.diag(tf.cast(fids + 1, 'int32'))])",
        fi=fi,
        upd=upd,
        base=base,
        x=x,
        fids=fids,
    )
    idx, ids = fi.astype(np.int32), fids.astype(np.int32)
    np.testing.assert_allclose(out[0], _scatter(idx, upd, (3, 2, 4)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[1], _scatter(idx, upd, (3, 2, 4), False, base), rtol=1e-6)
    np.testing.assert_allclose(out[2], np.stack([x[ids == k].sum(0) for k in range(3)]), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[3], (ids + 7) & (ids + 3))
    np.testing.assert_array_equal(out[4], np.diag(ids + 1))
