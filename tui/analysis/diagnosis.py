"""What bounds a run: per device, one sentence naming the limit, where, the evidence and a
remedy, e.g. "Launch-bound in 5 profiler steps (…), 224 ms: GPU 0 idled 92% of its 224 ms
(206 ms) between back-to-back launches of 9,600 kernels (…); it computed 7%; replay the step
as a CUDA graph or compile it".

The diagnosis is of the window of work (tui/analysis/window.py: the profiler steps, the
NVTX range around the loop, ...), not of the start-up before it. A device's span there is
its busy time (split by what ran, each instant once: compute kernels, then copies, then
NCCL kernels; queries/analysis/device_time_split.sql) plus its idle time (split by cause,
adding up exactly: tui/analysis/idle_causes.py). Each bound claims a part:

  compute        the compute kernels' time; the bound when it is at least COMPUTE_MOST of
                 the span (memory instead when Nsight Compute, attached, puts at least
                 half of that time in kernels at their memory ceiling)
  launch, host,  the idle time of that cause
  sync
  copy           copies not hidden behind compute, and the idle while the host staged them
  communication  NCCL kernels not hidden behind compute (on a run, with how long they
                 waited for other ranks), and the idle while the host was in a collective
  other          idle of no known cause

Below COMPUTE_MOST the largest of the other parts is the bound: the loss leads, the
compute share said beside it. On a run, a rank whose NCCL kernels waited for the other ranks
WAIT_MOST of its span or more is communication-bound whatever it computed beside them (its
step ends when the last rank arrives), and the run is bound by what bounds its stragglers.
The figures (`DeviceTime`) are kept as JSON, so that a run decides each rank again with
its NCCL waits, and `--ncu` with the report's verdicts, without reading the trace again.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cache
from typing import Any, NamedTuple

import duckdb

from tui.analysis.beside import Beside
from tui.analysis.dataparallel import dataparallel_devices
from tui.analysis.framework import source_format
from tui.analysis.gaps import DOMINANT_SHARE, Gap, explained_gaps, has_cpu_samples
from tui.analysis.gpu_metrics import DRAM_NEAR_PEAK
from tui.analysis.idle_causes import (
    CAUSES,
    IdleByCause,
    every_interval_classified,
    idle_by_cause,
)
from tui.analysis.launch_means import GraphReplays, graph_replays, launched_as
from tui.analysis.parallelism import ADVICE
from tui.analysis.queued_waits import GPUS, STREAMS, queued_waits
from tui.analysis.remedies import (
    DATAPARALLEL_BOUNDS,
    SLOW_STEPS,
    WARM_UP,
    host_work,
    remedy,
)
from tui.analysis.step_times import StepFigures, in_slow_steps, step_figures, steps_text, summed
from tui.analysis.summary_types import Diagnosis as DiagnosisJson
from tui.analysis.window import Window, merged, work_window
from tui.core.db import one_row
from tui.core.queries import fill, fragment, load_query
from tui.core.units import format_bytes, format_ns

BOUNDS = ("compute", "memory", "launch", "host", "sync", "copy", "communication", "other")
# The GPU computing at least this share of its window is compute-bound; below it, the
# largest loss leads (docs/diagnosis.md: chosen from the designed loops, against XProf's
# 5% / 50% input-bound thresholds).
COMPUTE_MOST = 0.9
# Nsight Compute's memory verdict on at least this share of the compute time: memory-bound.
MEMORY_MOST = 0.5
# A rank's NCCL kernels waiting for other ranks this share of its span: communication-bound.
WAIT_MOST = 0.5
# CUDA graphs an nsys report traced whole holding this share of the compute time or more:
# the compute share counts their inside idle as busy, and the text says so
# (`unannotated/compiled_ro.sqlite`: 98% compute so, 76% under torch.profiler's kernels).
WHOLE_GRAPHS_SAID = 0.5
# device_time_unions_blocks.sql takes each device's running max in blocks of this many GPU
# ids
SPLIT_BLOCK_IDS = 65_536

_TITLE = {"compute": "Compute-bound", "memory": "Memory-bound", "launch": "Launch-bound",
          "host": "Host-bound", "sync": "Sync-bound", "copy": "Copy-bound",
          "communication": "Communication-bound", "other": "Idle for causes the trace "
          "does not show"}
# An other-bound device's title where its queued work is known to have waited
# (tui/analysis/queued_waits.py)
_OTHER_TITLE = {GPUS: "Waiting on another GPU", STREAMS: "Waiting on other streams"}


@dataclass
class DeviceTime:
    """One device's span, split: busy by what ran, idle by cause."""

    device: int | None  # None: devices summed
    span_ns: int
    busy_ns: int
    compute_ns: int  # compute kernels (not NCCL), each instant once
    copy_ns: int  # copies and sets while no compute kernel ran
    comm_ns: int  # NCCL kernels while nothing else ran
    kernels: int
    kernel_median_ns: float | None
    comm_kernels: int
    copies: int
    copy_bytes: int
    idle: IdleByCause
    pageable_bytes: int = 0  # of copy_bytes, to or from pageable host memory
    pinned_bytes: int = 0  # of copy_bytes, to or from pinned host memory
    host_busy_in: str | None = None  # what the host was busy in, in the longest host gaps
    comm_wait_ns: int | None = None  # a run: NCCL kernels waiting for other ranks
    memory_ns: int | None = None  # --ncu: compute time of kernels at their memory ceiling
    # the GPU's hardware counters (nsys --gpu-metrics-devices): DRAM read + write over the
    # window, % of its peak bandwidth (gpu_metrics.dram)
    dram_pct: float | None = None
    window: Window | None = None  # the window of work the figures are of (None: the span)
    steps: StepFigures | None = None  # the window's steps; this device's idle in slow ones
    # launch-bound: its kernels torch.compile's already, or CUDA graphs' (launch_means)
    launched_as: str | None = None
    # launch-bound: its kernels that CUDA graphs' replays ran (launch_means.graph_replays),
    # and the launches its host issued (a replay's one launch for the kernels it ran)
    graph_kernels: int = 0
    # of compute_ns, CUDA graphs an nsys report traced whole (busy from start to end)
    whole_graph_ns: int = 0
    host_launches: int | None = None
    # other-bound: what its queued work waited for (queued_waits: GPUS, STREAMS), None
    # where the launches are not known
    waited_on: str | None = None
    # driven by one process as torch.nn.DataParallel does (tui/analysis/dataparallel.py)
    dataparallel: bool = False

    @property
    def idle_ns(self) -> int:
        return self.span_ns - self.busy_ns

    @property
    def issued(self) -> int:
        """The launches the host issued for the kernels and copies: one each, unless a
        CUDA graph's replay ran some (host_launches)."""
        return self.kernels + self.copies if self.host_launches is None else self.host_launches

    def parts(self) -> dict[str, int]:
        """The time each bound claims (they overlap nowhere; with busy and idle they make
        up the span)."""
        idle = self.idle.by_cause
        return {"compute": self.compute_ns, "launch": idle["launch"], "host": idle["host"],
                "sync": idle["sync"], "copy": self.copy_ns + idle["copy"],
                "communication": self.comm_ns + idle["communication"],
                "other": idle["other"]}

    def figures(self) -> dict:
        """The figures beside the idle split (which a diagnosis' JSON holds itself): what
        `from_json` needs to decide again."""
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name not in ("idle", "window")}
        return out | {"gaps_by_cause": dict(self.idle.gaps),
                      "top_call": dict(self.idle.top_call),
                      "window": self.window.as_dict() if self.window else None}

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> DeviceTime:
        """From a diagnosis' JSON (Diagnosis.to_json): its figures and idle split."""
        figures = entry["figures"]
        names = {f.name for f in fields(cls)} - {"idle", "window"}
        idle = IdleByCause.from_dict({"device": figures["device"], **entry,
                                      "gaps_by_cause": figures.get("gaps_by_cause", {}),
                                      "top_call": figures.get("top_call", {})})
        return cls(**{k: v for k, v in figures.items() if k in names}, idle=idle,
                   window=Window.from_dict(figures.get("window")))


