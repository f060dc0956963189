"""tf.image: resize_bilinear, resize_nearest_neighbor, crop_and_resize, non_max_suppression (v3/v4/v5, async).

Oracles: numpy resamplers written from TF's coordinate definitions, a per-sample crop_and_resize, and an
eager textbook (soft-)NMS (decay every remaining score after each pick) that TF.js's lazy version must match.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from tests.helpers import Rand

_R = Rand(7)
rng = _R.rng
rand = functools.partial(_R.uniform, lo=-1.0, hi=1.0)


# ---- numpy references ---------------------------------------------------------------------------
def _ratio(n_in: int, n_out: int, align: bool) -> float:
    return (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out


def ref_bilinear(img: np.ndarray, size: tuple[int, int], align: bool, half: bool) -> np.ndarray:
    img = img.astype(np.float64)

    def axis(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        o = np.arange(n_out, dtype=np.float64)
        r = _ratio(n_in, n_out, align)
        src = r * (o + 0.5) - 0.5 if half else r * o
        lo = np.maximum(np.floor(src), 0).astype(int)
        hi = np.minimum(np.ceil(src), n_in - 1).astype(int)
        return lo, hi, src - lo

    y0, y1, fy = axis(img.shape[1], size[0])
    x0, x1, fx = axis(img.shape[2], size[1])
    fx = fx[None, None, :, None]
    top = img[:, y0][:, :, x0] + (img[:, y0][:, :, x1] - img[:, y0][:, :, x0]) * fx
    bot = img[:, y1][:, :, x0] + (img[:, y1][:, :, x1] - img[:, y1][:, :, x0]) * fx
    return (top + (bot - top) * fy[None, :, None, None]).astype(np.float32)


def ref_nearest(img: np.ndarray, size: tuple[int, int], align: bool, half: bool) -> np.ndarray:
    def axis(n_in: int, n_out: int) -> np.ndarray:
        o = np.arange(n_out, dtype=np.float64)
        src = _ratio(n_in, n_out, align) * (o + 0.5 if half else o)
        idx = np.floor(src + 0.5) if align else np.floor(src)  # JS Math.round rounds halves up
        idx = np.minimum(idx, n_in - 1)
        return np.maximum(idx, 0).astype(int)

    return img[:, axis(img.shape[1], size[0])][:, :, axis(img.shape[2], size[1])]


def ref_crop_and_resize(image, boxes, box_ind, crop, method="bilinear", extrap=0.0):
    _, h, w, c = image.shape
    ch, cw = crop
    out = np.zeros((len(boxes), ch, cw, c), np.float64)
    img = image.astype(np.float64)

    def coord(v1, v2, n, nc, i):
        return v1 * (n - 1) + i * (v2 - v1) * (n - 1) / (nc - 1) if nc > 1 else 0.5 * (v1 + v2) * (n - 1)

    for k, ((y1, x1, y2, x2), b) in enumerate(zip(boxes.astype(np.float64), box_ind, strict=True)):
        if not 0 <= b < image.shape[0]:
            continue
        for i in range(ch):
            y = coord(y1, y2, h, ch, i)
            for j in range(cw):
                x = coord(x1, x2, w, cw, j)
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[k, i, j] = extrap
                elif method == "nearest":
                    out[k, i, j] = img[b, math.floor(y + 0.5), math.floor(x + 0.5)]
                else:
                    t, bo, le, ri = math.floor(y), math.ceil(y), math.floor(x), math.ceil(x)
                    top = img[b, t, le] + (img[b, t, ri] - img[b, t, le]) * (x - le)
                    bottom = img[b, bo, le] + (img[b, bo, ri] - img[b, bo, le]) * (x - le)
                    out[k, i, j] = top + (bottom - top) * (y - t)
    return out.astype(np.float32)


def ref_iou(a: np.ndarray, b: np.ndarray) -> float:
    ya0, ya1 = sorted((a[0], a[2]))
    xa0, xa1 = sorted((a[1], a[3]))
    yb0, yb1 = sorted((b[0], b[2]))
    xb0, xb1 = sorted((b[1], b[3]))
    area_a, area_b = (ya1 - ya0) * (xa1 - xa0), (yb1 - yb0) * (xb1 - xb0)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(ya1, yb1) - max(ya0, yb0), 0) * max(min(xa1, xb1) - max(xa0, xb0), 0)
    return inter / (area_a + area_b - inter)


def ref_nms(boxes, scores, max_out, iou_thr=0.5, score_thr=-np.inf, sigma=0.0):
    """Eager soft-NMS: pick the best remaining box, then re-weight (or drop) every other remaining one."""
    boxes = boxes.astype(np.float64)
    live = {i: float(s) for i, s in enumerate(scores) if s > score_thr}
    picked, picked_scores = [], []
    while live and len(picked) < min(max_out, len(boxes)):
        best = min(live, key=lambda i: (-live[i], i))
        picked.append(best)
        picked_scores.append(live.pop(best))
        for i in list(live):
            v = ref_iou(boxes[i], boxes[best])
            if v >= iou_thr:
                del live[i]
                continue
            live[i] *= math.exp(-0.5 * v * v / sigma) if sigma > 0 else 1.0
            if live[i] <= score_thr:
                del live[i]
    return np.array(picked, np.int32), np.array(picked_scores, np.float32)


# ---- resize_bilinear ----------------------------------------------------------------------------
FLAGS = [(False, False), (True, False), (False, True)]


@pytest.mark.parametrize(("align", "half"), FLAGS)
def test_resize_bilinear_flags(run, align, half):
    x = rand(2, 5, 7, 3)
    for size in [(9, 4), (3, 11), (1, 1), (5, 7), (10, 14), (1, 3)]:
        expr = f"tf.image.resize_bilinear(x, {list(size)}, {align}, {half})"
        out = run(expr, x=x)
        assert out.dtype == np.float32 and out.shape == (2, *size, 3)
        np.testing.assert_allclose(out, ref_bilinear(x, size, align, half), rtol=1e-5, atol=1e-6)


def test_resize_bilinear_hand_values_and_rank3(run):
    x = np.array([2, 2, 4, 4], np.float32).reshape(2, 2, 1)
    out = run("tf.image.resize_bilinear(x, [3, 3])", x=x)
    np.testing.assert_allclose(out[:, :, 0], [[2, 2, 2], [10 / 3, 10 / 3, 10 / 3], [4, 4, 4]], rtol=1e-6)
    out = run("tf.image.resize_bilinear(x, [3, 3], align_corners=True)", x=x)
    np.testing.assert_allclose(out[:, 0, 0], [2, 3, 4], rtol=1e-6)
    out = run("tf.image.resize_bilinear(x, [3, 3], half_pixel_centers=True)", x=x)
    np.testing.assert_allclose(out[:, 1, 0], [2, 3, 4], rtol=1e-6)
    assert out.shape == (3, 3, 1)


def test_resize_bilinear_int_input_empty_and_medium(run):
    xi = rng.integers(-50, 50, (1, 3, 4, 2)).astype(np.int32)
    out = run("tf.image.resize_bilinear(x, [5, 3])", x=xi)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref_bilinear(xi, (5, 3), False, False), rtol=1e-5, atol=1e-5)
    assert run("tf.image.resize_bilinear(x, [0, 3])", x=rand(2, 3, 4, 1)).shape == (2, 0, 3, 1)
    assert run("tf.image.resize_bilinear(x, [4, 3])", x=rand(0, 3, 4, 1)).shape == (0, 4, 3, 1)
    big = rand(1, 48, 64, 3)
    # wasm runs XNNPACK's resize (as TF.js's wasm backend): float32 source positions, off by up to 100 * 2**-24
    # of a pixel here, so values near 0 are off by a few 1e-6 from the float64 reference
    atol = 1e-5 if run.backend.startswith("wasm") else 1e-6
    for size, align, half in [((32, 20), False, True), ((100, 70), True, False)]:
        out = run(f"tf.image.resize_bilinear(x, {list(size)}, {align}, {half})", x=big)
        np.testing.assert_allclose(out, ref_bilinear(big, size, align, half), rtol=1e-5, atol=atol)


# ---- resize_nearest_neighbor --------------------------------------------------------------------
@pytest.mark.parametrize(("align", "half"), FLAGS)
def test_resize_nearest_flags(run, align, half):
    x = rand(2, 5, 7, 2)
    for size in [(9, 4), (3, 11), (1, 1), (5, 7), (10, 14), (2, 2)]:
        out = run(f"tf.image.resize_nearest_neighbor(x, {list(size)}, {align}, {half})", x=x)
        np.testing.assert_array_equal(out, ref_nearest(x, size, align, half))


def test_resize_nearest_hand_values_dtype_and_rank3(run):
    x = np.array([[1, 2], [3, 4]], np.int32).reshape(2, 2, 1)
    out = run("tf.image.resize_nearest_neighbor(x, [3, 3])", x=x)
    assert out.dtype == np.int32
    assert out[:, :, 0].tolist() == [[1, 1, 2], [1, 1, 2], [3, 3, 4]]
    # align_corners rounds 0.5 up (JS Math.round), unlike Python's round-half-even
    out = run("tf.image.resize_nearest_neighbor(x, [3, 3], align_corners=True)", x=x)
    assert out[:, :, 0].tolist() == [[1, 2, 2], [3, 4, 4], [3, 4, 4]]
    out = run("tf.image.resize_nearest_neighbor(x, [3, 3], half_pixel_centers=True)", x=x)
    assert out[:, :, 0].tolist() == [[1, 2, 2], [3, 4, 4], [3, 4, 4]]
    assert run("tf.image.resize_nearest_neighbor(x, [2, 0])", x=x).shape == (2, 0, 1)
    big = rand(1, 48, 64, 3)
    out = run("tf.image.resize_nearest_neighbor(x, [30, 100], half_pixel_centers=True)", x=big)
    np.testing.assert_array_equal(out, ref_nearest(big, (30, 100), False, True))


@pytest.mark.parametrize("fn", ["resize_bilinear", "resize_nearest_neighbor"])
def test_resize_errors(run, fn):
    x = rand(1, 2, 2, 1)
    with pytest.raises(
        ValueError, match=rf"Error in {fn}: images must be rank 3 or 4, but got rank 2 \(\[2,2\]\)"
    ):
        run(f"tf.image.{fn}(x, [3, 3])", x=rand(2, 2))
    with pytest.raises(
        ValueError, match=rf"Error in {fn}: size must be 2D \(\[height, width\]\), but got \[1, 2, 3\]"
    ):
        run(f"tf.image.{fn}(x, [1, 2, 3])", x=x)
    with pytest.raises(ValueError, match=rf"Error in {fn}: size must be at least \[0,0\], but was \[-1,2\]"):
        run(f"tf.image.{fn}(x, [-1, 2])", x=x)
    with pytest.raises(ValueError, match=rf"Error in {fn}: size must hold integers, but got \[1.5, 2\]"):
        run(f"tf.image.{fn}(x, [1.5, 2])", x=x)
    with pytest.raises(
        ValueError, match=rf"Error in {fn}: if half_pixel_centers is True, align_corners must be"
    ):
        run(f"tf.image.{fn}(x, [3, 3], True, True)", x=x)
    with pytest.raises(ValueError, match=rf"Error in {fn}: cannot resize images of shape \[1,0,2,1\], which"):
        run(f"tf.image.{fn}(x, [3, 3])", x=rand(1, 0, 2, 1))
    with pytest.raises(ValueError, match=rf"Error in {fn}: argument 'images' is a disposed tensor"):
        run(f"tf.image.{fn}(x, [3, 3])", setup="x.dispose()", x=x)


def test_resize_nearest_rejects_bool(run):
    with pytest.raises(
        TypeError, match="Error in resize_nearest_neighbor: images must have dtype int32 or float32"
    ):
        run("tf.image.resize_nearest_neighbor(x, [3, 3])", x=np.ones((2, 2, 1), bool))


# ---- crop_and_resize ----------------------------------------------------------------------------
def test_crop_and_resize_bilinear_and_nearest(run):
    image = rand(2, 6, 7, 3)
    boxes = np.array(
        [
            [0.1, 0.2, 0.8, 0.9],
            [0.9, 0.8, 0.0, 0.1],
            [0.0, 0.0, 1.0, 1.0],
            [-0.3, 0.2, 0.5, 1.4],
            [0.3, 0.3, 0.6, 0.4],
        ],
        np.float32,
    )  # regular, flipped, full, partly outside (extrapolated), small
    box_ind = np.array([0, 1, 1, 0, 1], np.int32)
    for method, crop, extrap in [
        ("bilinear", (4, 5), 0.0),
        ("nearest", (4, 5), -2.5),
        ("bilinear", (7, 3), 9.0),
    ]:
        expr = f"tf.image.crop_and_resize(image, boxes, box_ind, {list(crop)}, {method!r}, {extrap})"
        out = run(expr, image=image, boxes=boxes, box_ind=box_ind)
        assert out.dtype == np.float32 and out.shape == (5, *crop, 3)
        ref = ref_crop_and_resize(image, boxes, box_ind, crop, method, extrap)
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    assert (run(expr, image=image, boxes=boxes, box_ind=box_ind)[3, :, 2] == 9.0).all()  # column x > w - 1


def test_crop_and_resize_single_sample_outside_index_int_image_and_empty(run):
    image = rng.integers(0, 100, (1, 4, 5, 2)).astype(np.int32)
    boxes = np.array([[0.2, 0.1, 0.7, 0.9], [0.5, 0.5, 0.5, 0.5], [0.1, 0.1, 0.9, 0.9]], np.float32)
    box_ind = np.array([0, 0, 0], np.int32)
    for crop in [(1, 1), (1, 3), (3, 1)]:
        for method in ["bilinear", "nearest"]:
            expr = f"tf.image.crop_and_resize(image, boxes, box_ind, {list(crop)}, {method!r}, 5)"
            out = run(expr, image=image, boxes=boxes, box_ind=box_ind)
            ref = ref_crop_and_resize(image, boxes, box_ind, crop, method, 5.0)
            np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    # an index outside the batch is an error (as in TF; TF.js quietly gives zeros)
    with pytest.raises(ValueError, match=r"Error in crop_and_resize: box_ind\[2\] = 3 is not in \[0, 0\]"):
        run("tf.image.crop_and_resize(image, boxes, [0, 0, 3], [2, 2])", image=image, boxes=boxes)
    out = run("tf.image.crop_and_resize(image, [[0, 0, 1, 1]], [0], [2, 2])", image=image)
    np.testing.assert_allclose(out[0], image[0][[0, 3]][:, [0, 4]], rtol=1e-6)
    no_boxes, no_ind = np.zeros((0, 4), np.float32), np.zeros(0, np.int32)
    empty = run("tf.image.crop_and_resize(image, b, i, [2, 3])", image=image, b=no_boxes, i=no_ind)
    assert empty.shape == (0, 2, 3, 2)


def test_crop_and_resize_errors(run):
    image, boxes, ind = rand(1, 4, 4, 1), np.array([[0, 0, 1, 1]], np.float32), np.array([0], np.int32)
    kw = {"image": image, "boxes": boxes, "ind": ind}
    call = "tf.image.crop_and_resize(image, boxes, ind, [2, 2])"
    with pytest.raises(
        ValueError, match=r"Error in crop_and_resize: image must be rank 4, but got rank 3 \(\[4,4,1\]\)"
    ):
        run(call, image=image[0], boxes=boxes, ind=ind)
    with pytest.raises(ValueError, match="Error in crop_and_resize: image height and width must be positive"):
        run(call, image=rand(1, 0, 4, 1), boxes=boxes, ind=ind)
    with pytest.raises(ValueError, match=r"boxes must have shape \[num_boxes,4\], but had shape \[1,3\]"):
        run(call, image=image, boxes=boxes[:, :3], ind=ind)
    with pytest.raises(ValueError, match=r"boxes must have shape \[num_boxes,4\], but had shape \[4\]"):
        run(call, image=image, boxes=boxes[0], ind=ind)
    with pytest.raises(
        ValueError, match=r"Error in crop_and_resize: box_ind must have shape \[1\], but had shape \[2\]"
    ):
        run(call, image=image, boxes=boxes, ind=np.array([0, 0], np.int32))
    with pytest.raises(
        TypeError, match="Error in crop_and_resize: box_ind must have dtype int32, but got float32"
    ):
        run(call, image=image, boxes=boxes, ind=np.array([0.0], np.float32))
    with pytest.raises(ValueError, match=r"crop_size must be at least \[1,1\], but was \[0,2\]"):
        run("tf.image.crop_and_resize(image, boxes, ind, [0, 2])", **kw)
    with pytest.raises(ValueError, match=r"Error in crop_and_resize: crop_size must be 2D"):
        run("tf.image.crop_and_resize(image, boxes, ind, [2])", **kw)
    with pytest.raises(ValueError, match="method must be 'bilinear' or 'nearest', but was 'bicubic'"):
        run("tf.image.crop_and_resize(image, boxes, ind, [2, 2], 'bicubic')", **kw)


# ---- non max suppression ------------------------------------------------------------------------
def nms_case(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    r = np.random.default_rng(seed)
    y, x = r.uniform(0, 5, n), r.uniform(0, 5, n)
    h, w = r.uniform(0.5, 4, n), r.uniform(0.5, 4, n)
    boxes = np.stack([y, x, y + h, x + w], 1)
    flip = r.random(n) < 0.5  # either corner order
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes.astype(np.float32), r.uniform(0, 1, n).astype(np.float32)


def test_nms_v3_against_reference(run):
    for seed in range(4):
        boxes, scores = nms_case(40, seed)
        for max_out, iou, thr in [(40, 0.5, -np.inf), (5, 0.3, -np.inf), (100, 0.7, 0.4), (40, 0.0, -np.inf)]:
            low = thr if thr > -np.inf else -1e30
            expr = f"tf.image.non_max_suppression(boxes, scores, {max_out}, {iou}, {low})"
            out = run(expr, boxes=boxes, scores=scores)
            assert out.dtype == np.int32
            np.testing.assert_array_equal(out, ref_nms(boxes, scores, max_out, iou, thr)[0])


def test_nms_hand_case_ties_threshold_and_degenerate(run):
    boxes = np.array(
        [
            [0, 0, 1, 1],
            [0, 0.1, 1, 1.1],
            [0, -0.1, 1, 0.9],
            [0, 10, 1, 11],
            [0, 10.1, 1, 11.1],
            [0, 100, 1, 101],
        ],
        np.float32,
    )
    scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)
    out = run("tf.image.non_max_suppression(boxes, scores, 3, 0.5)", boxes=boxes, scores=scores)
    assert out.tolist() == [3, 0, 5]  # TF's classic NMS test case
    out = run("tf.image.non_max_suppression(boxes, scores, 10, 0.5, 0.5)", boxes=boxes, scores=scores)
    assert out.tolist() == [3, 0]  # strictly greater than score_threshold
    ties = np.array([0.5, 0.7, 0.5, 0.7], np.float32)
    far = np.array([[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5], [6, 6, 7, 7]], np.float32)
    assert run("tf.image.non_max_suppression(b, s, 4)", b=far, s=ties).tolist() == [1, 3, 0, 2]
    # zero-area boxes overlap nothing (IoU 0); but IoU 0 >= iou_threshold 0 drops all boxes after the first
    flat = np.array([[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 1, 1]], np.float32)
    assert run("tf.image.non_max_suppression(b, [0.3, 0.2, 0.1], 3, 0.5)", b=flat).tolist() == [0, 1, 2]
    assert run("tf.image.non_max_suppression(b, [0.3, 0.2, 0.1], 3, 0.0)", b=flat).tolist() == [0]
    empty = run(
        "tf.image.non_max_suppression(b, s, 3)", b=np.zeros((0, 4), np.float32), s=np.zeros(0, np.float32)
    )
    assert empty.shape == (0,) and empty.dtype == np.int32
    assert run("tf.image.non_max_suppression(b, s, 0)", b=far, s=ties).shape == (0,)


def test_nms_padded_v4(run):
    boxes, scores = nms_case(30, 11)
    ref = ref_nms(boxes, scores, 20, 0.3, 0.2)[0]
    out = run("tf.image.non_max_suppression_padded(b, s, 20, 0.3, 0.2, True)", b=boxes, s=scores)
    assert set(out) == {"selected_indices", "valid_outputs"}
    assert out["valid_outputs"].shape == () and out["valid_outputs"].dtype == np.int32
    assert int(out["valid_outputs"]) == len(ref) < 20
    assert out["selected_indices"].tolist() == ref.tolist() + [0] * (20 - len(ref))
    out = run("tf.image.non_max_suppression_padded(b, s, 20, 0.3, 0.2)", b=boxes, s=scores)
    assert out["selected_indices"].tolist() == ref.tolist() and int(out["valid_outputs"]) == len(ref)
    # max_output_size is first clipped to the number of boxes, then padded to that
    out = run("tf.image.non_max_suppression_padded(b, s, 100, 0.5, 0.99, True)", b=boxes, s=scores)
    assert out["selected_indices"].tolist() == [0] * 30 and int(out["valid_outputs"]) == 0


def test_nms_with_score_hard_and_soft(run):
    boxes, scores = nms_case(25, 5)
    out = run("tf.image.non_max_suppression_with_score(b, s, 10, 0.4)", b=boxes, s=scores)
    idx, sc = ref_nms(boxes, scores, 10, 0.4)
    np.testing.assert_array_equal(out["selected_indices"], idx)
    np.testing.assert_array_equal(out["selected_scores"], sc)  # hard NMS keeps the input scores
    for sigma, iou, thr, max_out in [(0.5, 1.0, 0.0, 25), (0.2, 0.6, 0.1, 12), (1.0, 0.8, -1e30, 25)]:
        expr = f"tf.image.non_max_suppression_with_score(b, s, {max_out}, {iou}, {thr}, {sigma})"
        out = run(expr, b=boxes, s=scores)
        idx, sc = ref_nms(boxes, scores, max_out, iou, thr, sigma)
        np.testing.assert_array_equal(out["selected_indices"], idx)
        assert out["selected_scores"].dtype == np.float32
        np.testing.assert_allclose(out["selected_scores"], sc, rtol=1e-6)
        assert (np.diff(out["selected_scores"]) <= 0).all()


def test_soft_nms_hand_case(run):
    # box 1 overlaps box 0 with IoU 1/3: its score 0.8 decays to 0.8 * exp(-0.5 * (1/3)^2 / 0.5)
    boxes = np.array([[0, 0, 1, 1], [0, 0.5, 1, 1.5], [5, 5, 6, 6]], np.float32)
    scores = np.array([0.9, 0.8, 0.7], np.float32)
    out = run("tf.image.non_max_suppression_with_score(b, s, 3, 1.0, 0, 0.5)", b=boxes, s=scores)
    decayed = np.float32(0.8) * math.exp(-0.5 * (1 / 3) ** 2 / 0.5)
    assert out["selected_indices"].tolist() == [0, 1, 2]
    np.testing.assert_allclose(out["selected_scores"], [0.9, decayed, 0.7], rtol=1e-6)
    out = run("tf.image.non_max_suppression_with_score(b, s, 3, 1.0, 0.78, 0.5)", b=boxes, s=scores)
    assert out["selected_indices"].tolist() == [0]  # 0.8 decayed to ~0.717 <= 0.78: dropped


def test_nms_async_variants_match_sync(run):
    boxes, scores = nms_case(30, 3)
    out = run("tf.image.non_max_suppression_async(b, s, 8, 0.35)", b=boxes, s=scores)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ref_nms(boxes, scores, 8, 0.35)[0])
    expr = "tf.image.non_max_suppression_padded_async(b, s, 30, 0.3, 0.5, True)"
    out = run(expr, b=boxes, s=scores)
    ref = ref_nms(boxes, scores, 30, 0.3, 0.5)[0]
    assert out["selected_indices"].tolist() == ref.tolist() + [0] * (30 - len(ref))
    assert int(out["valid_outputs"]) == len(ref)
    expr = "tf.image.non_max_suppression_with_score_async(b, s, 30, 0.9, 0.05, 0.3)"
    out = run(expr, b=boxes, s=scores)
    idx, sc = ref_nms(boxes, scores, 30, 0.9, 0.05, 0.3)
    np.testing.assert_array_equal(out["selected_indices"], idx)
    np.testing.assert_allclose(out["selected_scores"], sc, rtol=1e-6)
    # plain lists are converted (and freed again) by the async op
    out = run(
        "tf.image.non_max_suppression_async([[0, 0, 1, 1], [0, 0, 1, 1.1]], [0.5, 0.6], 2)",
    )
    assert out.tolist() == [1]


NMS_FNS = ["non_max_suppression", "non_max_suppression_padded", "non_max_suppression_with_score"]


@pytest.mark.parametrize("fn", NMS_FNS + [f + "_async" for f in NMS_FNS])
def test_nms_errors(run, fn):
    call = f"tf.image.{fn}(b, s, {{}})"
    boxes, scores = nms_case(3, 0)

    def check(exc, msg, args="3", b=boxes, s=scores):
        with pytest.raises(exc, match=f"Error in {fn}: {msg}"):
            run(call.format(args), b=b, s=s)

    check(ValueError, r"iou_threshold must be in \[0, 1\], but was 1.5", "3, 1.5")
    check(ValueError, r"iou_threshold must be in \[0, 1\], but was -0.1", "3, -0.1")
    check(ValueError, "boxes must be a 2D tensor, but was of rank 1", b=boxes[0])
    check(ValueError, "boxes must be a 2D tensor, but was of rank 3", b=boxes[None])
    check(ValueError, "boxes must have 4 columns, but 2nd dimension was 3", b=boxes[:, :3])
    check(ValueError, "scores must be a 1D tensor, but was of rank 2", s=scores[None])
    check(ValueError, "scores has incompatible shape with boxes. Expected 3, but was 2", s=scores[:2])
    check(TypeError, "max_output_size must be an int, but got 2.5", "2.5")
    if fn.startswith("non_max_suppression_with_score"):
        check(ValueError, r"soft_nms_sigma must be in \[0, 1\], but was 2", "3, 0.5, 0, 2")
    with pytest.raises(ValueError, match=f"Error in {fn}: argument 'boxes' is a disposed tensor"):
        run("(b.dispose(), " + call.format("3") + ")[1]", b=boxes, s=scores)


# ---- flip_left_right, rotate_with_offset, transform ---------------------------------------------
def test_flip_left_right(run):
    x = rand(2, 3, 5, 3)
    np.testing.assert_array_equal(run("tf.image.flip_left_right(x)", x=x), x[:, :, ::-1])
    xi = rng.integers(0, 9, (1, 2, 4, 1)).astype(np.int32)
    out = run("tf.image.flip_left_right(x)", x=xi)
    assert out.dtype == np.int32 and np.array_equal(out, xi[:, :, ::-1])
    assert run("tf.image.flip_left_right(x)", x=rand(0, 2, 3, 1)).shape == (0, 2, 3, 1)
    with pytest.raises(
        ValueError, match=r"Error in flip_left_right: image must be rank 4, but got rank 3 \(\[2,3,1\]\)"
    ):
        run("tf.image.flip_left_right(x)", x=rand(2, 3, 1))


def ref_rotate(img, radians, fill, center):
    b, h, w, c = img.shape
    cx = w * (center if np.isscalar(center) else center[0])
    cy = h * (center if np.isscalar(center) else center[1])
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    sx = np.floor((x - cx) * math.cos(radians) - (y - cy) * math.sin(radians) + cx + 0.5).astype(int)
    sy = np.floor((x - cx) * math.sin(radians) + (y - cy) * math.cos(radians) + cy + 0.5).astype(int)
    ok = (sx >= 0) & (sx < w) & (sy >= 0) & (sy < h)
    fills = [fill] * c if np.isscalar(fill) else [*fill, 255][:c]
    out = np.empty_like(img)
    out[:] = np.array(fills, img.dtype)
    out[:, ok] = img[:, sy[ok], sx[ok]]
    return out


def test_rotate_with_offset(run):
    x = rand(2, 6, 5, 4)
    for radians, fill, center in [(0.7, 0, 0.5), (-2.0, 0.25, [0.2, 0.9]), (math.pi, [10, 20, 30], 0.5)]:
        out = run(f"tf.image.rotate_with_offset(x, {radians}, {fill}, {center})", x=x)
        np.testing.assert_array_equal(out, ref_rotate(x, radians, fill, center))
    np.testing.assert_array_equal(run("tf.image.rotate_with_offset(x, 0)", x=x), x)
    # quarter turn about (2, 2.5): source columns 4.5 - y are exact halves, which JS Math.round rounds up
    tie = rand(1, 5, 4, 1)
    out = run(f"tf.image.rotate_with_offset(x, {math.pi / 2}, -1, [0.5, 0.5])", x=tie)
    np.testing.assert_array_equal(out, ref_rotate(tie, math.pi / 2, -1, [0.5, 0.5]))
    xi = rng.integers(0, 255, (1, 4, 4, 3)).astype(np.int32)
    out = run("tf.image.rotate_with_offset(x, 1.0, [1, 2, 3])", x=xi)
    assert out.dtype == np.int32 and np.array_equal(out, ref_rotate(xi, 1.0, [1, 2, 3], 0.5))
    with pytest.raises(ValueError, match="Error in rotate_with_offset: image must be rank 4, but got rank 2"):
        run("tf.image.rotate_with_offset(x, 1.0)", x=rand(3, 3))
    with pytest.raises(
        ValueError, match=r"Error in rotate_with_offset: fill_value must be a number or a list of 3"
    ):
        run("tf.image.rotate_with_offset(x, 1.0, [1, 2])", x=x)
    with pytest.raises(
        ValueError, match=r"Error in rotate_with_offset: center must be a number or a list of 2"
    ):
        run("tf.image.rotate_with_offset(x, 1.0, 0, [0.5])", x=x)
    with pytest.raises(
        TypeError, match="rotate_with_offset: argument 'radians' must be a number, but got '1'"
    ):
        run("tf.image.rotate_with_offset(x, '1')", x=x)


def _tf_map_coord(v: float, n: int, mode: str) -> float:
    """TF's image_ops.h fill-mode coordinate mapping (its 'wrap' steps by n - 1, as TF does)."""
    if mode == "reflect" and n > 1:
        v = v % (2 * n)
        v = 2 * n - 1 - v if v >= n else v
    elif mode == "wrap" and n > 1:
        if v < 0:
            v += n * (math.trunc(-v / (n - 1)) + 1)
        elif v > n - 1:
            v -= n * math.trunc(v / (n - 1))
    elif mode in ("reflect", "wrap"):
        v = 0.0
    return v if mode == "constant" else min(max(v, 0), n - 1)


