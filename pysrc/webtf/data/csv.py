"""tf.data.csv: rows of a CSV file as dicts of column values, with TF.js's parsing rules.

A row is {column: value}, or {"xs": features, "ys": labels} when some column is configured as a label.
Numbers follow JavaScript's Number(); other text stays a str; an empty field is the column's default, or
None. Quoted fields keep their text between the outer quotes as TF.js does (no un-escaping of "").
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields
from typing import Any

from ..backends import js as bridge
from .dataset import Dataset
from .iterators import GeneratorIterator, LazyIterator


@dataclass(frozen=True)
class ColumnConfig:
    """How one column is read: required, dtype ('float32', 'int32', 'bool'), default, is_label."""

    required: bool = False
    dtype: str | None = None
    default: Any = None
    is_label: bool = False


def _column_config(name: str, config: Any) -> ColumnConfig:
    if isinstance(config, ColumnConfig):
        return config
    if not isinstance(config, dict):
        raise TypeError(f"Error in tf.data.csv: column_configs['{name}'] must be a dict or ColumnConfig")
    unknown = set(config) - {f.name for f in fields(ColumnConfig)}
    if unknown:
        raise ValueError(
            f"Error in tf.data.csv: column_configs['{name}'] has unknown keys {sorted(unknown)}; "
            "expected required, dtype, default, is_label"
        )
    return ColumnConfig(**config)


def js_number(text: str) -> float | None:
    """JavaScript's Number(text), or None where it gives NaN."""
    s = text.strip()
    if not s:
        return 0.0
    if s in ("Infinity", "+Infinity", "-Infinity"):
        return math.inf if s[0] != "-" else -math.inf
    if len(s) > 2 and s[0] == "0" and s[1] in "xXoObB":
        try:
            return float(int(s[2:], {"x": 16, "o": 8, "b": 2}[s[1].lower()]))
        except ValueError:
            return None
    if not s.isascii() or "_" in s or s.lstrip("+-")[:1].isalpha():  # float() takes 1_0, inf, nan, ٣
        return None
    try:
        return float(s)
    except ValueError:
        return None


def parse_row(line: str, delimiter: str, delim_whitespace: bool = False) -> list[str]:
    """A CSV line split into fields (TF.js's quoting rules: a field's outer quotes are dropped)."""
    if '"' not in line and not delim_whitespace:
        return line.split(delimiter)
    out: list[str] = []
    state, start = "out", 0
    for i, c in enumerate(line):
        if state == "out":
            if c == '"':
                state, start = "quote", i + 1
            elif c == delimiter:
                start = i + 1
                if not delim_whitespace:
                    out.append("")
            else:
                state, start = "field", i
        elif state == "field":
            if c == delimiter:
                out.append(line[start:i])
                state, start = "out", i + 1
        elif state == "quote":
            if c == '"':
                state = "quote_end"
        elif state == "quote_end":  # just after a closing quote
            if c == delimiter:
                out.append(line[start : i - 1])
                state, start = "out", i + 1
            else:
                state = "quote" if c == '"' else "stray"
        elif c == '"':  # "stray": text after a closing quote, inside the same field
            state = "quote"
    out.append(line[start:-1] if state == "quote_end" else line[start:])
    return out


