"""How well the GPU worked, from its hardware counters (nsys --gpu-metrics-devices, or
CUPTI PM sampling in an XLA profile, tui/sources/xla_counters.py): the
mean of each metric over the samples inside a kernel's instances, an NVTX range's, the
GPU's busy span and its gaps; and the phrase the diagnosis adds from them.

A metric named '[Throughput %]' is a share of the unit's peak over one sampling period:
SMs Active is the share of SMs with at least one warp resident, Tensor Active the share of
cycles the tensor pipes were busy, DRAM Read/Write Bandwidth the share of the peak DRAM
bandwidth the reads or writes used (their sum is the DRAM's whole use).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from tui.analysis.gpu_metric_labels import is_step, nvlink
from tui.analysis.summary_types import (
    Diagnosis,
    GapMetricMeans,
    GpuMetrics,
    KernelMetricMeans,
    MetricMeans,
    RangeMetricMeans,
    RunGpuMetrics,
)
from tui.core.gpu_metric_names import (
    DRAM_READ,
    DRAM_WRITE,
    NVLINK,
    PCIE_RX,
    PCIE_TX,
    REPORTED,
    SM,
    TENSOR,
)
from tui.core.queries import fill, fragment, load_query
from tui.core.steps import NOT_THE_PROGRAMS

TOP_KERNELS = 30  # kernel names with means in the summary, the longest first
TOP_GAPS = 10  # gaps with means of their own in the summary, the longest first

# The guides' reading of SM and tensor-core use (shared/reading: SM utilisation above 80%
# good, below 50% poor; tensor cores above 50% expected under mixed precision).
SM_GOOD, SM_POOR = 80.0, 50.0
TENSOR_EXPECTED = 50.0
# DRAM (read + write) at this share of its peak bandwidth or more: a phase at the memory's
# limit; NVLink at this share: the links are what the collectives wait on.
DRAM_NEAR_PEAK = 70.0
NVLINK_BUSY = 50.0
PCIE_BUSY = 50.0  # PCIe at this share: copies at the link's limit
XLA_OWN = re.compile(NOT_THE_PROGRAMS)  # XLA's module, compile and thunk ranges, `[Unknown]`


@dataclass(frozen=True)
class MetricDevice:
    device: int
    metrics: int
    samples: int
    rate_hz: float | None


def metric_devices(con: duckdb.DuckDBPyConnection) -> list[MetricDevice]:
    """The devices with GPU metrics (none: the trace has no hardware counters)."""
    try:
        rows = con.execute(load_query("gpu_metric_devices")).fetchall()
    except duckdb.CatalogException:  # a store written before GPU metrics were kept
        return []
    return [MetricDevice(*row) for row in rows]


def reported_metrics(con: duckdb.DuckDBPyConnection, device: int) -> list[str]:
    """The metrics the summary reports for `device`: REPORTED, then NVLink's, as present."""
    names = {n for (n,) in con.execute(load_query("gpu_metric_names_of"),
                                         {"device": device}).fetchall()}
    nvlink = sorted(n for n in names if n.startswith(NVLINK) and n.endswith("[Throughput %]"))
    return [n for n in REPORTED if n in names] + nvlink


def means(con: duckdb.DuckDBPyConnection, device: int, names: list[str], intervals: str,
          params: dict | None = None) -> dict[str, dict[str, float]]:
    """{key: {metric: mean}} over device's samples inside the intervals of the query named
    `intervals` (key, start_ns, end_ns; see gpu_metric_means.sql)."""
    sql = fill("gpu_metric_means",
               intervals=fragment(intervals))
    out: dict[str, dict[str, float]] = {}
    rows = con.execute(sql, {"device": device, "names": names, **(params or {})}).fetchall()
    for key, name, mean, _samples in rows:
        out.setdefault(key, {})[name] = round(mean, 2)
    return out


def kernel_means(con: duckdb.DuckDBPyConnection, names: list[str] | None = None
                 ) -> dict[tuple[str, int], dict[str, float]]:
    """{(kernel name, device): {metric: mean}} over the samples inside its instances
    (`names`: these metrics, else the reported ones)."""
    return _every_device(con, names, "gpu_metric_kernels")


