"""`build.py custom`: a size-optimized webtf wheel from a TF.js tfjs-custom-module style config.

The config names kernels, backends, graph models (their ops' kernels are added: each model runs once on the
host under tf.profile), forward_mode_only and output_path. Python has no tree-shaking, so the build keeps the
modules that the kept kernels, gradients and models need (found from the live kernel tables and gradient
registry, not a hand list), drops the imports of the rest from package __init__ files, strips docstrings
and comments, and writes webtf/_build.py: the runtime registers only the listed backends and kernels.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import importlib
import json
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.custom_prune import drop_unused_imports, prune_kernel_modules

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pysrc" / "webtf"
BACKENDS = ("cpu", "wasm", "webgl")  # TF.js's names; numpy is host-only and never in a custom build
# config key -> field (TF.js's camelCase and the snake_case spelling)
KEYS = {
    "kernels": "kernels", "backends": "backends", "models": "models",
    "outputPath": "output_path", "output_path": "output_path",
    "forwardModeOnly": "forward_mode_only", "forward_mode_only": "forward_mode_only",
    "browserStores": "browser_stores", "browser_stores": "browser_stores",
}  # fmt: skip
# Module groups that a custom build keeps only when something kept needs them (the rest is core, always kept).
OPTIONAL = (
    "webtf.backends.", "webtf.gradients.", "webtf.ops.", "webtf.models.", "webtf.data", "webtf.train",
    "webtf.layers", "webtf.losses", "webtf.backend_util.",
)  # fmt: skip
UTIL = "webtf.backend_util."  # the backends' shared helpers: a module of it is kept when a kept module imports it
# tf.grad and friends: left out of forward-mode-only builds
GRADIENT_API = ("webtf.gradients.api", "webtf.gradients.tape", "webtf.gradients.util")
ALWAYS_SHADERS = ("header", "footer")
# the graph executor's control-flow parts: kept only for a model with control flow (the executor imports them
# only then; the op table's imports of the container handlers are dropped with them)
CONTROL_FLOW_MODULES = ("webtf.models.graph.dynamic", "webtf.models.graph.resources", "webtf.models.graph.containers")
# io's browser stores (indexeddb://, localstorage://, downloads://, browser_files) and the model management over
# them (list_models, copy_model, ...): kept with "browserStores"
BROWSER_STORES = ("webtf.models.io.browser", "webtf.models.io.management")
# modules kept only when wanted() says so, even where a kept module imports them
ON_REQUEST = (*CONTROL_FLOW_MODULES, *BROWSER_STORES)


class ConfigError(Exception):
    """The config is wrong; the message names the key and the value."""


@dataclass(frozen=True)
class CustomConfig:
    """A parsed, checked config."""

    source: Path
    kernels: tuple[str, ...]
    backends: tuple[str, ...]
    models: tuple[Path, ...]
    output_path: Path
    forward_mode_only: bool
    browser_stores: bool = False


@dataclass
class Plan:
    """What the custom wheel holds."""

    kernels: list[str]
    model_kernels: dict[str, list[str]]
    modules: list[str]
    shaders: list[str]
    entries: dict[str, bytes] = field(default_factory=dict)


def import_webtf() -> Any:
    """The full webtf of this checkout, imported on the host (its tables say which modules hold what)."""
    if str(ROOT / "pysrc") not in sys.path:
        sys.path.insert(0, str(ROOT / "pysrc"))
    return importlib.import_module("webtf")


def load_config(path: Path) -> CustomConfig:
    """Read and check a config; raise ConfigError naming the problem."""
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file {path} not found") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path} is not valid JSON: {error}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the config must be a JSON object with keys {sorted(set(KEYS))}")
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {unknown}; known: {sorted(set(KEYS))}")
    values = {KEYS[key]: value for key, value in raw.items()}
    tf = import_webtf()
    known = tf.kernel_names.KERNELS
    kernels = _strings(values.get("kernels", []), "kernels")
    bad = [k for k in kernels if k not in known]
    if bad:
        raise ConfigError(f'{path}: "kernels" has unknown kernel name(s) {bad} (names as in webtf/kernel_names.py)')
    backends = _strings(values.get("backends", []), "backends")
    bad = [b for b in backends if b not in BACKENDS]
    if bad or not backends:
        raise ConfigError(f'{path}: "backends" must list some of {list(BACKENDS)}, got {backends}')
    base = path.parent
    models = tuple((base / m).resolve() for m in _strings(values.get("models", []), "models"))
    missing = [str(m) for m in models if not m.is_file()]
    if missing:
        raise ConfigError(f'{path}: "models" file(s) not found: {missing}')
    if "output_path" not in values or not isinstance(values["output_path"], str):
        raise ConfigError(f'{path}: "outputPath" (a folder) is required')
    forward = values.get("forward_mode_only", True)
    if not isinstance(forward, bool):
        raise ConfigError(f'{path}: "forwardModeOnly" must be true or false, got {forward!r}')
    stores = values.get("browser_stores", False)
    if not isinstance(stores, bool):
        raise ConfigError(f'{path}: "browserStores" must be true or false, got {stores!r}')
    output = (base / values["output_path"]).resolve()
    return CustomConfig(path, kernels, backends, models, output, forward, stores)


def _strings(value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f'"{key}" must be a list of strings, got {value!r}')
    return tuple(dict.fromkeys(value))


# ---------------------------------------------------------------------------------------------- kernels


def model_kernels(tf: Any, path: Path) -> list[str]:
    """The kernels a graph model's ops run: the model executes once on zeros on the host, under tf.profile."""
    topology = json.loads(path.read_text()).get("modelTopology", {})
    if "node" not in topology:
        raise ConfigError(f'"models": {path} is not a graph model (custom builds take graph models)')

    async def run() -> list[str]:
        model = await tf.load_graph_model(str(path))
        try:
            feeds = model._zero_feeds()
            info = await tf.profile(lambda: model.execute_async(feeds))
            tf.dispose(info.result)
            tf.dispose(feeds)
            return info.kernel_names
        finally:
            model.dispose()

    return asyncio.run(run())


