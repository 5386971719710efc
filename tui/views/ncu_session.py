"""One Nsight Compute report held open for the app: its summary, its matches to the
trace's kernels, and the lookup behind Enter on a timeline kernel (which launch is it?).

`open_ncu` loads and explains the report (no trace needed); `attach_trace` matches it to
a trace's kernels once that is loaded. The report lives in a private in-memory DuckDB;
the trace's database is only read, through cursors, so the app's workers may share it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from tui.analysis.ncu.match import Dims, KernelMatch, TraceKernelGroup, match_ncu_kernels
from tui.analysis.ncu.source import SourceView, source_view
from tui.analysis.ncu.summary import ncu_summary
from tui.core.db import CursorSource, connect
from tui.core.queries import load_query
from tui.core.units import format_ns
from tui.sources.ncu.load import load_ncu
from tui.sources.ncu.load_source import load_source
from tui.sources.ncu.names import short_name
from tui.views.timeline.lookup import launch_stack

Progress = Callable[[int, int], None]
_SHOWN_CANDIDATES = 4


@dataclass(frozen=True)
class TraceActivity:
    """One row of the trace's gpu_activities, as matching and jumping need it."""

    id: int
    kind: str
    name: str
    grid: Dims
    block: Dims
    start_ns: int
    end_ns: int
    device: int
    stream: int


@dataclass
class KernelProfile:
    """What the report says about one trace kernel: the answer to Enter on the timeline."""

    status: str  # 'profiled' | 'ambiguous' | 'unprofiled' | 'not-a-kernel'
    message: str  # plain words, for a notification or the drill-down's header
    launch_ids: list[int] = field(default_factory=list)  # report order; [0] is shown


def dims_text(dims: Dims | list[int | None]) -> str:
    return "×".join("?" if d is None else str(d) for d in dims)


def candidate_text(group: TraceKernelGroup) -> str:
    """One trace kernel group in a few words: `name grid 64×1×1 block 256×1×1 (3 launches,
    1.2 ms in all)`."""
    total = f", {format_ns(group.total_duration_ns)} in all" if group.total_duration_ns else ""
    return (f"{short_name(group.name)} grid {dims_text(group.grid)} block "
            f"{dims_text(group.block)} ({group.launches} launch(es){total})")


def candidates_text(groups: list[TraceKernelGroup]) -> str:
    shown = "; ".join(candidate_text(g) for g in groups[:_SHOWN_CANDIDATES])
    more = len(groups) - _SHOWN_CANDIDATES
    return shown + (f"; and {more} more" if more > 0 else "")


