"""The URI that opens an SQLite file (an Nsight Systems export) read-only, as both sqlite3
(with uri=True) and ADBC's SQLite driver take it: the path resolved and quoted, so that a
name holding '?' or '#' stays the file's."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote


def read_only_uri(path: Path) -> str:
    return f"file:{quote(str(path.resolve()))}?mode=ro"
