"""Kernel families that several backends implement in full, listed once, and the table builder that takes each
kernel from a backend module by its snake_case name."""

from __future__ import annotations

import re
from typing import Any

from .. import kernel_names as kn

SCATTER_FAMILY = (
    kn.ScatterNd,
    kn.TensorScatterUpdate,
    kn.UnsortedSegmentSum,
    kn.Bincount,
    kn.DenseBincount,
    kn.Unique,
    kn.SearchSorted,
    kn.BitwiseAnd,
    kn.BroadcastArgs,
)


def family_kernels(names: tuple[str, ...], namespace: dict[str, Any]) -> dict[str, Any]:
    """{kernel name: namespace's function of its snake_case name} for each of names (ScatterNd: scatter_nd)."""
    return {name: namespace[re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()] for name in names}
