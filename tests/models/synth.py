"""Tiny synthetic converter-format graph models written by the tests (model.json + one shard)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np


def attr_ints(*v: int) -> dict[str, Any]:
    return {"list": {"i": [str(i) for i in v]}}


def attr_str(s: str) -> dict[str, Any]:
    return {"s": base64.b64encode(s.encode()).decode()}


def attr_strs(*v: str) -> dict[str, Any]:
    return {"list": {"s": [base64.b64encode(s.encode()).decode() for s in v]}}


def conv_model(rng: np.random.Generator) -> tuple[dict[str, Any], bytes, dict[str, np.ndarray]]:
    """input [1,8,8,3] -> _FusedConv2D(3x3x3x4, stride 2, SAME, BiasAdd+Relu) -> Reshape [-1,64] -> Identity."""
    w = {
        "conv/filter": rng.standard_normal((3, 3, 3, 4)).astype(np.float32),
        "conv/bias": rng.standard_normal(4).astype(np.float32),
        "flat/shape": np.array([-1, 64], dtype=np.int32),
    }
    nodes = [
        {"name": "input", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
         "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "8"}, {"size": "8"}, {"size": "3"}]}}}},
        {"name": "conv/filter", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
        {"name": "conv/bias", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
        {"name": "flat/shape", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}}},
        {"name": "conv", "op": "_FusedConv2D", "input": ["input", "conv/filter", "conv/bias"],
         "attr": {"strides": attr_ints(1, 2, 2, 1), "padding": attr_str("SAME"), "dilations": attr_ints(1, 1, 1, 1),
                  "data_format": attr_str("NHWC"), "fused_ops": attr_strs("BiasAdd", "Relu"), "num_args": {"i": "1"},
                  "T": {"type": "DT_FLOAT"}}},
        {"name": "flat", "op": "Reshape", "input": ["conv", "flat/shape"]},
        {"name": "out", "op": "Identity", "input": ["flat"]},
    ]  # fmt: skip
    specs = [{"name": k, "shape": list(v.shape), "dtype": str(v.dtype)} for k, v in w.items()]
    manifest = [{"paths": ["weights.bin"], "weights": specs}]
    data = b"".join(v.tobytes() for v in w.values())
    model = {"format": "graph-model", "modelTopology": {"node": nodes}, "weightsManifest": manifest}
    return model, data, w


def write(dir_: Path, model: dict[str, Any], data: bytes) -> Path:
    dir_.mkdir(parents=True, exist_ok=True)
    (dir_ / "model.json").write_text(json.dumps(model))
    (dir_ / "weights.bin").write_bytes(data)
    return dir_ / "model.json"


def conv_reference(x: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    """numpy reference of conv_model: SAME 3x3 stride-2 conv + bias + relu, flattened."""
    f = w["conv/filter"]
    n, h, wd, c = x.shape
    oh, ow = -(-h // 2), -(-wd // 2)
    pad_h = max((oh - 1) * 2 + 3 - h, 0)
    pad_w = max((ow - 1) * 2 + 3 - wd, 0)
    xp = np.pad(x, ((0, 0), (pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2), (0, 0)))
    out = np.zeros((n, oh, ow, f.shape[3]), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * 2 : i * 2 + 3, j * 2 : j * 2 + 3, :]
            out[:, i, j, :] = np.tensordot(patch, f, axes=([1, 2, 3], [0, 1, 2]))
    return np.maximum(out + w["conv/bias"], 0).reshape(n, -1)
