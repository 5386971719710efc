"""Writing an Arrow table (any query result) as CSV, JSON or Parquet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from tui.errors import TraceError

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
        return
    if fmt == "csv":
        sink = pa.BufferOutputStream()
        pa_csv.write_csv(table, sink)
        target.write(sink.getvalue().to_pybytes().decode())
    else:
        target.write(json.dumps(table.to_pylist(), default=str) + "\n")
