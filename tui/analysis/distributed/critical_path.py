"""The critical path of each training step: the chain of host work, launches, kernels,
synchronisations and collectives that bounds the step, with its length by kind.

A step runs from its annotation's start to the later of its end and the end of the last
GPU work it launched. Its critical path is found backwards from that end, each piece of
work's latest-finishing predecessor first (the last to arrive is what the next waited
for), as a longest path through the step's dependency graph is:

- a GPU activity waited for its launch call when the call ended after the previous
  activity on its stream did: the span from the call's end to the activity's start is
  `launch_delay`, and the path goes on at the call, on the host;
- else it waited for the previous activity on its stream: a gap under HTA's 30 µs is
  `launch_delay` (back-to-back overhead) and the path goes on at that activity; a longer
  one is `waiting` for an event, and the path goes on at the work of another stream of
  the device that ended last before the activity started (a collective the compute
  stream waits for, say), else at the previous activity;
- the host at a time is running (`cpu`) back to the end of the last call on that thread
  that blocked on the GPU (a synchronisation, a synchronous copy), or to the step's start;
  a blocking call ends when the GPU work it waited for does: the path goes on at the GPU
  activity that ended last before the call returned;
- a GPU activity's own run is `kernel`, or `communication` for a collective (HTA's
  communication kernels).

A step's path starts where its first work could start, not in what earlier steps left:
- where its first activity on a stream was queued behind earlier steps' work, at that
  work's end;
- where the host ran back to the step's start while the device still ran earlier steps'
  work, at the end of that work (launched sooner, the step's work would have waited for
  it);
- from the first collective on the path that waited for another rank (dist_cp_work.sql
  says how that is told from one rank's trace): the work queued behind it waits for that
  rank, and what came before on this rank finished early and bounds nothing.

The segments tile the path from its start: their lengths add up to its length. Host work on other
threads than the one that launched (a data loader) is seen only through the launches and
synchronisations it makes. HTA's critical-path analysis builds the whole graph of one
step (CPU operator nesting, launch, kernel and CUDA-event edges, with networkx); this walk
follows the same edges backwards and needs no graph in memory; docs/distributed.md says
how the two compare.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import NamedTuple

import duckdb

from tui.analysis.distributed.window import Window, prepare
from tui.core.hta_thresholds import KERNEL_WAIT_NS
from tui.core.queries import load_query
from tui.core.steps import step_patterns

KINDS = ("cpu", "launch_delay", "kernel", "communication", "waiting")
_SLACK_NS = 2_000  # a blocking call returns within this of the GPU work it waited for
# The most GPU activities the walk holds (about 470 bytes each in Python): the steps from
# the first on whose work fits are walked, the rest left out.
MAX_WORK_ROWS = 250_000


@dataclass(frozen=True)
class Segment:
    kind: str  # one of KINDS
    start_ns: int
    end_ns: int
    device: int | None = None  # GPU work: where it ran
    stream: int | None = None
    tid: int | None = None  # host work: the thread


@dataclass
class StepPath:
    step: str
    start_ns: int
    end_ns: int
    segments: list[Segment] = field(default_factory=list)  # in time order
    pid: int | None = None  # the step's process (an nsys report of several has each's)

    @property
    def length_ns(self) -> int:
        return self.end_ns - self.start_ns

    def by_kind(self) -> dict[str, int]:
        out = dict.fromkeys(KINDS, 0)
        for s in self.segments:
            out[s.kind] += s.end_ns - s.start_ns
        return out

    def as_dict(self) -> dict:
        return {"step": self.step, "pid": self.pid, "start_ns": self.start_ns,
                "length_ns": self.length_ns,
                "by_kind": {f"{k}_ns": v for k, v in self.by_kind().items()},
                "segments": len(self.segments)}


class _Work(NamedTuple):  # a tuple: a step's hundreds of rows are made quickly
    device: int
    stream: int
    start_ns: int
    end_ns: int
    comm: bool
    call_tid: int | None
    call_start_ns: int  # dist_cp_work.sql keeps launched work only
    call_end_ns: int | None
    call_pid: int | None = None
    peer_wait: bool = False  # a collective that waited for another rank (dist_cp_work.sql)


def critical_paths(con: duckdb.DuckDBPyConnection, other_streams: bool = True,
                   window: Window | None = None, peers: bool = True) -> list[StepPath]:
    """One StepPath per step in the figures' window (dist_steps.sql), by start. The steps'
    work and blocking calls are read once, then cut per step. `other_streams` False: a
    long gap on a stream is never followed to another stream's work (the path HTA finds
    in a trace without CUDA synchronisation events, torch's default). `peers` False: the
    path goes on before a collective that waited for another rank (HTA's walk, which sees
    one rank). `window`: dist_work is prepared already."""
    window = window or prepare(con)
    steps = con.execute(load_query("dist_steps"),
                        {"cutoff_ns": window.cutoff_ns, **step_patterns()}).fetchall()
    # where all of dist_work is within the walk's limit, so is every step's work
    if window.work_rows is None or window.work_rows > MAX_WORK_ROWS:
        steps = _steps_within(con, steps)
    if not steps:
        return []
    first, last = steps[0][1], max(step[2] for step in steps)
    work = [_Work(*row) for row in con.execute(
        load_query("dist_cp_work"), {"start_ns": first, "end_ns": last}).fetchall()]
    work.sort(key=lambda w: w.call_start_ns)
    call_starts = [w.call_start_ns for w in work]
    stop = max([last] + [w.end_ns for w in work])
    syncs = con.execute(load_query("dist_cp_syncs"),
                        {"start_ns": first, "end_ns": stop}).fetchall()
    # what the device ran before each step's work could: earlier steps' work
    queued = _by_stream(work + _backlog(con, first))
    paths = []
    for name, start, end, pid, tid in steps:
        lo, hi = bisect.bisect_left(call_starts, start), bisect.bisect_left(call_starts, end)
        # the step's process's work only (an nsys report of several processes)
        ours = sorted((w for w in work[lo:hi] if pid is None or w.call_pid == pid),
                      key=lambda w: (w.device, w.stream, w.start_ns, w.end_ns))
        own_syncs = [s for s in syncs if pid is None or s[4] == pid]
        path = _Walk(name, start, end, tid, ours, own_syncs, other_streams, queued,
                     peers).run()
        path.pid = pid
        paths.append(path)
    return paths


def _by_stream(work: list[_Work]) -> dict[tuple[int, int], list[_Work]]:
    """Every stream's work, by start."""
    out: dict[tuple[int, int], list[_Work]] = {}
    for w in sorted(work, key=lambda w: (w.start_ns, w.end_ns)):
        out.setdefault((w.device, w.stream), []).append(w)
    return out


