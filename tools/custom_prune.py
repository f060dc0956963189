"""Function-level pruning of a custom build's kernel, backend_util and ops modules (tools/custom_build.py).

A kept kernel module (and backend_util) keeps only what its kept kernels need: its kernel tables (dict literals keyed by
`kn.<Name>` that build `KERNELS`) lose the entries of kernels left out, then the top-level functions, classes,
assignments and webtf imports that nothing kept reaches go. The cpu kernels keep, besides the build's
kernels, every kernel the other kept backend modules name (a wasm or webgl kernel's cpu fallback).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

KERNELS_PACKAGE = ".kernels."
CPU_KERNELS = "webtf.backends.cpu.kernels."
UTIL = "webtf.backend_util"  # the backends' shared helpers: pruned like the kernel modules
OPS = "webtf.ops."  # ops modules lose only private helpers here (build.py custom drops their unused ops)
# Resolves an ImportFrom of a module to the module it imports from (dotted name).
Resolve = Callable[[str, ast.ImportFrom], str]


def prune_kernel_modules(trees: dict[str, ast.Module], kernels: set[str], resolve: Resolve, packages: set[str]) -> None:
    """Prune (in place) the kept backends' kernel modules of `trees` (dotted name -> tree) to what `kernels`
    and the other kept modules need; to a fixed point, as one module's pruning frees another's names."""
    if "webtf.kernel_names" in trees:
        filter_specs(trees["webtf.kernel_names"], kernels)
    targets = [m for m in sorted(trees) if _target(m, trees[m], packages)]
    changed = True
    while changed:
        changed = False
        named = set(kernels)
        for module, tree in trees.items():
            if module.startswith("webtf.backends.") and not module.startswith(CPU_KERNELS):
                named |= fallback_names(tree)
        for module in targets:
            refs = external_refs(trees, module, resolve)
            if refs is None:
                continue
            tree = trees[module]
            filter_tables(tree, named if module.startswith(CPU_KERNELS) else kernels)
            public = {n for n in _bound(tree) if not n.startswith("_")} if module.startswith(OPS) else set()
            changed |= prune_unreachable(tree, refs | public)


def drop_unused_imports(trees: dict[str, ast.Module], resolve: Resolve) -> None:
    """Drop (in place) the names modules import from outside webtf (typing's `Any`, ...) that nothing reads: the
    build strips the annotations that used most of them. A name stays when its module reads it, when a kept
    module imports a name so spelled from webtf or reads an attribute so named, or when a string of its module
    spells it (`__all__`, getattr); a module star-imported or plainly imported keeps all. Run it on stripped
    trees (custom_build.strip)."""
    taken: set[str] = set()
    whole: set[str] = set()
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                taken.add(node.attr)
            elif isinstance(node, ast.ImportFrom) and (node.level or _webtf(node.module or "")):
                taken |= {a.name for a in node.names}
                if any(a.name == "*" for a in node.names):
                    whole.add(resolve(module, node))
            elif isinstance(node, ast.Import):
                whole |= {a.name for a in node.names}
    for module, tree in trees.items():
        if module in whole:
            continue
        used = set(taken)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                used.add(node.value)
        body = []
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and not node.level and not _webtf(node.module or "__future__"):
                node.names = [a for a in node.names if (a.asname or a.name) in used]
            elif isinstance(node, ast.Import) and not any(_webtf(a.name) for a in node.names):
                node.names = [a for a in node.names if (a.asname or a.name.split(".")[0]) in used]
            if not isinstance(node, ast.Import | ast.ImportFrom) or node.names:
                body.append(node)
        tree.body = body or [ast.Pass()]


def _webtf(module: str) -> bool:
    return module == "__future__" or module == "webtf" or module.startswith("webtf.")


def filter_specs(tree: ast.Module, kernels: set[str]) -> None:
    """kernel_names's KernelSpec tables keep the build's kernels (kn.KERNELS: the specs of what the build has)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List):
            node.elts = [e for e in node.elts if not _spec_of_other(e, kernels)]


def _spec_of_other(node: ast.expr, kernels: set[str]) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "KernelSpec"
        and bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id not in kernels
    )  # fmt: skip


def fallback_names(tree: ast.Module) -> set[str]:
    """The kernels a backend module's functions name (`cpu(kn.Sigmoid)`: a fallback to another kernel); its
    tables keyed by kernel names do not count (a kernel falls back to the cpu kernel of its own name)."""
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)]
    return {n.attr for f in functions for n in ast.walk(f) if isinstance(n, ast.Attribute) and _is_kn(n)}


def _target(module: str, tree: ast.Module, packages: set[str]) -> bool:
    """A backend's kernel module or backend_util (its package too) that does not look its names up dynamically
    (globals(), vars())."""
    kernels = module.startswith("webtf.backends.") and KERNELS_PACKAGE in module and module not in packages
    ops = module.startswith(OPS) and module not in packages
    if not (kernels or ops or module == UTIL or module.startswith(f"{UTIL}.")):
        return False
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return not calls & {"globals", "vars", "locals"}


