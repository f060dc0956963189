"""The wasm ABI table (wasm/abi.json): what each export of the TF.js wasm binary takes, in order.

The table is the single source of truth for calling the binary. Each export lists its arguments as
"name:kind" strings; `bind_exports` turns every entry into a Python function whose positional parameters
are the distinct names in order of first use, converting each to the number the export expects:

    tensor_id      a tensor (anything with .data_id) that must live in the wasm heap -> its id
    opt_tensor_id  like tensor_id, or None -> 0 (optional bias / prelu weights)
    out_id         an output TensorInfo the backend allocated -> its id
    ids_ptr        a list of tensors -> pointer to their ids (int32) in the heap;  ids_len: its length
    shape_ptr      a sequence of ints (a shape) -> pointer to them (int32) in the heap; shape_len: its length
    ints_ptr       a sequence of ints (axes, strides, paddings) -> pointer; ints_len: its length
    dtype          a dtype name -> its enum (dtype_enum)
    activation     a fused activation name (None = linear) -> its enum (activation_enum)
    int, ptr       an int;  float: a float (f32);  bool: a truth value -> 0 / 1

`validate` checks a table without the binary (host-testable); `export_signatures` reads the parameter
types of a .wasm file's exports, so a test can check the table against the binary itself.
"""

from __future__ import annotations

import functools
import json
import keyword
from collections.abc import Callable
from pathlib import Path
from typing import Any

ARG_KINDS: dict[str, str] = {
    "tensor_id": "i32",
    "opt_tensor_id": "i32",
    "out_id": "i32",
    "ids_ptr": "i32",
    "ids_len": "i32",
    "shape_ptr": "i32",
    "shape_len": "i32",
    "ints_ptr": "i32",
    "ints_len": "i32",
    "dtype": "i32",
    "activation": "i32",
    "int": "i32",
    "ptr": "i32",
    "bool": "i32",
    "float": "f32",
}
RETURN_KINDS = ("ptr", "int")
_LEN_OF = {"ids_len": "ids_ptr", "shape_len": "shape_ptr", "ints_len": "ints_ptr"}
#: how a wrapper passes an argument of each kind ({p}: its parameter); other kinds pass as they are
_PASS = {
    "tensor_id": "({p}.data_id if {p}.data_id in _data else _res({p}.data_id))",
    "opt_tensor_id": "(0 if {p} is None else {p}.data_id if {p}.data_id in _data else _res({p}.data_id))",
    "out_id": "{p}.data_id",
    "ids_ptr": "_ints([_res(t.data_id) for t in {p}])",
    "shape_ptr": "((_ic.get({p}) if type({p}) is tuple else None) or _ints({p}))",
    "ints_ptr": "_ints({p})",
    **dict.fromkeys(_LEN_OF, "len({p})"),
    "dtype": "_dt[{p}]",
    "activation": "_act[{p}]",
    "bool": "(1 if {p} else 0)",
    "float": "float({p})",
}
_TABLE_FILE = "abi.json"


@functools.cache
def load_table() -> dict[str, Any]:
    """The ABI table: webtf/wasm_abi/abi.json inside the wheel, or wasm/abi.json of a source checkout. Read
    once and shared (read it, never change it): the page's snapshot holds it parsed."""
    here = Path(__file__).resolve()
    for path in (here.parents[2] / "wasm_abi" / _TABLE_FILE, here.parents[4] / "wasm" / _TABLE_FILE):
        if path.is_file():
            return json.loads(path.read_text())
    raise FileNotFoundError(f"wasm ABI table {_TABLE_FILE} not found next to the webtf package")