def _modules_of(fn: Any, seen: set[int] | None = None) -> set[str]:
    """The webtf modules that define a kernel function and what it wraps (functools.wraps, closures)."""
    seen = set() if seen is None else seen
    if id(fn) in seen or not callable(fn):
        return set()
    seen.add(id(fn))
    found = set()
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("webtf."):
        found.add(module)
    inner = [getattr(fn, "__wrapped__", None), getattr(fn, "func", None)]
    inner += [c.cell_contents for c in (getattr(fn, "__closure__", None) or ()) if _filled(c)]
    for item in inner:
        if callable(item) and not isinstance(item, type):
            found |= _modules_of(item, seen)
    return found


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def kernel_modules(tf: Any, kernels: Iterable[str], backends: Iterable[str], forward_only: bool) -> set[str]:
    """Modules that define the kept kernels for the kept backends (and their gradients)."""
    found: set[str] = set()
    for backend in backends:
        table = tf.get_kernels_for_backend(backend)
        for name in kernels:
            if name in table:
                found |= _modules_of(table[name])
    if not forward_only:
        for name in kernels:
            config = tf.get_gradient(name)
            if config is not None:
                found |= _modules_of(config.grad_func)
    return found


# ---------------------------------------------------------------------------------------------- modules


def all_modules() -> dict[str, Path]:
    """Every module of the webtf package: dotted name -> file."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        found[".".join(parts)] = path
    return found


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def module_text(module: str) -> str:
    """The source of a non-package module."""
    return PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py").read_text()


def wanted(module: str, kernels: set[str], kernel_mods: set[str], config: CustomConfig) -> bool:
    """Whether an optional module is needed by itself (imports may pull in more)."""
    if module in kernel_mods or module == "webtf.gradients.registry":
        return True
    if module.startswith("webtf.gradients."):
        return not config.forward_mode_only and module in GRADIENT_API
    if module.startswith("webtf.backends.") and ".kernels." not in module:
        return module.split(".")[2] in config.backends  # a kept backend's package, flags, ... (not its kernels)
    if module.startswith("webtf.ops."):
        used = set(re.findall(r"\bkn\.(\w+)", module_text(module)))
        return not used or bool(used & kernels)
    if module.startswith("webtf.models.pipelines.") and module != "webtf.models.pipelines.common":
        # a pipeline (pre/post-processing of one model) when its model is listed
        return any(f"/{path.name}" in module_text(module) for path in config.models)
    if module in CONTROL_FLOW_MODULES:
        return any(has_control_flow(path) for path in config.models)
    if module in BROWSER_STORES:
        return config.browser_stores
    # the rest of models/ (io's storage handlers, the graph executor's parts) only when imported
    return module == "webtf.models.graph.model" and bool(config.models)


@functools.cache
def has_control_flow(path: Path) -> bool:
    """Whether a graph model (model.json) has a control-flow op, in its graph or its function library."""
    from webtf.models.graph.op_table import CONTROL_FLOW_OPS

    return bool(set(re.findall(r'"op"\s*:\s*"(\w+)"', path.read_text())) & CONTROL_FLOW_OPS)


def optional(module: str) -> bool:
    """Whether a module is in a group that custom builds keep only when needed."""
    return module.startswith(OPTIONAL) or module in ("webtf.layers", "webtf.losses")


class Shaker:
    """Keeps the needed modules and drops from package __init__ files the imports of the others."""

    def __init__(self, modules: dict[str, Path], keep: Callable[[str], bool], tf: Any, kernels: set[str]) -> None:
        self.files, self.keep, self.tf, self.kernels = modules, keep, tf, kernels
        self.kept: set[str] = {m for m in modules if not optional(m) or keep(m)}
        self.trees: dict[str, ast.Module] = {}
        self.removed: dict[str, set[str]] = {}
        self.used: set[str] | None = None  # used_names() of the kept modules, once run() found them
        self.dropped_ops: dict[str, list[str]] = {}  # drop_unused_ops() of every kept ops module

    def is_package(self, module: str) -> bool:
        return self.files[module].name == "__init__.py"

    def run(self) -> set[str]:
        """Fixed point: parents of kept modules and everything kept non-package modules import are kept."""
        changed = True
        while changed:
            changed = False
            for module in sorted(self.kept):
                for need in self._needs(module):
                    if need in self.files and need not in self.kept:
                        self.kept.add(need)
                        changed = True
            for module in list(self.kept):
                parts = module.split(".")
                for i in range(1, len(parts)):
                    parent = ".".join(parts[:i])
                    if parent not in self.kept:
                        self.kept.add(parent)
                        changed = True
        return self.kept

    def _needs(self, module: str) -> set[str]:
        """Modules that a module's top-level imports make necessary (a package's imports of its own submodules
        are optional)."""
        needs = set()
        package = self.is_package(module)
        for node in _top_imports(self._tree(module)):
            for target in self._targets(module, node):
                if target in ON_REQUEST and not self.keep(target):
                    continue
                own = package and target.startswith(f"{module}.")
                if target in self.files and (not own or not optional(target) or target in self.kept):
                    needs.add(target)
        for node in ast.walk(self._tree(module)):  # backend_util's helpers, also where imported in a function
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                needs |= {t for t in self._targets(module, node) if t.startswith(UTIL) and t in self.files}
        return needs

    def _targets(self, module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
        if isinstance(node, ast.Import):
            return {a.name for a in node.names if a.name.startswith("webtf")}
        base = _resolve(module, self.is_package(module), node.level, node.module)
        if not base.startswith("webtf"):
            return set()
        found = {base}
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            if sub in self.files:
                found.add(sub)
            elif alias.name != "*" and base in self.files and not self.is_package(module):
                # `from package import name`: the module that defines name (e.g. through a star import), or for a
                # value without __module__ (a constant) the submodule the package's __init__ takes it from
                obj = getattr(importlib.import_module(base), alias.name, None)
                defined = getattr(obj, "__module__", None)
                if not (isinstance(defined, str) and defined in self.files) and self.is_package(base):
                    defined = self._source_of(base, alias.name)
                if isinstance(defined, str) and defined in self.files:
                    found.add(defined)
        return found

    def _source_of(self, package: str, name: str) -> str | None:
        """The module that a package's __init__ imports name from (`from .sub import name`), if any."""
        for node in _top_imports(self._tree(package)):
            if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
                return _resolve(package, True, node.level, node.module)
        return None

    def _tree(self, module: str) -> ast.Module:
        if module not in self.trees:
            self.trees[module] = ast.parse(self.files[module].read_text(), str(self.files[module]))
        return self.trees[module]

    def pruned(self, module: str) -> ast.Module:
        """The module's tree without the imports of dropped modules (and, for an ops module, unused ops)."""
        tree = self._tree(module)
        removed = self._prune(module, tree)
        if removed:
            _filter_names(tree, removed)
        if module.startswith("webtf.ops.") and not self.is_package(module) and self.used is not None:
            self.dropped_ops.update(drop_unused_ops(tree, self.kernels, self.used))
        return tree

    def _prune(self, module: str, tree: ast.Module) -> set[str]:
        """Drop imports of modules not kept (and names their packages lost); return the names unbound."""
        removed: set[str] = set()
        for body in _bodies(tree):
            keep = []
            for node in body:
                if isinstance(node, ast.ImportFrom) and node.level + bool(node.module) > 0:
                    base = _resolve(module, self.is_package(module), node.level, node.module)
                    if base.startswith("webtf") and base in self.files and base not in self.kept:
                        removed |= {a.asname or a.name for a in node.names} - {"*"}
                        continue
                    lost = self.lost(base) if base in self.files else set()
                    names = []
                    for alias in node.names:
                        sub = f"{base}.{alias.name}"
                        if (sub in self.files and sub not in self.kept) or alias.name in lost:
                            removed.add(alias.asname or alias.name)  # never "*": lost has no "*"
                        else:
                            names.append(alias)
                    if not names:
                        continue
                    node.names = names
                keep.append(node)
            body[:] = keep or [ast.Pass()]
        return removed

    def lost(self, module: str) -> set[str]:
        """Names a kept package no longer binds (its imports of dropped modules went)."""
        if module not in self.removed:
            self.removed[module] = set()
            tree = ast.parse(self.files[module].read_text())
            self.removed[module] = self._prune(module, tree)
        return self.removed[module]


