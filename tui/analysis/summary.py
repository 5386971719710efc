"""The headless summary of a trace, as the dict behind `tui --summary --json`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TypeVar

import duckdb

from tui.analysis.beside import Beside, side_by_side
from tui.analysis.code import code_source, frame_times, unattributed
from tui.analysis.code_hlo import op_path_rows
from tui.analysis.diagnosis import (
    gaps_and_work,
    gaps_and_work_only,
)
from tui.analysis.diagnosis_context import Told, told_diagnosis
from tui.analysis.distributed import trace_figures
from tui.analysis.distributed.findings import distributed_findings
from tui.analysis.distributed.idle import gap_classes
from tui.analysis.distributed.memo import cached_figures
from tui.analysis.findings import findings
from tui.analysis.flops import flops_summary
from tui.analysis.framework import source_format
from tui.analysis.gaps import has_cpu_samples
from tui.analysis.gpu_metrics import (
    gpu_metrics_summary,
    metric_devices,
    with_metrics_phrase,
)
from tui.analysis.host_samples import HostActivity, gaps_host_activity
from tui.analysis.kernels import device_busy, kernel_stats
from tui.analysis.memory import memory_peaks
from tui.analysis.row_sets import GapRows, RowSet, add_offsets
from tui.analysis.shared_devices import shared_phrase
from tui.analysis.summary_types import (
    CodeAndMemory,
    GpuMetrics,
    Source,
    SourceMetaKey,
    TraceSummary,
)
from tui.analysis.summary_types import Diagnosis as DiagnosisJson
from tui.analysis.summary_types import Finding as FindingJson
from tui.analysis.tensor_cores import gemm_tensor_cores, matrix_kernels, with_matrix_phrase
from tui.analysis.window import work_window
from tui.analysis.xla_ops import command_buffer_stats, xla_module_stats, xla_op_stats
from tui.core.budget import budget_of, memory_budget
from tui.core.db import SUMMARY_SHARE, duckdb_share_of, one_row, twice_the_budget_if_short
from tui.core.queries import load_query
from tui.loading.trace import Trace, keeps_whole_share

S = TypeVar("S")
# what the trace's metadata may add to `source`: its rank and tools' versions; for XLA
# profiles which file of which run
_META_KEYS: tuple[SourceMetaKey, ...] = (
    "rank", "world_size", "nsys_product_version", "export_product_version",
    "cuda_runtime_version", "cuda_driver_version", "xla_form", "run", "host", "hlo_source")


def trace_summary(trace: Trace, min_gap_ns: int) -> TraceSummary:
    """Source, the diagnosis (what bounds the run, its idle time by cause: see
    tui.analysis.diagnosis), devices, every kernel name, every gap over the threshold,
    findings (each
    {rule, severity, text, cost_ns, rows}, most costly first), {rule: why} for the rules
    the trace could not be checked against, GPU time by Python frame and memory peaks
    (where the trace has stacks and memory). The gaps and the rules' rows are RowSets:
    write the summary out with tui.views.reports.json_stream."""
    return _within_budget(trace, lambda: _summary(trace, min_gap_ns))


def _within_budget(trace: Trace, sum_up: Callable[[], S]) -> S:
    """sum_up() with DuckDB at the summary's share of the budget the trace was loaded with
    (the gaps and rule rows, hundreds of MB on a big trace, are held in Python beside it);
    one that outgrew it is tried once more with twice the budget, with a warning, as a
    load is (db.twice_the_budget_if_short)."""
    def at_share() -> S:
        if keeps_whole_share(trace.path):  # its rows take little beside DuckDB
            return sum_up()
        with duckdb_share_of(trace.con, SUMMARY_SHARE):
            return sum_up()

    with _loaded_budget(trace):
        summary, _larger = twice_the_budget_if_short(
            at_share, trace.warnings, "summing up", "summed up", f"{trace.path}: summing it up")
    return summary


def _loaded_budget(trace: Trace) -> contextlib.AbstractContextManager[None]:
    """The budget the trace was loaded with, where the load needed a larger one than given:
    its summary needs no less."""
    return budget_of(trace.budget) if trace.budget else contextlib.nullcontext()


def rank_summary(trace: Trace, min_gap_ns: int) -> dict:
    """What a run of many traces (or a diff of two) keeps of each trace's own summary: its
    devices, its gaps (explained, as in trace_summary), its diagnosis (decided again over
    the run, with the rank's NCCL waits), its warnings and its distributed figures
    (tui/analysis/distributed: ~30 ms on a DDP rank, kept beside its cache or in its
    converted store for the next run). The kernels and
    findings are worked out over the traces together, so none is worked out here: 30 ms
    instead of 70 on a DDP rank, 0.11 s instead of 0.24 on a 700 MB trace."""
    return _within_budget(trace, lambda: _rank_summary(trace, min_gap_ns))


def _rank_summary(trace: Trace, min_gap_ns: int) -> dict:
    con = trace.con
    devices = device_busy(con)
    gaps, work = gaps_and_work_only(con, min_gap_ns)
    advice_format = source_format(con)  # 'xla' for an XLA program under nsys: its words
    # where its host was, from CPU samples alone: a store (tui convert) keeps neither them
    # nor the Python frames, and a run of stores reads as the run of their traces
    told = told_diagnosis(con, work, gaps, lambda: (gaps_host_activity(con, min_gap_ns)
                                                    if has_cpu_samples(con) else None),
                          advice_format)
    origin = one_row(con, load_query("trace_origin"))[0]
    return {"devices": [d.as_dict() for d in devices], "gaps": GapRows(gaps, origin),
            "diagnosis": _said(told), "advice_format": advice_format,
            "warnings": list(trace.warnings),
            "distributed": cached_figures(con, trace.cache_path, trace.store_dir),
            "gpu_metrics": _rank_counters(con, min_gap_ns)}


def _said(told: Told) -> DiagnosisJson:
    """The diagnosis' JSON with where the host was beside it, where known: `host_where`
    (host-bound: where the waited-on host was) and `setup_where` (in the set-up)."""
    out = told.diagnosis.to_json()
    if told.host_where:
        out["host_where"] = told.host_where
    if told.setup_where:
        out["setup_where"] = told.setup_where
    return out


def _rank_counters(con: duckdb.DuckDBPyConnection, min_gap_ns: int) -> GpuMetrics | None:
    """The rank's GPU hardware counters (gpu_metrics_summary; a rank of a multi-process
    report: its own GPU's), None without any. Its kernels are ranked here only where
    there are counters to take their means of."""
    if not metric_devices(con):
        return None
    return gpu_metrics_summary(con, min_gap_ns, [k.name for k in kernel_stats(con)])


def _summary(trace: Trace, min_gap_ns: int) -> TraceSummary:
    on = side_by_side()
    with Beside(trace.con, on) as beside:
        # each needs nothing from the rest: beside them, from 4 cores (tui.analysis.beside)
        figures = beside.start(trace_figures)
        host_activity = beside.start(lambda cur: gaps_host_activity(cur, min_gap_ns))
        return _summed_up(trace, min_gap_ns, on, figures, host_activity)


def _summed_up(trace: Trace, min_gap_ns: int, on: bool, figures: Callable[[], dict],
               host_activity: Callable[[], HostActivity | None]) -> TraceSummary:
    con = trace.con
    # first, while few Python objects are held
    code_memory = code_and_memory(con)
    devices = device_busy(con)
    kernels = kernel_stats(con)
    window = work_window(con)  # for the diagnosis and the FLOPs alike
    gaps, times, work = gaps_and_work(con, min_gap_ns, window, side_by_side=on)
    host = host_activity()
    span = con.execute(load_query("trace_span")).fetchone() or (None, None)
    origin = one_row(con, load_query("trace_origin"))[0]
    meta = dict(con.execute("SELECT key, value FROM trace_meta").fetchall())
    source: Source = {
        "path": str(trace.path),
        "format": trace.format,
        "first_ns": span[0],
        "last_ns": span[1],
        "span_ns": (span[1] - span[0]) if span[0] is not None else 0,
        "origin_ns": origin,
        "from_cache": trace.from_cache,
        "cache_note": trace.cache_note,
        "min_gap_ns": min_gap_ns,
        "memory_budget": memory_budget(),  # what the figures were worked out under
    }
    for key in _META_KEYS:
        if key in meta:
            source[key] = meta[key]
    matrix = matrix_kernels(con)
    found, skipped = findings(con, devices, kernels, gaps, min_gap_ns, source["span_ns"],
                              times, matrix, work=work)
    # the trace as one rank of a distributed run (HTA's figures): rank 0 unless it says
    rank = {"rank": int(meta["rank"]) if str(meta.get("rank", "")).isdigit() else 0,
            **figures(), "gap_classes": gap_classes(GapRows(gaps, origin))}
    found += distributed_findings([rank], run=False)
    gap_rows = GapRows(gaps, origin)
    counters = gpu_metrics_summary(con, min_gap_ns, [k.name for k in kernels])
    told = told_diagnosis(con, work, gaps, lambda: host)
    rank["diagnosis"] = with_metrics_phrase(_said(told), counters, told.over)
    if counters is None:  # no Tensor Active: the kernels' names say where the math ran
        rank["diagnosis"] = with_matrix_phrase(rank["diagnosis"], matrix)
    shared = next((f for f in found if f.rule == "shared_gpu"), None)
    if shared is not None:  # several processes' work on one GPU: no figure is one's own
        rank["diagnosis"]["shared_text"] = shared_phrase(shared)
    summary: TraceSummary = {
        "source": source,
        "diagnosis": rank["diagnosis"],
        "devices": [d.as_dict() for d in devices],
        "kernels": [k.as_dict() for k in kernels],
        "gaps": gap_rows,
        "findings": [_with_offsets(f.to_json(), origin, gap_rows) for f in found],
        "rules_not_checked": skipped,
        "warnings": list(trace.warnings),
        "ranks": [rank],
        "host_samples": host.as_dict() if host else None,
        "gemm_tensor_cores": gemm_tensor_cores(matrix, sum(k.total_ns for k in kernels)),
        **code_memory,
    }
    if counters is not None:  # the GPUs' hardware counters (nsys --gpu-metrics-devices)
        if told.over:  # where the diagnosis's figures come from, beside the busy span's
            counters["window"] = told.over
        summary["gpu_metrics"] = counters
    flops = flops_summary(con, window)
    if flops is not None:  # Kineto with_flops / record_shapes
        summary["flops"] = flops
    if trace.format == "xla":  # GPU time per HLO op and module, as XProf's op profile
        summary["xla_ops"] = xla_op_stats(con)
        summary["xla_modules"] = xla_module_stats(con)
        summary["xla_command_buffers"] = command_buffer_stats(con)
    return summary


def code_and_memory(con: duckdb.DuckDBPyConnection) -> CodeAndMemory:
    """`code`: every frame that launched GPU work, by gpu_ns; `memory`: GPU peaks;
    `host_memory`: the host allocator's; `code_user`: which frames are the user's own;
    `code_unattributed`: GPU work with no frame; `code_source`: 'python' (Python frames),
    'cuda_backtrace' (an nsys report's native CUDA API backtraces), 'nvtx' (NVTX ranges stand
    in) or 'none'."""
    try:
        frames = frame_times(con)
        peaks = memory_peaks(con)
        rest = unattributed(con)
    except duckdb.CatalogException:  # a database without the stacks' tables
        return {"code_source": "none", "code": [], "memory": []}
    source = code_source(con)
    out: CodeAndMemory = {
        "code_source": source,
        "code": [f.as_dict() for f in frames],
        "code_user": [f.frame for f in frames if f.user_code],
        "code_unattributed": {"gpu_ns": rest.gpu_ns, "launches": rest.launches,
                              "linked": rest.linked},
        "memory": [p.as_dict() for p in peaks if p.device_type == "gpu"],
        "host_memory": [p.as_dict() for p in peaks if p.device_type != "gpu"],
    }
    if source == "hlo":  # the op paths next to the source, as the JSON lists them
        out = {"code_source": source, "code_paths": op_path_rows(con), **out}
    return out


def _with_offsets(finding: FindingJson, origin: int | None, gap_rows: GapRows) -> FindingJson:
    """Each row with a start also gets its offset from the trace's +0, as gaps do. The
    gpu_gaps finding's rows are the summary's gaps (`gap_rows`): the very same RowSet,
    which tui.views.reports.json_stream then encodes once."""
    rows = finding["rows"]
    if isinstance(rows, GapRows) and rows.gaps is gap_rows.gaps:
        finding["rows"] = gap_rows
    elif isinstance(rows, RowSet):  # given as the rows are written out
        finding["rows"] = rows.with_offsets(origin)
    else:
        add_offsets(finding["rows"], origin)
    return finding
