"""The wasm kernels bound to the binary's exports for issue 15 (LinSpace, RotateWithOffset, Transform, GatherV2
with batch_dims) run in
the binary, not on their cpu fallback, and match numpy (the op suite checks their edge cases on every backend);
the cases the export gets wrong (reflect fill, nearest-neighbor halves, quarter turns) take the cpu kernel.
"""

from __future__ import annotations

import math

import numpy as np

from tests.ops.test_image import ref_rotate, ref_transform

CODE = """
prev = tf.get_backend()
assert await tf.set_backend("wasm")
be = tf.backend()
before, tensors = dict(be.fallbacks), tf.memory().num_tensors
x = tf.tensor(X, [2, 5, 6, 3])
t = tf.tensor(T, [2, 8])
idx = tf.tensor(IDX, [2, 4], "int32")
positive = tf.greater(x, 0)
below = tf.less(x, 0.5)
outs = [
    tf.linspace(-1.5, 4.0, 12),
    tf.image.rotate_with_offset(x, 0.7, 3, [0.4, 0.6]),
    tf.image.transform(x, t, "bilinear", "wrap", -2.0),
    tf.image.transform(x, t, "bilinear", "constant", 0.5, [4, 7]),
    tf.image.transform(x, t, "bilinear", "reflect"),
    tf.image.transform(x, t, "nearest", "constant"),
    tf.image.rotate_with_offset(x, PI / 2),
    tf.gather(x, idx, 2, 1),
    tf.gather(positive, idx, 2, 1),
    tf.ENGINE.run_kernel("LogicalXor", {"a": positive, "b": below}),
]
kernels = ("LinSpace", "RotateWithOffset", "Transform", "GatherV2", "LogicalXor")
native = {k: be.fallbacks.get(k, 0) - before.get(k, 0) for k in kernels}
res = [[o.data_sync().tolist() for o in outs], native]
tf.dispose([x, t, idx, positive, below, *outs])
await tf.set_backend(prev)
res + [tf.memory().num_tensors - tensors]
"""


def test_bound_exports_run_in_the_binary_and_match_numpy(py):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
    t = np.array(
        [[0.9, -0.45, 1.3, 0.45, 0.9, -0.7, 0.0, 0.0], [1.2, 0.1, -2.5, -0.2, 0.8, 3.1, 0.01, -0.02]]
    )
    t = t.astype(np.float32)
    idx = rng.integers(0, 6, (2, 4)).astype(np.int32)
    code = f"X = {x.ravel().tolist()}\nT = {t.ravel().tolist()}\nIDX = {idx.ravel().tolist()}\nPI = {math.pi}\n"
    code += CODE
    outs, fallbacks, leaked = py(code)
    assert leaked == 0
    # 3 transforms natively; reflect and nearest on the cpu kernel, and the quarter turn
    assert fallbacks == {"LinSpace": 0, "RotateWithOffset": 1, "Transform": 2, "GatherV2": 0, "LogicalXor": 0}
    gathered = np.stack([np.take(x[b], idx[b], axis=1) for b in range(2)])
    refs = [
        np.linspace(-1.5, 4.0, 12),
        ref_rotate(x, 0.7, 3, [0.4, 0.6]),
        ref_transform(x, t, "bilinear", "wrap", -2.0),
        ref_transform(x, t, "bilinear", "constant", 0.5, (4, 7)),
        ref_transform(x, t, "bilinear", "reflect"),
        ref_transform(x, t, "nearest", "constant"),
        ref_rotate(x, math.pi / 2, 0, 0.5),
        gathered,
        gathered > 0,
        (x > 0) ^ (x < 0.5),  # LogicalXor: TF.js's wasm registers it (its logicalXor op composes others)
    ]
    for got, ref in zip(outs, refs, strict=True):
        np.testing.assert_allclose(np.array(got), ref.ravel(), rtol=1e-5, atol=1e-5)