def ref_transform(img, transforms, interpolation="nearest", mode="constant", fill=0.0, out_size=None):
    b, h, w, c = img.shape
    oh, ow = out_size or (h, w)
    out = np.full((b, oh, ow, c), fill, np.float64)

    def read(k, y, x):
        return img[k, y, x].astype(np.float64) if 0 <= y < h and 0 <= x < w else np.full(c, fill)

    for k in range(b):
        a0, a1, a2, b0, b1, b2, c0, c1 = transforms[0 if len(transforms) == 1 else k].astype(np.float64)
        for oy in range(oh):
            for ox in range(ow):
                proj = c0 * ox + c1 * oy + 1
                if proj == 0:
                    continue
                x = _tf_map_coord((a0 * ox + a1 * oy + a2) / proj, w, mode)
                y = _tf_map_coord((b0 * ox + b1 * oy + b2) / proj, h, mode)
                if interpolation == "nearest":
                    out[k, oy, ox] = read(k, math.floor(y + 0.5), math.floor(x + 0.5))
                else:
                    x0, y0 = math.floor(x), math.floor(y)
                    top = (x0 + 1 - x) * read(k, y0, x0) + (x - x0) * read(k, y0, x0 + 1)
                    bottom = (x0 + 1 - x) * read(k, y0 + 1, x0) + (x - x0) * read(k, y0 + 1, x0 + 1)
                    out[k, oy, ox] = (y0 + 1 - y) * top + (y - y0) * bottom
    return out.astype(img.dtype) if img.dtype == np.float32 else np.trunc(out).astype(img.dtype)


