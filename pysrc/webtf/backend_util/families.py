"""Kernel families: a backend's kernel table merged from its family modules, families that several backends
implement in full (listed once), and the table builder that takes each kernel from a module by snake_case name."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable
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


def package_kernels(package: str, path: Iterable[str]) -> dict[str, Any]:
    """The KERNELS tables of every module of a kernels package (`__name__`, `__path__`) merged, in module-name
    order; modules without one are helpers. A kernel name two families define is an error."""
    table: dict[str, Any] = {}
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        family = getattr(importlib.import_module(f"{package}.{info.name}"), "KERNELS", None)
        if family is None:
            continue
        if clash := table.keys() & family.keys():
            raise RuntimeError(f"{package}.{info.name}: kernels {sorted(clash)} are defined by another family too")
        table.update(family)
    return table