class NcuSession:
    """A loaded report: `summary` is `ncu_summary`'s dict; `matches` fill in with a trace."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection,
                 summary: dict[str, Any]) -> None:
        self.path = path
        self.summary = summary
        self.launches: dict[int, dict[str, Any]] = {k["launch_id"]: k
                                                    for k in summary["kernels"]}
        self.matches: dict[int, KernelMatch] = {}
        self._con = con
        self._trace: CursorSource | None = None
        self._source_lock = threading.Lock()  # one reader of per-instruction results

    @property
    def launch_ids(self) -> list[int]:
        return list(self.launches)

    @property
    def warnings(self) -> list[str]:
        return list(self.summary.get("warnings", []))

    @property
    def has_trace(self) -> bool:
        return self._trace is not None

    def attach_trace(self, trace: CursorSource) -> None:
        """Match every launch to the trace's kernels (`trace` is only read)."""
        matches = match_ncu_kernels(self._con, trace)
        self.matches = {m.launch_id: m for m in matches}
        self._trace = trace

    def match_counts(self) -> dict[str, int]:
        counts = {"matched": 0, "ambiguous": 0, "unmatched": 0}
        for m in self.matches.values():
            counts[m.status] = counts.get(m.status, 0) + 1
        return counts

    def trace_activity(self, activity_id: int) -> TraceActivity | None:
        if self._trace is None:
            return None
        with self._trace.cursor() as cur:
            row = cur.execute(load_query("ncu_trace_activity"), {"id": activity_id}).fetchone()
        if row is None:
            return None
        kind, name, gx, gy, gz, bx, by, bz, start, end, device, stream = row
        return TraceActivity(id=activity_id, kind=kind, name=name, grid=(gx, gy, gz),
                             block=(bx, by, bz), start_ns=start, end_ns=end, device=device,
                             stream=stream)

    def profile_of(self, activity_id: int, name: str = "") -> KernelProfile:
        """Which profiled launch(es) the trace's activity `activity_id` is, in plain words."""
        activity = self.trace_activity(activity_id)
        if activity is None:
            return KernelProfile("not-a-kernel", f"no GPU activity {activity_id} ({name}) in "
                                 "the trace")
        if activity.kind != "kernel":
            return KernelProfile("not-a-kernel", f"{activity.name} is a {activity.kind}, not a "
                                 "kernel launch: Nsight Compute profiles kernels only")
        label = short_name(activity.name) or activity.name
        key = (activity.name, activity.grid, activity.block)
        hits: dict[str, list[KernelMatch]] = {"matched": [], "ambiguous": [], "unmatched": []}
        for m in self.matches.values():
            if any((g.name, g.grid, g.block) == key for g in m.candidates):
                hits[m.status].append(m)
        matched, ambiguous = hits["matched"], hits["ambiguous"]
        if matched:
            ids = [m.launch_id for m in matched + ambiguous]
            if len(ids) == 1:
                m = matched[0]
                text = f"{label} is launch #{m.launch_id} of the report (matched on " \
                       f"{m.matched_on}: {m.note})"
            else:
                text = f"{label} was profiled {len(ids)} times: launches " + \
                       ", ".join(f"#{i}" for i in ids)
            return KernelProfile("profiled", text, ids)
        if ambiguous:
            m = ambiguous[0]
            text = (f"ambiguous: launch #{m.launch_id} ({short_name(m.ncu_name)}) fits "
                    f"{len(m.candidates)} kernels of the trace by {m.matched_on}, so it may "
                    f"profile another one: {candidates_text(m.candidates)}")
            return KernelProfile("ambiguous", text, [a.launch_id for a in ambiguous])
        text = f"{label} (grid {dims_text(activity.grid)} block {dims_text(activity.block)}) " \
               f"was not profiled in {self.path.name}"
        if hits["unmatched"]:  # the report holds another template instance of it
            text += "; the report has another instance of its template: " + ", ".join(
                f"launch #{m.launch_id} {m.ncu_name}" for m in hits["unmatched"][:3])
        return KernelProfile("unprofiled", text + f" ({len(self.launches)} launches profiled: "
                             "press c to list them)")

    def launch_stack(self, activity_id: int) -> list[tuple[int, str, bool]]:
        """(frame id, name, user's own code) of the Python frames around the call that
        launched a trace activity, innermost first; empty without stacks or a trace."""
        if self._trace is None:
            return []
        with self._trace.cursor() as cur:
            try:
                stack = launch_stack(cur, activity_id)
            except duckdb.CatalogException:  # a database from before launch stacks
                return []
        return [(f.id, f.name, f.user_code) for f in stack]

    def first_activity(self, launch_id: int) -> TraceActivity | None:
        """The trace's first kernel a launch matched (where "show on the timeline" goes)."""
        m = self.matches.get(launch_id)
        if m is None or m.status == "unmatched" or not m.candidates:
            return None
        first = min(m.candidates, key=lambda g: g.first_start_ns or 0)
        return None if first.first_id is None else self.trace_activity(first.first_id)

    def source(self, launch_id: int) -> SourceView:
        """The Source view of a launch; its per-instruction results are read from the
        report on first use (a second for a big library kernel: call from a worker).
        Raises NcuInputError when the report cannot be read again."""
        launch = self.launches[launch_id]
        kernel = launch["short_name"] or launch["name"]
        with self._source_lock:
            cur = self._con.cursor()
            try:
                if self.summary.get("source", {}).get("format") == "ncu-rep":
                    load_source(self.path, cur, [launch_id])
                else:  # a CSV export: the view says it needs the report
                    cur.execute(load_query("ncu_source_schema"))
                return source_view(cur, launch_id, kernel)
            finally:
                cur.close()

    def close(self) -> None:
        self._con.close()
        self._trace = None


def open_ncu(path: Path, progress: Progress | None = None) -> NcuSession:
    """Load and explain `path` (.ncu-rep or ncu CSV). Raises NcuInputError (a TraceError)."""
    con = connect()
    try:
        load_ncu(path, con)  # its warnings come back inside the summary
        summary = ncu_summary(con, progress)
    except BaseException:
        con.close()
        raise
    summary.setdefault("source", {})["path"] = str(path)
    return NcuSession(Path(path), con, summary)
