"""A trace's diagnosis with what the summary and the app both say beside its figures: the
bound decided again with the GPUs' hardware counters (a busy GPU whose DRAM ran near its
peak over the window is memory-bound), what the launching thread waited for where the
host held the GPU up (its CPU samples on other threads), where the waited-on host was
(`host_where`) and where the launching thread was in the set-up (`setup_where`).

One function for `tui --summary`, a run's rank summaries and the app's Findings tab, so
that each reads the same sentence."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import duckdb

from tui.analysis.diagnosis import DeviceTime, Diagnosis, decide, trace_diagnosis
from tui.analysis.gaps import Gap, has_cpu_samples
from tui.analysis.gpu_metrics import dram_by_device, metric_devices, window_means
from tui.analysis.host_samples import HostActivity, range_host_activity
from tui.analysis.summary_types import MetricMeans
from tui.analysis.window import Window


@dataclass
class Told:
    """A diagnosis and what is said beside it."""

    diagnosis: Diagnosis
    over: list[MetricMeans] | None  # the counters' means over its window (None: none)
    host_where: str  # host-bound: where the waited-on host was ('' where unknown)
    setup_where: str  # where the launching thread was in the set-up told apart ('')


def told_diagnosis(con: duckdb.DuckDBPyConnection, work: Sequence[DeviceTime],
                   gaps: Sequence[Gap], host: Callable[[], HostActivity | None],
                   advice_format: str | None = None) -> Told:
    """The diagnosis of `work` (trace_diagnosis) told with the host's samples and the GPUs'
    counters. `host()`: the host's activity over every gap (gaps_host_activity), asked
    only where a device waited on its host most."""
    work = list(work)
    window = _described(work)
    waited_on = (window_host(con, host(), gaps, window)
                 if any(decide(t) == "host" for t in work) else None)
    elsewhere = waited_on.busy_elsewhere() if waited_on else None
    if elsewhere:  # the launching thread waited on others, and nothing else says for what
        work = [t if t.host_busy_in else replace(t, host_busy_in=elsewhere) for t in work]
    diagnosis, over = _counted(con, work, advice_format)
    where = waited_on.where() if waited_on and diagnosis.bound == "host" else ""
    return Told(diagnosis, over, where, setup_where(con, diagnosis))


def _described(work: Sequence[DeviceTime]) -> Window | None:
    """The window the diagnosis of `work` describes (its first device's, as diagnose's)."""
    return next((t.window for t in work if t.window), None)


def _counted(con: duckdb.DuckDBPyConnection, work: list[DeviceTime],
             advice_format: str | None) -> tuple[Diagnosis, list[MetricMeans] | None]:
    """The diagnosis, and the counters over the window it describes of the devices that
    ran its work there (none: no counters): a GPU kept busy with DRAM near its peak there
    is memory-bound, so it is decided again with each device's DRAM use."""
    diagnosis = trace_diagnosis(con, work, advice_format)
    window = diagnosis.time.window if diagnosis.time else None
    if window is None or not metric_devices(con):
        return diagnosis, None
    ran = {t.device for t in work if t.device is not None}
    over = window_means(con, window.start_ns, window.end_ns, ran)
    use = dram_by_device(over)
    if use:
        work = [replace(t, dram_pct=use.get(t.device) if t.device is not None else None)
                for t in work]
        diagnosis = trace_diagnosis(con, work, advice_format)
    return diagnosis, over


def setup_where(con: duckdb.DuckDBPyConnection, diagnosis: Diagnosis) -> str:
    """Where the launching thread was in the set-up the diagnosis tells apart (its
    setup_text), from the trace's CPU samples: multi-scale training under cuDNN's benchmark
    mode spent 28 s of its 30 compiling each new size's kernels (NVRTC), 43 steps of 18 ms
    after it (`unannotated/multiscale.sqlite`); '' without samples or a set-up said."""
    window = diagnosis.time.window if diagnosis.time else None
    if window is None or not window.setup_text() or not has_cpu_samples(con):
        return ""
    host = range_host_activity(con, [(window.start_ns - window.setup_ns, window.start_ns)])
    return host.where() if host is not None and host.unit == "samples" else ""


def window_host(con: duckdb.DuckDBPyConnection, host: HostActivity | None,
                gaps: Sequence[Gap], window: Window | None) -> HostActivity | None:
    """The host's activity in the gaps inside the window of work (clipped to it), where
    the window leaves out some of the gaps and the trace has CPU samples (a whole
    program's set-up: its compiles, its imports); else `host`, over every gap."""
    if host is None or host.unit != "samples" or window is None:
        return host
    inside = [(max(g.start_ns, window.start_ns), min(g.start_ns + g.duration_ns, window.end_ns))
              for g in gaps]
    inside = [(start, end) for start, end in inside if end > start]
    if len(inside) == len(gaps) or not inside:
        return host
    return range_host_activity(con, inside)
