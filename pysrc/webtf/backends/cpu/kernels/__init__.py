"""The cpu kernel table: one module per family of kernels (each with a KERNELS table), merged here under TF.js
kernel names."""

from __future__ import annotations

from typing import Any

from ....backend_util.families import package_kernels

KERNELS: dict[str, Any] = package_kernels(__name__, __path__)
