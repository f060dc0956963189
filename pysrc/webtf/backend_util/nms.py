"""Greedy (soft-)non-max suppression over flat boxes and scores (TF.js's nonMaxSuppressionImpl): shared by
the NonMaxSuppressionV3/V4/V5 kernels of every backend and the *_async ops, which read their data first."""

from __future__ import annotations

import heapq
import math
from operator import mul, sub
from typing import Any, NamedTuple


class NmsResult(NamedTuple):
    """What non_max_suppression_impl returns."""

    selected_indices: list[int]
    selected_scores: list[float]
    valid_outputs: int


def non_max_suppression_impl(
    boxes: Any,
    scores: Any,
    max_output_size: int,
    iou_threshold: float,
    score_threshold: float,
    soft_nms_sigma: float = 0.0,
    pad_to_max_output_size: bool = False,
) -> NmsResult:
    """Greedy (soft-)NMS over flat [n*4] boxes and [n] scores, with TF.js's exact selection rules.

    Candidates with score > score_threshold are visited by descending score (ties: lower index first).
    A candidate whose IoU with a box selected since its last visit is >= iou_threshold is dropped; otherwise
    its score is multiplied by exp(-0.5 * iou^2 / soft_nms_sigma) per such box (weight 1 when sigma is 0).
    An unchanged score selects it; a lowered one still above score_threshold re-queues it.
    """
    n = len(scores)
    ya, xa, yb, xb = boxes[0::4], boxes[1::4], boxes[2::4], boxes[3::4]  # either corner order
    ymin, ymax = list(map(min, ya, yb)), list(map(max, ya, yb))
    xmin, xmax = list(map(min, xa, xb)), list(map(max, xa, xb))
    area = list(map(mul, map(sub, ymax, ymin), map(sub, xmax, xmin)))
    scale = -0.5 / soft_nms_sigma if soft_nms_sigma > 0 else 0.0
    # heap of (-score, box index, suppress_begin): pops the highest score, lowest index on ties
    heap = [(-s, i, 0) for i, s in zip(range(n), scores, strict=True) if s > score_threshold]
    heapq.heapify(heap)
    selected: list[int] = []
    selected_scores: list[float] = []
    sel_boxes: list[tuple[float, float, float, float, float]] = []  # (ymin, xmin, ymax, xmax, area)
    while len(selected) < max_output_size and heap:
        neg, i, begin = heapq.heappop(heap)
        original = score = -neg
        y0, x0, y1, x1, a = ymin[i], xmin[i], ymax[i], xmax[i], area[i]
        drop = False
        # boxes selected since this candidate's last visit, newest first (overlaps tend to be recent)
        for j in range(len(selected) - 1, begin - 1, -1):
            sy0, sx0, sy1, sx1, sa = sel_boxes[j]
            if a <= 0 or sa <= 0:
                iou = 0.0
            else:  # conditional expressions: much cheaper than min()/max() calls in this hot loop
                ih = (y1 if y1 < sy1 else sy1) - (y0 if y0 > sy0 else sy0)
                iw = (x1 if x1 < sx1 else sx1) - (x0 if x0 > sx0 else sx0)
                inter = (ih if ih > 0.0 else 0.0) * (iw if iw > 0.0 else 0.0)
                iou = inter / (a + sa - inter)
            if iou >= iou_threshold:
                drop = True
                break
            if scale:
                score *= math.exp(scale * iou * iou)
                if score <= score_threshold:
                    break
        if drop:
            continue
        if score == original:
            selected.append(i)
            selected_scores.append(score)
            sel_boxes.append((y0, x0, y1, x1, a))
        elif score > score_threshold:
            heapq.heappush(heap, (-score, i, len(selected)))
    valid = len(selected)
    if pad_to_max_output_size and max_output_size > valid:
        selected += [0] * (max_output_size - valid)
        selected_scores += [0.0] * (max_output_size - valid)
    return NmsResult(selected, selected_scores, valid)