def _backlog(con: duckdb.DuckDBPyConnection, start_ns: int) -> list[_Work]:
    """The work the GPUs still ran at `start_ns` that was launched before (or whose launch
    the trace lacks), as launched just before `start_ns`: only its end is read."""
    return [_Work(device, stream, start, end, False, None, start_ns - 1, None)
            for device, stream, start, end in con.execute(
                load_query("dist_cp_backlog"), {"start_ns": start_ns}).fetchall()]


def _steps_within(con: duckdb.DuckDBPyConnection, steps: list[tuple]) -> list[tuple]:
    """The first of `steps` (by start) whose work is MAX_WORK_ROWS activities at most: the
    walk holds each activity in Python (a 3 GB nsys export's 15.7M took 7 GB)."""
    if not steps:
        return steps
    first = steps[0][1]
    row = con.execute(load_query("dist_cp_work_limit"),
                      {"start_ns": first, "rows": MAX_WORK_ROWS}).fetchone()
    if row is None or row[0] is None:
        return steps  # fewer activities than that from the first step on
    return [step for step in steps if step[2] <= row[0]]


def step_path(con: duckdb.DuckDBPyConnection, name: str, start_ns: int, end_ns: int,
              tid: int | None, pid: int | None = None) -> StepPath:
    """The critical path of the step `name` ([start_ns, end_ns) on the host thread `tid`
    of process `pid`; None: any process)."""
    prepare(con)
    work = [w for w in (_Work(*row) for row in con.execute(
        load_query("dist_cp_work"), {"start_ns": start_ns, "end_ns": end_ns}).fetchall())
        if pid is None or w.call_pid == pid]
    stop = max([end_ns] + [w.end_ns for w in work])
    syncs = [s for s in con.execute(load_query("dist_cp_syncs"),
                                    {"start_ns": start_ns, "end_ns": stop}).fetchall()
             if pid is None or s[4] == pid]
    queued = _by_stream(work + _backlog(con, start_ns))
    path = _Walk(name, start_ns, end_ns, tid, work, syncs, queued=queued).run()
    path.pid = pid
    return path


