"""What the host was doing during chosen stretches of time (the GPU-idle gaps, one gap, a
step, a selection): where its CPU samples were taken, by the innermost frame's module and
function, bottom-up and as a call tree, and the OS runtime calls that held its threads,
for the thread that launches the GPU work and for every thread.

Sources: an nsys report's CPU samples, OS runtime calls and context switches
(host_samples, os_calls, host_callchains, thread_sched: how long the launching thread ran
on a CPU). The launching thread is the one whose calls launched the work that ended the
most idle time in the stretches. A trace without samples but with Python frames or CPU ops (Kineto
with_stack) gives the same view time-weighted: each frame's and op's own time inside the
stretches, and how much of them the launching thread was seen doing nothing the profiler
traces. Shares are of the samples (or time) inside the stretches; a sample counts once
however many devices' gaps hold it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import duckdb

from tui.analysis.module_names import is_profiler, module_label
from tui.core.db import insert_rows, one_row
from tui.core.queries import fill, fragment, load_query

# The longest lists (functions, modules, ops) keep their largest entries in the JSON.
JSON_ROWS = 100
# Up to this many host activities, those inside the ranges are found by one interval join
# (host_range_activities_small.sql), past it by the join on buckets of time: 20,000
# activities against 50 ranges took 5.2 ms of CPU the one way and 6.3 the other, 100,000
# took 16.8 and 10.7.
PLAIN_JOIN_ROWS = 50_000
_TEMP_TABLES = ("host_ranges_raw", "host_ranges", "host_range_samples", "host_range_ids",
                "host_range_activities")


# OS runtime calls in which a thread waits for another thread or process (a queue's
# semaphore or condition, a pipe or socket polled, a child joined): a launching thread
# held in them through most of the stretches was waiting for work done elsewhere. Not
# `read`: a file read is the thread's own I/O as much as a pipe's wait on another.
WAIT_CALLS = re.compile(r"^(sem_(clock|timed)?wait|pthread_(cond_(timed|clock)?wait|join)"
                        r"|e?poll(_wait|_pwait)?|ppoll|p?select|futex|waitpid|wait4?)$")
# The launching thread waited elsewhere when its waiting calls held this share of the
# stretches' time.
WAITED_MOST = 0.5
# The other threads' samples say what the launching thread waited for only where they are
# this many or more (a millisecond's sampling period: 20 ms of their CPU): a steady JAX
# loop's window held 2, one in nsys' own library (`unannotated/jax_log_no_cb.sqlite`).
OTHERS_MIN_SAMPLES = 20


@dataclass
class Waiting:
    """The launching thread waited in `call` (and others of WAIT_CALLS) for `pct` of the
    stretches while the other threads' samples were in `others` ((label, pct), largest
    first)."""

    call: str | None  # None: no waiting call traced (its time off a CPU says it waited)
    pct: float
    on_cpu_pct: float | None
    others: list[tuple[str, float]]


@dataclass
class Share:
    name: str
    value: int  # samples, or ns where the source has no samples
    pct: float  # of the view's total
    module: str | None = None  # a function's module (or a Python frame's file)


@dataclass
class OsCall:
    name: str
    calls: int
    ns: int  # time inside the stretches
    longest_ns: int  # the longest call's whole duration


@dataclass
class HostView:
    """One thread's (or every thread's) host activity inside the stretches."""

    total: int  # samples inside the stretches (time-weighted: the stretches' ns)
    by_module: list[Share] = field(default_factory=list)
    by_function: list[Share] = field(default_factory=list)
    osrt: list[OsCall] = field(default_factory=list)
    by_op: list[Share] = field(default_factory=list)  # time-weighted sources: CPU ops

    def as_dict(self, unit: str) -> dict:
        def shares(rows: list[Share], key: str) -> list[dict]:
            return [{key: s.name, **({"module": s.module} if key == "function" else {}),
                     unit: s.value, "pct": round(s.pct, 2)} for s in rows[:JSON_ROWS]]

        out = {"in_idle": self.total, "by_module": shares(self.by_module, "module"),
               "by_function": shares(self.by_function, "function"),
               "osrt": [{"name": o.name, "calls": o.calls, "ns": o.ns,
                         "longest_ns": o.longest_ns} for o in self.osrt]}
        if self.by_op:
            out["by_op"] = shares(self.by_op, "op")
        return out


@dataclass
class HostActivity:
    """The host's activity inside the stretches: `unit` 'samples' (CPU samples) or 'ns'
    (Python frames and CPU ops, time-weighted)."""

    unit: str
    thread: tuple[int, int] | None  # (pid, tid) of the launching thread
    launching: HostView
    all_threads: HostView
    range_ns: int = 0  # the stretches' total time
    untraced_ns: int | None = None  # time-weighted: the launching thread's time with no op
    thread_name: str | None = None
    on_cpu_ns: int | None = None  # the launching thread's time on a CPU (context switches)
    # where the launching thread's Python samples were (nsys --python-sampling): each
    # sample at its innermost line of the user's code, else its innermost line
    python: list[Share] = field(default_factory=list)

    def waiting(self) -> Waiting | None:
        """Whether the launching thread spent most of the stretches waiting for other
        threads or processes (OS runtime calls of WAIT_CALLS over WAITED_MOST of the time,
        else off a CPU that long by its context switches, not in a sleep), and where the
        other threads' samples were meanwhile; None: it did not, or the trace has no CPU
        samples and OS runtime calls or context switches to tell."""
        if self.unit != "samples" or not self.range_ns:
            return None
        waits = [o for o in self.launching.osrt if WAIT_CALLS.match(o.name)]
        waited = sum(o.ns for o in waits)
        slept = sum(o.ns for o in self.launching.osrt if "sleep" in o.name)
        off_cpu = (self.range_ns - self.on_cpu_ns if self.on_cpu_ns is not None else 0)
        if waited < WAITED_MOST * self.range_ns:
            # off a CPU most of the time, and not asleep: blocked where the OS runtime
            # trace does not see (a futex of the runtime's own locks: XLA's threads)
            if off_cpu < WAITED_MOST * self.range_ns or slept >= WAITED_MOST * self.range_ns:
                return None
            waited = off_cpu
            # the traced call it was blocked in, where one held it that long: a file's read
            # (`unannotated/diskread.sqlite`: fread), a driver's ioctl
            waits = [o for o in self.launching.osrt if o.ns >= waited and "sleep" not in o.name]
        own = {share.name: share.value for share in self.launching.by_module}
        labels: dict[str, int] = {}
        for share in self.all_threads.by_module:
            rest = share.value - own.get(share.name, 0)
            if rest > 0 and not is_profiler(share.name):  # the profiler's threads
                label = module_label(share.name)
                labels[label] = labels.get(label, 0) + rest
        total = sum(labels.values())
        others = [(label, 100.0 * n / total) for label, n in
                  sorted(labels.items(), key=lambda item: (-item[1], item[0]))[:2]
                  if round(100.0 * n / total) >= 1] if total >= OTHERS_MIN_SAMPLES else []
        on_cpu = (100.0 * self.on_cpu_ns / self.range_ns
                  if self.on_cpu_ns is not None else None)
        top = max(waits, key=lambda o: o.ns).name if waits else None
        return Waiting(top, 100.0 * waited / self.range_ns, on_cpu, others)

    def busy_elsewhere(self) -> str | None:
        """What the host was busy in while the launching thread waited for it (waiting):
        'NumPy on other threads'; None where it did not wait, or nothing else was sampled."""
        waiting = self.waiting()
        if waiting is None or not waiting.others:
            return None
        return f"{waiting.others[0][0]} on other threads"

    def where(self) -> str:
        """Where the launching thread was, in words: 'the launching thread was in the
        Python interpreter (69% of its samples) and OpenBLAS (22%)', or 'the launching
        thread waited 72% of the time (most in sem_clockwait; on a CPU 23%); other threads
        were in NumPy (52% of their samples) and libc (19%)'; '' when unknown."""
        view = self.launching
        waiting = self.waiting()
        if waiting is not None:
            held = [f"most in {waiting.call}"] if waiting.call else []
            if waiting.on_cpu_pct is not None:
                held.append(f"on a CPU {waiting.on_cpu_pct:.0f}%")
            said = (f"the launching thread waited {waiting.pct:.0f}% of the time"
                    + (f" ({'; '.join(held)})" if held else ""))
            if waiting.others:
                said += "; other threads were in " + " and ".join(
                    f"{label} ({pct:.0f}%{' of their samples' if i == 0 else ''})"
                    for i, (label, pct) in enumerate(waiting.others))
            return said
        if self.unit == "samples":
            labels: dict[str, float] = {}
            for share in view.by_module:
                label = module_label(share.name)
                labels[label] = labels.get(label, 0.0) + share.pct
            top = sorted(labels.items(), key=lambda item: -item[1])[:2]
            first = " of its samples"
        else:
            if self.untraced_ns is not None and self.range_ns and \
                    self.untraced_ns >= 0.5 * self.range_ns:
                others = [s for s in self.all_threads.by_function[:2] if round(s.pct) >= 1]
                elsewhere = ("; every thread: " + " and ".join(
                    f"{s.name} ({s.pct:.0f}%)" for s in others)) if others else ""
                return (f"the launching thread ran no traced op for "
                        f"{100 * self.untraced_ns / self.range_ns:.0f}% of the time"
                        + elsewhere)
            top = [(s.name, s.pct) for s in (view.by_function or view.by_op)[:2]]
            first = " of the time"
        top = [(name, pct) for name, pct in top if round(pct) >= 1]
        if not top:
            return ""
        parts = [f"{name} ({pct:.0f}%{first if i == 0 else ''})"
                 for i, (name, pct) in enumerate(top)]
        lines = [s for s in self.python[:2] if round(s.pct) >= 1]
        at = ("; in Python at " + " and ".join(
            f"{s.name} ({s.pct:.0f}%{' of its Python samples' if i == 0 else ''})"
            for i, s in enumerate(lines))) if lines else ""
        return "the launching thread was in " + " and ".join(parts) + at

    def as_dict(self) -> dict:
        out = {"source": "cpu_samples" if self.unit == "samples" else "python_frames",
               "unit": self.unit, "where": self.where(),
               "thread": ({"pid": self.thread[0], "tid": self.thread[1],
                           "name": self.thread_name} if self.thread else None),
               "range_ns": self.range_ns,
               **self.launching.as_dict(self.unit),
               "all_threads": self.all_threads.as_dict(self.unit)}
        if self.untraced_ns is not None:
            out["untraced_ns"] = self.untraced_ns
        if self.on_cpu_ns is not None:
            out["on_cpu_ns"] = self.on_cpu_ns
        if self.python:
            out["python"] = [{"frame": s.name, "file": s.module, "samples": s.value,
                              "pct": round(s.pct, 2)} for s in self.python[:JSON_ROWS]]
        return out