@dataclass
class Diagnosis:
    bound: str | None  # one of BOUNDS; None without GPU activity
    text: str
    time: DeviceTime | None  # the figures it was decided from
    devices: list[Diagnosis] = field(default_factory=list)  # one per device, when several

    def to_json(self) -> DiagnosisJson:
        """{bound, text, window {kind, name, start_ns, end_ns}, setup_ns, setup_text,
        steps_text, idle_ns, idle_by_cause {<cause>_ns}, parts {<bound>: ns}, figures
        (with the window's steps: tui/analysis/step_times.py), devices: [the same per
        device] (when the trace has several)}. The figures are the window's."""
        t = self.time
        window = t.window if t else None
        out: DiagnosisJson = {
            "bound": self.bound, "text": self.text,
            "window": ({"kind": window.kind, "name": window.name,
                        "start_ns": window.start_ns, "end_ns": window.end_ns}
                       if window else None),
            "setup_ns": window.setup_ns if window else 0,
            "setup_text": window.setup_text() if window else None,
            "steps_text": (steps_text(t.steps, window.duration_ns if window else t.span_ns)
                           if t else None),
            "idle_ns": t.idle_ns if t else 0,
            "idle_by_cause": {f"{c}_ns": (t.idle.by_cause[c] if t else 0) for c in CAUSES},
            "parts": t.parts() if t else {},
            "figures": t.figures() if t else None,
        }
        if self.devices:
            out["devices"] = [d.to_json() for d in self.devices]
        return out


class TimeSplit(NamedTuple):
    """A row of device_time_split.sql."""

    device: int
    compute_ns: int
    copy_ns: int
    comm_ns: int
    all_ns: int  # the union of everything: device_busy's busy_ns
    kernels: int
    kernel_median_ns: float | None
    comm_kernels: int
    comm_kernel_ns: int
    copies: int
    copy_bytes: int
    pageable_bytes: int
    pinned_bytes: int


