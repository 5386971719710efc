"""Per-rank figures of a distributed run, and whether one rank holds the others up.

Works on a combined database (tui/runs/combine.py: the schema's tables with a `rank`
column). Communication is every kernel whose name contains 'nccl' (any case); compute is
every other kernel. A NCCL kernel's wait is how much longer it ran than the shortest
kernel of the same collective instance on the other ranks (rank_collectives.sql says how
instances are matched); the rank whose kernel is the shortest arrived last: the others
waited for it.

Straggler: all of this is measured on the GPU (NCCL kernels' durations), never from host
step lengths. A rank's net hold-up is how long the others wait for it (averaged over the
other ranks) minus how long it waits for them, per step when every rank that communicates
has steps that launched GPU work, else over the whole trace. The rank with the largest net
hold-up is the straggler only when it is material: at least MATERIAL_PCT of the run's
median step on the GPU (the slowest rank's median; collectives keep ranks in lockstep),
or of the GPU span without steps. Below that the ranks are balanced.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from tui.core.queries import load_query
from tui.core.steps import step_patterns

RANK_KEYS = ("rank", "busy_pct", "comm_ns", "compute_ns", "wait_ns")
MATERIAL_PCT = 5.0  # a straggler holds the others up >= this % of the median step
PER_STEP, WHOLE_TRACE = "per step", "whole trace"


def collective_instances(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """Every NCCL kernel with its instance, wait and the rank it waited for (Arrow)."""
    ensure_rank_tables(con)
    return con.sql("FROM collective_instances ORDER BY rank, start_ns").to_arrow_table()


def rank_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """One dict per rank, by rank: the RANK_KEYS, then steps, devices, waits in detail,
    and `net_hold_ns` (see balance(); None on a rank without NCCL kernels)."""
    ensure_rank_tables(con)
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
            "step_host_ns": s.get("step_median_ns"),  # median host range; None: no steps
            "step_gpu_ns": s.get("step_gpu_median_ns"),  # median of a step's GPU work
            "gpu_steps": s.get("gpu_steps", 0),
            "devices": g["devices"],
            "span_ns": g["span_ns"],
            "comm_span_ns": g["comm_span_ns"],  # first NCCL kernel to the last
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
            "wait_in_steps_ns": s.get("wait_in_steps_ns", 0),
            "caused_in_steps_ns": s.get("caused_in_steps_ns", 0),
        })
    _per_step_waits(rows)
    balance(rows)
    return rows


def rank_table(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """rank_rows() as an Arrow table, for a DataTable."""
    return pa.Table.from_pylist(rank_rows(con))


def balance(rows: list[dict]) -> dict:
    """The straggler verdict with its figures: {"straggler": rank or None, "rank" (the
    rank holding the others up most), "net_hold_ns", "measure" (PER_STEP or WHOLE_TRACE),
    "reference_ns" (the median GPU step; without steps, the longest span of a rank's NCCL
    kernels, first to last: a program's set-up before its first collective holds no one
    up, and an unannotated program's may be most of its GPU span), "threshold_pct",
    "threshold_ns", "ranks" (that communicate)}. Sets each row's `net_hold_ns`."""
    talking = [r for r in rows if r["comm_kernels"]]
    per_step = len(talking) > 1 and all(r["gpu_steps"] for r in talking)
    others = max(len(talking) - 1, 1)
    for r in rows:
        if not r["comm_kernels"]:
            r["net_hold_ns"] = None
        elif per_step:
            r["net_hold_ns"] = r["caused_per_step_ns"] - r["wait_per_step_ns"]
        else:
            r["net_hold_ns"] = round(r["caused_ns"] / others) - r["wait_ns"]
    reference = max((r["step_gpu_ns"] if per_step else r["comm_span_ns"] for r in talking),
                    default=0)
    threshold = round(reference * MATERIAL_PCT / 100)
    top = max(talking, key=lambda r: (r["net_hold_ns"], -r["rank"]), default=None)
    net = top["net_hold_ns"] if top is not None else 0
    return {
        "straggler": top["rank"] if top is not None and net > 0 and net >= threshold
        else None,
        "rank": top["rank"] if top is not None else None,
        "net_hold_ns": net,
        "measure": PER_STEP if per_step else WHOLE_TRACE,
        "reference_ns": reference,
        "threshold_pct": MATERIAL_PCT,
        "threshold_ns": threshold,
        "ranks": len(talking),
    }


def rank_analysis(con: duckdb.DuckDBPyConnection) -> dict:
    """{"ranks": rank_rows(), "straggler": int | None, "balance": balance()}."""
    rows = rank_rows(con)
    verdict = balance(rows)
    return {"ranks": rows, "straggler": verdict["straggler"], "balance": verdict}


def waiting_kernels(con: duckdb.DuckDBPyConnection, waited_for: int | None = None,
                    rank: int | None = None) -> list[dict]:
    """The NCCL kernels that waited (for `waited_for`, on `rank`; None: any), by start."""
    ensure_rank_tables(con)
    cursor = con.execute(load_query("rank_waiting_kernels"),
                         {"waited_for": waited_for, "rank": rank})
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def ensure_rank_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Match the collectives and find the steps once per connection, into temporary
    tables (collective_instances, step_ranges, step_work) that the rank_* queries read."""
    for table, query, params in (("collective_instances", "rank_collectives", {}),
                                 ("step_ranges", "rank_step_ranges", step_patterns()),
                                 ("step_work", "rank_step_work", {})):
        con.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} AS "
                    + load_query(query).rstrip().rstrip(";"), params or None)


def _per_step_waits(rows: list[dict]) -> None:
    """wait_per_step_ns: a rank's NCCL wait per step of its own; caused_per_step_ns: the
    others' wait for it per step of theirs (so, per other rank). None without steps."""
    talking = [r for r in rows if r["comm_kernels"]]
    total_steps = sum(r["steps"] for r in talking)
    for r in rows:
        wait_in, caused_in = r.pop("wait_in_steps_ns"), r.pop("caused_in_steps_ns")
        other_steps = total_steps - (r["steps"] if r["comm_kernels"] else 0)
        r["wait_per_step_ns"] = round(wait_in / r["steps"]) if r["steps"] else None
        r["caused_per_step_ns"] = round(caused_in / other_steps) if other_steps else None

def _by_rank(con: duckdb.DuckDBPyConnection, query: str) -> dict[int, dict]:
    cursor = con.execute(load_query(query))
    names = [d[0] for d in cursor.description]
    return {row[0]: dict(zip(names, row, strict=True)) for row in cursor.fetchall()}
