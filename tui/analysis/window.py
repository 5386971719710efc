"""The window of the work: the stretch of a trace that its diagnosis describes, so that a
whole-program capture is judged by its loop, not by its imports and CUDA set-up.

The first that the trace has (queries/work_window.sql): the profiler's steps (Kineto's
`ProfilerStep#N`); else an outermost NVTX range or user annotation holding at least
MOST_WORK of the GPU work (`compute`, `train`) and, where ranges are named like steps, one
of them (a `compile` range around none is set-up); else the ranges named like steps (`step 3`,
JAX's `train step 3`) holding any; else a cudaProfilerStart/Stop capture range; else the
outermost ranges named more than once on their thread (a loop's phases, `allreduce`,
`compute`, `idle` each round; not a library's own, NCCL's), first to last, holding at least
MOST_WORK of the GPU work; else the iteration that repeats in the kernel sequence (from
the first regular repeat of a kernel that comes once an iteration); else the first GPU
activity to the last.

What comes before the window is the set-up, reported apart with how much of it the GPU
idled. The gaps table and NVIDIA's rules stay over the whole capture.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import cache

import duckdb

from tui.analysis.step_times import leading_slow_steps
from tui.core.queries import fill, fragment, load_query, slots
from tui.core.steps import NOT_THE_PROGRAMS, step_patterns
from tui.core.units import format_ns

# Ranges holding at least this share of the GPU work (summed activity time) are the work.
MOST_WORK = 0.5
# A set-up shorter than this share of the window goes unsaid in the text (a profiler's own
# start, a few hundred µs before its first step); its length is in the JSON all the same.
SETUP_SAID = 0.05
# The kernel sequence's iteration: a kernel that repeats at least MIN_REPEATS times, a
# distance (in kernels) apart within TOLERANCE of its most common one REGULAR of them, and
# the sequence repeating with that period REPEATING of the time. Hugging Face's Trainer
# (`unannotated/trainer.sqlite`), logging every 10 steps and evaluating every 20: 6 of
# its anchor's 59 repeats two kernels further apart (1,162 of 1,160), 87% of its
# sequence repeating with the period.
MIN_REPEATS = 3
REGULAR = 0.9
REPEATING = 0.85
TOLERANCE = 0.01
# Where no kernel comes once an iteration (gradient accumulation: the micro-batches'
# kernels several times a step, the optimizer's in several launches of one name), the
# iteration is searched at strides of a kernel's occurrences up to MAX_STRIDE
# (work_iteration_strided.sql).
MAX_STRIDE = 16
# Where the iteration's length in kernels changes from one to the next (a mixture of
# experts: each expert's kernels run for the tokens routed to it, cuBLAS picking GEMM
# kernels by shape; `unannotated/moe.sqlite`, 1,209 to 2,126 kernels a step), its anchor's
# distance to its next repeat is within a factor SPREAD of its median REGULAR of the time,
# and the PREFIX kernels after it are named as those after its next repeat REPEATING of
# the time (work_iteration_varying.sql).
SPREAD = 1.5
PREFIX = 8
# The streams the kernel sequence's iteration is searched on, busiest first
# (`unannotated/compiled_ro.sqlite`: torch.compile's reduce-overhead mode, its warm-up and
# its CUDA graphs' recording on a stream of 3,117 kernels, their replays and the
# optimizer's on one of 2,101).
ITERATION_STREAMS = 3
KINDS = ("profiler_steps", "range", "steps", "profiler_range", "phases", "iteration",
         "gpu_span")
# Ranges a library marks its own calls with (NCCL's NVTX domain: ncclAllReduce,
# ncclCommInitRankConfig; PyTorch's c10d, under torch.profiler: nccl:all_reduce,
# nccl:_allgather_base, each call's own; CCCL's, which CUDA 13's CUB opens around each device-wide
# algorithm whoever calls it, PyTorch's sorts and embedding backward among them:
# `cub::DeviceRadixSort`, `cub::DeviceScan::ExclusiveScan`; XLA's and nsys' `[Unknown]`:
# NOT_THE_PROGRAMS): neither the work nor a phase of the program's loop. XLA's compile
# ranges hold its GEMM autotuning's kernels, on a dozen threads at once.
LIBRARY_RANGES = f"^nccl[A-Z:]|^(cub|thrust)::|{NOT_THE_PROGRAMS}"


@dataclass(frozen=True)
class Window:
    kind: str  # one of KINDS
    name: str | None  # the range's name, or the first and last step's: 'step 0 … step 79'
    start_ns: int
    end_ns: int
    ranges: int = 0  # the ranges (steps) that make it up
    setup_ns: int = 0  # the trace's first event to the window's start
    setup_busy_ns: int = 0  # of that, the time some GPU activity ran
    around: tuple[str, ...] = ()  # a window of steps: the ranges around it (window_around.sql)
    warm_up: int = 0  # a window of steps or repeats: its first, slow, moved into the set-up
    stride: int = 1  # a window of repeats: its anchor kernel's occurrences a repeat

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> Window | None:
        if not data:
            return None
        names = set(cls.__dataclass_fields__)
        fields = {k: v for k, v in data.items() if k in names}
        return cls(**fields | {"around": tuple(fields.get("around") or ())})

    def phrase(self, source_format: str | None = None) -> str:
        """'in NVTX range `compute`, 1.63 s' (trace text in backquotes, never markup)."""
        length = format_ns(self.duration_ns)
        if self.kind == "profiler_steps":
            return f"in {self.ranges:,} profiler steps ({self.name}), {length}"
        if self.kind == "range":
            what = "NVTX range" if source_format == "nsys" else "range"
            return f"in {what} `{self.name}`, {length}"
        if self.kind == "steps":
            return f"in {self.ranges:,} step ranges ({self.name}), {length}"
        if self.kind == "phases":
            what = "NVTX ranges" if source_format == "nsys" else "ranges"
            return f"in {self.ranges:,} repeated {what} ({self.name}), {length}"
        if self.kind == "profiler_range":
            return f"between cudaProfilerStart and cudaProfilerStop, {length}"
        if self.kind == "iteration":
            name = self.name or ""
            short = name if len(name) <= 40 else name[:39] + "…"
            return (f"in {self.ranges:,} repeats of its kernel sequence (from `{short}`), "
                    f"{length}")
        if self.kind == "mixed":
            return f"in each one's window of work, {length} in all"
        if self.name == "kernel":  # a gpu_span from its first kernel
            return f"from the first kernel to the last GPU activity, {length}"
        return f"from the first GPU activity to the last, {length}"

    def setup_text(self) -> str | None:
        """'Set-up: 1.95 s before the first step (no GPU work 78% of it), not part of the
        diagnosis.'; None when it is under SETUP_SAID of the window."""
        if self.setup_ns < SETUP_SAID * self.duration_ns:
            return None
        first_step = (self.name or "").split(" … ")[0]
        before = {"profiler_steps": "the first profiler step", "steps": "the first step",
                  "range": f"the range `{self.name}`",
                  "profiler_range": "cudaProfilerStart",
                  "phases": f"the first range `{(self.name or '').split(' … ')[0]}`",
                  "iteration": "the repeating kernels",
                  "gpu_span": ("the first kernel" if self.name == "kernel"
                               else "the first GPU activity")}.get(self.kind, "the work")
        idle = 100 * (self.setup_ns - self.setup_busy_ns) / self.setup_ns
        warm = ""
        if self.warm_up:  # the first steps, slow, moved into the set-up
            before = before if self.kind == "iteration" else first_step
            steps = "repeat" if self.kind == "iteration" else "step"
            warm = (f", its first {steps} (over twice a typical {steps}) among it"
                    if self.warm_up == 1 else f", its first {self.warm_up} {steps}s (each "
                    f"over twice a typical {steps}) among it")
        return (f"Set-up: {format_ns(self.setup_ns)} before {before}{warm} (no GPU work "
                f"{idle:.0f}% of it), not part of the diagnosis.")


