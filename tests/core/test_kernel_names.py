"""Host tests of webtf.kernel_names: every kernel a backend registers, an op dispatches or the graph op table
names is declared there, spelled through it, and called with the inputs and attrs it declares."""

import ast
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import webtf
import webtf.backends
from webtf import kernel_names as kn
from webtf.kernel_registry import get_kernels_for_backend
from webtf.models.graph import op_table

PKG = Path(webtf.__file__).parent
SOURCES = sorted(p for p in PKG.rglob("*.py") if p.name != "kernel_names.py")
SINKS = {"run_kernel", "register_kernel", "unregister_kernel", "get_kernel"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def _rel(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PKG.parent)}:{node.lineno}"


def _kn_name(node: ast.AST) -> str | None:
    """X for an expression `kn.X`."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "kn":
        return node.attr
    return None


def _func_name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _backend_tables() -> dict[str, dict]:
    """Every kernel table of every package under webtf/backends (kernels.KERNELS and kernel_table())."""
    tables = {}
    for info in pkgutil.iter_modules(webtf.backends.__path__):
        if not info.ispkg:
            continue
        backend = importlib.import_module(f"webtf.backends.{info.name}")
        owners = [backend]
        if importlib.util.find_spec(f"webtf.backends.{info.name}.kernels"):
            owners.append(importlib.import_module(f"webtf.backends.{info.name}.kernels"))
        for owner in owners:
            if hasattr(owner, "KERNELS"):
                tables[f"{owner.__name__}.KERNELS"] = owner.KERNELS
            if hasattr(owner, "kernel_table"):
                tables[f"{owner.__name__}.kernel_table()"] = owner.kernel_table()
    return tables


def test_each_constant_is_its_kernel_name():
    constants = {k: v for k, v in vars(kn).items() if isinstance(v, str) and not k.startswith("__")}
    assert constants == {name: name for name in kn.KERNELS}
    for name, spec in kn.KERNELS.items():
        assert spec.name == name
        assert all(isinstance(s, str) for s in (*spec.inputs, *spec.attrs)), name
        assert len(set(spec.inputs)) == len(spec.inputs) and len(set(spec.attrs)) == len(spec.attrs), name
        assert not (spec.variadic and spec.inputs), name


def test_backward_kernels_follow_tfjs():
    spec = kn.KERNELS
    assert spec[kn.Conv2DBackpropFilter].inputs == ("x", "dy")
    assert "filter_shape" in spec[kn.Conv2DBackpropFilter].attrs
    assert spec[kn.Conv2DBackpropInput].inputs == ("dy", "filter")
    assert spec[kn.DepthwiseConv2dNativeBackpropInput].inputs == ("dy", "filter")
    assert spec[kn.MaxPoolGrad].inputs == ("dy", "input", "output")
    assert spec[kn.AvgPoolGrad].inputs == ("dy", "input")
    assert spec[kn.ResizeBilinearGrad].inputs == spec[kn.ResizeNearestNeighborGrad].inputs == ("images", "dy")
    assert spec[kn.EluGrad].inputs == ("dy", "y")


def test_every_registered_kernel_is_known():
    tables = _backend_tables()
    assert {"webtf.backends.cpu.kernels.KERNELS", "webtf.backends.webgl.kernel_table()"} <= set(tables)
    assert "webtf.backends.wasm.kernels.kernel_table()" in tables
    for where, table in tables.items():
        assert set(table) <= set(kn.KERNELS), (where, sorted(set(table) - set(kn.KERNELS)))
    for backend in ("cpu", "wasm", "webgl"):
        registered = set(get_kernels_for_backend(backend))
        assert registered and registered <= set(kn.KERNELS), (backend, sorted(registered - set(kn.KERNELS)))


def test_kn_attributes_exist():
    for path in SOURCES:
        for node in ast.walk(_tree(path)):
            name = _kn_name(node)
            if name is not None:
                assert hasattr(kn, name), f"{_rel(path, node)}: kn.{name} is not in kernel_names"


def _forwarding_params(tree: ast.Module) -> dict[str, int]:
    """Module-level functions that pass one of their parameters on as run_kernel's kernel name: name -> index."""
    out = {}
    for func in tree.body:
        if not isinstance(func, ast.FunctionDef):
            continue
        params = [a.arg for a in func.args.args]
        for node in ast.walk(func):
            if isinstance(node, ast.Call) and _func_name(node) == "run_kernel" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Name) and first.id in params:
                    out[func.name] = params.index(first.id)
    return out