class CSVDataset(Dataset):
    """The rows of a CSV source (tf.data.csv): a URL (fetched in the page), a path (file:// or on the host),
    CSV text (a str with a newline), bytes, or a JS File/Blob. column_names() reads the header if any."""

    def __init__(
        self,
        source: Any,
        has_header: bool = True,
        column_names: list[str] | None = None,
        column_configs: dict[str, Any] | None = None,
        configured_columns_only: bool = False,
        delimiter: str = ",",
        delim_whitespace: bool = False,
    ) -> None:
        super().__init__(self._iterate)
        if delim_whitespace:
            delimiter = " "
        elif not isinstance(delimiter, str) or len(delimiter) != 1:
            raise ValueError(f"Error in tf.data.csv: delimiter must be one character, got {delimiter!r}")
        if configured_columns_only and not column_configs:
            raise ValueError("Error in tf.data.csv: configured_columns_only needs column_configs")
        self.source = source
        self.has_header = has_header
        self.full_column_names = list(column_names) if column_names is not None else None
        self.column_configs = {k: _column_config(k, v) for k, v in (column_configs or {}).items()}
        self.configured_columns_only = configured_columns_only
        self.delimiter = delimiter
        self.delim_whitespace = delim_whitespace
        self._validated = False

    async def column_names(self) -> list[str]:
        """The column names each row has (from column_names or the header; only configured ones if asked)."""
        if not self._validated:
            self._set_column_names(await self._lines())
        if self.configured_columns_only:
            return list(self.column_configs)
        assert self.full_column_names is not None
        return list(self.full_column_names)

    def _iterate(self) -> LazyIterator:
        return GeneratorIterator(self._rows)

    async def _rows(self) -> Any:
        lines = await self._lines()
        if not self._validated:
            self._set_column_names(lines)
        for line in lines[1:] if self.has_header else lines:
            yield self._element(line)

    async def _lines(self) -> list[str]:
        text = (await _read(self.source)).decode("utf-8")
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        if lines and lines[-1] == "":  # a final newline ends the last line; it does not start an empty one
            lines.pop()
        return lines

    def _set_column_names(self, lines: list[str]) -> None:
        header = None
        if self.has_header:
            if not lines:
                raise ValueError("Error in tf.data.csv: no data was found for CSV parsing")
            header = parse_row(lines[0], self.delimiter, self.delim_whitespace)
        names = self.full_column_names
        if names is None and header is None:
            raise ValueError("Error in tf.data.csv: column_names must be given when there is no header line")
        if names is not None and header is not None and len(names) != len(header):
            raise ValueError(
                f"Error in tf.data.csv: {len(names)} column_names were given but the header line has "
                f"{len(header)} columns"
            )
        names = names if names is not None else header
        assert names is not None
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"Error in tf.data.csv: duplicate column names {duplicates}")
        for key in self.column_configs:
            if key not in names:
                raise ValueError(
                    f"Error in tf.data.csv: column_configs key '{key}' is not a column name ({', '.join(names)})"
                )
        self.full_column_names = names
        self._validated = True

    def _element(self, line: str) -> dict[str, Any]:
        names = self.full_column_names
        assert names is not None
        values = parse_row(line, self.delimiter, self.delim_whitespace)
        if len(values) != len(names):
            raise ValueError(
                f"Error in tf.data.csv: invalid row {line!r}: expected {len(names)} fields, got {len(values)}"
            )
        features: dict[str, Any] = {}
        labels: dict[str, Any] = {}
        for key, text in zip(names, values, strict=True):
            config = self.column_configs.get(key)
            if config is None and self.configured_columns_only:
                continue
            (labels if config is not None and config.is_label else features)[key] = _value(
                text, key, config, line
            )
        return {"xs": features, "ys": labels} if labels else features


def _value(text: str, key: str, config: ColumnConfig | None, line: str) -> Any:
    if text == "":
        if config is not None and config.default is not None:
            return config.default
        if config is not None and (config.required or config.is_label):
            raise ValueError(f"Error in tf.data.csv: required column {key} is empty in this line: {line}")
        return None
    dtype = config.dtype if config is not None else None
    if dtype == "bool":
        return text == "1" or text.lower() == "true"
    number = js_number(text)
    if number is None:
        return text
    if dtype == "int32" and math.isfinite(number):
        return math.floor(number)
    return number


async def _read(source: Any) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, str):
        if "\n" in source:
            return source.encode("utf-8")
        if source.startswith("file://") or not bridge.available():
            path = source.removeprefix("file://")
            if not os.path.exists(path):
                raise OSError(f"Error in tf.data.csv: file not found: {path}")
            with open(path, "rb") as f:
                return f.read()
        return await bridge.fetch_bytes(source, "CSV")
    if hasattr(source, "arrayBuffer"):  # a JS Blob or File
        return (await source.arrayBuffer()).to_bytes()
    raise TypeError(
        f"Error in tf.data.csv: expected a URL, a path, CSV text or bytes, got {type(source).__name__}"
    )


csv = CSVDataset  # tf.data.csv(source, ...): TF.js's name for making one
