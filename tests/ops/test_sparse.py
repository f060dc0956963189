"""tf.sparse and the ragged ops against numpy-built dense oracles (and TF's documented examples)."""

from __future__ import annotations

import numpy as np
import pytest

I32 = np.int32


def _dense(indices: np.ndarray, values: np.ndarray, shape: list[int], fill: float = 0) -> np.ndarray:
    out = np.full(shape, fill, values.dtype)
    for i, v in zip(indices, values, strict=True):
        out[tuple(i)] = v
    return out


def test_sparse_fill_empty_rows(run):
    idx = np.array([[0, 0], [1, 0], [1, 3], [1, 4], [3, 2], [3, 3]], I32)
    vals = np.array([0, 10, 13, 14, 32, 33], I32)
    out = run("tf.sparse.sparse_fill_empty_rows(i, v, [5, 6], -1)", i=idx, v=vals)
    assert out["output_indices"].tolist() == [[0, 0], [1, 0], [1, 3], [1, 4], [2, 0], [3, 2], [3, 3], [4, 0]]
    assert out["output_values"].tolist() == [0, 10, 13, 14, -1, 32, 33, -1]
    assert out["empty_row_indicator"].tolist() == [False, False, True, False, True]
    assert out["reverse_index_map"].tolist() == [0, 1, 2, 3, 5, 6]
    # unordered rows, float values: the dense tensor is the same, each row gets at least one entry
    idx = np.array([[2, 1], [0, 1], [2, 0]], I32)
    vals = np.array([1.5, -2.0, 3.0], np.float32)
    out = run("tf.sparse.sparse_fill_empty_rows(i, v, [4, 2], 7.0)", i=idx, v=vals)
    want = _dense(idx, vals, [4, 2])
    want[1, 0] = want[3, 0] = 7.0
    np.testing.assert_array_equal(_dense(out["output_indices"], out["output_values"], [4, 2]), want)
    np.testing.assert_array_equal(out["output_values"][out["reverse_index_map"]], vals)
    with pytest.raises(
        ValueError, match=r"Error in sparse_fill_empty_rows: indices\(1, 0\) is invalid: 5 >= 4"
    ):
        run(
            "tf.sparse.sparse_fill_empty_rows(i, v, [4, 2], 0.0)",
            i=np.array([[0, 0], [5, 0]], I32),
            v=vals[:2],
        )
    with pytest.raises(ValueError, match=r"Values should be Tensor1D but received shape \[1,2\]"):
        run("tf.sparse.sparse_fill_empty_rows(i, v, [4, 2], 0.0)", i=idx[:2], v=vals[:2].reshape(1, 2))


def test_sparse_reshape(run):
    idx = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]], I32)
    vals = np.arange(1, 6, dtype=np.float32)
    out = run("tf.sparse.sparse_reshape(i, [2, 3, 6], [9, -1])", i=idx)
    assert out["output_shape"].tolist() == [9, 4]
    np.testing.assert_array_equal(
        _dense(out["output_indices"], vals, [9, 4]), _dense(idx, vals, [2, 3, 6]).reshape(9, 4)
    )
    with pytest.raises(
        ValueError, match="Error in sparse_reshape: only one output dimension may be -1, not both 0 and 1"
    ):
        run("tf.sparse.sparse_reshape(i, [2, 3, 6], [-1, -1])", i=idx)
    with pytest.raises(
        ValueError, match="Input to reshape is a tensor with 36 dense values, but the requested shape has 35"
    ):
        run("tf.sparse.sparse_reshape(i, [2, 3, 6], [5, 7])", i=idx)


def test_sparse_segment_sum_mean(run):
    data = np.array([[1, 2, 3, 4], [-1, -2, -3, -4], [5, 6, 7, 8]], np.float32)
    out = run("[tf.sparse.sparse_segment_sum(d, [0, 1], [0, 0]), tf.sparse.sparse_segment_sum(d, [0, 1], [0, 1]),"
              " tf.sparse.sparse_segment_sum(d, [0, 2], [0, 2]),"
              " tf.sparse.sparse_segment_mean(d, [0, 1, 2], [0, 1, 1]),"
              " tf.sparse.sparse_segment_sum(di, [2, 0], [1, 1])]", d=data, di=data.astype(I32))  # fmt: skip
    np.testing.assert_array_equal(out[0], data[[0]] + data[[1]])
    np.testing.assert_array_equal(out[1], data[:2])
    np.testing.assert_array_equal(out[2], np.stack([data[0], np.zeros(4), data[2]]))
    np.testing.assert_allclose(out[3], np.stack([data[0], (data[1] + data[2]) / 2]), rtol=1e-6)
    assert out[4].dtype == I32 and out[4].tolist() == [[0] * 4, (data[2] + data[0]).astype(int).tolist()]
    with pytest.raises(ValueError, match="Error in sparse_segment_sum: segment ids are not increasing"):
        run("tf.sparse.sparse_segment_sum(d, [0, 1, 2], [1, 0, 1])", d=data)
    with pytest.raises(ValueError, match=r"Bad: indices\[1\] == 3 out of range \[0, 3\)"):
        run("tf.sparse.sparse_segment_mean(d, [0, 3], [0, 0])", d=data)


