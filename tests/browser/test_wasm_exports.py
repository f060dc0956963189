"""The wasm kernels bound to the binary's exports for issue 15 (LinSpace, RotateWithOffset, Transform, GatherV2
with batch_dims) run in
the binary, not on their cpu fallback, and match numpy (the op suite checks their edge cases on every backend);
the cases the export gets wrong (reflect fill, nearest-neighbor halves, quarter turns) take the cpu kernel.
The rest of the binary's kernel exports (scatter, sparse, bincount, Dilation2D, LRN, MaxPool3D, Multinomial,
..., and int32 Square / Relu / Relu6 / Sign / Round) are checked the same way in a second page call.
"""

from __future__ import annotations

import math

import numpy as np

from tests.ops.test_image import ref_bilinear, ref_crop_and_resize, ref_rotate, ref_transform

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
    code = (
        f"X = {x.ravel().tolist()}\nT = {t.ravel().tolist()}\nIDX = {idx.ravel().tolist()}\nPI = {math.pi}\n"
    )
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


# ---- the rest of the binary's kernel exports (issue 15): one page call, every kernel natively -------------
BOUND_CODE = """
prev = tf.get_backend()
assert await tf.set_backend("wasm")
be = tf.backend()
before, tensors = dict(be.fallbacks), tf.memory().num_tensors
i32 = "int32"
u = tf.tensor(U, [2, 3])
x4 = tf.tensor(X4, [1, 4, 5, 3])
x5 = tf.tensor(X5, [1, 3, 4, 4, 2])
filt = tf.tensor(F, [2, 2, 3])
ia, ib = tf.tensor(IA, [6], i32), tf.tensor(IB, [6], i32)
counts, w = tf.tensor(XC, [8], i32), tf.tensor(W, [8])
seq, vals = tf.tensor(SEQ, [2, 5]), tf.tensor(VALS, [2, 3])
ia_img = tf.tensor(IMG, [12], i32)
I = lambda v: tf.tensor(v, None, i32)
lrn = lambda t: tf.local_response_normalization(t, 1, 1.5, 0.3, 0.75)


def build():
    fill = tf.sparse.sparse_fill_empty_rows(
        tf.tensor([[0, 0], [2, 1]], None, i32), tf.tensor([5.0, 6.0]), tf.tensor([4, 3], None, i32), tf.scalar(-1.0)
    )
    reshaped = tf.sparse.sparse_reshape(
        tf.tensor([[0, 0], [1, 2]], None, i32), tf.tensor([2, 3], None, i32), tf.tensor([3, -1], None, i32)
    )
    data = tf.tensor(DATA, [4, 3])
    seg_idx, seg_ids = tf.tensor([0, 2, 3], None, i32), tf.tensor([0, 0, 2], None, i32)
    mean, var = tf.tensor([0.1, -0.2, 0.3]), tf.tensor([1.0, 0.5, 2.0])
    return [
        tf.acosh(tf.add(tf.abs(u), 1)), tf.asinh(u), tf.atanh(tf.mul(u, 0.3)),
        tf.bitwise_and(ia, ib),
        *(f(ia) for f in (tf.square, tf.relu, tf.relu6, tf.sign, tf.round)),
        tf.step(ia, 2.5), tf.add_n([ia, ib, ia]),
        tf.diag(u),
        tf.bincount(counts, w, 5), tf.bincount(counts, tf.tensor([], None, "float32"), 5),
        tf.dense_bincount(tf.reshape(counts, [2, 4]), tf.tensor([], None, "float32"), 5, True),
        tf.search_sorted(seq, vals, "left"), tf.search_sorted(seq, vals, "right"),
        tf.scatter_nd(tf.tensor([[1], [3], [1]], None, i32), tf.reshape(tf.range(0, 12, 1, "float32"), [3, 4]), [5, 4]),
        tf.tensor_scatter_update(tf.zeros([4, 3], i32), tf.tensor([[1], [3]], None, i32), tf.ones([2, 3], i32)),
        tf.sparse_to_dense(tf.tensor([[0, 1], [2, 0]], None, i32), tf.tensor([5, 6], None, i32), [3, 3], 7),
        fill["output_indices"], fill["output_values"], fill["empty_row_indicator"], fill["reverse_index_map"],
        reshaped["output_indices"], reshaped["output_shape"],
        tf.sparse.sparse_segment_sum(data, seg_idx, seg_ids), tf.sparse.sparse_segment_mean(data, seg_idx, seg_ids),
        tf.batch_norm(x4, mean, var, tf.tensor([0.5, 0.5, 0.5]), tf.tensor([2.0, 1.0, 0.5]), 0.01),
        lrn(x4),
        tf.dilation2d(x4, filt, 1, "same"),
        tf.max_pool3d(x5, 2, 1, "same"),
        tf.multinomial(tf.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), 6, 7, True),
        tf.multinomial(tf.tensor([[-50.0, 50.0], [50.0, -50.0]]), 4, 3),
        tf.space_to_batch_nd(x4, [2, 2], [[0, 0], [1, 0]]),
        # int32 / bool where TF.js's wasm kernel takes them natively
        tf.pad(tf.reshape(ia, [2, 3]), [[1, 0], [0, 2]], 5),
        tf.pad(tf.greater(u, 0), [[0, 1], [1, 1]], 1),
        tf.image.resize_bilinear(tf.reshape(ia_img, [1, 3, 4, 1]), [5, 7]),
        tf.image.crop_and_resize(tf.reshape(ia_img, [1, 3, 4, 1]), tf.tensor([[0.1, 0.2, 0.9, 0.7]]), I([0]), [4, 3]),
        tf.batch_to_space_nd(tf.reshape(x4, [4, 1, 5, 3]), [2, 2], [[0, 1], [1, 2]]),
        # gradient kernels: LRNGrad, Dilation2DBackpropInput / Filter, MaxPool3DGrad
        tf.grad(lambda t: tf.sum(tf.mul(lrn(t), x4)))(x4),
        *tf.grads(lambda a, b: tf.sum(tf.mul(tf.dilation2d(a, b, 1, "same"), x4)))([x4, filt]),
        tf.grad(lambda t: tf.sum(tf.mul(tf.max_pool3d(t, 2, 1, "same"), x5)))(x5),
    ]


outs = tf.tidy(build)
res = [o.data_sync().tolist() for o in outs]
fell = {k: be.fallbacks.get(k, 0) - before.get(k, 0) for k in KERNELS}
# the gradients on the cpu backend, for a cross-check (the grad tests check their values on every backend)
assert await tf.set_backend("cpu")
cx4, cx5, cf = tf.tensor(X4, [1, 4, 5, 3]), tf.tensor(X5, [1, 3, 4, 4, 2]), tf.tensor(F, [2, 2, 3])
cpu_grads = [
    tf.grad(lambda t: tf.sum(tf.mul(lrn(t), cx4)))(cx4),
    *tf.grads(lambda a, b: tf.sum(tf.mul(tf.dilation2d(a, b, 1, "same"), cx4)))([cx4, cf]),
    tf.grad(lambda t: tf.sum(tf.mul(tf.max_pool3d(t, 2, 1, "same"), cx5)))(cx5),
]
cpu_res = [g.data_sync().tolist() for g in cpu_grads]
tf.dispose([cx4, cx5, cf, *cpu_grads])
assert await tf.set_backend("wasm")
tf.dispose([u, x4, x5, filt, ia, ib, counts, w, seq, vals, ia_img, *outs])
# bad input: the export reports it (or the host check catches it) and the cpu kernel raises TF.js's error
errors = []
for bad in BAD:
    try:
        tf.tidy(lambda: eval(bad))
        errors.append(None)
    except ValueError as e:
        errors.append(str(e))
await tf.set_backend(prev)
[res, cpu_res, fell, errors, tf.memory().num_tensors - tensors]
"""

