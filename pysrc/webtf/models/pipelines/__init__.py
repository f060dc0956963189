"""Ready-made model pipelines (pre- and post-processing around a graph model), backend-free.

face = await blazeface.BlazeFace.load("models/blazeface.json")
faces = await face.estimate_faces(video)        # [{box, score, keypoints}], source pixels

pose = await movenet.MoveNet.load("models/movenet-lightning.json")
poses = await pose.estimate_poses(video)        # [{box, score, keypoints, keypoint_scores}]
"""

from __future__ import annotations

from . import blazeface, movenet
from .blazeface import BlazeFace
from .movenet import MoveNet

__all__ = ["BlazeFace", "MoveNet", "blazeface", "movenet"]