def test_transform_modes_against_reference(run):
    x = rand(2, 5, 6, 2)
    affine = [0.9, -0.45, 1.3, 0.45, 0.9, -0.7, 0.0, 0.0]
    projective = [1.2, 0.1, -2.5, -0.2, 0.8, 3.1, 0.01, -0.02]
    rot = np.array([affine, projective], np.float32)
    for interp in ["nearest", "bilinear"]:
        for mode in ["constant", "reflect", "wrap", "nearest"]:
            expr = f"tf.image.transform(x, t, {interp!r}, {mode!r}, -3.5)"
            out = run(expr, x=x, t=rot)
            np.testing.assert_allclose(out, ref_transform(x, rot, interp, mode, -3.5), rtol=1e-5, atol=1e-5)
    out = run("tf.image.transform(x, t, 'bilinear', 'reflect', 0, [7, 3])", x=x, t=rot[:1])
    np.testing.assert_allclose(
        out, ref_transform(x, rot[:1], "bilinear", "reflect", 0, (7, 3)), rtol=1e-5, atol=1e-5
    )
    # k = c0 x + 1 == 0 at x = 2: that column is filled
    proj = np.array([[1, 0, 0, 0, 1, 0, -0.5, 0]], np.float32)
    for interp in ["nearest", "bilinear"]:
        out = run(f"tf.image.transform(x, t, {interp!r}, 'constant', 7)", x=x, t=proj)
        np.testing.assert_allclose(out, ref_transform(x, proj, interp, "constant", 7), rtol=1e-5, atol=1e-5)
        assert (out[:, :, 2] == 7).all()