@cache
def window_query(name: str) -> str:
    """The query `name` (work_window or work_window_profiler_steps), with the set-up that
    both end with (work_window_setup.sql)."""
    return fill(name, window=fragment("work_window_setup"))


def work_window(con: duckdb.DuckDBPyConnection) -> Window | None:
    """The trace's window of work; None without GPU activity. The kernel sequence is
    searched for its iteration only where nothing marks the work (a pass over every
    kernel that the others do not need)."""
    params = {**step_patterns(), "most": MOST_WORK, "library": LIBRARY_RANGES,
              "iteration_start": None, "iteration_end": None,
              "iteration_name": None, "iteration_repeats": None}
    row = None
    # the profiler's steps, where the trace has them, come first: their own query plans in
    # a third of the time of the one that weighs every kind (a run sums up each rank)
    if con.execute(load_query("profiler_step_named")).fetchone() is not None:
        row = con.execute(window_query("work_window_profiler_steps"),
                          {"profiler_step": params["profiler_step"]}).fetchone()
    if row is None:
        row = con.execute(window_query("work_window"), params).fetchone()
    stride = 1
    if row is not None and row[0] == "gpu_span":
        found = _iteration(con)
        if found is not None:
            start, name, repeats, _period, stride, end = found
            params |= {"iteration_start": start, "iteration_end": end,
                       "iteration_name": name, "iteration_repeats": repeats}
            row = con.execute(window_query("work_window"), params).fetchone()
    if row is None:
        return None
    kind, name, start, end, ranges, _first, setup, setup_busy = row
    window = Window(kind, name, start, end, ranges, setup, setup_busy,
                    stride=stride if kind == "iteration" else 1)
    if kind in ("steps", "profiler_steps", "iteration"):
        window = _after_warm_up(con, window)
    if kind in ("steps", "profiler_steps"):
        # the loop's own ranges around its steps
        window = replace(window, around=tuple(r[0] for r in con.execute(
            load_query("window_around"), {"profiler_step": params["profiler_step"],
                                          "step_name": params["step_name"],
                                          "start_ns": window.start_ns}).fetchall()))
    return window


