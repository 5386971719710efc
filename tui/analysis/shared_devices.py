"""GPUs that several processes ran work on at once (queries/analysis/shared_devices.sql):
two jobs started on one GPU, a notebook's kernels beside a training run. Without MPS the
GPU switches between the processes' contexts (time-slicing): while both have work on it,
each one's kernels wait on the other's and their measured times count the other's, so
neither process's figures are its own. Only an nsys report can show it: it records every
process on the machine, a Kineto or XLA trace one.
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING

from tui.analysis.finding import Finding
from tui.core.queries import load_query
from tui.core.units import format_ns

if TYPE_CHECKING:
    import duckdb


def shared_phrase(finding: Finding) -> str:
    """The diagnosis' line for the finding `shared_gpu`: 'GPU 0 ran the work of processes
    720 and 773 at once for 1.41 s of the trace: …'."""
    out = []
    for device, group in groupby(finding.rows, key=lambda r: r["device"]):
        processes = list(group)
        pids = [str(r["pid"]) for r in processes]
        listed = ", ".join(pids[:-1]) + f" and {pids[-1]}"
        out.append(f"GPU {device} ran the work of processes {listed} at once for "
                   f"{format_ns(processes[0]['overlap_ns'])} of the trace")
    return (f"{'; '.join(out)}: each one's kernels waited on the others', and their times "
            "count them (the finding shared_gpu)")


def shared_devices_finding(con: duckdb.DuckDBPyConnection) -> Finding | None:
    """The finding `shared_gpu`: each GPU that two or more processes had work on at once,
    costed by the time they did (summed over GPUs); None where none did or the trace is
    not an nsys report."""
    fmt = con.execute("SELECT value FROM trace_meta WHERE key = 'format'").fetchone()
    if not fmt or fmt[0] != "nsys":
        return None
    (several,) = con.execute(load_query("several_gpu_processes")).fetchone() or (None,)
    if not several:  # one process's work (most reports): no sweep
        return None
    cursor = con.execute(load_query("shared_devices"))
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    if not rows:
        return None
    said, cost = [], 0
    for device, group in groupby(rows, key=lambda r: r["device"]):
        processes = list(group)
        cost += processes[0]["overlap_ns"]
        each = "; ".join(f"process {r['pid']}: {r['activities']:,} activities, "
                         f"{format_ns(r['busy_ns'])}" for r in processes)
        said.append(f"GPU {device} ran the work of {len(processes)} processes at once for "
                    f"{format_ns(processes[0]['overlap_ns'])} ({each})")
    # a row each: a process on a shared GPU, its count its activities there
    rows = [{"name": f"process {r['pid']} (GPU {r['device']})", "count": r["activities"],
             **r} for r in rows]
    return Finding(
        "shared_gpu", "warning",
        f"{'; '.join(said)}. The GPU switches between processes (time-slicing), so each "
        "one's work waits on the others' and its kernels' times count theirs: run the jobs "
        "one after another or on GPUs of their own (or under MPS, which runs processes' "
        "kernels side by side) before judging either one's figures.",
        cost, rows)
