"""TopK's GLSL kernel (webgl/kernels/topk.py) with TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD lowered so short rows
take it: results on the GPU (textures the host has not seen), equal to numpy's stable descending order with
NaN first, for float32 and int32, ties, k of 1, a few, and 128 (k = 200 is the cpu kernel's, as in TF.js)."""

from __future__ import annotations

import numpy as np

CODE = """
from webtf.environment import ENV
prev = tf.get_backend()
assert await tf.set_backend("webgl")
be = tf.backend()
tensors = tf.memory().num_tensors
ENV.set("TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD", 64)
x = tf.tensor(X, [3, 300])
xf = tf.tensor(XI, [2, 150], "float32")
tf.relu(x).dispose(); tf.relu(xf).dispose()  # uploads both
xi = tf.cast(xf, "int32")  # on the GPU (int32 inputs on the host take the cpu kernel)
res, on_gpu = [], []
for t, k in ((x, 1), (x, 7), (x, 128), (x, 200), (xi, 5)):
    v, i = tf.top_k(t, k)
    on_gpu.append(all(be.data[o.data_id].values is None and be.data[o.data_id].tex is not None for o in (v, i)))
    res.append([v.data_sync().tolist(), i.data_sync().tolist()])
    tf.dispose([v, i])
ENV.set("TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD", 100000)
tf.dispose([x, xf, xi])
await tf.set_backend(prev)
[res, on_gpu, tf.memory().num_tensors - tensors]
"""


def _ref(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    key = np.where(np.isnan(x), np.inf, x).astype(np.float64)
    nan_first = np.isnan(x).astype(np.int8)
    idx = np.stack([np.lexsort((np.arange(x.shape[1]), -key[r], -nan_first[r]))[:k] for r in range(len(x))])
    return np.take_along_axis(x, idx, 1), idx


def test_topk_glsl_matches_the_stable_cpu_order(py):
    rng = np.random.default_rng(11)
    x = rng.integers(-20, 20, (3, 300)).astype(np.float32) / 4  # many ties
    x[1, [5, 77, 200]] = np.nan
    x[2, 100:] = np.inf
    xi = rng.integers(-1000, 1000, (2, 150)).astype(np.int32)
    vals = [None if np.isnan(v) else float(v) for v in x.ravel()]
    code = f"X = {vals!r}\nX = [float('nan') if v is None else v for v in X]\nXI = {xi.ravel().tolist()}\n"
    code = code.replace("inf", "float('inf')")
    res, on_gpu, leaked = py(code + CODE)
    assert leaked == 0
    assert on_gpu == [True, True, True, False, True]  # k = 200 is above TOPK_K_CPU_HANDOFF_THRESHOLD
    for (got_v, got_i), (t, k) in zip(res, [(x, 1), (x, 7), (x, 128), (x, 200), (xi, 5)], strict=True):
        want_v, want_i = _ref(t, k)
        np.testing.assert_array_equal(np.array(got_i).reshape(want_i.shape), want_i)
        got = np.array([np.nan if v is None or v == "NaN" else v for v in got_v], np.float64)
        np.testing.assert_array_equal(got.reshape(want_v.shape), want_v)
