"""GPU-idle gaps over a threshold, each explained by what the host was doing meanwhile.

A gap is a stretch on one device where no kernel, copy or set runs on any stream,
between the device's first and last activity (Nsight Systems' `gpu_gaps` definition;
`gpu_idle` is computed at load). Its class is its idle cause (tui/analysis/idle_causes.py,
the same one every idle nanosecond gets) under the gap's older name; the plain-language
cause adds what the host was doing meanwhile. Gaps are few, so writing the causes in
Python is cheap; the overlap joins against millions of host events run in DuckDB.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from tui.analysis.idle_causes import COPY_PATTERN, GAP_KIND, SYNC_PATTERN, classify_idle
from tui.analysis.module_names import COMPILERS, module_label
from tui.analysis.remedies import CPU_MATH, FILE_CALLS
from tui.core.queries import fill, fragment, load_query
from tui.core.steps import NOT_THE_PROGRAMS, PROFILER_STEP, STEP_NAME
from tui.core.units import format_ns

if TYPE_CHECKING:  # not imported at run time: a warm `--summary --json` needs no DuckDB
    import duckdb

DEFAULT_MIN_GAP_MS = 1.0

# Host calls that block until the GPU (or a stream/event) has finished.
SYNC_CALL = re.compile(SYNC_PATTERN)
# Host calls that move memory and may block the host (pageable or synchronous copies).
COPY_CALL = re.compile(COPY_PATTERN)
# The host call must cover this share of the gap to be named its cause.
DOMINANT_SHARE = 0.3
# A gap whose launching thread has this share of its samples in one compiler (NVRTC,
# Triton's) was spent compiling kernels: that is what the host was busy in.
COMPILING_SHARE = 0.5
# A gap whose launching thread has that share of its samples in math on the CPU (the
# innermost frame one of PyTorch's vectorised CPU kernels, oneDNN's or a BLAS's) was spent
# computing on the host: an optimizer stepping parameters offloaded to it
# (`unannotated/fsdp_offload_json.sqlite`: AdamW's addcdiv, lerp and mul kernels), a model
# evaluated on the CPU.
CPU_MATH_FUNCTIONS = (r"at::native::(AVX\w*|DEFAULT|ZVECTOR|SVE\w*)::|at::vec::|cpu_kernel"
                      r"|^mkl_|^dnnl|mkldnn|^openblas|^sgemm_|^dgemm_|^cblas_")
# Gaps whose overlapping host calls, ranges and ops are looked up (the longest ones):
# range joins against millions of host events grow with the gap count, so beyond this
# a gap's cause names its class alone.
MAX_CONTEXT_GAPS = 2000
# Up to this many host activities, those overlapping each gap are found by one interval
# join (gap_overlaps_small.sql), past it by the join on buckets of time (gap_overlaps.sql),
# as host_samples.PLAIN_JOIN_ROWS: on the samples' gaps (5,500-13,500 host activities) the
# one join saved 3-4 ms of ~30 a summary's gaps took.
GAP_PLAIN_JOIN_ROWS = 50_000


@dataclass
class Gap:
    device: int
    start_ns: int
    duration_ns: int
    before: str
    after: str
    cause: str
    # 'sync' | 'copy' | 'host-wait' | 'launch-overhead' | 'communication' | 'other'
    kind: str
    busy_in: str | None = None  # a host-wait's ranges (outer › inner; else op) the host was in
    busy_in_call: str | None = None  # a host-wait's CUDA call holding its thread (cudaFree)

    def as_dict(self) -> dict:
        # not dataclasses.asdict: its deep copy costs seconds over 50k+ gaps
        return {"device": self.device, "start_ns": self.start_ns,
                "duration_ns": self.duration_ns, "before": self.before, "after": self.after,
                "cause": self.cause, "kind": self.kind}


def explained_gaps(
    con: duckdb.DuckDBPyConnection, min_gap_ns: int, limit: int | None = None,
    classified: bool = False,
) -> list[Gap]:
    """Every gap longer than `min_gap_ns` (longest first), with its cause and class
    (`classified`: the temp table idle_causes holds every interval's cause already, as
    inside idle_causes.every_interval_classified)."""
    return _explained(con, {"min_gap_ns": min_gap_ns, "limit": limit or 2**62,
                            "device": None, "start_ns": None}, classified)


def explain_gap(con: duckdb.DuckDBPyConnection, device: int, start_ns: int) -> Gap | None:
    """The one idle interval of `device` starting at `start_ns`, explained."""
    found = _explained(con, {"min_gap_ns": -1, "limit": 1, "device": device,
                             "start_ns": start_ns})
    return found[0] if found else None


@cache
def overlaps_query(name: str) -> str:
    """The script `name` (gap_overlaps or gap_overlaps_small) with the parts both share."""
    return fill(name, overlapping=fragment("gap_overlapping_rows"),
                tables=fragment("gap_overlap_tables"))


def _explained(con: duckdb.DuckDBPyConnection, params: dict,
               classified: bool = False) -> list[Gap]:
    if not classified:
        classify_idle(con, params["min_gap_ns"], params["device"], params["start_ns"])
    try:
        con.execute(load_query("gaps_selected"), {**params, "context_gaps": MAX_CONTEXT_GAPS})
        rows = con.execute(load_query("gaps_selected_rows")).fetchall()
        if rows:
            con.execute(overlaps_query("gap_overlaps_small" if _host_rows(con)
                                       <= GAP_PLAIN_JOIN_ROWS else "gap_overlaps"))
            context = con.execute(load_query("gap_host_context")).fetchall()
            sampled = _gap_samples(con)
            python = _gap_python_lines(con)
            os_calls = _gap_calls(con, "gap_os_call_rows")
            cuda_calls = _gap_calls(con, "gap_runtime_call_rows")
    finally:
        con.execute("DROP VIEW IF EXISTS context_gaps")
        for table in ((() if classified else ("idle_causes",))
                      + ("selected_gaps", "gap_bucket_width", "gap_overlapping", "gap_ranges",
                         "gap_frames", "gap_top_calls", "gap_call_parents")):
            con.execute(f"DROP TABLE IF EXISTS {table}")
    if not rows:
        return []
    gaps: list[Gap] = []
    for (device, start, _end, duration, before, after, _corr, _kind, cause, blocked_in), ctx \
            in zip(rows, context, strict=True):
        (gap_no, call, call_overlap, call_parent, range_name, op_name, op_overlap,
         launch_start, range_path, frame_name, frame_overlap) = ctx
        if (op_overlap or 0) < DOMINANT_SHARE * duration:
            op_name = None  # a brief op that merely touches the gap explains nothing
        text = _describe(
            cause or "other", start, duration, call=call, call_overlap=call_overlap or 0,
            call_parent=call_parent, range_name=range_name, op_name=op_name,
            launch_start=launch_start, blocked_in=blocked_in,
            frame=_innermost_frame(frame_name, frame_overlap, op_name, op_overlap, duration),
        )
        held = (_thread_held(duration, sampled.get(gap_no), os_calls.get(gap_no),
                             cuda_calls.get(gap_no), python.get(gap_no))
                if cause == "host" else _Held())
        text += held.text
        if cause == "other" and len(gaps) >= MAX_CONTEXT_GAPS:
            text = f"host activity not looked up (only for the {MAX_CONTEXT_GAPS:,} longest gaps)"
        gaps.append(Gap(device=device, start_ns=start, duration_ns=duration,
                        before=before or "", after=after or "", cause=text,
                        kind=GAP_KIND.get(cause or "other", "other"),
                        busy_in=(held.sampled_in or _busy_in(range_path, op_name, frame_name)
                                 or held.os_work) if cause == "host" else None,
                        busy_in_call=held.cuda_call))
    return gaps


@dataclass
class _Held:
    """What held a host-wait gap's launching thread: said after its cause (`text`), and
    what of it names the gap's work."""

    text: str = ""  # '; its thread's 37 samples: …; its thread slept in …'
    # its samples: most in one compiler (module_names.COMPILERS), or in CPU_MATH
    sampled_in: str | None = None
    # a sleep, or a file's read or write (FILE_CALLS), held it for DOMINANT_SHARE of the
    # gap or more
    os_work: str | None = None
    cuda_call: str | None = None  # a CUDA call (not a launch) held it that long


