"""The eager fast path in the page (Engine.run_fast; wasm's queued element-wise calls): results equal numpy's,
tf.memory() is exact right after each op, the wasm queue runs when a queued output is read, used by another
kernel, moved to another backend, or when the queue fills, releases disposed blocks after the calls that read
them, and profile still sees every kernel. One page call per backend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

Py = Callable[[str], Any]

# Runs on the active backend; `wasm` says whether the queue checks apply. Returns a dict of results.
CASES = """
from webtf.engine import ENGINE
backend = ENGINE.backend
wasm = tf.get_backend() == "wasm"
queued = (lambda: len(backend.queued)) if wasm else (lambda: 0)
out = {"start": tf.memory().num_tensors}
ENGINE.start_scope()  # frees what the cases leave (their sums, products, the error case's tensor)
x = tf.tensor([1.5, -2.0, 3.25, 4.0])
w = tf.tensor([0.5, 0.25, -1.0, 2.0])
u = tf.tensor([1.01, 0.99, -1.0, 1.001])

# a chain longer than the queue, with memory counted after each op
counts = []
def chain():
    y = x
    for i in range(700):
        y = (tf.add, tf.sub, tf.mul)[i % 3](y, (w, x, u)[i % 3])
        counts.append(tf.memory().num_tensors)
    return y
y = tf.tidy(chain)
out["counts_step"] = sorted({b - a for a, b in zip(counts, counts[1:])})
out["chain"] = y.data_sync().tolist()
out["chain_queued_after_read"] = queued()
y.dispose()

# the other kernels with a fast variant (float32 in, float32 out), unary ones in a chain counted per op
out["atan2_mod"] = [tf.atan2(x, w).data_sync().tolist(), tf.mod(x, w).data_sync().tolist()]
unary, steps = [], []
v = w
for fn in (tf.exp, tf.tanh, tf.neg, tf.abs, tf.sqrt, tf.relu, tf.log, tf.sigmoid, tf.square, tf.sin):
    n = tf.memory().num_tensors
    v = fn(v)
    steps.append(tf.memory().num_tensors - n)
    unary.append(v.data_sync().tolist())
out["unary"] = [unary, steps]

# a queued output used by another kernel (sum, matmul), and by a unary op
a = tf.add(x, w)
out["queued_a"] = queued()
out["sum"] = tf.sum(a).data_sync().tolist()
b = tf.mul(a, a)
out["matmul"] = tf.mat_mul(tf.reshape(b, [1, 4]), tf.reshape(a, [4, 1])).data_sync().tolist()
out["sqrt"] = tf.sqrt(tf.add(b, w)).data_sync().tolist()

# disposed before the queue runs: an input read by a queued call, and a queued output
heap_before = backend.bytes_allocated if wasm else 0
c = tf.tensor([2.0, 4.0, 6.0, 8.0])
d = tf.add(c, c)
c.dispose()
e = tf.add(d, d)
f = tf.mul(e, e)
f.dispose()
out["after_dispose"] = e.data_sync().tolist()
d.dispose()
e.dispose()
out["heap_back"] = (backend.bytes_allocated if wasm else 0) == heap_before

# errors at the op, nothing leaked or queued
bad = tf.ones([3])
n0 = tf.memory().num_tensors
try:
    tf.add(x, bad)
    out["error"] = None
except Exception as err:
    out["error"] = str(err)
out["error_leaked"] = tf.memory().num_tensors - n0

# profile sees each kernel; queued and unqueued agree
async def run_profile():
    info = await tf.profile(lambda: tf.tidy(lambda: tf.add(tf.add(x, w), w).data_sync().tolist()))
    return [k.name for k in info.kernels], info.result
out["profiled"] = await run_profile()
if wasm:
    backend.defer = False
    out["unqueued"] = tf.tidy(lambda: tf.mul(tf.add(x, w), w).data_sync().tolist())
    backend.defer = True
out["queued"] = tf.tidy(lambda: tf.mul(tf.add(x, w), w).data_sync().tolist())

# a queued output read by the cpu backend after a switch
g = tf.sub(x, w)
name = tf.get_backend()
await tf.set_backend("cpu")
out["moved"] = tf.add(g, g).data_sync().tolist()
await tf.set_backend(name)
out["moved_back"] = tf.add(g, x).data_sync().tolist()

# a buffer moved away (its release queued behind a call) and back (registered anew) before the queue runs
h = tf.add(x, w)
h.data_sync()
q = tf.add(x, x)
await tf.set_backend("cpu")
out["moved_h"] = tf.add(h, h).data_sync().tolist()
await tf.set_backend(name)
out["moved_h_back"] = tf.mul(h, x).data_sync().tolist()
out["queued_q"] = q.data_sync().tolist()
out["h_after"] = tf.sub(h, x).data_sync().tolist()
# a tidy's end frees its buffers in one dispose_many (wasm: its queued outputs released in the queue in one
# pass): kept, returned, shared and disposed tensors keep their rules; counts, buffers and heap bytes exact
buffers = (lambda: len(backend.data) + len(backend.queued)) if wasm else (lambda: len(backend.data))
m0, buffers0, heap0 = tf.memory(), buffers(), backend.bytes_allocated if wasm else 0
inner, kept = [], []
def batch():
    y = x
    for _ in range(300):
        y = tf.add(y, w)
    inner.append(y)
    kept.append(tf.keep(tf.mul(y, x)))
    tf.add(y, y).dispose()
    return tf.reshape(tf.sub(y, x), [2, 2])
