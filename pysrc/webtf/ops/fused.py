"""(to be written) tf.fused: mat_mul, conv2d, depthwise_conv2d with bias and activation."""

from __future__ import annotations

__all__: list[str] = []
