"""The webgl GLSL kernels of issue 15 (FlipLeftRight, RotateWithOffset, Transform) run on the GPU, not on
their cpu fallback (their outputs are textures the host has not seen), and match numpy; the op suite checks
their edge cases on every backend."""

from __future__ import annotations

import math

import numpy as np

from tests.ops.test_image import ref_rotate, ref_transform

CODE = """
prev = tf.get_backend()
assert await tf.set_backend("webgl")
be = tf.backend()
tensors = tf.memory().num_tensors
x = tf.tensor(X, [2, 5, 6, 4])
t = tf.tensor(T, [2, 8])
x3 = tf.slice(x, [0, 0, 0, 0], [2, 5, 6, 3])
t1 = tf.slice(t, [0, 0], [1, 8])
tf.relu(x).dispose()  # uploads x
outs = [
    tf.image.flip_left_right(x),
    tf.image.flip_left_right(x3),
    tf.image.rotate_with_offset(x, 0.7, [3, 4, 5], [0.4, 0.6]),
    tf.image.rotate_with_offset(x, PI / 2),
    tf.image.transform(x, t, "bilinear", "reflect", -2.0),
    tf.image.transform(x, t1, "nearest", "constant", 0.5, [4, 7]),
]
on_gpu = [be.data[o.data_id].values is None and be.data[o.data_id].tex is not None for o in outs]
res = [[o.data_sync().tolist() for o in outs], on_gpu]
tf.dispose([x, t, x3, t1, *outs])
await tf.set_backend(prev)
res + [tf.memory().num_tensors - tensors]
"""


def test_glsl_image_kernels_run_on_the_gpu_and_match_numpy(py):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 5, 6, 4)).astype(np.float32)
    t = np.array([[0.9, -0.45, 1.3, 0.45, 0.9, -0.7, 0.0, 0.0], [1.2, 0.1, -2.5, -0.2, 0.8, 3.1, 0.01, -0.02]])
    t = t.astype(np.float32)
    code = f"X = {x.ravel().tolist()}\nT = {t.ravel().tolist()}\nPI = {math.pi}\n" + CODE
    outs, on_gpu, leaked = py(code)
    assert leaked == 0
    assert on_gpu == [True] * 6
    refs = [
        x[:, :, ::-1],
        x[:, :, ::-1, :3],
        ref_rotate(x, 0.7, [3, 4, 5], [0.4, 0.6]),
        ref_rotate(x, math.pi / 2, 0, 0.5),
        ref_transform(x, t, "bilinear", "reflect", -2.0),
        ref_transform(x, t[:1], "nearest", "constant", 0.5, (4, 7)),
    ]
    for got, ref in zip(outs, refs, strict=True):
        np.testing.assert_allclose(np.array(got), ref.ravel(), rtol=1e-5, atol=1e-5)