def _bodies(tree: ast.Module) -> list[list[ast.stmt]]:
    """The module body and the bodies of its top-level if / try blocks (not `if TYPE_CHECKING:`'s: it never runs)."""
    bodies = [tree.body]
    for node in tree.body:
        if isinstance(node, ast.If):
            checking = isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            bodies += [node.orelse] if checking else [node.body, node.orelse]
        elif isinstance(node, ast.Try):
            bodies += [node.body, node.orelse, node.finalbody]
    return [b for b in bodies if b]


def _top_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    return [n for body in _bodies(tree) for n in body if isinstance(n, (ast.Import, ast.ImportFrom))]


def _uses(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node)) or any(
        isinstance(n, ast.Constant) and n.value in names for n in ast.walk(node)
    )


def _filter_literal(node: ast.expr, names: set[str]) -> None:
    """Drop the elements of list / tuple / set literals (and of `+` chains of them) that use removed names."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        node.elts = [e for e in node.elts if not _uses(e, names)]
    elif isinstance(node, ast.BinOp):
        _filter_literal(node.left, names)
        _filter_literal(node.right, names)


def _filter_names(tree: ast.Module, names: set[str]) -> None:
    """Top-level statements after import pruning: literals lose the removed names, other uses go."""
    for body in _bodies(tree):
        keep = []
        for node in body:
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple, ast.Set, ast.BinOp)):
                _filter_literal(node.value, names)
            elif isinstance(node, (ast.AugAssign, ast.Expr)) and _uses(node, names):
                continue
            elif isinstance(node, ast.AugAssign):
                _filter_literal(node.value, names)
            keep.append(node)
        body[:] = keep or [ast.Pass()]
    for node in ast.walk(tree):  # `**table` entries of dict literals anywhere (e.g. in a function building a table)
        if isinstance(node, ast.Dict):
            pairs = zip(node.keys, node.values, strict=True)
            kept = [(k, v) for k, v in pairs if k is not None or not _uses(v, names)]
            node.keys, node.values = [k for k, _ in kept], [v for _, v in kept]


class _StripAnnotations(ast.NodeTransformer):
    """Drops annotations of arguments, returns and variables outside class bodies (dataclasses need theirs)."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: Any) -> Any:
        node.returns = None
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        for item in node.body:
            if not isinstance(item, ast.AnnAssign):
                self.visit(item)
        return node

    def visit_Call(self, node: ast.Call) -> ast.Call:
        # documentation passed as data (KernelSpec's doc=): a string that only people read
        node.keywords = [k for k in node.keywords if not (k.arg == "doc" and _is_text(k.value))]
        self.generic_visit(node)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        if node.value is None:
            return ast.Pass() if isinstance(node.target, ast.Name) else None
        return ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)