r = tf.tidy(batch)
m1 = tf.memory()
out["batch_books"] = [m1.num_tensors - m0.num_tensors, m1.num_data_buffers - m0.num_data_buffers,
                      m1.num_bytes - m0.num_bytes, buffers() - buffers0]
out["batch"] = [r.data_sync().tolist(), kept[0].data_sync().tolist()]
try:
    inner[0].data_sync()
    out["batch_read_freed"] = None
except ValueError as err:
    out["batch_read_freed"] = str(err)
r.dispose()
kept[0].dispose()
if wasm:
    backend.flush()
out["batch_back"] = [buffers() - buffers0, (backend.bytes_allocated if wasm else 0) - heap0]
for t in (x, w, u, a, b, g, h, q):
    t.dispose()
ENGINE.end_scope()
if wasm:  # a queued call that traps (its input's record corrupted) raises where the queue runs; reset module
    from webtf.backends.wasm import WasmTrapError
    y = tf.range(0, 1000)
    resets = len(backend.resets)
    backend.abi.dispose_data(y.data_id)
    backend._register(y.data_id, 1000, backend.module.heap_size() - 16)
    z = tf.abs(y)
    trap = []
    for read in (z, z):
        try:
            read.data_sync()
        except WasmTrapError as e:
            trap.append(str(e))
    trap += [y.data_sync()[:3].tolist(), len(backend.resets) - resets]
    out["trap"] = trap
    z.dispose()
    y.dispose()
out["end"] = tf.memory().num_tensors
out
"""


def _f32(v: Any) -> np.ndarray:
    return np.asarray(v, dtype=np.float32)


@pytest.mark.parametrize("backend", ["wasm", "webgl", "cpu"])
def test_fast_binary_ops_match_numpy_and_count_memory(py: Py, backend: str) -> None:
    was = py("tf.get_backend()")
    try:
        assert py(f"await tf.set_backend('{backend}')")
        res = py(CASES)
    finally:
        py(f"await tf.set_backend('{was}')")
    x, w = _f32([1.5, -2.0, 3.25, 4.0]), _f32([0.5, 0.25, -1.0, 2.0])
    u = _f32([1.01, 0.99, -1.0, 1.001])
    y = x
    for i in range(700):
        y = (np.add, np.subtract, np.multiply)[i % 3](y, (w, x, u)[i % 3])
    np.testing.assert_array_equal(_f32(res["chain"]), y)
    assert res["counts_step"] == [1]
    np.testing.assert_allclose(_f32(res["atan2_mod"][0]), np.arctan2(x, w), rtol=1e-6)
    np.testing.assert_allclose(_f32(res["atan2_mod"][1]), np.mod(x, w), rtol=1e-6)
    unary, steps = res["unary"]
    assert steps == [1] * 10
    v = w.astype(np.float64)
    fns = (np.exp, np.tanh, np.negative, np.abs, np.sqrt, lambda t: np.maximum(t, 0), np.log,
           lambda t: 1 / (1 + np.exp(-t)), np.square, np.sin)  # fmt: skip
    for fn, got in zip(fns, unary, strict=True):
        v = fn(v.astype(np.float32).astype(np.float64))
        np.testing.assert_allclose(_f32(got), v, rtol=2e-6, atol=1e-7)
    a = x + w
    b = a * a
    np.testing.assert_array_equal(_f32(res["sum"]), a.sum(dtype=np.float32))
    np.testing.assert_allclose(_f32(res["matmul"]).ravel(), [(b * a).sum()], rtol=1e-6)
    np.testing.assert_allclose(_f32(res["sqrt"]), np.sqrt(b + w), rtol=1e-6)
    np.testing.assert_array_equal(_f32(res["after_dispose"]), _f32([8, 16, 24, 32]))
    assert res["heap_back"]
    assert "add" in res["error"] and "[4]" in res["error"] and "[3]" in res["error"]
    assert res["error_leaked"] == 0
    names, value = res["profiled"]
    assert names == ["Add", "Add"]
    np.testing.assert_array_equal(_f32(value), x + w + w)
    np.testing.assert_array_equal(_f32(res["queued"]), (x + w) * w)
    g = x - w
    np.testing.assert_array_equal(_f32(res["moved"]), g + g)
    np.testing.assert_array_equal(_f32(res["moved_back"]), g + x)
    h = x + w
    np.testing.assert_array_equal(_f32(res["moved_h"]), h + h)
    np.testing.assert_array_equal(_f32(res["moved_h_back"]), h * x)
    np.testing.assert_array_equal(_f32(res["queued_q"]), x + x)
    np.testing.assert_array_equal(_f32(res["h_after"]), h - x)
    assert res["end"] == res["start"]
    assert res["batch_books"] == [2, 2, 32, 2]
    yb = x
    for _ in range(300):
        yb = yb + w
    np.testing.assert_array_equal(_f32(res["batch"][0]).ravel(), yb - x)
    np.testing.assert_array_equal(_f32(res["batch"][1]), yb * x)
    assert "Tensor is disposed: cannot call data_sync() on tensor" in res["batch_read_freed"]
    assert res["batch_back"] == [0, 0]
    if backend == "wasm":
        assert res["trap"][0].startswith("the wasm export queued kernels failed")
        assert "was lost: the queued kernels making it failed" in res["trap"][1]
        assert res["trap"][2] == [0.0, 1.0, 2.0] and res["trap"][3] == 1
        assert res["chain_queued_after_read"] == 0
        assert res["queued_a"] == 1
        np.testing.assert_array_equal(_f32(res["unqueued"]), (x + w) * w)