#: calls with bad input -> a piece of the error each raises
BAD = {
    "tf.bincount(I([-1, 2]), tf.tensor([], None, 'float32'), 3)": "must be non-negative",
    "tf.scatter_nd(I([[5]]), tf.ones([1, 2]), [3, 2])": "Invalid indices: [5]",
    "tf.tensor_scatter_update(tf.zeros([3, 2]), I([[-1]]), tf.ones([1, 2]))": "[-1] does not",
    "tf.sparse.sparse_segment_sum(tf.ones([3, 2]), I([0, 1, 2]), I([1, 0, 2]))": "not increasing",
    "tf.sparse.sparse_segment_mean(tf.ones([3, 2]), I([0, 7]), I([0, 1]))": "indices[1] == 7 out of range",
    "tf.sparse.sparse_reshape(I([[0, 0]]), I([2, 3]), I([-1, -1]))": "only one output dimension may be -1",
    "tf.sparse.sparse_fill_empty_rows(I([[5, 0]]), tf.tensor([1.0]), I([4, 3]), tf.scalar(0.0))": "5 >= 4",
    "tf.sparse_to_dense(I([[3, 0]]), tf.tensor([1.0]), [2, 2])": "is out of bounds",
}

BOUND_KERNELS = (
    "Acosh Asinh Atanh BitwiseAnd Diag Bincount DenseBincount SearchSorted ScatterNd TensorScatterUpdate "
    "SparseToDense SparseFillEmptyRows SparseReshape SparseSegmentSum SparseSegmentMean FusedBatchNorm LRN "
    "LRNGrad Dilation2D Dilation2DBackpropInput Dilation2DBackpropFilter MaxPool3D MaxPool3DGrad Multinomial "
    "Square Relu Relu6 Sign Round SpaceToBatchND BatchToSpaceND PadV2 ResizeBilinear CropAndResize Step AddN"
).split()