def device_times(con: duckdb.DuckDBPyConnection, gaps: Sequence[Gap],
                 classified: bool = False, window: Window | None = None,
                 split: Sequence[tuple] | None = None) -> list[DeviceTime]:
    """Every device's figures, over the whole trace or within `window` (a device with no
    work in it has none); `gaps` (explained, longest first) name what the host was busy in
    while the GPU waited for it. `classified`: idle_causes holds every interval's cause
    already (idle_causes.every_interval_classified). `split`: time_split's rows, where
    the caller has them already."""
    bounds = _bounds(window)
    span = {row[0]: (row[1], row[2]) for row in con.execute(
        load_query("device_window_busy"), bounds).fetchall()}
    idle = {i.device: i for i in idle_by_cause(con, classified, **bounds)}
    # the host's work is recorded besides its ranges: its ops, or CPU samples (_host_busy_in)
    recorded = one_row(con, load_query("host_ops_recorded"))[0] or has_cpu_samples(con)
    busy_in = _host_busy_in(gaps, window, recorded)
    whole_graphs = dict(con.execute(load_query("window_whole_graphs"), bounds).fetchall())
    # the window's steps, and each device's idle inside the slow ones (needs the causes)
    steps, slow_idle = (step_figures(con, window) if window and classified
                        else (None, {}))
    out = []
    for row in map(TimeSplit._make, time_split(con, window) if split is None else split):
        if row.device not in span:
            continue
        span_ns, busy_ns = span[row.device]
        out.append(DeviceTime(
            device=row.device, span_ns=span_ns, busy_ns=busy_ns, compute_ns=row.compute_ns,
            copy_ns=row.copy_ns, comm_ns=row.comm_ns, kernels=row.kernels,
            kernel_median_ns=row.kernel_median_ns, comm_kernels=row.comm_kernels,
            copies=row.copies, copy_bytes=row.copy_bytes, pageable_bytes=row.pageable_bytes,
            pinned_bytes=row.pinned_bytes,
            idle=idle.get(row.device, IdleByCause(row.device)),
            host_busy_in=busy_in.get(row.device), window=window,
            whole_graph_ns=int(whole_graphs.get(row.device) or 0),
            steps=({**steps, "slow_idle": slow_idle.get(row.device, {})} if steps
                   else None)))
    return out


def time_split(con: duckdb.DuckDBPyConnection, window: Window | None = None) -> list[tuple]:
    """Each device's compute, copy and communication time and kernels' counts, over the
    whole trace or within `window` (device_time_split.sql: no idle interval's cause in it,
    so it may run beside their classifying). A trace of one block of ids takes its unions
    in a plan with less to it (device_time_unions_one_block.sql: the same rows)."""
    one_block = one_row(con, load_query("gpu_id_span"))[0] <= SPLIT_BLOCK_IDS
    return con.execute(split_query("device_time_unions_one_block" if one_block
                                   else "device_time_unions_blocks"), _bounds(window)).fetchall()


@cache
def split_query(unions: str) -> str:
    """device_time_split.sql with the unions of the query `unions`."""
    return fill("device_time_split", unions=fragment(unions))


def holds_all_gpu_work(con: duckdb.DuckDBPyConnection, window: Window) -> bool:
    """Whether `window` holds every GPU activity whole, so that time_split within it is
    the whole trace's (a scaled trace's profiler steps span all of its work: a second pass
    over 384,000 kernels, 0.2 CPU-s, saved)."""
    row = con.execute(load_query("window_holds_gpu_work"), _bounds(window)).fetchone()
    return bool(row and row[0])


def _bounds(window: Window | None) -> dict[str, int | None]:
    return {"start_ns": window.start_ns if window else None,
            "end_ns": window.end_ns if window else None}


def _host_busy_in(gaps: Sequence[Gap], window: Window | None = None,
                  work_recorded: bool = False) -> dict[int, str]:
    """Per device, the op or range the host was busy in over the most host-wait time
    (not the most gaps) of the gaps in `window` (numbered names such as batch_3 and
    batch_4 counted as one, batch_N). Where no gap names one, the CUDA call that held
    the most (Gap.busy_in_call: a module load, the allocator), where that is at least
    DOMINANT_SHARE of the device's host-wait time there: a kernel's module loaded in one
    step says nothing of the rest. Where the trace records the host's work besides its
    ranges (`work_recorded`: the framework's ops, torch.profiler's, where the host's work
    is in ops, not NVTX ranges a program may lack; or CPU samples, which name a compiler
    where it held the thread), a name is said only where it held at least as much of that
    time as the gaps with none did, or DOMINANT_SHARE of it: a rank that sleeps before
    each step (no op) was not busy in the forward that one longer gap saw (`ddp_whole/`:
    17% of it), nor a loop that tokenizes each batch in Python in the compile of its first
    batch's attention (`unannotated/tokenize.sqlite`: 13%)."""
    named: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    calls: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    waited: dict[int, int] = defaultdict(int)
    unnamed: dict[int, int] = defaultdict(int)
    for gap in gaps:
        ns = gap.duration_ns
        if window:  # the gap's time in the window
            ns = (min(gap.start_ns + gap.duration_ns, window.end_ns)
                  - max(gap.start_ns, window.start_ns))
        if ns <= 0 or gap.kind != "host-wait":
            continue
        waited[gap.device] += ns
        busy_in = _inside(gap.busy_in, window)
        if busy_in:
            named[gap.device][_numbered(busy_in)] += ns
        elif gap.busy_in_call:
            calls[gap.device][gap.busy_in_call] += ns
        else:
            unnamed[gap.device] += ns
    out = {}
    for device, names in named.items():
        top = max(names, key=lambda n: names[n])
        if (not work_recorded or names[top] >= unnamed[device]
                or names[top] >= DOMINANT_SHARE * waited[device]):
            out[device] = top
    for device, names in calls.items():
        top = max(names, key=lambda n: names[n])
        if device not in out and names[top] >= DOMINANT_SHARE * waited[device]:
            out[device] = top
    return out


def _numbered(name: str) -> str:
    """batch_3 and batch_4 as batch_N; a Python frame keeps its line ('train.py(42): f'),
    a built-in its name ('<built-in method write_record of … object>')."""
    if ".py(" in name or name.startswith("<built-in"):
        return name
    return re.sub(r"\d+", "N", name)


