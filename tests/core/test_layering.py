"""The direction of imports, read from the sources with ast: backends share code through backend_util and
reach each other only through the public cpu fallback table (`webtf.backends.cpu.KERNELS`); backend_util
and ops import no backend."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pysrc" / "webtf"
BACKENDS = ("cpu", "numpy", "wasm", "webgl")
#: the one cross-backend import allowed: (module, names) of the documented fallback table
FALLBACK_TABLE = ("webtf.backends.cpu", ("KERNELS",))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """Every import of a module as (absolute module, imported names); names are () for `import m`."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found.append((base, tuple(alias.name for alias in node.names)))
    return found


def _targets(base: str, names: tuple[str, ...]) -> list[str]:
    """The module and the names it imports as dotted paths (a name may be a submodule)."""
    return [base, *(f"{base}.{n}" for n in names)]


def _backend_of(dotted: str) -> str | None:
    for name in BACKENDS:
        prefix = f"webtf.backends.{name}"
        if dotted == prefix or dotted.startswith(prefix + "."):
            return name
    return None


def _sources(folder: str) -> list[Path]:
    files = sorted((PACKAGE / folder).rglob("*.py"))
    assert files, f"no sources under {folder}"
    return files


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_backend_imports_no_other_backend(backend):
    bad = []
    for path in _sources(f"backends/{backend}"):
        for base, names in _imports(path):
            if (base, names) == FALLBACK_TABLE:
                continue
            others = {_backend_of(t) for t in _targets(base, names)} - {None, backend}
            if others:
                bad.append(f"{path.relative_to(PACKAGE)}: from {base} import {', '.join(names)}")
    assert not bad, "backends import each other's modules:\n" + "\n".join(bad)


def test_the_fallback_table_import_is_seen():
    """The resolver finds the relative imports it polices (else the test above would pass vacuously)."""
    common = PACKAGE / "backends" / "wasm" / "kernels" / "common.py"
    assert FALLBACK_TABLE in _imports(common)


@pytest.mark.parametrize("folder", ["backend_util", "ops"])
def test_backend_free_layers_import_no_backend(folder):
    bad = [
        f"{path.relative_to(PACKAGE)}: {base}"
        for path in _sources(folder)
        for base, names in _imports(path)
        if any(t == "webtf.backends" or t.startswith("webtf.backends.") for t in _targets(base, names))
    ]
    assert not bad, f"{folder} imports a backend:\n" + "\n".join(bad)