def test_transform_integer_shifts_match_numpy_padding(run):
    x = rand(1, 4, 6, 1)
    shift = np.array([[1, 0, 2, 0, 1, -1, 0, 0]], np.float32)  # reads (x + 2, y - 1)
    padded = {
        "constant": np.pad(x, [(0, 0), (1, 1), (2, 2), (0, 0)], constant_values=5),
        "reflect": np.pad(x, [(0, 0), (1, 1), (2, 2), (0, 0)], mode="symmetric"),
        "nearest": np.pad(x, [(0, 0), (1, 1), (2, 2), (0, 0)], mode="edge"),
        "wrap": np.pad(x, [(0, 0), (1, 1), (2, 2), (0, 0)], mode="wrap"),
    }
    for mode, p in padded.items():
        for interp in ["nearest", "bilinear"]:
            out = run(f"tf.image.transform(x, t, {interp!r}, {mode!r}, 5)", x=x, t=shift)
            np.testing.assert_allclose(out, p[:, 0:4, 4:10], rtol=1e-6, err_msg=f"{mode} {interp}")
    # far shifts: reflect hits exactly -n, wrap's TF-specific (n - 1) stepping shows
    for dx, dy in [(-6, 5), (-9, -4), (13, 9), (-11, 0)]:
        far = np.array([[1, 0, dx, 0, 1, dy, 0, 0]], np.float32)
        for mode in ["reflect", "wrap"]:
            out = run(f"tf.image.transform(x, t, 'nearest', {mode!r})", x=x, t=far)
            np.testing.assert_array_equal(out, ref_transform(x, far, "nearest", mode), err_msg=f"{mode} {dx}")
    xi = rng.integers(-20, 20, (2, 3, 3, 2)).astype(np.int32)
    half = np.array([[1, 0, 0.5, 0, 1, 0.25, 0, 0]], np.float32)
    out = run("tf.image.transform(x, t, 'bilinear', 'nearest')", x=xi, t=half)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ref_transform(xi, half, "bilinear", "nearest"))


