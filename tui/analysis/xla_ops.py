"""GPU time per XLA op and per XLA module (XLA traces), like XProf's op profile."""

from __future__ import annotations

import duckdb

from tui.queries import load_query


def _rows(con: duckdb.DuckDBPyConnection, query: str) -> list[dict]:
    cur = con.execute(load_query(query))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def xla_op_stats(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per (hlo_module, hlo_op): count, kernels, total_ns, avg_ns, percent; [] when the
    trace names no XLA op (every source but XLA)."""
    return _rows(con, "xla_op_stats")


def xla_module_stats(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per hlo_module: ops, count, kernels, total_ns, percent; [] for other sources."""
    return _rows(con, "xla_module_stats")
