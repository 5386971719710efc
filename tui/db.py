"""DuckDB connections opened the one way tui needs them."""

from __future__ import annotations

import duckdb


def connect(database: str = ":memory:", read_only: bool = False) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(database, read_only=read_only)
    # DuckDB draws a progress bar on stdout for queries over ~2 s: that would corrupt
    # `--json` output and the TUI's screen.
    con.execute("SET enable_progress_bar = false")
    return con