def _iteration(con: duckdb.DuckDBPyConnection) -> tuple | None:
    """(start_ns, anchor name, repeats, period, stride, end_ns) of the kernel sequence's
    iteration, searched on the stream with the most kernels, else on the next busiest
    ones (ITERATION_STREAMS in all: torch.compile's reduce-overhead mode runs its warm-up
    and records its CUDA graphs on a stream of their own, busier than the one that
    replays them); None where none is found."""
    for nth in range(ITERATION_STREAMS):
        found = _iteration_on(con, nth)
        if found is not None:
            return found
    return None


def _iteration_on(con: duckdb.DuckDBPyConnection, nth: int) -> tuple | None:
    """_iteration's search on the stream with `nth` busier ones before it: from a kernel
    that comes once an iteration, to the end of its last repeat (work_iteration_end.sql);
    else (gradient accumulation) from one at a stride of its occurrences, else (an
    iteration whose kernels change in number) from one that comes once an iteration at a
    varying distance, these two with no end of their own (None: the last GPU
    activity's)."""
    rules = {"min_repeats": MIN_REPEATS, "regular": REGULAR, "repeating": REPEATING,
             "tolerance": TOLERANCE, "stream_nth": nth}
    found = con.execute(iteration_query("work_iteration"), rules).fetchone()
    if found is not None:
        _start, name, _repeats, period = found
        (end,) = con.execute(iteration_query("work_iteration_end"),
                             {"name": name, "period": period, "stream_nth": nth}
                             ).fetchone() or (None,)
        return (*found, 1, end)
    found = con.execute(iteration_query("work_iteration_strided"),
                        rules | {"max_stride": MAX_STRIDE}).fetchone()
    if found is not None:
        return (*found, None)
    varying = {key: rules[key] for key in ("min_repeats", "regular", "repeating",
                                           "stream_nth")}
    found = con.execute(iteration_query("work_iteration_varying"),
                        varying | {"spread": SPREAD, "prefix": PREFIX}).fetchone()
    return None if found is None else (*found, 1, None)


@cache
def iteration_query(name: str) -> str:
    """work_iteration.sql, work_iteration_strided.sql, work_iteration_varying.sql or
    work_iteration_end.sql, with the kernel sequence they search
    (work_iteration_sequence.sql) and, where they check that it repeats with its period,
    that check (work_iteration_repeats.sql)."""
    pieces = {"sequence": "work_iteration_sequence", "repeats": "work_iteration_repeats"}
    return fill(name, **{slot: fragment(pieces[slot]) for slot in slots(load_query(name))})


def _after_warm_up(con: duckdb.DuckDBPyConnection, window: Window) -> Window:
    """A window of steps (or of the kernel sequence's repeats) less its first steps where
    they are slow (tui/analysis/step_times.py: compiling, autotuning, a first iteration's
    allocations), moved into the set-up, where at least MIN_STEPS - 1 steps stay
    (step_times.leading_slow_steps): the diagnosis is of the steady steps."""
    steps = leading_slow_steps(con, window)
    if steps is None:
        return window
    warm, rows = steps
    first_ns = window.start_ns - window.setup_ns
    start = rows[warm][3]
    (busy,) = con.execute(load_query("window_setup_busy"),
                          {"first_ns": first_ns, "start_ns": start}).fetchone() or (0,)
    # a window of repeats keeps its anchor kernel's name: its steps are found by it
    name = window.name if window.kind == "iteration" else f"{rows[warm][0]} … {rows[-1][0]}"
    ranges = window.ranges - warm if window.kind == "iteration" else len(rows) - warm
    return replace(window, name=name, start_ns=start, ranges=ranges,
                   setup_ns=start - first_ns, setup_busy_ns=busy, warm_up=warm)


def merged(windows: list[Window | None]) -> Window | None:
    """One window over several (devices or ranks summed): from the first start to the last
    end, its kind and name where all agree; the longest set-up."""
    known = [w for w in windows if w is not None]
    if not known:
        return None
    first = known[0]
    same = all((w.kind, w.name) == (first.kind, first.name) for w in known)
    longest = max(known, key=lambda w: w.setup_ns)
    return Window(first.kind if same else "mixed", first.name if same else None,
                  min(w.start_ns for w in known), max(w.end_ns for w in known),
                  first.ranges if same else 0, longest.setup_ns, longest.setup_busy_ns,
                  stride=first.stride if same else 1)
