"""GPU time per XLA op and per XLA module (XLA traces), like XProf's hlo_stats, with each
op's line of code and framework op path, and what was worked out for command buffers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import duckdb

from tui.analysis.summary_types import CommandBuffer, XlaModule, XlaOp
from tui.core.queries import load_query

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


def xla_op_stats(con: duckdb.DuckDBPyConnection) -> list[XlaOp]:
    """Per (hlo_module, hlo_op, program_id): category, tf_op, op_name, source, user_code,
    command_buffer, matched, count, kernels, total_ns, avg_ns, percent (queries/analysis/
    xla_op_stats.sql); [] when the trace names no XLA op (every source but XLA)."""
    rows = _rows(con, "xla_op_stats" if has_hlo_tables(con) else "xla_op_stats_untied")
    return cast(list[XlaOp], rows)  # the query's columns


def xla_module_stats(con: duckdb.DuckDBPyConnection) -> list[XlaModule]:
    """Per hlo_module: ops, count, kernels, total_ns, percent; [] for other sources."""
    rows = _rows(con, "xla_module_stats" if has_hlo_tables(con) else "xla_module_stats_untied")
    return cast(list[XlaModule], rows)  # the query's columns


def command_buffer_stats(con: duckdb.DuckDBPyConnection) -> list[CommandBuffer]:
    """Per (hlo_module, command_buffer): replays, activities, per_replay, ops,
    program_ops, and how many were tied by name, reuse, order, guess or not at all
    (untied), total_ns; [] without command buffers or HLO programs."""
    rows = _rows(con, "xla_command_buffers") if has_hlo_tables(con) else []
    return cast(list[CommandBuffer], rows)  # the query's columns


@dataclass(frozen=True)
class ActivityOp:
    """The HLO op a GPU activity ran for, with its line of code and op path."""

    hlo_module: str
    hlo_op: str
    command_buffer: str | None  # the command buffer it was replayed in; None: launched alone
    matched: str  # how it was tied: op, name, reuse, order, guess (queries/core/schema.sql)
    category: str | None
    op_name: str | None
    source_file: str | None
    source_line: int | None
    user_code: bool
    stack: tuple[str, ...]  # 'file(line): func', outermost first


def op_of_activity(con: duckdb.DuckDBPyConnection, activity_id: int) -> ActivityOp | None:
    """The op of gpu_activities row `activity_id`; None when none was found (or the
    database has no HLO tables)."""
    try:
        row = con.execute(load_query("xla_op_of_activity"), {"id": activity_id}).fetchall()
    except duckdb.CatalogException:  # a store `tui convert` wrote: no HLO tables
        return None
    if not row:
        return None
    module, op, buffer, matched, category, op_name, file, line, user, stack = row[0]
    return ActivityOp(hlo_module=module, hlo_op=op, command_buffer=buffer, matched=matched,
                      category=category, op_name=op_name or None, source_file=file,
                      source_line=line, user_code=bool(user), stack=tuple(stack or ()))