class _Walk:
    """The backward walk over one step's work (see the module's doc)."""

    def __init__(self, name: str, start_ns: int, end_ns: int, tid: int | None,
                 work: list[_Work], syncs: list[tuple], other_streams: bool = True,
                 queued: dict[tuple[int, int], list[_Work]] | None = None,
                 peers: bool = True) -> None:
        self.name, self.start, self.tid = name, start_ns, tid
        self.peers = peers
        self.step_start = start_ns  # the annotation's: self.start moves later behind a backlog
        # every stream's work, earlier steps' included: a backlog the step's work waits in
        self.queued = queued or {}
        self.queued_starts = {k: [w.start_ns for w in v] for k, v in self.queued.items()}
        self.other_streams = other_streams
        self.stop = max([end_ns] + [w.end_ns for w in work])
        self.host_end = end_ns
        self.streams: dict[tuple[int, int], list[_Work]] = {}
        for w in work:  # by device, stream and start already
            self.streams.setdefault((w.device, w.stream), []).append(w)
        self.stream_starts = {k: [w.start_ns for w in v] for k, v in self.streams.items()}
        self.by_end = sorted(work, key=lambda w: w.end_ns)
        self.ends = [w.end_ns for w in self.by_end]
        self.device_by_end: dict[int, list[_Work]] = {}
        for w in self.by_end:
            self.device_by_end.setdefault(w.device, []).append(w)
        self.device_ends = {d: [w.end_ns for w in ws] for d, ws in self.device_by_end.items()}
        self.syncs: dict[int, list[tuple[int, int]]] = {}
        for sync_tid, s, e, _name, _pid in syncs:  # by thread, then end
            self.syncs.setdefault(sync_tid, []).append((s, e))
        self.segments: list[Segment] = []
        self.first_wait: int | None = None  # the start of the path's first peer_wait

    def run(self) -> StepPath:
        path = StepPath(self.name, self.start, self.stop)
        start: tuple = ("gpu", self.by_end[-1]) \
            if self.by_end and self.by_end[-1].end_ns >= self.host_end \
            else ("host", self.tid, self.host_end)
        state: tuple | None = start
        while state is not None:  # a loop, not recursion: a step may sync thousands of times
            state = self._from_gpu(state[1]) if state[0] == "gpu" \
                else self._from_host(*state[1:])
        if self.first_wait is not None:  # see _from_gpu
            self.start = max(self.start, self.first_wait)
        path.start_ns = self.start  # later than the step's start behind a backlog
        path.segments = self._tiled()
        return path

    def _add(self, kind: str, start: int, end: int, **where: int | None) -> None:
        start = max(start, self.start)
        if end > start:
            self.segments.append(Segment(kind, start, end, **where))

    def _from_gpu(self, w: _Work) -> tuple | None:
        """From a GPU activity back along its stream; the host state it waited for."""
        while True:
            self._add("communication" if w.comm else "kernel", w.start_ns, w.end_ns,
                      device=w.device, stream=w.stream)
            if w.start_ns <= self.start:
                return None
            if self.peers and w.peer_wait:
                # from here on the step waited for the other ranks: what came before on
                # this rank finished early and bounds nothing (the path starts here)
                self.first_wait = w.start_ns
            key = (w.device, w.stream)
            i = bisect.bisect_left(self.stream_starts[key], w.start_ns)
            prev = self.streams[key][i - 1] if i > 0 else None
            prev_end = prev.end_ns if prev is not None else None
            if prev is None and (backlog := self._backlog_end(w)) is not None:
                # queued behind earlier steps' work (e.g. NCCL kernels waiting for another
                # rank): the step's path starts where its first work could
                self.start = max(self.start, backlog)
                self._add("launch_delay", backlog, w.start_ns, device=w.device,
                          stream=w.stream)
                return None
            call_end = w.call_end_ns
            if call_end is not None and (prev_end is None or call_end >= prev_end):
                # launched onto an idle stream yet started long after: it waited for an
                # event on another stream's work (a recv waiting for another rank)
                other = (self._other_stream_done(w, call_end)
                         if self.other_streams and w.start_ns - call_end >= KERNEL_WAIT_NS
                         else None)
                if other is not None:
                    self._add("waiting", other.end_ns, w.start_ns, device=w.device,
                              stream=w.stream)
                    w = other
                    continue
                self._add("launch_delay", call_end, w.start_ns, device=w.device,
                          stream=w.stream)
                self._add("cpu", w.call_start_ns, min(call_end, w.start_ns),
                          tid=w.call_tid)
                return ("host", w.call_tid, w.call_start_ns, w)
            if prev is None:
                self._add("waiting", self.start, w.start_ns, device=w.device,
                          stream=w.stream)
                return None
            if w.start_ns - prev.end_ns < KERNEL_WAIT_NS:
                self._add("launch_delay", prev.end_ns, w.start_ns, device=w.device,
                          stream=w.stream)
                w = prev
                continue
            # a longer gap, queued already: it waited for an event, most likely on the
            # work of another stream that ended last before it started (a collective)
            other = self._other_stream_done(w, prev.end_ns) if self.other_streams else None
            self._add("waiting", (other or prev).end_ns, w.start_ns, device=w.device,
                      stream=w.stream)
            w = other or prev

    def _from_host(self, tid: int | None, t: int,
                   launched: _Work | None = None) -> tuple | None:
        """The host thread `tid` at time `t` (where it launched `launched`): running back
        to its last blocking call; the GPU state that call waited for."""
        calls = self.syncs.get(tid, []) if tid is not None else []
        i = bisect.bisect_right([e for _s, e in calls], t) - 1
        while i >= 0 and calls[i][1] > self.start:
            sync_start, sync_end = calls[i]
            waited = self._gpu_done_by(sync_end, sync_start)
            if waited is None:  # nothing on the GPU it waited for: host time
                i -= 1
                continue
            self._add("cpu", sync_end, t, tid=tid)
            self._add("waiting", waited.end_ns, sync_end, tid=tid)
            return ("gpu", waited)
        busy = self._busy_until(launched) if launched is not None else None
        if busy is not None and busy < t:
            # the device ran earlier steps' work until then: had the host launched sooner,
            # the work would have waited for that; the step's path starts where it ended
            self.start = busy
        self._add("cpu", self.start, t, tid=tid)
        return None

    def _busy_until(self, w: _Work) -> int | None:
        """The latest end, after the step began and by w's start, of the work of w's device
        that earlier steps launched (what the device ran before it could run w)."""
        latest = None
        for (device, _stream), works in self.queued.items():
            if device != w.device:
                continue
            i = bisect.bisect_left(self.queued_starts[(device, _stream)], w.start_ns) - 1
            while i >= 0 and works[i].call_start_ns >= self.step_start:
                i -= 1  # this step's work (or a later one's)
            if i >= 0 and self.start < works[i].end_ns <= w.start_ns:
                latest = max(latest or 0, works[i].end_ns)
        return latest

    def _backlog_end(self, w: _Work) -> int | None:
        """The end of the earlier work on w's stream that w was queued behind (launched
        before that work ended, started after the step did), if any."""
        key = (w.device, w.stream)
        i = bisect.bisect_left(self.queued_starts.get(key, []), w.start_ns)
        if i == 0:
            return None
        before = self.queued[key][i - 1]
        # from its call's start: a blocking call (a pageable copy) returns after its work
        if before.end_ns > max(w.call_start_ns, self.start) and before.end_ns <= w.start_ns:
            return before.end_ns
        return None

    def _other_stream_done(self, w: _Work, after: int) -> _Work | None:
        """The activity of another stream of w's device that ended last in (after,
        w.start_ns + slack]."""
        ends, works = self.device_ends[w.device], self.device_by_end[w.device]
        j = bisect.bisect_right(ends, w.start_ns + _SLACK_NS) - 1
        while j >= 0 and ends[j] > after:
            if works[j].stream != w.stream and works[j].start_ns < w.start_ns:
                return works[j]
            j -= 1
        return None

    def _gpu_done_by(self, t: int, after: int) -> _Work | None:
        """The step's GPU activity that ended last at `t` (+ slack), and after `after`."""
        j = bisect.bisect_right(self.ends, t + _SLACK_NS) - 1
        if j >= 0 and self.by_end[j].end_ns > after:
            return self.by_end[j]
        return None

    def _tiled(self) -> list[Segment]:
        """The segments in time order, overlaps cut (a later one wins the shared time) and
        holes (host time the walk skipped) filled as `cpu`, so they tile the step."""
        out: list[Segment] = []
        t = self.start
        for s in sorted(self.segments, key=lambda s: (s.start_ns, s.end_ns)):
            if s.end_ns <= t:
                continue
            if s.start_ns > t:
                out.append(Segment("cpu", t, s.start_ns, tid=self.tid))
            out.append(Segment(s.kind, max(s.start_ns, t), s.end_ns, s.device, s.stream,
                               s.tid))
            t = s.end_ns
        if t < self.stop:
            out.append(Segment("cpu", t, self.stop, tid=self.tid))
        return out
