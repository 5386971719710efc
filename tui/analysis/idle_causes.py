"""Why each GPU sat idle: every idle interval of every device (the table gpu_idle, the
same intervals as the devices' busy time and the gaps) given one cause, so that the causes
of a device add up exactly to its idle time.

The causes, decided per interval from the host call that issued the work ending it (its
launch, by correlation id) and from what that call's thread was doing when the GPU ran dry
(queries/analysis/idle_causes.sql has the rules in order):

  launch         gaps between back-to-back launches (within BACK_TO_BACK_NS of each other
                 on the issuing thread): the host issues work no faster than the GPU runs
                 it; or a queued launch's own latency (at most LAUNCH_OVERHEAD_NS)
  host           the host issued the next work late, busy with something else (data
                 loading, Python, a sleep)
  sync           the host had blocked on the GPU (a synchronising call, a copy to the host,
                 .item()) and issued the next work only after the GPU ran dry, as a reaction
                 (within HOST_REACTION_NS of the wait's end; later, the host was busy)
  copy           the host was staging a host-to-device copy (pageable memory; XLA's H2D
                 dispatch)
  communication  the host was in a collective (barrier, gloo, a blocking NCCL call)
  other          the next work was already queued yet the GPU waited (another stream, an
                 event), or no host call is linked to it

The gap classes (tui/analysis/gaps.py) are these causes under their older names, so a gap
over the threshold and the idle total never disagree. `tally` is the one place the
per-interval causes become per-device totals: any other classification of the same
intervals (e.g. HTA's host-wait / kernel-wait / other) enters through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from tui.core.budget import memory_budget_bytes
from tui.core.queries import fill, fragment, load_query

if TYPE_CHECKING:  # not imported at run time: a warm `--summary --json` needs no DuckDB
    import duckdb

CAUSES = ("launch", "host", "sync", "copy", "communication", "other")
# A queued launch's own latency (the work was issued before the GPU ran dry) is at most this.
LAUNCH_OVERHEAD_NS = 50_000
# A launch issued within this of its thread's previous launch is back to back: the host is
# doing nothing but issue work (framework dispatch, Python between ops: what a CUDA graph
# or a compiler removes), and the idle is the issue rate's. PyTorch's eager ops cost
# 10-100 µs of host time each; JAX's eager ops 200-500 µs under its profiler (a real
# recording: 6,000 of them, issue gaps' median 290 µs); a data loader's step, milliseconds.
BACK_TO_BACK_NS = 500_000
# After a wait on the GPU, a host that issues its next work within this was reacting to
# the result (the interval is the wait's); later, it was busy with work of its own (host).
HOST_REACTION_NS = 1_000_000
# What an interval holds while idle_gaps.sql joins it with its copies and launching call:
# a 10 GB trace's 5.5M intervals at once spilled under the summary's share (4.7 s), in
# parts of 1M took 2.6-2.8 s, of 2M 2.3 s.
IDLE_JOIN_BYTES = 150
# Host calls that block until the GPU (or a stream/event) has finished.
SYNC_PATTERN = (r"^(cuda|hip)(Stream|Device|Event|Thread)Synchronize"
                r"|^cu(Stream|Ctx|Event)Synchronize|^(cuda|hip)(Stream|Event)Query")
# Host calls that move memory and may block the host (pageable or synchronous copies).
COPY_PATTERN = r"^(cuda|hip)Memcpy|^cuMemcpy"
# Host ops of collectives (PyTorch's c10d and process groups, NCCL, gloo, barriers).
COLLECTIVE_PATTERN = (r"(?i)^(nccl|gloo|c10d)[:_.]|processgroup|record_param_comms"
                      r"|^(torch\.)?distributed\.|barrier")
# Host ops that stage a host-to-device transfer before its copy is issued (XLA's PJRT
# client: "H2D Dispatch" lays the host buffer out for the device, then issues the copy).
STAGING_PATTERN = r"(?i)^h2d |host_?to_?device|bufferfromhostbuffer"
# The gap classes of tui/analysis/gaps.py for each cause.
GAP_KIND = {"launch": "launch-overhead", "host": "host-wait", "sync": "sync", "copy": "copy",
            "communication": "communication", "other": "other"}


@dataclass
class IdleByCause:
    """One device's idle time and how it splits by cause (the parts add up to idle_ns)."""

    device: int
    idle_ns: int = 0
    by_cause: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CAUSES, 0))
    gaps: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CAUSES, 0))
    # the call the host was blocked in longest, per cause (sync, copy, communication)
    top_call: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict) -> IdleByCause:
        """From a diagnosis' JSON keys: idle_ns, idle_by_cause {<cause>_ns}, gaps_by_cause
        and top_call (these two may be missing)."""
        by_cause = {c: int(data["idle_by_cause"].get(f"{c}_ns", 0)) for c in CAUSES}
        gaps = {c: int(data.get("gaps_by_cause", {}).get(c, 0)) for c in CAUSES}
        return cls(data["device"], int(data["idle_ns"]), by_cause, gaps,
                   dict(data.get("top_call", {})))


