"""Per-rank figures of a distributed run, and the straggler the other ranks wait for.

Works on a combined database (tui/multirank/combine.py: the schema's tables with a `rank`
column). Communication is every kernel whose name contains 'nccl' (any case); compute is
every other kernel. A NCCL kernel's wait is how much longer it ran than the shortest
kernel of the same collective instance on the other ranks (rank_collectives.sql says how
instances are matched); the rank whose kernel is the shortest arrived last: the others
waited for it. The straggler is the rank the others waited for longest in total.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from tui.queries import load_query

RANK_KEYS = ("rank", "busy_pct", "comm_ns", "compute_ns", "wait_ns")


def collective_instances(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """Every NCCL kernel with its instance, wait and the rank it waited for (Arrow)."""
    _ensure_instances(con)
    return con.sql("FROM collective_instances ORDER BY rank, start_ns").to_arrow_table()


def rank_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """One dict per rank, by rank: the RANK_KEYS, then steps, devices, waits in detail."""
    _ensure_instances(con)
    gpu = _by_rank(con, "rank_gpu_time")
    steps = _by_rank(con, "rank_steps")
    waits = _by_rank(con, "rank_waits")
    rows = []
    for rank, g in gpu.items():
        s, w = steps.get(rank, {}), waits.get(rank, {})
        rows.append({
            "rank": rank,
            "busy_pct": round(g["busy_pct"], 3),
            "comm_ns": g["comm_ns"],
            "compute_ns": g["compute_ns"],
            "wait_ns": w.get("wait_ns", 0),
            "steps": s.get("steps", 0),
            "step_ns": s.get("step_median_ns"),  # median step wall time, None without steps
            "devices": g["devices"],
            "span_ns": g["span_ns"],
            "busy_ns": g["busy_ns"],
            "comm_kernels": g["comm_kernels"],
            "compute_kernels": g["compute_kernels"],
            "waits_in": w.get("waits_in"),  # the NCCL kernel name it waited in longest
            "waits_in_ns": w.get("waits_in_ns", 0),
            "longest_wait_ns": w.get("longest_wait_ns", 0),
            "longest_wait_start_ns": w.get("longest_wait_start_ns"),
            "caused_ns": w.get("caused_ns", 0),  # what the others waited for this rank
            "collectives": w.get("instances", 0),
            "unmatched_collectives": w.get("unmatched", 0),
        })
    return rows


def rank_table(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """rank_rows() as an Arrow table, for a DataTable."""
    return pa.Table.from_pylist(rank_rows(con))


def straggler(rows: list[dict]) -> int | None:
    """The rank the others waited for longest; None when no rank waited at all."""
    worst = max(rows, key=lambda r: (r["caused_ns"], -r["rank"]), default=None)
    return worst["rank"] if worst is not None and worst["caused_ns"] > 0 else None


def rank_analysis(con: duckdb.DuckDBPyConnection) -> dict:
    """{"ranks": rank_rows(), "straggler": int | None}."""
    rows = rank_rows(con)
    return {"ranks": rows, "straggler": straggler(rows)}


def _ensure_instances(con: duckdb.DuckDBPyConnection) -> None:
    """Match the collectives once per connection, into a temporary table."""
    con.execute("CREATE TEMP TABLE IF NOT EXISTS collective_instances AS "
                + load_query("rank_collectives").rstrip().rstrip(";"))


def _by_rank(con: duckdb.DuckDBPyConnection, query: str) -> dict[int, dict]:
    cursor = con.execute(load_query(query))
    names = [d[0] for d in cursor.description]
    return {row[0]: dict(zip(names, row, strict=True)) for row in cursor.fetchall()}
