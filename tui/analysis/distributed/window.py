"""The GPU work the distributed figures read: HTA's window, each activity's class and call."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import duckdb

from tui.core.budget import memory_budget_bytes
from tui.core.db import SUMMARY_SHARE, id_parts, one_row
from tui.core.queries import fill, fragment, load_query

_PREPARED = "dist_window_prepared"  # a temp table's name: the window, once per connection
# What a GPU activity's join with its launch calls holds (dist_work_part.sql): a 3 GB nsys
# export under the summary's 286 MiB took 16.5 s in parts of 1M, 16.9 s of 2M, and
# spilled at 4M (24.8 s; all 15.7M at once, 36 s).
WORK_JOIN_BYTES = 250


@dataclass(frozen=True)
class Window:
    """cutoff_ns: the last profiler step's start on the host, before which the work counted
    was launched (None: every activity counts); steps: the profiler steps before it."""

    cutoff_ns: int | None
    steps: int
    # the GPU activities dist_work holds, where prepare() filled it just now (None: read
    # back from an earlier fill)
    work_rows: int | None = None

    def as_dict(self) -> dict:
        return {"cutoff_ns": self.cutoff_ns, "steps": self.steps,
                "last_step_left_out": self.cutoff_ns is not None}


def prepare(con: duckdb.DuckDBPyConnection, fresh: bool = False,
            whole_trace: bool = False, remember: bool = True) -> Window:
    """Fill the temp table dist_work (queries/analysis/dist_work.sql) once per connection; `fresh`:
    again (the connection now reads another trace's tables: `USE` of another store);
    `whole_trace`: every activity, the last profiler step too (the timeline's lanes);
    `remember`: note the window on the connection for the next call (one that passes
    its Window on and releases dist_work after, as trace_figures does, need not)."""
    row = None
    if not fresh:
        try:
            row = con.execute(f"SELECT cutoff_ns, steps, whole FROM {_PREPARED}").fetchone()
        except duckdb.CatalogException:
            pass
    if row is not None and row[2] == whole_trace:
        return Window(row[0], row[1])
    _names, cutoff, steps, fmt, gpu_ids = one_row(con, load_query("dist_window"))
    if whole_trace:
        cutoff, steps = None, 0
    # HTA reads Kineto traces: there its launch calls are counted; elsewhere every linked call
    hta_calls = fmt is None or fmt == "kineto"
    parts = _id_parts(gpu_ids)
    if hta_calls and len(parts) <= 1:  # one process's work in one part: one statement
        rows = one_count(con.execute(work_query("dist_work_whole"),
                                     {"since": 0, "until": gpu_ids, "cutoff_ns": cutoff,
                                      "hta_calls": hta_calls}))
    else:
        rows = _work_in_parts(con, parts, cutoff, hta_calls)
    if remember:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {_PREPARED} AS "
                    "SELECT $cutoff::BIGINT AS cutoff_ns, $steps::BIGINT AS steps, "
                    "$whole::BOOLEAN AS whole",
                    {"cutoff": cutoff, "steps": steps if cutoff is not None else 0,
                     "whole": whole_trace})
    else:  # a window noted earlier is no longer what dist_work holds
        con.execute(f"DROP TABLE IF EXISTS temp.main.{_PREPARED}")
    return Window(cutoff, steps if cutoff is not None else 0, rows)


def _work_in_parts(con: duckdb.DuckDBPyConnection, parts: list[tuple[int, int]],
                   cutoff: int | None, hta_calls: bool) -> int:
    """Fill dist_work a part of the GPU ids at a time (the table macro dist_links); the
    rows written."""
    if hta_calls:  # a Kineto trace is one process's
        con.execute(load_query("dist_links_launches" if has_launches(con) else "dist_links"))
    else:  # nsys and XLA traces may hold several
        con.execute(load_query("dist_owner_counts"))
        for since, until in parts:
            con.execute(load_query("dist_owner_counts_part"), {"since": since, "until": until})
        con.execute(load_query("dist_links_processes"))
    rows = 0
    # the first part makes the table (one statement where the trace fits in one part)
    for index, (since, until) in enumerate(parts or [(0, 0)]):
        rows += one_count(con.execute(
            work_query("dist_work_part" if index else "dist_work_first"),
            {"since": since, "until": until, "cutoff_ns": cutoff, "hta_calls": hta_calls}))
    return rows


def has_launches(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the database and schema in use hold the launches table (a rank's store may
    not: queries/analysis/launches_visible.sql)."""
    return con.execute(load_query("launches_visible")).fetchone() is not None


@cache
def work_query(name: str) -> str:
    """The statement `name` that makes or adds to dist_work, with its rows (dist_work.sql)."""
    return fill(name, rows=fragment("dist_work"))


def one_count(cursor: duckdb.DuckDBPyConnection) -> int:
    """The rows a CREATE TABLE AS or INSERT wrote (its one row, one column)."""
    row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _id_parts(span: int) -> list[tuple[int, int]]:
    """The `span` GPU activities' ids in parts, each as many as the summary's share of the
    budget holds at WORK_JOIN_BYTES an activity."""
    per_part = max(int(memory_budget_bytes() * SUMMARY_SHARE) // WORK_JOIN_BYTES, 1 << 16)
    return id_parts(span, per_part)


def release(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the work prepare() read: a run sums up each of its 1,024 ranks on one
    connection, and each rank's work goes once its figures are out. (The views over it
    hold nothing; the next prepare() replaces them.)"""
    for table in ("dist_work", _PREPARED):
        con.execute(f"DROP TABLE IF EXISTS temp.main.{table}")