def _inside(busy_in: str | None, window: Window | None) -> str | None:
    """A gap's ranges less the window's own range and the ranges around its steps, which
    say nothing of the host's work ('host › prepare' in the window `host`: 'prepare';
    'train' in a window of the steps inside `train`: nothing)."""
    if not busy_in or window is None:
        return busy_in
    own = set(window.around) | ({window.name} if window.kind == "range" and window.name
                                else set())
    names = busy_in.split(" › ")
    while names and names[0] in own:
        names = names[1:]
    return " › ".join(names) or None


def combined(times: Sequence[DeviceTime]) -> DeviceTime:
    """The devices' figures summed (a median: the largest device's)."""
    idle = IdleByCause(-1)
    for t in times:
        idle.idle_ns += t.idle.idle_ns
        for cause in CAUSES:
            idle.by_cause[cause] += t.idle.by_cause[cause]
            idle.gaps[cause] += t.idle.gaps[cause]
        for cause, call in t.idle.top_call.items():
            idle.top_call.setdefault(cause, call)
    main = max(times, key=lambda t: t.kernels)

    def total(name: str) -> int | None:
        values = [getattr(t, name) for t in times if getattr(t, name) is not None]
        return sum(values) if values else None

    return DeviceTime(
        device=None, span_ns=sum(t.span_ns for t in times),
        busy_ns=sum(t.busy_ns for t in times), compute_ns=sum(t.compute_ns for t in times),
        copy_ns=sum(t.copy_ns for t in times), comm_ns=sum(t.comm_ns for t in times),
        kernels=sum(t.kernels for t in times), kernel_median_ns=main.kernel_median_ns,
        comm_kernels=sum(t.comm_kernels for t in times),
        copies=sum(t.copies for t in times), copy_bytes=sum(t.copy_bytes for t in times),
        pageable_bytes=sum(t.pageable_bytes for t in times),
        pinned_bytes=sum(t.pinned_bytes for t in times), idle=idle,
        host_busy_in=_busiest_host(times),
        comm_wait_ns=total("comm_wait_ns"), memory_ns=total("memory_ns"),
        dram_pct=_compute_weighted_dram(times),
        window=merged([t.window for t in times]), steps=summed([t.steps for t in times]),
        launched_as=main.launched_as, graph_kernels=sum(t.graph_kernels for t in times),
        whole_graph_ns=sum(t.whole_graph_ns for t in times),
        host_launches=(sum(t.issued for t in times)
                       if any(t.host_launches is not None for t in times) else None),
        waited_on=(GPUS if any(t.waited_on == GPUS for t in times) else main.waited_on),
        dataparallel=any(t.dataparallel for t in times))


def _compute_weighted_dram(times: Sequence[DeviceTime]) -> float | None:
    """The devices' DRAM use, each weighted by its compute time; None where none has it."""
    sampled = [t for t in times if t.dram_pct is not None]
    weight = sum(t.compute_ns for t in sampled)
    if not sampled or not weight:
        return None
    return sum((t.dram_pct or 0.0) * t.compute_ns for t in sampled) / weight


def _busiest_host(times: Sequence[DeviceTime]) -> str | None:
    """What the host was busy in, of the device that waited for its host the longest."""
    waiting = [t for t in times if t.host_busy_in]
    return (max(waiting, key=lambda t: t.idle.by_cause["host"]).host_busy_in
            if waiting else None)


# The GPU work of a trace whose kernels were dropped (an nsys export without its kernel
# table: unannotated/jax_log.sqlite, 300 steps of a jitted JAX MLP of which nsys kept one
# memset) is not the program's: a diagnosis from it would be a guess.
UNRECORDED = ("No diagnosis: the trace holds the program's CUDA calls but none of its "
              "kernels (see the warning), so what bounds the GPU cannot be told from the "
              "rest of its GPU work.")