def _thread_held(duration: int, sampled: tuple[str, str | None] | None,
                 os_call: tuple[str, int] | None, cuda_call: tuple[str, int] | None,
                 python_line: str | None = None) -> _Held:
    """A host-wait gap's _Held from its launching thread's samples (_gap_samples), the
    line of its Python samples (_gap_python_lines) and the OS and CUDA calls that held it
    longest (_gap_calls): a call is said where it held the thread for DOMINANT_SHARE of
    the gap or more."""
    held = _Held()
    if sampled:
        held.text += f"; {sampled[0]}"
        held.sampled_in = sampled[1]
    if python_line:
        held.text += f"; {python_line}"
    if os_call and os_call[1] >= DOMINANT_SHARE * duration:
        name, ns = os_call
        slept = "sleep" in name
        held.os_work = name if slept or FILE_CALLS.match(name) else None
        held.text += (f"; its thread {'slept' if slept else 'waited'} in {name} "
                      f"({format_ns(ns)} of {format_ns(duration)})")
    if cuda_call and cuda_call[1] >= DOMINANT_SHARE * duration:
        name, ns = cuda_call
        held.cuda_call = name
        held.text += f"; its thread in {name} ({format_ns(ns)} of {format_ns(duration)})"
    return held


def _host_rows(con: duckdb.DuckDBPyConnection) -> int:
    row = con.execute("SELECT count(*) FROM host_activities").fetchone()
    return int(row[0]) if row else 0


