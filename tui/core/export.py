"""Writing an Arrow table (any query result) as CSV, JSON or Parquet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from tui.core.errors import TraceError
from tui.core.safe_text import printable

EXPORT_FORMATS = ("csv", "parquet", "json")


def format_for(path: Path) -> str:
    suffix = path.suffix.lower().lstrip(".")
    if suffix in ("pq", "parquet"):
        return "parquet"
    if suffix in EXPORT_FORMATS:
        return suffix
    raise TraceError(f"{path}: unknown export format; use a .csv, .parquet or .json name")


def write_table(table: pa.Table, target: Path | IO[str], fmt: str | None = None) -> None:
    """Write `table` to a file path (format from its suffix unless given) or a text stream."""
    if isinstance(target, Path):
        fmt = fmt or format_for(target)
        try:
            if fmt == "parquet":
                pq.write_table(table, target)
            elif fmt == "csv":
                pa_csv.write_csv(table, target)
            else:
                target.write_text(json.dumps(table.to_pylist(), default=str) + "\n")
        except OSError as exc:
            raise TraceError(f"{target}: cannot write ({exc.strerror})") from None
        except pa.ArrowException as exc:  # e.g. a list column has no CSV form
            raise TraceError(f"{target}: cannot write this result as {fmt} ({exc}); "
                             "try .parquet or .json") from None
        return
    if fmt == "csv":
        sink = pa.BufferOutputStream()
        try:
            pa_csv.write_csv(_printable_strings(table), sink)
        except pa.ArrowException as exc:
            raise TraceError(f"cannot print this result as CSV ({exc}); try --json") from None
        target.write(sink.getvalue().to_pybytes().decode())
    else:  # json.dumps escapes every control character (and all non-ASCII) itself
        target.write(json.dumps(table.to_pylist(), default=str) + "\n")


def _printable_strings(table: pa.Table) -> pa.Table:
    """Text columns with control characters shown as \\xNN, for printing to a terminal.

    Names come from the trace: an ESC in one must not drive the terminal that shows the
    CSV. Files written with --output keep every value exactly.
    """
    for i, field in enumerate(table.schema):
        if not (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)):
            continue
        column = table.column(i)
        if pc.any(pc.match_substring_regex(column, r"[\x00-\x1f\x7f-\x{9f}]")).as_py():
            values = [None if v is None else printable(v) for v in column.to_pylist()]
            table = table.set_column(i, field, pa.array(values, type=field.type))
    return table