@dataclass
class TreeNode:
    path: tuple[str, ...]  # frames from the root down, each 'function (module)'
    samples: int
    self_samples: int

    @property
    def depth(self) -> int:
        return len(self.path) - 1

    @property
    def frame(self) -> str:
        return self.path[-1]


def host_source(con: duckdb.DuckDBPyConnection) -> str:
    """'samples' (CPU samples), 'frames' (Python frames or CPU ops to weigh by time) or
    'none'."""
    try:
        (samples, traced), = con.execute(load_query("host_source")).fetchall()
    except duckdb.CatalogException:  # a store written before host_samples was loaded
        (traced,), = con.execute(load_query("host_source_traced")).fetchall()
        samples = False
    if samples:
        return "samples"
    return "frames" if traced else "none"


def launching_thread(con: duckdb.DuckDBPyConnection) -> tuple[int, int] | None:
    """The thread whose launches ended the most idle time in host_ranges; else, where none
    is linked, the one with the most runtime calls (counted only then)."""
    row = (con.execute(load_query("host_launching_thread")).fetchone()
           or con.execute(load_query("host_busiest_thread")).fetchone())
    return (int(row[0]), int(row[1])) if row else None


@contextmanager
def ranges_of_gaps(con: duckdb.DuckDBPyConnection, min_gap_ns: int) -> Iterator[None]:
    """host_ranges: the GPU-idle gaps longer than `min_gap_ns` on any device."""
    con.execute(load_query("host_ranges_gaps"), {"min_gap_ns": min_gap_ns})
    with _merged(con):
        yield