# Ranges that mark steps say nothing of what the host was doing in them (Kineto's
# ProfilerStep#N, NVTX `step 3`), nor do those that mark no work of the program's own
# (XLA's under nsys, nsys' `[Unknown]`: NOT_THE_PROGRAMS): the op beneath is named instead
_STEP_RANGES = (re.compile(PROFILER_STEP),
                re.compile("^" + STEP_NAME.removeprefix("^(?i)"), re.IGNORECASE),
                re.compile(NOT_THE_PROGRAMS))


def _busy_in(range_path: str | None, op_name: str | None,
             frame_name: str | None = None) -> str | None:
    """What the host was busy in during a host-caused gap: the ranges covering it (outer ›
    inner) but those that only mark steps, else its op, else its innermost Python frame."""
    # each name once: the same range of several threads or processes may cover a gap
    named = dict.fromkeys(name for name in (range_path or "").split(" › ")
                          if name and not any(p.search(name) for p in _STEP_RANGES))
    return " › ".join(named) if named else (op_name or frame_name)


def has_cpu_samples(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the trace has CPU samples (nsys --sample; False for a store written before
    samples were loaded)."""
    import duckdb  # here: a warm summary imports this module without DuckDB

    try:
        # EXISTS, not a count: a run's rank reads host_samples through a view of its process
        row = con.execute("SELECT EXISTS (SELECT 1 FROM host_samples)").fetchone()
    except duckdb.CatalogException:
        return False
    return bool(row and row[0])


def _gap_samples(con: duckdb.DuckDBPyConnection) -> dict[int, tuple[str, str | None]]:
    """{gap_no: ('its thread's samples: the Python interpreter 90%, libc 7%', busy)}
    for the gaps with host context where the trace has CPU samples on the thread that
    ended them; `busy`, what the host was busy in where its samples say: the label of a
    compiler (module_names.COMPILERS) holding COMPILING_SHARE or more of them, or
    CPU_MATH where that share was in math on the CPU (CPU_MATH_FUNCTIONS); else None."""
    if not has_cpu_samples(con):
        return {}
    said = {}
    for gap_no, samples, top, cpu_math in con.execute(
            samples_query(), {"cpu_math": CPU_MATH_FUNCTIONS}).fetchall():
        parts = [f"{module_label(t['module'])} {100 * t['samples'] / samples:.0f}%"
                 for t in top]
        first = module_label(top[0]["module"]) if top else None
        busy = (first if first in COMPILERS and top[0]["samples"] >= COMPILING_SHARE * samples
                else CPU_MATH if cpu_math >= COMPILING_SHARE * samples else None)
        said[gap_no] = (f"its thread's {samples:,} samples: {', '.join(parts)}", busy)
    return said


def _gap_python_lines(con: duckdb.DuckDBPyConnection) -> dict[int, str]:
    """{gap_no: 'in Python at train.py(42): step (31 of its 40 Python samples)'} for the
    gaps with host context where the report has Python samples (nsys --python-sampling)
    on the thread that ended them."""
    import duckdb  # here: a warm summary imports this module without DuckDB

    try:
        (any_samples,), = con.execute("SELECT count(*) > 0 FROM python_samples").fetchall()
    except duckdb.CatalogException:  # a store written before Python samples were kept
        return {}
    if not any_samples:
        return {}
    rows = con.execute(python_lines_query()).fetchall()
    return {gap_no: f"in Python at {frame} ({at:,} of its {samples:,} Python samples)"
            for gap_no, samples, frame, at in rows}


@cache
def python_lines_query() -> str:
    """gap_python_lines.sql with its gaps' launching threads."""
    return fill("gap_python_lines", launchers=fragment("gap_launchers"),
                stack_lines=fragment("python_stack_lines"))


@cache
def thread_calls_query(calls: str) -> str:
    """gap_thread_calls.sql over the calls of the fragment `calls`."""
    return fill("gap_thread_calls", calls=fragment(calls),
                launchers=fragment("gap_launchers"))


@cache
def samples_query() -> str:
    """gap_samples.sql with its gaps' launching threads."""
    return fill("gap_samples", launchers=fragment("gap_launchers"))


def _gap_calls(con: duckdb.DuckDBPyConnection, calls: str) -> dict[int, tuple[str, int]]:
    """{gap_no: (name, ns)}: the call of `calls` (gap_os_call_rows: OS runtime calls, a
    sleep, a wait on a queue; gap_runtime_call_rows: CUDA calls other than launches, the
    allocator's, module loads) that held the thread that ended each gap with host context
    the longest inside it."""
    import duckdb  # here: a warm summary imports this module without DuckDB

    try:
        rows = con.execute(thread_calls_query(calls)).fetchall()
    except duckdb.CatalogException:  # a store written before OS calls were loaded
        return {}
    return {gap_no: (name, int(ns)) for gap_no, name, ns in rows}


# How the host's part in each cause is said
_HELD = {"sync": "waited in", "copy": "blocked in", "communication": "waited in"}


def _describe(
    cause: str, start: int, duration: int, *, call: str | None, call_overlap: int,
    call_parent: str | None, range_name: str | None, op_name: str | None,
    launch_start: int | None, blocked_in: str | None,
    frame: tuple[str, int] | None = None,
) -> str:
    """The plain-language cause of one gap of idle cause `cause`, from its host context;
    `frame`: the innermost Python frame running through the gap and its time in it, where
    one is more inner than the op (a host-wait names it: `time.sleep` inside a step)."""
    where = _where(range_name, op_name)
    late = (f"; next launch issued {format_ns(launch_start - start)} after the GPU ran dry"
            if launch_start is not None and launch_start >= start else "")
    if cause in _HELD:
        if call and duration and call_overlap / duration >= DOMINANT_SHARE:
            called = f"{call}" + (f" from {call_parent}" if call_parent else "")
            held = f"{format_ns(call_overlap)} of {format_ns(duration)}"
            return f"host {_HELD[cause]} {called} ({held}){where}"
        if blocked_in:
            return f"host {_HELD[cause]} {blocked_in} until the GPU ran dry{late}{where}"
        if cause == "sync":
            return f"the GPU ran dry as a result was copied to the host{late}{where}"
        return f"host staging a copy{late}{where}"
    if cause == "host" and frame is not None:
        busy = f"in {frame[0]} ({format_ns(frame[1])})" + (
            f" inside {range_name}" if range_name else "")
        return (f"next launch issued {format_ns(launch_start - start)} after the GPU ran dry; "
                f"host busy {busy}" if launch_start is not None else f"host busy {busy}")
    if cause == "host":
        busy = f"in {op_name}" if op_name else (f"in {range_name}" if range_name else "elsewhere")
        return (f"next launch issued {format_ns(launch_start - start)} after the GPU ran dry; "
                f"host busy {busy}" + (f" ({range_name})" if range_name and op_name else "")
                if launch_start is not None else f"host busy {busy}")
    # where the host was: not part of a host-wait's cause, which names its op itself
    # (most gaps of a big trace are those: 204,799 of a 3 GB nsys export)
    if cause == "launch":
        return f"launch latency between back-to-back launches{where}"
    if launch_start is not None and launch_start < start:
        return (f"next work queued {format_ns(start - launch_start)} before the GPU ran dry, "
                f"yet it waited (another stream or an event){where}")
    if call and duration and call_overlap / duration >= DOMINANT_SHARE:
        return f"host in {call}{where}"
    return "no host activity explains it" + where if where else "no host activity recorded"


def _innermost_frame(frame: str | None, frame_ns: int | None, op_name: str | None,
                     op_ns: int | None, duration: int) -> tuple[str, int] | None:
    """The Python frame to name as what the host was running through a gap: one covering
    at least DOMINANT_SHARE of it, unless a CPU op that does covers less of it (an op runs
    inside the frame that called it: the shorter of the two is the inner)."""
    if frame is None or (frame_ns or 0) < DOMINANT_SHARE * duration:
        return None
    if op_name is not None and (op_ns or 0) <= (frame_ns or 0):
        return None
    return frame, int(frame_ns or 0)


def _where(range_name: str | None, op_name: str | None) -> str:
    parts = [p for p in (range_name, op_name) if p]
    return f" during {' › '.join(parts)}" if parts else ""
