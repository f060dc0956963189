"""Host tests: tf.data.csv. Expected rows are what TF.js 4.22's tf.data.csv gives for the same text (run
with vendor/tfjs/tf.min.js under node; tests/data/test_data_page.py checks a set of them live in the page)."""

from __future__ import annotations

import math
from typing import Any

import pytest

import webtf as tf
from tests.harness.aio import run_sync
from webtf.data.csv import js_number


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def rows(source: Any, **config: Any) -> list[Any]:
    return run_sync(tf.data.csv(source, **config).to_array())


# JavaScript's Number(text) for each text (None where it is NaN)
NUMBERS = {
    "1": 1, " 2 ": 2, "-3.5": -3.5, "1e3": 1000, ".5": 0.5, "5.": 5, "0x1F": 31, "0X1f": 31, "0b101": 5,
    "0o17": 15, "-0x10": None, "Infinity": math.inf, "-Infinity": -math.inf, "inf": None, "nan": None,
    "NaN": None, "1_000": None, "abc": None, "1 2": None, "+7": 7, "+-1": None, "  ": 0, "1e": None,
    "e5": None, "00012": 12, "3.14abc": None, "\u0663": None,
}  # fmt: skip


def test_js_number_matches_javascript():
    assert {k: js_number(k) for k in NUMBERS} == NUMBERS


def test_quoting_and_line_endings_as_tfjs():
    text = 'a,b,c\n1,"x,y",3\n"q""r",,"s"t"\n'
    assert rows(text) == [{"a": 1, "b": "x,y", "c": 3}, {"a": 'q""r', "b": None, "c": 's"t"'}]
    assert rows("a,b\n1,2\r\n3,4") == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert rows("1,2\n3,4\n", has_header=False, column_names=["x", "y"]) == [{"x": 1, "y": 2}, {"x": 3, "y": 4}]
    assert rows("a b  c\n1 2  3\n 4 5 6\n", delim_whitespace=True) == [
        {"a": 1, "b": 2, "c": 3},
        {"a": 4, "b": 5, "c": 6},
    ]
    assert all(isinstance(v, float) for r in rows("a\n1\n2\n") for v in r.values())  # JS numbers


def test_column_configs():
    got = rows("a;b\n1;true\n2;FALSE\n", delimiter=";", column_configs={"b": {"dtype": "bool"}})
    assert got == [{"a": 1, "b": True}, {"a": 2, "b": False}]
    configs = {"a": {"dtype": "int32"}, "b": {"default": 9}, "c": {"is_label": True}}
    got = rows("a,b,c\n1.7,,x\n-2.2,5,y\n", column_configs=configs)
    assert got == [{"xs": {"a": 1, "b": 9}, "ys": {"c": "x"}}, {"xs": {"a": -3, "b": 5}, "ys": {"c": "y"}}]
    assert isinstance(got[0]["xs"]["a"], int)
    configs = {"c": tf.data.ColumnConfig(is_label=True), "a": {}}
    got = rows("a,b,c\n1,2,3\n4,5,6\n", column_configs=configs, configured_columns_only=True)
    assert got == [{"xs": {"a": 1}, "ys": {"c": 3}}, {"xs": {"a": 4}, "ys": {"c": 6}}]
    ds = tf.data.csv("a,b,c\n1,2,3\n", column_configs={"c": {}}, configured_columns_only=True)
    assert run_sync(ds.column_names()) == ["c"]
    assert run_sync(tf.data.csv("a,b,c\n1,2,3\n").column_names()) == ["a", "b", "c"]


def test_batched_csv_gives_xs_ys_tensors():
    text = "x1,x2,label\n" + "".join(f"{i},{i * 0.5},{i % 2}\n" for i in range(5))
    ds = tf.data.csv(text, column_configs={"label": {"is_label": True}}).batch(2)
    got = run_sync(ds.to_array())
    first = got[0]
    assert first["xs"]["x2"].dtype == "float32" and first["xs"]["x2"].array_sync() == [0.0, 0.5]
    assert first["ys"]["label"].array_sync() == [0.0, 1.0]
    assert [b["xs"]["x1"].array_sync() for b in got] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    tf.dispose(got)


def test_sources(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,b\n1,2\n")
    assert rows(str(path)) == rows(f"file://{path}") == rows(b"a,b\n1,2\n") == [{"a": 1, "b": 2}]
    with pytest.raises(OSError, match="file not found"):
        rows(str(tmp_path / "missing.csv"))
    with pytest.raises(TypeError, match="expected a URL"):
        rows(42)


def test_errors():
    with pytest.raises(ValueError, match="invalid row '': expected 2 fields, got 1"):
        rows("a,b\n1,2\n\n3,4\n")  # an empty line inside the file is a row, as in TF.js
    with pytest.raises(ValueError, match="column_names must be given"):
        rows("1,2\n", has_header=False)
    with pytest.raises(ValueError, match="duplicate column names"):
        rows("a,a\n1,2\n")
    with pytest.raises(ValueError, match="2 column_names were given but the header line has 3"):
        rows("a,b,c\n1,2,3\n", column_names=["x", "y"])
    with pytest.raises(ValueError, match="key 'z' is not a column name"):
        rows("a,b\n1,2\n", column_configs={"z": {}})
    with pytest.raises(ValueError, match="required column b is empty"):
        rows("a,b\n1,\n", column_configs={"b": {"required": True}})
    with pytest.raises(ValueError, match="unknown keys"):
        rows("a\n1\n", column_configs={"a": {"isLabel": True}})
    with pytest.raises(ValueError, match="delimiter must be one character"):
        tf.data.csv("a\n1\n", delimiter="::")
    with pytest.raises(ValueError, match="no data"):
        rows(b"")