def test_kernel_names_are_spelled_through_kernel_names():
    """No string literal where a kernel name goes: run_kernel and the registry, helpers that forward their
    parameter to run_kernel, GradConfig, and the keys of backend kernel tables."""
    problems = []
    for path in SOURCES:
        tree = _tree(path)
        helpers = _forwarding_params(tree)
        backend = "backends" in path.parts
        for node in ast.walk(tree):
            args: list[ast.AST] = []
            if isinstance(node, ast.Call):
                name = _func_name(node)
                if name in SINKS or name == "GradConfig":
                    args += node.args[:1]
                if name in helpers and len(node.args) > helpers[name]:
                    args.append(node.args[helpers[name]])
                args += [kw.value for kw in node.keywords if kw.arg == "kernel_name"]
            elif (
                backend and isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict)
            ):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "KERNELS" for t in targets):
                    args += [k for k in node.value.keys if k is not None]
            problems += [
                _rel(path, a) for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
    assert problems == []


def _build_keys() -> list[ast.AST]:
    """The key expressions of the dict op_table._build() returns (with the dicts its comprehensions read)."""
    tree = _tree(Path(op_table.__file__))
    build = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_build")
    table = next(n.value for n in ast.walk(build) if isinstance(n, ast.Return))
    keys = []
    for key, value in zip(table.keys, table.values, strict=True):
        if key is not None:
            keys.append(key)
        elif isinstance(value, ast.DictComp):
            source = value.generators[0].iter
            if isinstance(source, ast.Call) and isinstance(source.func.value, ast.Dict):
                keys += source.func.value.keys
    return keys


def test_graph_op_table_names_kernels_through_kernel_names():
    """A TF op that is also a kernel name is spelled kn.X; the others (AddV2, BiasAdd, ...) are TF op names."""
    keys = _build_keys()
    assert len(keys) > 100
    literal = [k.value for k in keys if isinstance(k, ast.Constant)]
    assert [k for k in literal if k in kn.KERNELS] == []
    spelled = [_kn_name(k) for k in keys if _kn_name(k)]
    assert set(spelled) <= set(kn.KERNELS) and set(spelled) <= set(op_table.table())
    assert {kn.Conv2D, kn.Add, kn._FusedMatMul, kn.ResizeBilinear} <= set(spelled)


def test_graph_op_handlers_call_existing_ops():
    """Every `tf.<name>` (and tf.image.<name>, tf.fused.<name>) a graph handler calls is a webtf op."""
    tree = _tree(Path(op_table.__file__))
    seen = 0
    for node in ast.walk(tree):
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if chain and isinstance(node, ast.Name) and node.id == "tf":
            obj = op_table.tf
            for attr in reversed(chain):
                assert hasattr(obj, attr), f"tf.{'.'.join(reversed(chain))} is not a webtf op"
                obj = getattr(obj, attr)
            seen += 1
    assert seen > 100
    assert all(callable(h) for h in op_table.table().values())


def _dict_keys(node: ast.AST, assigned: dict[str, ast.AST]) -> tuple[set[str], bool] | None:
    """(constant keys, complete) of a dict literal (or a name assigned one once); None when not one."""
    if isinstance(node, ast.Name):
        node = assigned.get(node.id)
    if not isinstance(node, ast.Dict):
        return None
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    return keys, len(keys) == len(node.keys)


def _assigned_once(func: ast.FunctionDef) -> dict[str, ast.AST]:
    """Local names of func assigned exactly once, with their values."""
    seen: dict[str, ast.AST | None] = {}
    for n in ast.walk(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            seen[n.targets[0].id] = None if n.targets[0].id in seen else n.value
    return {k: v for k, v in seen.items() if v is not None}


def test_ops_pass_the_declared_inputs_and_attrs():
    """Where the source shows them: the input and attr dict keys of the run_kernel calls in ops/."""
    checked = 0
    for path in sorted((PKG / "ops").glob("*.py")):
        tree = _tree(path)
        helpers = _forwarding_params(tree)
        callers: dict[str, set[str]] = {name: set() for name in helpers}  # helper -> kernels passed to it
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _func_name(node) in helpers:
                index = helpers[_func_name(node)]
                if len(node.args) > index and _kn_name(node.args[index]):
                    callers[_func_name(node)].add(_kn_name(node.args[index]))
        for func in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            assigned = _assigned_once(func)
            for call in ast.walk(func):
                if not (
                    isinstance(call, ast.Call) and _func_name(call) == "run_kernel" and len(call.args) > 1
                ):
                    continue
                first, inputs, attrs = (
                    call.args[0],
                    call.args[1],
                    call.args[2] if len(call.args) > 2 else None,
                )
                for name in {_kn_name(first)} if _kn_name(first) else callers.get(func.name, set()):
                    spec, where = kn.KERNELS[name], f"{_rel(path, call)} ({name})"
                    keys = _dict_keys(inputs, assigned)
                    if keys is None:
                        assert spec.variadic or not spec.inputs, where
                    else:
                        assert keys[0] <= set(spec.inputs) and (not keys[1] or keys[0] == set(spec.inputs)), (
                            where
                        )
                    keys = _dict_keys(attrs, assigned) if attrs is not None else None
                    assert keys is None or keys[0] <= set(spec.attrs), where
                    checked += 1
    assert checked > 100