def parse_args(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """An export's arguments as (name, kind) pairs."""
    return [tuple(a.split(":", 1)) for a in entry["args"]]  # type: ignore[misc]


def validate(table: Any) -> list[str]:
    """Problems with an ABI table (empty when it is well-formed)."""
    errors: list[str] = []
    if not isinstance(table, dict) or not isinstance(table.get("exports"), dict):
        return ["the table must be an object with an 'exports' object"]
    for key in ("dtype_enum", "activation_enum"):
        enum = table.get(key)
        if not isinstance(enum, dict) or not all(isinstance(v, int) for v in enum.values()):
            errors.append(f"'{key}' must map names to ints")
    for name, entry in table["exports"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("args"), list):
            errors.append(f"{name}: needs an 'args' list")
            continue
        if entry.get("returns") not in (None, *RETURN_KINDS):
            errors.append(f"{name}: unknown return kind {entry.get('returns')!r}")
        seen: dict[str, set[str]] = {}
        for arg in entry["args"]:
            if not isinstance(arg, str) or arg.count(":") != 1:
                errors.append(f"{name}: argument {arg!r} is not 'name:kind'")
                continue
            arg_name, kind = arg.split(":")
            if kind not in ARG_KINDS:
                errors.append(f"{name}: argument {arg_name!r} has unknown kind {kind!r}")
            if not arg_name.isidentifier() or keyword.iskeyword(arg_name):
                errors.append(f"{name}: argument name {arg_name!r} is not a Python identifier")
            if kind in _LEN_OF and _LEN_OF[kind] not in seen.get(arg_name, set()):
                errors.append(f"{name}: {arg_name}:{kind} comes before {arg_name}:{_LEN_OF[kind]}")
            seen.setdefault(arg_name, set()).add(kind)
        for arg_name, kinds in seen.items():
            if len(kinds) > 1 and not any(kinds <= {ln, ptr} for ln, ptr in _LEN_OF.items()):
                errors.append(
                    f"{name}: argument {arg_name!r} is used with incompatible kinds {sorted(kinds)}"
                )
    return errors


def wasm_param_types(entry: dict[str, Any]) -> list[str]:
    """The wasm value types ('i32' / 'f32') an export's parameters must have, per the table."""
    return [ARG_KINDS[kind] for _, kind in parse_args(entry)]


# ---- reading a .wasm binary's export signatures (no dependencies) ---------------------------------
_VALTYPES = {
    0x7F: "i32",
    0x7E: "i64",
    0x7D: "f32",
    0x7C: "f64",
    0x7B: "v128",
    0x70: "funcref",
    0x6F: "externref",
}


def _leb(data: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def export_signatures(wasm: bytes) -> dict[str, tuple[list[str], list[str]]]:
    """Exported functions of a wasm module: name -> (parameter types, result types)."""
    if wasm[:4] != b"\0asm":
        raise ValueError("not a WebAssembly module (bad magic number)")
    types: list[tuple[list[str], list[str]]] = []
    func_types: list[int] = []
    exports: list[tuple[str, int]] = []
    i = 8
    while i < len(wasm):
        section = wasm[i]
        size, i = _leb(wasm, i + 1)
        end = i + size
        if section == 1:  # types
            count, i = _leb(wasm, i)
            for _ in range(count):
                n, i = _leb(wasm, i + 1)  # skip the 0x60 form byte
                params = [_VALTYPES[b] for b in wasm[i : i + n]]
                n, i = _leb(wasm, i + n)
                types.append((params, [_VALTYPES[b] for b in wasm[i : i + n]]))
                i += n
        elif section == 2:  # imports: imported functions come first in the function index space
            count, i = _leb(wasm, i)
            for _ in range(count):
                for _ in range(2):
                    n, i = _leb(wasm, i)
                    i += n
                kind = wasm[i]
                i += 1
                if kind == 0:
                    t, i = _leb(wasm, i)
                    func_types.append(t)
                elif kind == 1:  # table: reftype, limits
                    flags = wasm[i + 1]
                    _, i = _leb(wasm, i + 2)
                    if flags & 1:
                        _, i = _leb(wasm, i)
                elif kind == 2:  # memory: limits
                    flags = wasm[i]
                    _, i = _leb(wasm, i + 1)
                    if flags & 1:
                        _, i = _leb(wasm, i)
                else:  # global: valtype, mutability
                    i += 2
        elif section == 3:  # functions
            count, i = _leb(wasm, i)
            for _ in range(count):
                t, i = _leb(wasm, i)
                func_types.append(t)
        elif section == 7:  # exports
            count, i = _leb(wasm, i)
            for _ in range(count):
                n, i = _leb(wasm, i)
                name = wasm[i : i + n].decode()
                kind = wasm[i + n]
                index, i = _leb(wasm, i + n + 1)
                if kind == 0:
                    exports.append((name, index))
        i = end
    return {name: types[func_types[index]] for name, index in exports}


# ---- binding ----------------------------------------------------------------------------------------
class Helpers:
    """What the generated wrappers call: set up by the backend (ids, heap int arrays, enums)."""

    def __init__(
        self,
        resident: Callable[[int], int],
        ints: Callable[[Any], int],
        table: dict[str, Any],
        check: Callable[[int, str, tuple], None],
        log: Any,
        temps: list[int],
        free_temps: Callable[[], None],
        trapped: Callable[[Exception, str], None] | None = None,
        data: dict[int, Any] | None = None,
        ints_cache: dict[tuple, int] | None = None,
    ) -> None:
        self.resident = resident  # data id -> the same id, moved into the wasm heap if needed
        self.ints = ints  # sequence of ints -> pointer to them as int32 in the heap
        self.dtypes = dict(table["dtype_enum"])
        self.activations = dict(table["activation_enum"])
        self.activations[None] = self.activations["linear"]
        self.check = check  # (log count before, export name, outputs) -> raises: the call printed a warning
        self.log = log  # has .log_count: the number of lines the module printed so far
        self.temps = temps  # heap arrays too big to cache, freed by free_temps() right after the call
        self.free_temps = free_temps
        # (error, export name) -> raises: the export trapped or aborted, so the module's state is unknown
        self.trapped = trapped or _reraise
        # the hot path's shortcuts: ids already in the heap (`data`) and int arrays cached by value
        # (`ints_cache`) pass without a call to resident / ints
        self.data = data if data is not None else {}
        self.ints_cache = ints_cache if ints_cache is not None else {}


def _reraise(error: Exception, export: str) -> None:
    raise error


def _wrapper_source(name: str, entry: dict[str, Any]) -> tuple[str, list[str]]:
    params: list[str] = []
    call: list[str] = []
    outs: list[str] = []
    for arg, kind in parse_args(entry):
        if arg not in params:
            params.append(arg)
        p = f"p_{arg}"
        call.append(_PASS.get(kind, "{p}").format(p=p))
        if kind == "out_id":
            outs.append(p)
    sig = ", ".join(f"p_{a}" for a in params)
    lines = [f"def {name}({sig}):"]
    # arguments are converted first: only an error of the export itself (a trap, an abort) goes to _trapped
    lines.extend(f"    _a{i} = {expr}" for i, expr in enumerate(call))
    lines.append("    _n = _log.log_count")
    lines.append("    try:")
    lines.append(f"        _r = _fn({', '.join(f'_a{i}' for i in range(len(call)))})")
    lines.append("    except Exception as _e:")
    lines.append(f"        _trapped(_e, {name!r})")
    lines.append("        raise")
    lines.append("    if _temps: _free_temps()")
    lines.append(
        f"    if _log.log_count != _n: _check(_n, {name!r}, ({', '.join(outs)}{',' if outs else ''}))"
    )
    lines.append("    return _r")
    return "\n".join(lines) + "\n", params


def _plain(entry: dict[str, Any]) -> bool:
    """Whether an export takes only plain ints (it is called as is, with no wrapper)."""
    return all(kind in ("int", "ptr") for _, kind in parse_args(entry))


_CODE: dict[tuple[str, tuple[str, ...]], tuple[Any, list[str]]] = {}


def wrapper_code(name: str, entry: dict[str, Any]) -> tuple[Any, list[str]]:
    """The compiled wrapper of export `name` and its parameters, compiled once per argument list
    (tools/snapshot.mjs compiles them all into the page's memory snapshot: the first wasm start after a
    restore then skips ~0.1 s of slow compiling)."""
    key = (name, tuple(entry["args"]))
    if key not in _CODE:
        source, params = _wrapper_source(name, entry)
        _CODE[key] = compile(source, f"<wasm abi {name}>", "exec"), params
    return _CODE[key]


def compile_wrappers(table: dict[str, Any]) -> None:
    """Compile the wrapper of every export of `table` that needs one, ahead of the first bind."""
    for name, entry in table["exports"].items():
        if not _plain(entry):
            wrapper_code(name, entry)


def bind_export(name: str, entry: dict[str, Any], fn: Any, helpers: Helpers) -> Callable[..., Any]:
    """A Python function calling export `fn` with the table's argument conversions.

    An export taking only plain ints (malloc, free, register_tensor, ...) is returned as is: no wrapper cost.
    """
    if _plain(entry):
        return fn
    code, params = wrapper_code(name, entry)
    scope: dict[str, Any] = {
        "_fn": fn,
        "_res": helpers.resident,
        "_data": helpers.data,
        "_ic": helpers.ints_cache,
        "_ints": helpers.ints,
        "_dt": helpers.dtypes,
        "_act": helpers.activations,
        "_check": helpers.check,
        "_log": helpers.log,
        "_temps": helpers.temps,
        "_free_temps": helpers.free_temps,
        "_trapped": helpers.trapped,
    }
    exec(code, scope)
    wrapper = scope[name]
    wrapper.__doc__ = f"Call the wasm export {name}({', '.join(params)})."
    wrapper.params = tuple(params)
    return wrapper


class Exports:
    """Every export of the table bound once (attribute per export name): `abi.Add(a, a.shape, ...)`."""

    def __init__(self, table: dict[str, Any], raw: Any, helpers: Helpers) -> None:
        errors = validate(table)
        if errors:
            raise ValueError("invalid wasm ABI table: " + "; ".join(errors))
        for name, entry in table["exports"].items():
            fn = getattr(raw, name, None)
            if fn is None:
                raise RuntimeError(f"the wasm binary has no export '{name}' that the ABI table lists")
            arity = getattr(fn, "length", None)
            if arity is not None and arity != len(entry["args"]):
                raise RuntimeError(
                    f"the wasm export '{name}' takes {arity} arguments; "
                    f"the ABI table lists {len(entry['args'])}"
                )
            setattr(self, name, bind_export(name, entry, fn, helpers))