def _is_text(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp):
        return _is_text(node.left) and _is_text(node.right)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def strip(tree: ast.Module) -> ast.Module:
    """Drop (in place) docstrings and the annotations outside class bodies."""
    _strip_docstrings(tree)
    return ast.fix_missing_locations(_StripAnnotations().visit(tree))


def minify(tree: ast.Module) -> str:
    """Source of a stripped tree (see strip): no comments, no blank lines, indented by one space per level."""
    text = ast.unparse(tree)
    lines = []
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        if stripped:
            lines.append(" " * ((len(line) - len(stripped)) // 4) + stripped)
    small = "\n".join(lines) + "\n"
    try:
        same = ast.dump(ast.parse(small)) == ast.dump(ast.parse(text))
    except SyntaxError:
        same = False
    return small if same else text + "\n"  # a multi-line string literal: keep unparse's indentation


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    body[:] = body[1:] or [ast.Pass()]


# ---------------------------------------------------------------------------------------------- plan


def shader_names(sources: Iterable[str], kernels: set[str]) -> list[str]:
    """GLSL files the kept webgl modules name (a string literal or kn.<name>), and their //#include files."""
    text = "\n".join(sources)
    names = set(ALWAYS_SHADERS)
    for path in (ROOT / "shaders").glob("*.glsl"):
        stem = path.stem
        if stem in kernels or re.search(rf"[\"']{stem}[\"']|\bkn\.{stem}\b", text):
            names.add(stem)
    pending = list(names)
    while pending:
        for include in re.findall(r"//#include (\w+)", (ROOT / "shaders" / f"{pending.pop()}.glsl").read_text()):
            if include not in names:
                names.add(include)
                pending.append(include)
    return sorted(names)


def abi_table(table: dict[str, Any], sources: str) -> bytes:
    """The wasm ABI table with only the kernel exports (capitalized: Add, Conv2D, ...) that the kept wasm
    modules name; the runtime's own exports (malloc, free, ...) all stay. Compact JSON."""
    exports = table["exports"]
    named = set(re.findall(r"\b[A-Z]\w*", sources))
    kept = {name: entry for name, entry in exports.items() if not name[0].isupper() or name in named}
    return json.dumps({**table, "exports": kept}, separators=(",", ":")).encode()


def left_out_ops(files: dict[str, Path], kept: set[str]) -> dict[str, list[str]]:
    """The public ops of the ops modules left out -> the kernels they run (for the error naming them)."""
    found: dict[str, list[str]] = {}
    for module in sorted(m for m in files if m.startswith("webtf.ops.") and m not in kept):
        for node in ast.parse(module_text(module)).body:
            defined, kernels = _op_def(node)
            found.update(dict.fromkeys(defined, kernels))
    return found


def _op_def(node: ast.stmt) -> tuple[list[str], list[str]]:
    """The public ops a top-level statement of an ops module defines and the kernels they run (kn.<Name>)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        defined = [node.name]
    elif isinstance(node, ast.Assign):  # ops made by a factory: sin = unary_op(kn.Sin)
        defined = [t.id for t in node.targets if isinstance(t, ast.Name)]
    else:
        return [], []
    kernels = list(dict.fromkeys(n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and _is_kn(n)))
    return ([name for name in defined if not name.startswith("_")] if kernels else []), kernels


def used_names(files: dict[str, Path], kept: Iterable[str]) -> set[str]:
    """The op names the kept modules may use: imported from webtf, read as attributes (not on a module outside
    webtf such as math: on a tensor they are methods), or read in an ops module that defines them. An op none of
    them names can go. The converter's handlers (graph/, `tf.<op>` on webtf.ops) do not count: they get a
    stand-in for an op left out, and a listed model's ops run kept kernels."""
    used: set[str] = set()
    for module in kept:
        tree = ast.parse(files[module].read_text())
        handlers = module.startswith("webtf.models.graph.")
        outside = {a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                   for a in n.names if not a.name.startswith("webtf")}  # fmt: skip
        own = {d for n in tree.body for d in _op_def(n)[0]} if module.startswith("webtf.ops.") else set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("webtf")):
                used |= {a.name for a in node.names}
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in own:
                used.add(node.id)
            elif isinstance(node, ast.Attribute) and not (handlers and _on_ops(node)):
                if not (isinstance(node.value, ast.Name) and node.value.id in outside):
                    used.add(node.attr)
    return used


def drop_unused_ops(tree: ast.Module, kernels: set[str], used: set[str]) -> dict[str, list[str]]:
    """Single ops from a kept ops module: the public ops whose kernels are all left out and that no kept module
    names go (with their `__all__` entries); returns them -> their kernels, for the build's error. Code that
    looks one up by its name (the converter's op tables) gets webtf.ops's stand-in that raises that error."""
    dropped: dict[str, list[str]] = {}
    body = []
    for node in tree.body:
        defined, needs = _op_def(node)
        if defined and not set(needs) & kernels and not set(defined) & used:
            dropped.update(dict.fromkeys(defined, needs))
        else:
            body.append(node)
    tree.body = body
    for node in tree.body:  # __all__ = [...] / __all__ += [...]
        if isinstance(node, (ast.Assign, ast.AugAssign)) and isinstance(node.value, (ast.List, ast.Tuple)):
            node.value.elts = [e for e in node.value.elts if not (isinstance(e, ast.Constant) and e.value in dropped)]
    return dropped


def _on_ops(node: ast.Attribute) -> bool:
    """`tf.<name>` or `tf.<namespace>.<name>` (the graph modules' alias of webtf.ops)."""
    value = node.value.value if isinstance(node.value, ast.Attribute) else node.value
    return isinstance(value, ast.Name) and value.id == "tf"


def _is_kn(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == "kn"


def make_plan(config: CustomConfig, log: Callable[[str], None]) -> Plan:
    """Kernels (config + models), modules and shaders of the custom build, with the wheel's file entries."""
    tf = import_webtf()
    kernels = list(config.kernels)
    per_model = {}
    for path in config.models:
        log(f"profiling {path.name} on the host")
        per_model[str(path)] = found = model_kernels(tf, path)
        kernels += [k for k in found if k not in kernels]
    kernel_set = set(kernels)
    kernel_mods = kernel_modules(tf, kernel_set, config.backends, config.forward_mode_only)
    files = all_modules()
    shaker = Shaker(files, lambda m: wanted(m, kernel_set, kernel_mods, config), tf, kernel_set)
    kept = sorted(shaker.run())
    shaker.used = used_names(files, kept)
    log(f"{len(kernels)} kernels, {len(kept)} of {len(files)} modules")
    trees = {module: shaker.pruned(module) for module in kept}
    packages = {module for module in kept if shaker.is_package(module)}
    resolve = lambda m, node: _resolve(m, m in packages, node.level, node.module)  # noqa: E731
    prune_kernel_modules(trees, kernel_set, resolve, packages)
    for tree in trees.values():
        strip(tree)
    drop_unused_imports(trees, resolve)
    entries: dict[str, bytes] = {}
    for module in kept:
        rel = files[module].relative_to(PACKAGE.parent).as_posix()
        entries[rel] = minify(trees[module]).encode()
    build = {
        "name": "custom",
        "config": config.source.name,
        "backends": list(config.backends),
        "kernels": kernels,
        "forward_mode_only": config.forward_mode_only,
        "browser_stores": config.browser_stores,
    }
    build["left_out_ops"] = {**left_out_ops(files, set(kept)), **shaker.dropped_ops}
    header = '"""This custom build\'s contents (build.py custom)."""'
    entries["webtf/_build.py"] = f"{header}\n\nBUILD = {build!r}\n".encode()
    shaders: list[str] = []
    if "webgl" in config.backends:
        webgl = [entries[k].decode() for k in entries if k.startswith("webtf/backends/webgl/")]
        shaders = shader_names(webgl, kernel_set)
        for name in shaders:
            entries[f"webtf/shaders/{name}.glsl"] = (ROOT / "shaders" / f"{name}.glsl").read_bytes()
    if "wasm" in config.backends:
        wasm = "\n".join(entries[k].decode() for k in entries if k.startswith("webtf/backends/wasm/"))
        for path in sorted((ROOT / "wasm").glob("*.json")):
            entries[f"webtf/wasm_abi/{path.name}"] = abi_table(json.loads(path.read_text()), wasm)
    return Plan(kernels, per_model, kept, shaders, entries)