def test_ragged_range(run):
    out = run("tf.ragged_range(s, l, d)", s=np.array([0, 5, 8, 5], I32), l=np.array([8, 7, 8, 1], I32),
              d=np.array([2, 1, 1, -1], I32))  # fmt: skip
    rows = [np.arange(0, 8, 2), np.arange(5, 7), np.arange(8, 8), np.arange(5, 1, -1)]
    assert out["rt_nested_splits"].tolist() == np.cumsum([0] + [len(r) for r in rows]).tolist()
    assert out["rt_dense_values"].tolist() == np.concatenate(rows).tolist()
    out = run("tf.ragged_range(0.5, l, 1.5)", l=np.array([3.0, 1.0], np.float32))
    assert out["rt_nested_splits"].tolist() == [0, 2, 3]
    np.testing.assert_allclose(
        out["rt_dense_values"], np.concatenate([np.arange(0.5, 3, 1.5), np.arange(0.5, 1, 1.5)])
    )
    with pytest.raises(ValueError, match="Error in ragged_range: Requires delta != 0"):
        run("tf.ragged_range(s, 5, 0)", s=np.array([0, 1], I32))
    with pytest.raises(
        ValueError, match="Error in ragged_range: starts, limits, and deltas must have the same shape"
    ):
        run("tf.ragged_range(s, l, 1)", s=np.array([0, 1], I32), l=np.array([3, 4, 5], I32))


def _rows(splits: list[int], values: list) -> list:
    return [values[a:b] for a, b in zip(splits, splits[1:], strict=False)]


def test_ragged_gather(run):
    splits, values = [0, 2, 3, 3, 5], np.array([1, 2, 3, 4, 5], np.float32)
    rows = _rows(splits, values.tolist())
    out = run(
        "tf.ragged_gather([sp], v, i, 1)", sp=np.array(splits, I32), v=values, i=np.array([3, 0, 3, 2], I32)
    )
    got = _rows(out["output_nested_splits"][0].tolist(), out["output_dense_values"].tolist())
    assert got == [rows[i] for i in (3, 0, 3, 2)]
    out = run(
        "tf.ragged_gather([sp], v, i, 2)",
        sp=np.array(splits, I32),
        v=values,
        i=np.array([[3, 0], [1, 2]], I32),
    )
    outer, inner = (s.tolist() for s in out["output_nested_splits"])
    assert outer == [0, 2, 4]
    assert _rows(inner, out["output_dense_values"].tolist()) == [rows[i] for i in (3, 0, 1, 2)]
    with pytest.raises(ValueError, match=r"Error in ragged_gather: indices\[0\] = 4 is not in \[0, 4\)"):
        run("tf.ragged_gather([sp], v, i, 1)", sp=np.array(splits, I32), v=values, i=np.array([4], I32))


def test_ragged_tensor_to_tensor(run):
    splits, values = np.array([0, 2, 3, 3, 5], I32), np.array([1, 2, 3, 4, 5], np.float32)
    want = np.array([[1, 2, 0, 0], [3, 0, 0, 0], [0, 0, 0, 0], [4, 5, 0, 0]], np.float32)
    out = run("[tf.ragged_tensor_to_tensor([4, 4], v, 0, [sp], ['ROW_SPLITS']),"
              " tf.ragged_tensor_to_tensor([-1, -1], v, 0, [sp], ['ROW_SPLITS']),"
              " tf.ragged_tensor_to_tensor([-1, 1], v, 0, [sp], ['ROW_SPLITS']),"
              " tf.ragged_tensor_to_tensor([-1, -1], v, 9, [4, rowids], ['FIRST_DIM_SIZE', 'VALUE_ROWIDS'])]",
              v=values, sp=splits, rowids=np.array([0, 0, 1, 3, 3], I32))  # fmt: skip
    np.testing.assert_array_equal(out[0], want)
    np.testing.assert_array_equal(out[1], want[:, :2])
    np.testing.assert_array_equal(out[2], want[:, :1])
    np.testing.assert_array_equal(out[3], np.where(want[:, :2] == 0, 9, want[:, :2]))
    with pytest.raises(
        ValueError, match="Error in ragged_tensor_to_tensor: row_partition_types must be 'FIRST_DIM_SIZE'"
    ):
        run("tf.ragged_tensor_to_tensor(-1, v, 0, [sp], ['SPLITS'])", v=values, sp=splits)
