"""MoveNet single-pose (Lightning): letterbox to a square, resize to 192x192 int32, 17 COCO keypoints.

The model takes [1, 192, 192, 3] int32 pixels (0..255) and returns [1, 1, 17, 3]: (y, x, score) per
keypoint, y and x normalized to the model input. The input is the whole frame padded to a square (the
crop TF.js's MoveNet starts from), so keypoints map back to the frame without distortion.
"""

from __future__ import annotations

from typing import Any

from ... import ops
from ...tensor import Tensor
from ..graph import GraphModel, load_graph_model
from .common import from_square, letterbox, run_on_frame

MODEL_URL = "models/movenet-lightning.json"
KEYPOINT_NAMES = (
    "nose", "left_eye", "right_eye", "left_ear", "right_ear", "left_shoulder", "right_shoulder",
    "left_elbow", "right_elbow", "left_wrist", "right_wrist", "left_hip", "right_hip", "left_knee",
    "right_knee", "left_ankle", "right_ankle",
)  # fmt: skip
#: Pairs of keypoint indices joined by the drawn skeleton.
SKELETON = (
    (0, 1), (0, 2), (1, 3), (2, 4), (5, 6), (5, 7), (7, 9), (6, 8), (8, 10), (5, 11), (6, 12),
    (11, 12), (11, 13), (13, 15), (12, 14), (14, 16),
)  # fmt: skip


class MoveNet:
    """Pose estimator: estimate_poses(source) -> [{box, score, keypoints: 17 x [x, y], keypoint_scores}]."""

    def __init__(self, model: GraphModel, min_keypoint_score: float = 0.3) -> None:
        shape = model.inputs[0].shape or [1, 192, 192, 3]
        self.model = model
        self.size = int(shape[1]) if shape[1] > 0 else 192
        self.min_keypoint_score = min_keypoint_score

    @classmethod
    async def load(cls, url: str = MODEL_URL, **options: Any) -> MoveNet:
        """Load the graph model from url and wrap it."""
        return cls(await load_graph_model(url), **options)

    def preprocess(self, image: Tensor) -> Tensor:
        """[h, w, 3] (or [1, h, w, 3]) pixels -> [1, S, S, 3] int32: the frame letterboxed with black."""
        return ops.cast(letterbox(image, self.size), "int32")

    async def estimate_poses(self, image: Any) -> list[dict[str, Any]]:
        """The one pose, in the pixel coordinates of `image` (a tensor or a pixel source)."""
        out, height, width = run_on_frame(self.model, image, self.preprocess)
        try:
            values = (await out.data()).tolist()
        finally:
            out.dispose()
        return [self._pose(values, height, width)]

    def _pose(self, values: list[float], height: int, width: int) -> dict[str, Any]:
        points, scores = [], []
        for i in range(0, len(values), 3):
            y, x, score = values[i : i + 3]
            points.append(from_square(x, y, height, width))
            scores.append(score)
        confident = [p for p, s in zip(points, scores, strict=True) if s >= self.min_keypoint_score] or points
        xs, ys = [p[0] for p in confident], [p[1] for p in confident]
        return {
            "box": [min(xs), min(ys), max(xs), max(ys)],
            "score": sum(scores) / len(scores),
            "keypoints": points,
            "keypoint_scores": scores,
        }

    def dispose(self) -> None:
        """Free the model weights."""
        self.model.dispose()
