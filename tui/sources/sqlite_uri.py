"""The URI that opens an SQLite file (an Nsight Systems export) read-only, as both sqlite3
(with uri=True) and ADBC's SQLite driver take it: the path resolved and quoted, so that a
name holding '?' or '#' stays the file's; and one query's rows read through it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import adbc_driver_sqlite.dbapi as adbc_sqlite
import pyarrow as pa


def read_only_uri(path: Path) -> str:
    return f"file:{quote(str(path.resolve()))}?mode=ro"


def read_arrow(path: Path, query: str) -> pa.Table:
    """The rows of `query` run inside the SQLite file at `path`, opened read-only, as an
    Arrow table; the driver's own errors are raised as they are."""
    source = adbc_sqlite.connect(read_only_uri(path))
    try:
        cursor = source.cursor()
        try:
            cursor.execute(query)
            return cursor.fetch_arrow_table()
        finally:
            cursor.close()
    finally:
        source.close()
