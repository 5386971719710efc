"""GPU time per XLA op and per XLA module (XLA traces), like XProf's hlo_stats, with each
op's line of code and framework op path, and what was worked out for command buffers."""

from __future__ import annotations

import duckdb

from tui.queries import load_query

HLO_TABLES = ("hlo_ops", "hlo_schedule", "gpu_hlo_ops")


def _rows(con: duckdb.DuckDBPyConnection, query: str) -> list[dict]:
    cur = con.execute(load_query(query))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def has_hlo_tables(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the database has the HLO tables (a store `tui convert` wrote has not)."""
    names = {row[0] for row in con.execute(
        "SELECT table_name FROM duckdb_tables() UNION ALL "
        "SELECT view_name FROM duckdb_views()").fetchall()}
    return set(HLO_TABLES) <= names


def xla_op_stats(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per (hlo_module, hlo_op, program_id): category, tf_op, op_name, source, user_code,
    command_buffer, matched, count, kernels, total_ns, avg_ns, percent (queries/
    xla_op_stats.sql); [] when the trace names no XLA op (every source but XLA)."""
    if not has_hlo_tables(con):
        return _rows(con, "xla_op_stats_untied")
    return _rows(con, "xla_op_stats")


def xla_module_stats(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per hlo_module: ops, count, kernels, total_ns, percent; [] for other sources."""
    return _rows(con, "xla_module_stats" if has_hlo_tables(con) else "xla_module_stats_untied")


def command_buffer_stats(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per (hlo_module, command_buffer): replays, activities, per_replay, ops,
    program_ops, and how many were tied by name, reuse, order, guess or not at all
    (untied), total_ns; [] without command buffers or HLO programs."""
    return _rows(con, "xla_command_buffers") if has_hlo_tables(con) else []