def _ref_dilation(x: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Dilation2D, strides 1, 'same' padding, NHWC: the max over each window of x + filter."""
    _, h, w, _ = x.shape
    fh, fw, _ = f.shape
    top, left = (fh - 1) // 2, (fw - 1) // 2
    out = np.full(x.shape, -np.inf, np.float32)
    for r in range(fh):
        for s in range(fw):
            for y in range(h):
                for xx in range(w):
                    iy, ix = y - top + r, xx - left + s
                    if 0 <= iy < h and 0 <= ix < w:
                        out[:, y, xx] = np.maximum(out[:, y, xx], x[:, iy, ix] + f[r, s])
    return out


def _ref_max_pool3d(x: np.ndarray) -> np.ndarray:
    """max_pool3d, window 2, stride 1, 'same' (padding at the end of each axis)."""
    p = np.pad(x, ((0, 0), (0, 1), (0, 1), (0, 1), (0, 0)), constant_values=-np.inf)
    d, h, w = x.shape[1:4]
    windows = [p[:, a : a + d, b : b + h, c : c + w] for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    return np.max(windows, axis=0)


def _ref_lrn(x: np.ndarray, radius: int, bias: float, alpha: float, beta: float) -> np.ndarray:
    c = x.shape[-1]
    sq = x.astype(np.float64) ** 2
    sums = np.stack([sq[..., max(0, k - radius) : k + radius + 1].sum(-1) for k in range(c)], -1)
    return x * (bias + alpha * sums) ** -beta


def _ref_space_to_batch(x: np.ndarray, block: tuple, pads: tuple) -> np.ndarray:
    p = np.pad(x, ((0, 0), *pads, (0, 0)))
    b, h, w, c = p.shape
    p = p.reshape(b, h // block[0], block[0], w // block[1], block[1], c).transpose(2, 4, 0, 1, 3, 5)
    return p.reshape(-1, h // block[0], w // block[1], c)


def _ref_batch_to_space(x: np.ndarray, block: tuple, crops: tuple) -> np.ndarray:
    n, h, w, c = x.shape
    b = n // (block[0] * block[1])
    y = (
        x.reshape(block[0], block[1], b, h, w, c)
        .transpose(2, 3, 0, 4, 1, 5)
        .reshape(b, h * block[0], w * block[1], c)
    )
    return y[:, crops[0][0] : y.shape[1] - crops[0][1], crops[1][0] : y.shape[2] - crops[1][1]]


def test_remaining_exports_run_in_the_binary_and_match_numpy(py):
    rng = np.random.default_rng(5)
    u = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
    x4 = rng.uniform(0.5, 2, (1, 4, 5, 3)).astype(np.float32)  # positive: the FLT_MIN-seeded maxima are exact
    x5 = rng.uniform(0.5, 2, (1, 3, 4, 4, 2)).astype(np.float32)
    f = rng.uniform(0.1, 1, (2, 2, 3)).astype(np.float32)
    ia, ib = (
        np.array([-(2**31), -46341, -5, 3, 46341, 2**31 - 1], np.int32),
        rng.integers(-100, 100, 6).astype(np.int32),
    )
    xc, w = rng.integers(0, 7, 8).astype(np.int32), rng.uniform(0, 1, 8).astype(np.float32)
    seq = np.sort(rng.integers(0, 6, (2, 5)), axis=1).astype(np.float32)
    vals = rng.integers(0, 6, (2, 3)).astype(np.float32)
    data = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    arrays = {
        "U": u,
        "X4": x4,
        "X5": x5,
        "F": f,
        "IA": ia,
        "IB": ib,
        "XC": xc,
        "W": w,
        "SEQ": seq,
        "VALS": vals,
    }
    img = rng.integers(0, 256, 12).astype(np.int32)
    arrays["DATA"], arrays["IMG"] = data, img
    code = "".join(f"{k} = {v.ravel().tolist()}\n" for k, v in arrays.items())
    code += f"KERNELS = {BOUND_KERNELS}\nBAD = {list(BAD)}\n"
    outs, cpu_grads, fell, errors, leaked = py(code + BOUND_CODE)
    assert leaked == 0
    assert fell == dict.fromkeys(BOUND_KERNELS, 0), "kernels that took their cpu fallback"
    for (call, expected), error in zip(BAD.items(), errors, strict=True):
        assert error is not None and expected in error, (call, error)
    scattered = np.zeros((5, 4), np.float32)
    np.add.at(scattered, [1, 3, 1], np.arange(12, dtype=np.float32).reshape(3, 4))
    updated = np.zeros((4, 3), np.int32)
    updated[[1, 3]] = 1
    dense = np.full((3, 3), 7)
    dense[0, 1], dense[2, 0] = 5, 6
    norm = (x4 - [0.1, -0.2, 0.3]) * [2.0, 1.0, 0.5] / np.sqrt(np.array([1.0, 0.5, 2.0]) + 0.01) + 0.5
    binary = np.zeros((2, 5))
    for r, row in enumerate(xc.reshape(2, 4)):
        binary[r, row[row < 5]] = 1
    refs = [
        np.arccosh(np.abs(u) + 1), np.arcsinh(u), np.arctanh(u * np.float32(0.3)),
        ia & ib,
        ia * ia, np.maximum(ia, 0), np.clip(ia, 0, 6), np.sign(ia), ia,
        np.where(ia > 0, 1, 2), ia + ib + ia,
        np.diag(u.ravel()).reshape(2, 3, 2, 3),
        np.bincount(xc, w, 7)[:5], np.bincount(xc, None, 7)[:5],
        binary,
        [np.searchsorted(seq[r], vals[r], "left") for r in range(2)],
        [np.searchsorted(seq[r], vals[r], "right") for r in range(2)],
        scattered, updated, dense,
        [[0, 0], [1, 0], [2, 1], [3, 0]], [5, -1, 6, -1], [False, True, False, True], [0, 2],
        [[0, 0], [2, 1]], [3, 2],
        [data[0] + data[2], [0, 0, 0], data[3]], [(data[0] + data[2]) / 2, [0, 0, 0], data[3]],
        norm,
        _ref_lrn(x4, 1, 1.5, 0.3, 0.75),
        _ref_dilation(x4, f),
        _ref_max_pool3d(x5),
        [[2] * 6, [0] * 6],
        [[1] * 4, [0] * 4],
        _ref_space_to_batch(x4, (2, 2), ((0, 0), (1, 0))),
        np.pad(ia.reshape(2, 3), ((1, 0), (0, 2)), constant_values=5),
        np.pad(u > 0, ((0, 1), (1, 1)), constant_values=True),
        ref_bilinear(img.reshape(1, 3, 4, 1).astype(np.float32), (5, 7), False, False),
        ref_crop_and_resize(img.reshape(1, 3, 4, 1).astype(np.float32), np.array([[0.1, 0.2, 0.9, 0.7]]), [0], (4, 3)),
        _ref_batch_to_space(x4.reshape(4, 1, 5, 3), (2, 2), ((0, 1), (1, 2))),
    ]  # fmt: skip
    for got, ref in zip(outs, refs, strict=False):
        np.testing.assert_allclose(
            np.array(got, np.float64), np.array(ref, np.float64).ravel(), rtol=1e-5, atol=1e-5
        )
    for got, ref in zip(outs[len(refs) :], cpu_grads, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