def classify_idle(con: duckdb.DuckDBPyConnection, min_ns: int = -1,
                  device: int | None = None, start_ns: int | None = None) -> None:
    """Fill the temp table idle_causes: the cause of every idle interval longer than
    `min_ns` (or of the one at `device`, `start_ns`). In steps (the intervals with their
    launches, the launching threads' launches, the causes), each holding less at once
    than one query would: a summary runs with 30% of the memory budget."""
    _stage_gaps(con, {"min_ns": min_ns, "device": device, "start_ns": start_ns})
    try:
        con.execute(load_query("idle_launches"), {"back_to_back_ns": BACK_TO_BACK_NS})
        con.execute(load_query("idle_causes"), {
            "launch_ns": LAUNCH_OVERHEAD_NS, "back_to_back_ns": BACK_TO_BACK_NS,
            "reaction_ns": HOST_REACTION_NS, "sync_pattern": SYNC_PATTERN,
            "copy_pattern": COPY_PATTERN, "collective_pattern": COLLECTIVE_PATTERN,
            "staging_pattern": STAGING_PATTERN})
    finally:
        con.execute("DROP TABLE IF EXISTS idle_gaps")
        con.execute("DROP TABLE IF EXISTS idle_launches")


def _stage_gaps(con: duckdb.DuckDBPyConnection, asked: dict) -> None:
    """The temp table idle_gaps (idle_gaps.sql): the intervals `asked` for, in parts of the
    GPU activities that end them where there are more than a part's (every interval of a
    big trace: their joins then fit the summary's share of the budget)."""
    from tui.core.db import gpu_id_parts  # DuckDB's: not imported for a warm summary

    parts: list[tuple[int | None, int | None]] = [
        *([] if asked["start_ns"] is not None else gpu_id_parts(con, intervals_per_part()))]
    if len(parts) <= 1:  # one statement, no bound
        parts = [(None, None)]
    for index, (since, until) in enumerate(parts):
        con.execute(_gaps_query("idle_gaps_part" if index else "idle_gaps"),
                    {**asked, "since": since, "until": until})


@cache
def _gaps_query(name: str) -> str:
    """The statement `name` that makes or adds to idle_gaps, with its rows."""
    return fill(name, rows=fragment("idle_gaps_rows"))


def intervals_per_part() -> int:
    """GPU activities (the intervals they end) a part of idle_gaps.sql takes: the summary's
    share of the budget at IDLE_JOIN_BYTES each (2M at the 1GB default)."""
    from tui.core.db import SUMMARY_SHARE

    return max(int(memory_budget_bytes() * SUMMARY_SHARE) // IDLE_JOIN_BYTES, 1 << 16)


@contextmanager
def every_interval_classified(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """idle_causes filled for every interval, once, for the gaps (explained_gaps with
    classified=True) and the totals (idle_by_cause with classified=True) alike; dropped
    after."""
    classify_idle(con)
    try:
        yield
    finally:
        con.execute("DROP TABLE IF EXISTS idle_causes")


def idle_by_cause(con: duckdb.DuckDBPyConnection, classified: bool = False,
                  start_ns: int | None = None, end_ns: int | None = None,
                  ) -> list[IdleByCause]:
    """Every device's idle time by cause, by device (`classified`: idle_causes holds
    every interval already), within `start_ns`..`end_ns` where given (each interval
    clipped to them, so that the causes add up to the idle time in the window)."""
    params = {"start_ns": start_ns, "end_ns": end_ns}
    if classified:
        return tally(con.execute(load_query("idle_cause_totals"), params).fetchall())
    with every_interval_classified(con):
        return tally(con.execute(load_query("idle_cause_totals"), params).fetchall())


def tally(rows: Iterable[tuple[int, str, int, int, str | None]]) -> list[IdleByCause]:
    """Per-device totals from (device, cause, idle_ns, intervals, top call or None) rows,
    one row per device and cause; a cause outside CAUSES counts as other."""
    devices: dict[int, IdleByCause] = {}
    for device, cause, ns, count, call in rows:
        entry = devices.setdefault(device, IdleByCause(device))
        cause = cause if cause in CAUSES else "other"
        entry.idle_ns += ns
        entry.by_cause[cause] += ns
        entry.gaps[cause] += count
        if call:
            entry.top_call[cause] = call
    return [devices[d] for d in sorted(devices)]