def test_transform_errors(run):
    x, t = rand(2, 3, 3, 1), np.zeros((2, 8), np.float32)
    with pytest.raises(ValueError, match=r"Error in transform: image must be rank 4, but got rank 3"):
        run("tf.image.transform(x, t)", x=x[0], t=t)
    with pytest.raises(
        ValueError,
        match=r"transforms must have shape \[batch,8\] or \[1,8\] \(batch 2\), but had shape \[3,8\]",
    ):
        run("tf.image.transform(x, t)", x=x, t=np.zeros((3, 8), np.float32))
    with pytest.raises(
        ValueError, match=r"Error in transform: transforms must have shape .* but had shape \[2,6\]"
    ):
        run("tf.image.transform(x, t)", x=x, t=np.zeros((2, 6), np.float32))
    with pytest.raises(
        ValueError, match="Error in transform: interpolation must be 'nearest' or 'bilinear', but"
    ):
        run("tf.image.transform(x, t, 'cubic')", x=x, t=t)
    with pytest.raises(
        ValueError, match="Error in transform: fill_mode must be 'constant', 'reflect', 'wrap' or"
    ):
        run("tf.image.transform(x, t, 'nearest', 'mirror')", x=x, t=t)
    with pytest.raises(ValueError, match=r"Error in transform: output_shape must be 2D"):
        run("tf.image.transform(x, t, 'nearest', 'constant', 0, [3])", x=x, t=t)
    with pytest.raises(
        TypeError, match="Error in transform: image must have dtype float32 or int32, but got bool"
    ):
        run("tf.image.transform(x, t)", x=np.ones((2, 3, 3, 1), bool), t=t)


def test_image_namespace(run):
    names = run("dir(tf.image)")
    assert "resize_bilinear" in names and "non_max_suppression_with_score_async" in names
    assert "ENGINE" not in names and "op" not in names and len(names) == 12
    assert run("all(callable(getattr(tf.image, n)) for n in dir(tf.image))") is True
    assert run("hasattr(tf, 'resize_bilinear') or hasattr(tf, 'crop_and_resize')") is False