@contextmanager
def ranges_of(con: duckdb.DuckDBPyConnection,
              ranges: Iterable[tuple[int, int]]) -> Iterator[None]:
    """host_ranges: the given (start_ns, end_ns) stretches (a gap, a step, a selection)."""
    con.execute("CREATE OR REPLACE TEMP TABLE host_ranges_raw (start_ns BIGINT, end_ns BIGINT)")
    insert_rows(con, "INSERT INTO host_ranges_raw", [(int(s), int(e)) for s, e in ranges])
    with _merged(con):
        yield


@contextmanager
def _merged(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    try:
        con.execute(load_query("host_ranges_merge"))
        yield
    finally:
        for table in _TEMP_TABLES:
            con.execute(f"DROP TABLE IF EXISTS {table}")


def host_activity(con: duckdb.DuckDBPyConnection) -> HostActivity | None:
    """The host's activity inside host_ranges (ranges_of_gaps / ranges_of); None when the
    trace recorded nothing of it (no samples, frames or ops)."""
    source = host_source(con)
    if source == "none":
        return None
    thread = launching_thread(con)
    (range_ns, activities), = con.execute(
        "SELECT coalesce(sum(end_ns - start_ns), 0), (SELECT count(*) FROM host_activities) "
        "FROM host_ranges").fetchall()
    name = None
    if thread is not None:
        try:
            found = con.execute(load_query("host_thread_name"),
                                _thread_params(thread)).fetchone()
        except duckdb.CatalogException:  # a run's converted store keeps no `threads`
            found = None
        name = str(found[0]) if found else None
    osrt = _has_os_calls(con)  # an nsys report's, traced with --trace osrt
    if source == "samples":
        con.execute(load_query("host_range_samples"))
        views = [_sampled_view(con, t, osrt) for t in (thread, None)]
        return HostActivity("samples", thread, views[0], views[1], int(range_ns),
                            thread_name=name, on_cpu_ns=_on_cpu(con, thread),
                            python=_python_lines(con, thread))
    # the traced work inside the ranges, found once for both views and the untraced time
    con.execute(load_query("host_range_activities" if activities > PLAIN_JOIN_ROWS
                           else "host_range_activities_small"))
    views = [_timed_view(con, t, int(range_ns), osrt) for t in (thread, None)]
    untraced = None
    if thread is not None:
        (_, traced_ns), = con.execute(load_query("host_traced_time"),
                                      _thread_params(thread)).fetchall()
        untraced = int(range_ns) - int(traced_ns)
    return HostActivity("ns", thread, views[0], views[1], int(range_ns), untraced, name)


def gaps_host_activity(con: duckdb.DuckDBPyConnection, min_gap_ns: int) -> HostActivity | None:
    """host_activity over the GPU-idle gaps longer than `min_gap_ns`."""
    with ranges_of_gaps(con, min_gap_ns):
        return host_activity(con)


def range_host_activity(con: duckdb.DuckDBPyConnection,
                        ranges: Iterable[tuple[int, int]]) -> HostActivity | None:
    """host_activity over the given stretches (a gap, a step, a selection)."""
    with ranges_of(con, ranges):
        return host_activity(con)


def sample_tree(con: duckdb.DuckDBPyConnection, ranges: Iterable[tuple[int, int]],
                thread: tuple[int, int] | None, bottom_up: bool = False,
                min_share: float = 0.0) -> list[TreeNode]:
    """The CPU samples inside `ranges` of `thread` (None: every thread) as a call tree,
    depth first, the larger child first; nodes under `min_share` of the samples left out."""
    with ranges_of(con, ranges):
        con.execute(load_query("host_range_samples"))
        rows = con.execute(load_query("host_sample_tree"),
                           {**_thread_params(thread), "bottom_up": bottom_up}).fetchall()
    nodes = {tuple(path): TreeNode(tuple(path), int(samples), int(own))
             for path, samples, own in rows}
    roots_total = sum(n.samples for n in nodes.values() if n.depth == 0)
    floor = min_share * roots_total
    children: dict[tuple[str, ...], list[TreeNode]] = {}
    for node in nodes.values():
        if node.samples >= floor:
            children.setdefault(node.path[:-1], []).append(node)
    ordered: list[TreeNode] = []

    def walk(parent: tuple[str, ...]) -> None:
        for node in sorted(children.get(parent, []), key=lambda n: (-n.samples, n.path)):
            ordered.append(node)
            walk(node.path)

    walk(())
    return ordered


def _thread_params(thread: tuple[int, int] | None) -> dict:
    return {"pid": thread[0] if thread else None, "tid": thread[1] if thread else None}


def _sampled_view(con: duckdb.DuckDBPyConnection, thread: tuple[int, int] | None,
                  osrt: bool = True) -> HostView:
    params = _thread_params(thread)
    rows = con.execute(load_query("host_sample_shares"), params).fetchall()
    total = sum(int(n) for grouping, _, _, n in rows if grouping == "module")
    view = HostView(total)
    for grouping, name, module, samples in rows:
        share = Share(name, int(samples), 100.0 * samples / total if total else 0.0,
                      module if grouping == "function" else None)
        (view.by_module if grouping == "module" else view.by_function).append(share)
    view.osrt = _os_calls(con, params) if osrt else []
    return view


def _timed_view(con: duckdb.DuckDBPyConnection, thread: tuple[int, int] | None,
                total: int, osrt: bool = True) -> HostView:
    """Frames' and ops' own time inside the stretches, as shares of the stretches' time
    `total` (over every thread they may add up to more than 100%); `osrt` False: the
    trace has no OS runtime calls to look up."""
    params = _thread_params(thread)
    frames = con.execute(load_query("host_frame_time"), params).fetchall()
    ops = con.execute(load_query("host_op_time"), params).fetchall()

    def pct(ns: int) -> float:
        return 100.0 * ns / total if total else 0.0

    files: dict[str, int] = {}
    for _, file, ns in frames:
        files[file] = files.get(file, 0) + int(ns)
    view = HostView(total)
    view.by_function = [Share(name, int(ns), pct(int(ns)), file) for name, file, ns in frames]
    view.by_module = [Share(f, ns, pct(ns)) for f, ns in
                      sorted(files.items(), key=lambda item: (-item[1], item[0]))]
    view.by_op = [Share(name, int(ns), pct(int(ns))) for name, ns in ops]
    view.osrt = _os_calls(con, params) if osrt else []
    return view


def _on_cpu(con: duckdb.DuckDBPyConnection, thread: tuple[int, int] | None) -> int | None:
    if thread is None:
        return None
    try:
        row = con.execute(load_query("host_on_cpu"), _thread_params(thread)).fetchone()
    except duckdb.CatalogException:  # a store without thread_sched
        return None
    return int(row[0]) if row and row[0] is not None else None


def _python_lines(con: duckdb.DuckDBPyConnection,
                  thread: tuple[int, int] | None) -> list[Share]:
    """Where the launching thread's Python samples inside the ranges were (none: the
    report has no Python samples, or a store written before they were kept)."""
    if thread is None:
        return []
    try:
        if not one_row(con, "SELECT EXISTS (SELECT 1 FROM python_samples)")[0]:
            return []
        rows = con.execute(fill("host_python_lines", stack_lines=fragment("python_stack_lines")),
                           _thread_params(thread)).fetchall()
    except duckdb.CatalogException:  # a store without python_samples
        return []
    total = sum(int(samples) for _, _, samples in rows)
    return [Share(frame, int(samples), 100.0 * samples / total, file)
            for frame, file, samples in rows]


def _has_os_calls(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the trace has OS runtime calls: most have none (Kineto and XLA never)."""
    try:
        return bool(one_row(con, "SELECT EXISTS (SELECT 1 FROM os_calls)")[0])
    except duckdb.CatalogException:  # a store without os_calls
        return False


def _os_calls(con: duckdb.DuckDBPyConnection, params: dict) -> list[OsCall]:
    try:
        rows = con.execute(load_query("host_os_calls"), params).fetchall()
    except duckdb.CatalogException:  # a store without os_calls
        return []
    return [OsCall(name, int(calls), int(ns), int(longest)) for name, calls, ns, longest in rows]
