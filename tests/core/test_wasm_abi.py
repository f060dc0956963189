"""Host tests of the wasm ABI table (wasm/abi.json): it parses, names only known argument kinds, and matches
the parameter types of the pinned TF.js wasm binaries themselves."""

import json
from pathlib import Path

import pytest

import build
from webtf.backends.wasm import abi

ROOT = Path(__file__).resolve().parents[2]


def _binary(name: str) -> bytes:
    """A pinned .wasm file: from dist/ when built, else from the (sha256-checked) npm tarball cache."""
    path = ROOT / "dist" / "wasm" / name
    if not path.exists():
        pin = next(p for p in build.NPM_PINS if p.name == "@tensorflow/tfjs-backend-wasm")
        path = build.extract(pin, build.fetch_npm(pin)) / "package" / "wasm-out" / name
    return path.read_bytes()


def test_table_parses_and_is_valid():
    table = abi.load_table()
    assert table == json.loads((ROOT / "wasm" / "abi.json").read_text())
    assert abi.validate(table) == []
    kinds = {kind for entry in table["exports"].values() for _, kind in abi.parse_args(entry)}
    assert kinds <= set(abi.ARG_KINDS)
    assert table["dtype_enum"] == {"float32": 0, "int32": 1, "bool": 2}
    assert len(table["exports"]) > 100


def test_validate_reports_problems():
    good = {"dtype_enum": {"float32": 0}, "activation_enum": {"linear": 0}}
    assert abi.validate({**good, "exports": {"F": {"args": ["x:tensor_id", "out:out_id"]}}}) == []
    errors = abi.validate(
        {
            **good,
            "exports": {
                "A": {"args": ["x:tensor"]},
                "B": {"args": ["s:shape_len", "s:shape_ptr"]},
                "C": {"args": ["class:int"]},
                "D": {"args": ["x:tensor_id", "x:int"]},
                "E": {"args": "x:int"},
                "F": {"args": [], "returns": "float"},
            },
        }
    )
    assert any("A: argument 'x' has unknown kind 'tensor'" in e for e in errors)
    assert any("B: s:shape_len comes before s:shape_ptr" in e for e in errors)
    assert any("C: argument name 'class'" in e for e in errors)
    assert any("D: argument 'x' is used with incompatible kinds" in e for e in errors)
    assert any("E: needs an 'args' list" in e for e in errors)
    assert any("F: unknown return kind 'float'" in e for e in errors)
    assert abi.validate([]) == ["the table must be an object with an 'exports' object"]


@pytest.mark.parametrize("name", ["tfjs-backend-wasm.wasm", "tfjs-backend-wasm-simd.wasm"])
def test_table_matches_binary_signatures(name):
    signatures = abi.export_signatures(_binary(name))
    table = abi.load_table()
    for export, entry in table["exports"].items():
        assert export in signatures, f"{name} has no export {export}"
        params, results = signatures[export]
        assert params == abi.wasm_param_types(entry), f"{export}: binary {params}"
        assert results == (["i32"] if entry.get("returns") else []), f"{export}: binary returns {results}"


def test_export_signatures_rejects_non_wasm():
    with pytest.raises(ValueError, match="not a WebAssembly module"):
        abi.export_signatures(b"not wasm")


def test_generated_wrapper_converts_arguments():
    calls = []

    class Log:
        log_count = 0

    class T:
        def __init__(self, data_id):
            self.data_id = data_id

    helpers = abi.Helpers(
        resident=lambda i: i,
        ints=lambda seq: 1000 + len(tuple(seq)),
        table={"dtype_enum": {"float32": 0, "int32": 1}, "activation_enum": {"linear": 0, "relu": 1}},
        check=lambda *a: None,
        log=Log(),
        temps=[],
        free_temps=lambda: None,
    )
    entry = {
        "args": [
            "x:tensor_id", "s:shape_ptr", "s:shape_len", "bias:opt_tensor_id", "act:activation", "t:bool",
            "alpha:float", "dtype:dtype", "out:out_id",
        ]
    }  # fmt: skip
    fn = abi.bind_export("K", entry, lambda *args: calls.append(args), helpers)
    assert fn.params == ("x", "s", "bias", "act", "t", "alpha", "dtype", "out")
    fn(T(7), (2, 3), None, None, "yes", 1, "int32", T(9))
    assert calls == [(7, 1002, 2, 0, 0, 1, 1.0, 1, 9)]
    plain = object()
    assert abi.bind_export("free", {"args": ["ptr:ptr"]}, plain, helpers) is plain


def test_an_export_that_throws_goes_to_trapped_but_argument_errors_do_not():
    seen = []

    class Log:
        log_count = 0

    class T:
        data_id = 3

    def trapped(error, export):
        seen.append((type(error).__name__, export))
        raise RuntimeError(f"{export} trapped")

    def boom(*args):
        raise ValueError("memory access out of bounds")

    helpers = abi.Helpers(
        resident=lambda i: i,
        ints=lambda seq: 1000,
        table={"dtype_enum": {"float32": 0}, "activation_enum": {"linear": 0}},
        check=lambda *a: None,
        log=Log(),
        temps=[],
        free_temps=lambda: None,
        trapped=trapped,
    )
    fn = abi.bind_export("Abs", {"args": ["x:tensor_id", "out:out_id"]}, boom, helpers)
    with pytest.raises(RuntimeError, match="Abs trapped"):
        fn(T(), T())
    assert seen == [("ValueError", "Abs")]
    with pytest.raises(AttributeError):  # a bad argument fails before the call: the module is untouched
        fn(object(), T())
    assert len(seen) == 1


def test_compile_wrappers_compiles_each_wrapper_once_for_every_later_bind():
    table = abi.load_table()
    abi.compile_wrappers(table)
    wrapped = {name: entry for name, entry in table["exports"].items() if "tensor_id" in str(entry["args"])}
    assert wrapped and all(
        abi.wrapper_code(name, entry) is abi.wrapper_code(name, entry) for name, entry in wrapped.items()
    )
    name, entry = next(iter(wrapped.items()))
    code = abi.wrapper_code(name, entry)[0]
    helpers = abi.Helpers(
        lambda i: i, lambda s: 0, table, lambda *a: None, type("L", (), {"log_count": 0}), [], lambda: None
    )
    first, second = (abi.bind_export(name, entry, lambda *a: a, helpers) for _ in range(2))
    assert first is not second and first.__code__ is second.__code__ is code.co_consts[0]
    assert (
        abi.wrapper_code(name, {"args": [*entry["args"], "extra:int"]})[0] is not code
    )  # keyed by the arguments