def range_means(con: duckdb.DuckDBPyConnection, names: list[str] | None = None
                ) -> dict[tuple[str, int], dict[str, float]]:
    """{(NVTX range name, device): {metric: mean}} over the samples inside its instances."""
    return _every_device(con, names, "gpu_metric_ranges")


def _every_device(con: duckdb.DuckDBPyConnection, names: list[str] | None,
                  intervals: str) -> dict[tuple[str, int], dict[str, float]]:
    out = {}
    for d in metric_devices(con):
        wanted = names or reported_metrics(con, d.device)
        for key, mean in means(con, d.device, wanted, intervals).items():
            out[(key, d.device)] = mean
    return out


TABLE_METRICS = (SM, TENSOR, DRAM_READ, DRAM_WRITE)


def table_columns(con: duckdb.DuckDBPyConnection, ranges: bool = False
                  ) -> dict[str, tuple[float | None, float | None, float | None]]:
    """{kernel name (or NVTX range name): (SMs active %, tensor active %, DRAM read + write
    %)} for the Kernels and NVTX tables: the means inside its instances, averaged over the
    devices (empty without GPU metrics)."""
    found = (range_means if ranges else kernel_means)(con, list(TABLE_METRICS))
    per_name: dict[str, list[dict[str, float]]] = {}
    for (name, _device), mean in found.items():
        per_name.setdefault(name, []).append(mean)

    def avg(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return sum(known) / len(known) if known else None

    return {name: (avg([m.get(SM) for m in means]), avg([m.get(TENSOR) for m in means]),
                   avg([dram(m) for m in means]))
            for name, means in per_name.items()}


def gpu_metrics_summary(con: duckdb.DuckDBPyConnection, min_gap_ns: int,
                        kernel_order: list[str]) -> GpuMetrics | None:
    """The summary's `gpu_metrics` (None without hardware counters): {sample_rate_hz,
    metrics [names], whole [{device, mean {NAME: value}}] (the device's busy span),
    gaps [{device, mean}] (its gaps of at least min_gap_ns), by_gap [{device, start_ns,
    mean}] (the TOP_GAPS longest of them), by_range [{range, device, mean}], by_kernel
    [{name, device, mean}] (the TOP_KERNELS first of `kernel_order`)}."""
    devices = metric_devices(con)
    if not devices:
        return None
    top = set(kernel_order[:TOP_KERNELS])
    rank = {name: i for i, name in enumerate(kernel_order)}
    metrics: list[str] = []
    whole: list[MetricMeans] = []
    gaps: list[MetricMeans] = []
    by_gap: list[GapMetricMeans] = []
    by_range: list[RangeMetricMeans] = []
    by_kernel: list[KernelMetricMeans] = []
    for d in devices:
        names = reported_metrics(con, d.device)
        metrics += [n for n in names if n not in metrics]
        spans = means(con, d.device, names, "gpu_metric_whole")
        if not spans:
            # no work of this trace on it: nsys' --gpu-metrics-devices=all samples every
            # GPU of the machine, and a range of this program's says nothing of another's
            continue
        for mean in spans.values():
            whole.append({"device": d.device, "mean": mean})
        for mean in means(con, d.device, names, "gpu_metric_gaps",
                          {"min_gap_ns": min_gap_ns}).values():
            gaps.append({"device": d.device, "mean": mean})
        by_gap += [{"device": d.device, "start_ns": int(key), "mean": mean}
                   for key, mean in means(con, d.device, names, "gpu_metric_gap_each",
                                          {"min_gap_ns": min_gap_ns, "limit": TOP_GAPS}).items()]
        by_range += [{"range": key, "device": d.device, "mean": mean}
                     for key, mean in means(con, d.device, names, "gpu_metric_ranges").items()]
        by_kernel += [{"name": key, "device": d.device, "mean": mean}
                      for key, mean in means(con, d.device, names, "gpu_metric_kernels").items()
                      if key in top]
    by_kernel.sort(key=lambda k: (rank.get(k["name"], len(rank)), k["device"]))
    rates = [d.rate_hz for d in devices if d.rate_hz]
    return {"sample_rate_hz": round(sorted(rates)[len(rates) // 2]) if rates else 0,
            "metrics": metrics, "whole": whole, "gaps": gaps, "by_gap": by_gap,
            "by_range": by_range, "by_kernel": by_kernel}


def window_means(con: duckdb.DuckDBPyConnection, start_ns: int, end_ns: int,
                 ran: set[int]) -> list[MetricMeans]:
    """The means over the window of work [start_ns, end_ns) of each device of `ran`, those
    that ran the trace's work there: nsys' --gpu-metrics-devices=all samples every GPU of
    the machine, and an idle one's (or another program's) say nothing of this work."""
    out: list[MetricMeans] = []
    for d in metric_devices(con):
        if d.device not in ran:
            continue
        names = reported_metrics(con, d.device)
        for mean in means(con, d.device, names, "gpu_metric_window",
                          {"start_ns": start_ns, "end_ns": end_ns}).values():
            out.append({"device": d.device, "mean": mean})
    return out


def dram_by_device(over: Sequence[MetricMeans]) -> dict[int, float]:
    """Each device's DRAM use (dram) in `over` (window_means), where both were sampled."""
    return {row["device"]: use for row in over if (use := dram(row["mean"])) is not None}


def dram(mean: dict[str, float]) -> float | None:
    """DRAM's whole use (read + write) as a share of its peak, where both were sampled."""
    if DRAM_READ in mean and DRAM_WRITE in mean:
        return mean[DRAM_READ] + mean[DRAM_WRITE]
    return None


def metrics_phrase(gm: GpuMetrics | None, bound: str | None,
                   over: Sequence[MetricMeans] | None = None) -> str:
    """What the hardware counters add to a diagnosis of `bound` ("" without them): SM and
    tensor-core use when compute-bound, the NVTX ranges that ran DRAM near its peak and
    those that ran NVLink at half its peak or more, the NVLink throughput when
    communication-bound and PCIe's when copy-bound; over the devices' means `over` (the
    window of work the diagnosis describes), else over their busy spans."""
    rows = over or (gm.get("whole") if gm else None)
    if not gm or not rows or bound is None:
        return ""
    parts = []
    whole = rows[0]["mean"] if len(rows) == 1 else _averaged(rows)
    if bound in ("compute", "memory") and SM in whole:
        # a memory bound decided from the counters says their DRAM figure itself
        parts.append(_compute_words(whole, dram_said=bound == "memory"
                                    and (dram(whole) or 0.0) >= DRAM_NEAR_PEAK))
    hot = _memory_phases(gm.get("by_range", []))
    if hot:
        parts.append(hot)
    linked = _link_phases(gm.get("by_range", []))
    if linked:
        parts.append(linked)
    link = nvlink(whole)
    if bound == "communication" and link is not None:
        parts.append(f"NVLink carried {link:.0f}% of its peak over the busy span"
                     + (": the links are the limit" if link >= NVLINK_BUSY
                        else ": the links had room, the collectives waited on something else"))
    if bound == "copy" and (PCIE_RX in whole or PCIE_TX in whole):
        parts.append(_pcie_words(whole))
    return ("Hardware counters: " + "; ".join(parts) + ".") if parts else ""


def _pcie_words(whole: dict[str, float]) -> str:
    """PCIe's busier direction over the busy span (RX: into the GPU, TX: out of it)."""
    rx, tx = whole.get(PCIE_RX, 0.0), whole.get(PCIE_TX, 0.0)
    direction, use = ("into the GPU", rx) if rx >= tx else ("out of it", tx)
    if use >= PCIE_BUSY:
        return f"PCIe {direction} at {use:.0f}% of its peak: the copies run at the link's limit"
    return (f"PCIe {direction} at only {use:.0f}% of its peak: the link had room, the "
            "copies are held back on the host side (pageable memory, small or synchronous "
            "copies)")


def _compute_words(whole: dict[str, float], dram_said: bool = False) -> str:
    sm = whole[SM]
    grade = "good" if sm > SM_GOOD else "poor" if sm < SM_POOR else "fair"
    text = f"SMs active {sm:.0f}% ({grade})"
    use = dram(whole)
    if dram_said:
        return text
    if use is not None and use >= DRAM_NEAR_PEAK:
        return text + (f", DRAM at {use:.0f}% of its peak bandwidth (read + write): the "
                       "kernels wait on memory, not on math")
    tensor = whole.get(TENSOR)
    if tensor is None:
        return text
    if tensor >= TENSOR_EXPECTED:
        return text + f", tensor cores {tensor:.0f}% active: the math runs on tensor cores"
    return (text + f", tensor cores only {tensor:.0f}% active: most math runs on CUDA "
            "cores (FP32, or kernels that do not use tensor cores); bf16 or TF32 would use them")


def _memory_phases(by_range: list[RangeMetricMeans]) -> str:
    """The NVTX ranges (not steps, nor XLA's own: its compile passes run on threads of
    their own while the GPU runs other work) whose DRAM use was near its peak, the
    busiest first."""
    hot = sorted(((d, r["range"]) for r in by_range
                  if (d := dram(r["mean"])) is not None and d >= DRAM_NEAR_PEAK
                  and not is_step(r["range"]) and not XLA_OWN.search(r["range"])),
                 reverse=True)
    if not hot:
        return ""
    named = ", ".join(f"'{name}' {use:.0f}%" for use, name in hot[:3])
    return f"memory-bound phases, DRAM near its peak bandwidth (read + write): {named}"


def _link_phases(by_range: list[RangeMetricMeans]) -> str:
    """The NVTX ranges (not steps) in which NVLink carried NVLINK_BUSY of its peak or more
    (the busier direction's user data; of a run, each name's busiest rank), busiest first:
    whatever bounds the window, a phase at the links' limit is worth naming."""
    busiest: dict[str, float] = {}
    for r in by_range:
        link = nvlink(r["mean"])
        if link is not None and link >= NVLINK_BUSY and not is_step(r["range"]):
            busiest[r["range"]] = max(link, busiest.get(r["range"], 0.0))
    if not busiest:
        return ""
    named = ", ".join(f"'{name}' {use:.0f}%" for name, use in
                      sorted(busiest.items(), key=lambda item: -item[1])[:3])
    return (f"NVLink at {NVLINK_BUSY:.0f}% of its peak or more (the busier direction's user "
            f"data) in {named}")


def _averaged(rows: Sequence[MetricMeans]) -> dict[str, float]:
    """The devices' means averaged (each device counts once)."""
    keys = {k for r in rows for k in r["mean"]}
    return {k: sum(r["mean"][k] for r in rows if k in r["mean"])
            / sum(1 for r in rows if k in r["mean"]) for k in keys}


def with_metrics_phrase(diagnosis: Diagnosis, gm: GpuMetrics | None,
                        over: Sequence[MetricMeans] | None = None) -> Diagnosis:
    """The diagnosis (its JSON) with what the hardware counters add appended to its text
    (`over`: the means over its window of work)."""
    phrase = metrics_phrase(gm, diagnosis.get("bound"), over)
    if phrase:
        diagnosis["text"] = f"{diagnosis['text']} {phrase}"
    return diagnosis


def run_gpu_metrics(by_rank: dict[int, GpuMetrics | None]) -> RunGpuMetrics | None:
    """A run's `gpu_metrics`: each rank's own (rank_summary: of its own GPUs; a rank of a
    multi-process report, its process's GPU), every row tagged with its rank; the
    metrics named by any rank, in the order first met; the median of the ranks' sampling
    rates. None where no rank has counters."""
    found = {rank: gm for rank, gm in sorted(by_rank.items()) if gm}
    if not found:
        return None
    metrics: list[str] = []
    for gm in found.values():
        metrics += [n for n in gm["metrics"] if n not in metrics]
    rates = sorted(gm["sample_rate_hz"] for gm in found.values() if gm["sample_rate_hz"])
    out: RunGpuMetrics = {"sample_rate_hz": rates[len(rates) // 2] if rates else 0,
                          "metrics": metrics, "whole": [], "gaps": [], "by_gap": [],
                          "by_range": [], "by_kernel": []}
    for rank, gm in found.items():
        out["whole"] += [{"rank": rank, **row} for row in gm["whole"]]
        out["gaps"] += [{"rank": rank, **row} for row in gm["gaps"]]
        out["by_gap"] += [{"rank": rank, **row} for row in gm["by_gap"]]
        out["by_range"] += [{"rank": rank, **row} for row in gm["by_range"]]
        out["by_kernel"] += [{"rank": rank, **row} for row in gm["by_kernel"]]
    return out