def external_refs(trees: dict[str, ast.Module], target: str, resolve: Resolve) -> set[str] | None:
    """The names other kept modules take from `target` (imported from it, or read as attributes of it);
    None when one star-imports it or imports it with `import` (then nothing of it can go)."""
    refs: set[str] = set()
    for module, tree in trees.items():
        if module == target:
            continue
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name == target for a in node.names):
                return None
            if not isinstance(node, ast.ImportFrom) or node.module == "__future__":
                continue
            base = resolve(module, node)
            if base == target:
                if any(a.name == "*" for a in node.names):
                    return None
                refs |= {a.name for a in node.names}
            aliases |= {a.asname or a.name for a in node.names if f"{base}.{a.name}" == target}
        if aliases:
            refs |= {
                n.attr for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases
            }  # fmt: skip
    return refs


def filter_tables(tree: ast.Module, keep: set[str]) -> None:
    """Drop the entries of left-out kernels from the module's kernel tables: the dict literals in statements
    that bind or update KERNELS, and top-level dicts keyed by kernel names that only module-level code reads."""
    in_functions = {n.id for s in tree.body if isinstance(s, _DEFS) for n in ast.walk(s) if isinstance(n, ast.Name)}
    for node in tree.body:
        if _binds_kernels(node):
            dicts = [d for d in ast.walk(node) if isinstance(d, ast.Dict)]
        elif isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict):
            names = {t.id for t in _targets(node) if isinstance(t, ast.Name)}
            dicts = [node.value] if names and not names & in_functions and _kernel_keyed(node.value) else []
        else:
            continue
        for table in dicts:
            pairs = [
                (k, v) for k, v in zip(table.keys, table.values, strict=True)
                if not (isinstance(k, ast.Attribute) and _is_kn(k) and k.attr not in keep)
            ]  # fmt: skip
            table.keys, table.values = [k for k, _ in pairs], [v for _, v in pairs]


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _binds_kernels(node: ast.stmt) -> bool:
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return any(isinstance(t, ast.Name) and t.id == "KERNELS" for t in _targets(node))
    call = node.value if isinstance(node, ast.Expr) else None
    return (
        isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name) and call.func.value.id == "KERNELS"
    )  # fmt: skip


def _kernel_keyed(table: ast.Dict) -> bool:
    return bool(table.keys) and all(isinstance(k, ast.Attribute) and _is_kn(k) for k in table.keys)


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    return [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else []


def _is_kn(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == "kn"


def prune_unreachable(tree: ast.Module, refs: set[str]) -> bool:
    """Drop the top-level definitions (undecorated functions and classes, assignments to plain names, names
    imported from webtf) that neither `refs`, KERNELS, `__all__` nor any other top-level statement reaches.
    Returns whether anything went."""
    bound: dict[str, list[ast.AST]] = {}
    roots = set(refs) | {"KERNELS", "__all__"}
    for node in tree.body:
        names = _droppable(node)
        if names is None:
            roots |= _loads(node)
        else:
            for name, part in names:
                bound.setdefault(name, []).append(part)
    reached, pending = set(), [r for r in roots if r in bound]
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        reached.add(name)
        for part in bound[name]:
            pending += [n for n in _loads(part) if n in bound and n not in reached]
    before = ast.dump(tree)
    body = []
    for node in tree.body:
        names = _droppable(node)
        if names is None:
            body.append(node)
        elif isinstance(node, ast.ImportFrom):
            node.names = [a for a in node.names if (a.asname or a.name) in reached]
            if node.names:
                body.append(node)
        elif any(name in reached for name, _ in names):
            body.append(node)
    gone = set(bound) - reached
    for node in body:  # __all__ = [...] / __all__ += [...] lose the names that went
        if "__all__" in {t.id for t in _targets(node) if isinstance(t, ast.Name)}:
            if isinstance(node.value, ast.List | ast.Tuple):
                node.value.elts = [e for e in node.value.elts if not (isinstance(e, ast.Constant) and e.value in gone)]
    tree.body = body or [ast.Pass()]
    return ast.dump(tree) != before


def _bound(tree: ast.Module) -> set[str]:
    return {name for node in tree.body for name, _ in (_droppable(node) or [])}


def _droppable(node: ast.stmt) -> list[tuple[str, ast.AST]] | None:
    """(name, the part that defines it) for a statement pruning may drop, None for any other."""
    if isinstance(node, _DEFS):
        return None if node.decorator_list else [(node.name, node)]
    if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("webtf")):
        return None if any(a.name == "*" for a in node.names) else [(a.asname or a.name, a) for a in node.names]
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = _targets(node)
        if all(isinstance(t, ast.Name) for t in targets):
            return [(t.id, node) for t in targets if isinstance(t, ast.Name)]
    return None


def _loads(node: ast.AST) -> set[str]:
    """The names a statement reads, not counting annotations (the build strips them)."""
    found: set[str] = set()
    pending: list[ast.AST] = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, ast.Name):
            found.add(item.id)
        for name, value in ast.iter_fields(item):
            if name in ("annotation", "returns"):
                continue
            pending += [v for v in _as_list(value) if isinstance(v, ast.AST)]
    return found


def _as_list(value: object) -> Iterable[object]:
    return value if isinstance(value, list) else [value]