def kernels_unrecorded(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the loader found the program's CUDA calls but no kernel table (UNRECORDED)."""
    return bool(one_row(con, load_query("kernels_unrecorded"))[0])


def trace_diagnosis(con: duckdb.DuckDBPyConnection, work: Sequence[DeviceTime],
                    advice_format: str | None = None) -> Diagnosis:
    """diagnose() of a trace's figures `work`, in its framework's words (`advice_format`,
    else source_format's), with no bound where its kernels went unrecorded."""
    return diagnose(work, advice_format or source_format(con),
                    unrecorded=kernels_unrecorded(con))


def _unrecorded(entry: Mapping[str, Any] | None) -> bool:
    """Whether a diagnosis' JSON says its trace's kernels went unrecorded (UNRECORDED)."""
    return entry is not None and entry.get("text") == UNRECORDED


def decide(t: DeviceTime) -> str | None:
    """The bound of one device (or of devices summed); None without a span."""
    if t.span_ns <= 0:
        return None
    if t.device is not None and t.comm_wait_ns and t.comm_wait_ns >= WAIT_MOST * t.span_ns:
        return "communication"  # a rank held up by the others: its steps end with theirs
    if t.compute_ns >= COMPUTE_MOST * t.span_ns:
        return "memory" if _ncu_memory(t) or _dram_near_peak(t) else "compute"
    # computing under half the time, the GPU is held back: by the largest other part
    parts = {b: ns for b, ns in t.parts().items() if b != "compute"}
    return max(parts, key=lambda b: (parts[b], -BOUNDS.index(b)))


def diagnose(times: Sequence[DeviceTime], source_format: str | None = None,
             subject: str | None = None, remedies: dict[str, str] | None = None,
             unrecorded: bool = False) -> Diagnosis:
    """The diagnosis of a trace (or a rank: `subject` e.g. "rank 1's GPU"): one sentence
    for its devices together, and one per device when there are several. `unrecorded`:
    the trace holds the program's CUDA calls but none of its kernels (kernels_unrecorded):
    without a kernel, no bound is said."""
    if unrecorded and not any(t.kernels for t in times):  # no figures: none to decide from
        return Diagnosis(None, UNRECORDED, None)
    if not times:
        return Diagnosis(None, "No GPU activity: nothing bounds the GPU in this trace.", None)
    per_device = ([_one(t, source_format, subject, remedies) for t in times]
                  if len(times) > 1 else [])
    whole = times[0] if len(times) == 1 else combined(times)
    top = _one(whole, source_format, subject, remedies)
    if per_device and len({d.bound for d in per_device}) > 1:
        top.text += " By GPU: " + "; ".join(
            f"GPU {d.time.device} {d.bound}" for d in per_device if d.time) + "."
    top.devices = per_device
    return top


def _one(t: DeviceTime, source_format: str | None, subject: str | None,
         remedies: dict[str, str] | None = None) -> Diagnosis:
    """`remedies`: what to do per bound where it differs from remedies.py (a run's parallelism)."""
    bound = decide(t)
    if bound is None:
        return Diagnosis(None, "No GPU activity: nothing bounds the GPU in this trace.", t)
    who = subject or ("the GPUs" if t.device is None else f"GPU {t.device}")
    its = "their" if who.endswith("GPUs") else "its"
    advice = ((remedies or {}).get(bound)
              or remedy(bound, t.host_busy_in, source_format, t.launched_as, t.waited_on,
                        t.dataparallel, pinned=2 * t.pinned_bytes >= t.copy_bytes > 0))
    where = f" {t.window.phrase(source_format)}" if t.window else ""
    context = ("" if bound in ("compute", "memory") else
               f"; {'they' if its == 'their' else 'it'} computed "
               f"{_pct(t.compute_ns, t.span_ns)}")
    slow = ("" if bound in ("compute", "memory") else
            in_slow_steps(t.steps, bound, t.parts()[bound]))
    if slow and t.steps and t.steps.get("slow_first"):  # the loss is mostly warm-up
        advice = WARM_UP
    elif slow and t.steps and not (remedies or {}).get(bound) and host_work(
            t.host_busy_in) is None:  # the loss is in a few steps, and nothing says why
        advice = SLOW_STEPS.format(does="it does" if t.steps["slow"] == 1 else "they do")
    title = (_OTHER_TITLE[t.waited_on] if bound == "other" and t.waited_on in _OTHER_TITLE
             else _TITLE[bound])
    return Diagnosis(bound, f"{title}{where}: {_EVIDENCE[bound](t, who, its)}"
                            f"{slow}{context}; {advice}.", t)


def _pct(ns: int, of: int) -> str:
    return f"{100 * ns / of:.0f}%" if of else "-"


def _of_span(ns: int, t: DeviceTime, its: str) -> str:
    return f"{_pct(ns, t.span_ns)} of {its} {format_ns(t.span_ns)}"


def _rate(count: int, ns: int) -> str:
    per_s = count * 1e9 / ns if ns else 0.0
    return f"{per_s / 1000:.0f}k/s" if per_s >= 1000 else f"{per_s:.0f}/s"


def _compute(t: DeviceTime, who: str, its: str) -> str:
    median = (f" of {format_ns(round(t.kernel_median_ns))} median"
              if t.kernel_median_ns is not None else "")
    waited = (f"; {its} NCCL kernels waited {format_ns(t.comm_wait_ns)} for other ranks"
              if t.comm_wait_ns else "")
    # a graph traced whole is busy from its start to its end: what its kernels left idle
    # inside it is counted as compute
    whole = (f"; {_pct(t.whole_graph_ns, t.compute_ns)} of that time in CUDA graphs traced "
             "whole, busy from start to end whatever their own kernels left idle: record "
             "with --cuda-graph-trace=node to see them"
             if t.whole_graph_ns >= WHOLE_GRAPHS_SAID * t.compute_ns > 0 else "")
    return (f"{who} ran compute kernels {_of_span(t.compute_ns, t, its)} "
            f"({t.kernels:,} kernels{median}{waited}{whole})")


def _ncu_memory(t: DeviceTime) -> bool:
    """Nsight Compute's memory verdict on MEMORY_MOST of the compute time (with_ncu)."""
    return bool(t.compute_ns) and (t.memory_ns or 0) >= MEMORY_MOST * t.compute_ns


def _dram_near_peak(t: DeviceTime) -> bool:
    """The hardware counters' DRAM use over the window at DRAM_NEAR_PEAK or more: the
    kernels that keep the GPU busy move bytes at the memory's limit (fp32 LayerNorms and
    element-wise ops: `unannotated/bandwidth_small.sqlite`, 84%)."""
    return t.dram_pct is not None and t.dram_pct >= DRAM_NEAR_PEAK


def _memory(t: DeviceTime, who: str, its: str) -> str:
    if _ncu_memory(t):
        return (_compute(t, who, its) + ", and Nsight Compute puts "
                f"{_pct(t.memory_ns or 0, t.compute_ns)} of that time in kernels at their "
                "memory ceiling")
    return (_compute(t, who, its) + f", DRAM at {t.dram_pct:.0f}% of its peak bandwidth "
            "(read + write) by the GPU's counters")


def _launch(t: DeviceTime, who: str, its: str) -> str:
    median = (f" of {format_ns(round(t.kernel_median_ns))} median"
              if t.kernel_median_ns is not None else "")
    ns = t.idle.by_cause["launch"]
    # kernels of graphs traced by node: each an activity, the replay one launch for them
    replayed = (f"{t.graph_kernels:,} of them run by CUDA graphs' replays; "
                if t.issued < t.kernels + t.copies else "")
    return (f"{who} idled {_of_span(ns, t, its)} ({format_ns(ns)}) between back-to-back "
            f"launches of {t.kernels:,} kernels{median} ({replayed}issue rate "
            f"{_rate(t.issued, t.span_ns)} on the host)")


def _host(t: DeviceTime, who: str, its: str) -> str:
    ns = t.idle.by_cause["host"]
    work = host_work(t.host_busy_in)
    busy = (f"; the host busy most in {t.host_busy_in}" + (f": {work.what}" if work else "")
            if t.host_busy_in else "")
    return (f"{who} idled {_of_span(ns, t, its)} ({format_ns(ns)}) waiting for the host to "
            f"issue work ({t.idle.gaps['host']:,} gaps{busy})")


def _sync(t: DeviceTime, who: str, its: str) -> str:
    ns = t.idle.by_cause["sync"]
    call = t.idle.top_call.get("sync")
    return (f"{who} idled {_of_span(ns, t, its)} ({format_ns(ns)}) after "
            f"{t.idle.gaps['sync']:,} synchronisations, the host waiting on it"
            + (f" (most in {call})" if call else ""))


def _copy(t: DeviceTime, who: str, its: str) -> str:
    staged = t.idle.by_cause["copy"]
    moved = (f"; {t.copies:,} copies, {format_bytes(t.copy_bytes)}" if t.copies else "")
    if t.pageable_bytes:
        moved += (", all of it" if t.pageable_bytes == t.copy_bytes else
                  f", {format_bytes(t.pageable_bytes)} of it") + " to or from pageable memory"
    return (f"{who} spent {format_ns(t.copy_ns)} copying with no compute beside it and "
            f"idled {format_ns(staged)} while the host staged copies "
            f"({_of_span(t.copy_ns + staged, t, its)}{moved})")


def _communication(t: DeviceTime, who: str, its: str) -> str:
    blocked = t.idle.by_cause["communication"]
    more = [f"{format_ns(t.comm_wait_ns)} of the NCCL kernels' time waiting for other ranks"
            ] if t.comm_wait_ns else []
    if blocked:
        more.append(f"and idled {format_ns(blocked)} while the host was in a collective")
    return (f"{who} spent {format_ns(t.comm_ns)} in NCCL kernels with no compute beside "
            f"them ({_of_span(t.comm_ns, t, its)}" + "".join(f"; {m}" for m in more) + ")")


def _other(t: DeviceTime, who: str, its: str) -> str:
    ns = t.idle.by_cause["other"]
    idled = f"{who} idled {_of_span(ns, t, its)} ({format_ns(ns)}) with {its} next work"
    if t.waited_on == GPUS:
        return (f"{idled} already queued, waiting on work another GPU hands on (copies "
                "pass between the GPUs: each waits while another runs its part)")
    if t.waited_on == STREAMS:
        return f"{idled} already queued, waiting on another stream's work or an event"
    return (f"{idled} already queued (a wait on another stream or an event) or with no "
            "host call linked to it")


_EVIDENCE = {"compute": _compute, "memory": _memory, "launch": _launch, "host": _host,
             "sync": _sync, "copy": _copy, "communication": _communication,
             "other": _other}


def breakdown_text(t: DeviceTime) -> str:
    """'idle 1.04 s of 1.46 s: launch 1.00 s, host 30.0 ms, sync 10.0 ms' (causes with
    time, largest first; they add up to the idle time)."""
    parts = sorted(((ns, c) for c, ns in t.idle.by_cause.items() if ns), reverse=True)
    listed = ", ".join(f"{c} {format_ns(ns)}" for ns, c in parts)
    return (f"idle {format_ns(t.idle_ns)} of {format_ns(t.span_ns)}"
            + (f": {listed}" if listed else ""))


def with_ncu(diagnosis: DiagnosisJson, ncu: dict,
             source_format: str | None = None) -> DiagnosisJson:
    """The diagnosis JSON decided again with an attached Nsight Compute report's verdicts
    (`tui TRACE --ncu REPORT`): the trace kernels that a profiled launch matched count as
    memory-bound when its verdict is memory (each trace kernel once)."""
    memory_ns = _memory_ns(ncu)
    if not memory_ns or not diagnosis.get("figures"):
        return diagnosis
    entries = diagnosis.get("devices") or [diagnosis]
    times = [replace(DeviceTime.from_json(e), memory_ns=memory_ns) for e in entries]
    return diagnose(times, source_format).to_json()


def _memory_ns(ncu: dict) -> int:
    verdicts = {k["launch_id"]: k.get("verdict") for k in ncu.get("kernels", [])}
    memory: dict[tuple, int] = {}
    for match in ncu.get("matches", []):
        if match.get("status") != "matched" or verdicts.get(match["launch_id"]) != "memory":
            continue
        for c in match.get("candidates", []):
            key = (c["name"], tuple(c["grid"]), tuple(c["block"]))
            memory[key] = c.get("total_duration_ns") or 0
    return sum(memory.values())


def rank_diagnosis(entry: dict | None, rank: int, wait_ns: int | None,
                   source_format: str | None = None,
                   kinds: Sequence[str] = (), host_first: bool = False,
                   advice: Mapping[str, str] | None = None) -> DiagnosisJson | None:
    """One rank's diagnosis (JSON) decided again over the run: with how long its NCCL
    kernels waited for the other ranks (`wait_ns`, tui.analysis.ranks), said of
    "rank R's GPU". `entry` is the rank's own diagnosis JSON (rank_summary); `kinds`,
    `host_first` and `advice` as run_diagnosis takes them."""
    if _unrecorded(entry):  # no kernel to decide a bound from
        return entry  # type: ignore[return-value]  # the rank's own, as its summary said it
    times = _times(entry)
    if times is None:
        return None
    talking = next((t for t in times if t.comm_kernels), None)
    if talking is not None and wait_ns:
        talking.comm_wait_ns = wait_ns
    subject = f"rank {rank}'s GPU" if len(times) == 1 else f"rank {rank}'s GPUs"
    return diagnose(times, source_format, subject,
                    _parallel_remedies(kinds, host_first, advice)).to_json()


def run_diagnosis(by_rank: dict[int, dict | None], source_format: str | None = None,
                  stragglers: Sequence[int] = (), wait_ns: int = 0,
                  kinds: Sequence[str] = (), parallel_text: str = "",
                  host_first: bool = False,
                  advice: Mapping[str, str] | None = None) -> DiagnosisJson:
    """The diagnosis of a run (JSON). `by_rank`: rank_diagnosis() of each rank. With
    stragglers (the ranks the others wait for in collectives, `wait_ns`: how long they waited
    for them, in the collectives they arrived at last), the run is
    bound by what bounds the first of them; else by every rank's devices summed. Each
    rank's bound is named when they differ. `kinds`: the run's kinds of parallelism
    (tui/analysis/parallelism.py), whose advice replaces the data-parallel one where the
    run is communication-bound, and a pipeline's comes first where its GPUs idle waiting
    (host, sync: the bubbles) unless `host_first` (every stage idles far beyond its
    schedule's bubble: the host's own remedy fits); `parallel_text` says them, after the
    verdict; `advice`: each kind's advice where the run's groups have their own
    (parallelism.advice_by_kind: sequence parallelism's, XLA's), else the kind's."""
    remedies = _parallel_remedies(kinds, host_first, advice)
    times = {rank: t for rank, entry in by_rank.items() if (t := _times(entry))}
    if not times:
        unrecorded = any(_unrecorded(e) for e in by_rank.values())
        return Diagnosis(None, UNRECORDED if unrecorded else
                         "No GPU activity: nothing bounds the GPUs of this run.", None).to_json()
    bounds = {rank: by_rank[rank]["bound"]  # type: ignore[index]  # in times: not None
              for rank in times}
    slow = [rank for rank in stragglers if rank in times]
    if slow:
        first = times[slow[0]]
        named = (f"rank {slow[0]}" if len(slow) == 1 else
                 f"ranks {', '.join(map(str, slow[:8]))}{', …' if len(slow) > 8 else ''}")
        subject = f"{named}'s GPU" if len(first) == 1 else f"{named}'s GPUs"
        whole = first[0] if len(first) == 1 else combined(first)
        top = _one(whole, source_format, subject, remedies)
        held = (f"The run waits for its straggler{'s' if len(slow) > 1 else ''}, {named}: "
                f"the other ranks' NCCL kernels waited {format_ns(wait_ns)} for "
                f"{'them' if len(slow) > 1 else 'it'}. ")
        top.text = held + top.text
    else:
        whole = combined([t for ts in times.values() for t in ts])
        only = next(iter(times.items())) if len(times) == 1 else None  # others had none
        subject = (f"rank {only[0]}'s GPU{'s' if len(only[1]) > 1 else ''}" if only
                   else f"the {len(times)} ranks' GPUs")
        top = _one(whole, source_format, subject, remedies)
    if len(set(bounds.values())) > 1:
        top.text += " By rank: " + "; ".join(f"{r} {b}" for r, b in sorted(bounds.items())) + "."
    if parallel_text:
        top.text += " " + parallel_text
    return top.to_json()


def _parallel_remedies(kinds: Sequence[str], host_first: bool = False,
                       advice: Mapping[str, str] | None = None) -> dict[str, str]:
    """The remedies a run's kinds of parallelism call for, by bound (none for a run of
    PyTorch's data parallelism alone: remedies.py's are its; an XLA program's data
    parallelism gets its own); a pipeline's first where its GPUs wait on the host, unless
    `host_first`; each kind's from `advice` where given."""
    said = {k: (advice or {}).get(k) or ADVICE[k] for k in kinds}
    if not kinds or said == {"data": ADVICE["data"]}:  # remedies.py's are DDP's own
        return {}
    out = {"communication": "; ".join(said.values())}
    if "pipeline" in kinds and not host_first:  # a stage idles waiting for its neighbour
        out["host"] = f"{said['pipeline']}; then {remedy('host')}"
        out["sync"] = f"{said['pipeline']}; then {remedy('sync')}"
    return out


def _times(entry: dict | None) -> list[DeviceTime] | None:
    """The device figures a diagnosis' JSON was decided from; None without any."""
    if not entry or not entry.get("figures"):
        return None
    return [DeviceTime.from_json(e) for e in entry.get("devices") or [entry]]


def gaps_and_times(con: duckdb.DuckDBPyConnection, min_gap_ns: int,
                   ) -> tuple[list[Gap], list[DeviceTime]]:
    """The gaps over `min_gap_ns`, explained, and every device's figures over the whole
    trace, with every idle interval classified once for both."""
    with every_interval_classified(con):
        gaps = explained_gaps(con, min_gap_ns, classified=True)
        return gaps, device_times(con, gaps, classified=True)


def gaps_and_work(con: duckdb.DuckDBPyConnection, min_gap_ns: int,
                  window: Window | None = None, side_by_side: bool = False,
                  ) -> tuple[list[Gap], list[DeviceTime], list[DeviceTime]]:
    """The gaps over `min_gap_ns` (explained), every device's figures over the whole trace
    (for the findings, beside NVIDIA's rules) and within the window of work (for the
    diagnosis: tui/analysis/window.py; `window`: its work_window, where the caller has
    it already), with every idle interval classified once. `side_by_side`: the devices'
    time splits on cursors of their own beside the classifying (tui.analysis.beside; a
    cursor reads the database's default schema, not one `USE` points `con` at)."""
    window = window or work_window(con)
    with Beside(con, side_by_side) as beside:  # the splits need no cause
        whole_split = beside.start(time_split)
        work_split = (whole_split if window is not None and holds_all_gpu_work(con, window)
                      else beside.start(lambda cur: time_split(cur, window) if window else []))
        with every_interval_classified(con):
            gaps = explained_gaps(con, min_gap_ns, classified=True)
            whole = device_times(con, gaps, classified=True, split=whole_split())
            work = (device_times(con, gaps, classified=True, window=window,
                                 split=work_split()) if window else [])
        # a window without GPU work in it (profiler steps the GPU ran nothing in) says
        # nothing: the whole trace is judged instead
        return gaps, whole, with_waits(con, work or whole)


def gaps_and_work_only(con: duckdb.DuckDBPyConnection, min_gap_ns: int,
                       ) -> tuple[list[Gap], list[DeviceTime]]:
    """gaps_and_work's gaps and figures within the window of work, without the whole
    trace's where the window has work (what a rank of a run keeps: no findings of its own)."""
    window = work_window(con)
    with every_interval_classified(con):
        gaps = explained_gaps(con, min_gap_ns, classified=True)
        work = device_times(con, gaps, classified=True, window=window) if window else []
        return gaps, with_waits(con, work or device_times(con, gaps, classified=True))


def with_waits(con: duckdb.DuckDBPyConnection,
               times: list[DeviceTime]) -> list[DeviceTime]:
    """`times` with what a launch-bound device's launches were (with_launch_means) and
    what an other-bound device's queued work waited for (with_queued_waits), and whether
    DataParallel drove the devices (with_dataparallel)."""
    return with_dataparallel(con, with_queued_waits(con, with_launch_means(con, times)))


def with_dataparallel(con: duckdb.DuckDBPyConnection,
                      times: list[DeviceTime]) -> list[DeviceTime]:
    """`times`, where several devices are and one is bound by what DataParallel costs
    (DATAPARALLEL_BOUNDS), with the devices a DataParallel process drove in the window
    (tui/analysis/dataparallel.py); asked only then."""
    if len(times) < 2 or not _bound_by(times, DATAPARALLEL_BOUNDS):
        return times
    driven = dataparallel_devices(con, **_bounds(times[0].window))
    return [replace(t, dataparallel=True) if t.device in driven else t for t in times]


def with_queued_waits(con: duckdb.DuckDBPyConnection,
                      times: list[DeviceTime]) -> list[DeviceTime]:
    """`times`, where a device (or the devices together) is other-bound, with what each
    device's queued work waited for in the window (queued_waits); asked only then."""
    if not times or not _bound_by(times, ("other",)):
        return times
    waits = queued_waits(con, **_bounds(times[0].window))
    return [replace(t, waited_on=waits.get(t.device)) if t.device is not None else t
            for t in times]


def _bound_by(times: list[DeviceTime], bounds: Sequence[str]) -> bool:
    """Whether a device of `times`, or the devices together, is bound by one of `bounds`."""
    return any(decide(t) in bounds for t in (*times, combined(times)))


def with_launch_means(con: duckdb.DuckDBPyConnection,
                      times: list[DeviceTime]) -> list[DeviceTime]:
    """`times`, where a device is launch-bound, with how the kernels of its window were
    made and launched (launch_means.launched_as: its remedy depends on it) and what CUDA
    graphs' replays ran (its issue rate counts a replay once); asked only then, as it
    reads every kernel of the window."""
    bound = next((t for t in times if decide(t) == "launch"), None)
    if bound is None:
        return times
    how = launched_as(con, **_bounds(bound.window))
    replays = graph_replays(con, **_bounds(bound.window))
    return [_with_replays(replace(t, launched_as=how) if how else t,
                          replays.get(t.device) if t.device is not None else None)
            for t in times]


def _with_replays(t: DeviceTime, replays: GraphReplays | None) -> DeviceTime:
    """`t` with what CUDA graphs' replays ran on its device, where they ran any."""
    if replays is None:
        return t
    return replace(t, graph_kernels=replays.kernels,
                   host_launches=t.kernels + t.copies - replays.activities + replays.launches)
