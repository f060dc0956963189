"""(to be written)"""

from __future__ import annotations

from typing import Any

KERNELS: dict[str, Any] = {}
