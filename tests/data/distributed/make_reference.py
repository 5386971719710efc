"""Holistic Trace Analysis' answers on the sample multi-rank Kineto traces, as test data.

Run from the repository root with HTA 0.5.0 in its own venv (it is a reference, not a
dependency of tui):
    python3 -m venv /tmp/hta-venv && /tmp/hta-venv/bin/pip install HolisticTraceAnalysis==0.5.0
    /tmp/hta-venv/bin/pip install "pandas<3"  # HTA 0.5.0's critical path needs pandas 2
    /tmp/hta-venv/bin/python tests/data/distributed/make_reference.py
It writes tests/data/distributed/<run>.hta.json for each run below, with HTA's figures per
rank twice:
- "exact": what tui's figures must equal. HTA_DISABLE_NS_ROUNDING=1 keeps timestamps to the
  nanosecond, as tui does; and the GPU-side copies of the `ProfilerStep#N` annotations
  (category gpu_user_annotation) are left out of HTA's input. HTA drops the work launched
  in the last profiler step, and takes that step's start as the latest start of any event
  named ProfilerStep: where the GPU copy starts later than the host range (the GPU runs
  behind), HTA keeps launches made well into the last step. tui cuts at the host range.
- "default": HTA on the untouched traces with its default rounding (each event's start
  rounded up and its end down to the microsecond), for docs/distributed.md's comparison.
Times are microseconds, as HTA gives them.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
RUNS = {  # run name -> its rank traces, under sample_traces/
    "ddp_2rank": ["ddp_rank0.pt.trace.json.gz", "ddp_rank1.pt.trace.json.gz"],
    "ddp_4rank": [f"ddp4/ddp_rank{r}.pt.trace.json.gz" for r in range(4)],
    "fsdp_4rank": [f"fsdp4/fsdp_rank{r}.pt.trace.json.gz" for r in range(4)],
}
CONSECUTIVE_KERNEL_DELAY = 30  # HTA's default, in the trace's unit (us)
RUNTIME_CUTOFF, LAUNCH_DELAY_CUTOFF = 50, 100  # HTA's launch-stats outlier cutoffs (us)


def figures(trace_dir: str) -> dict:
    """Every HTA figure tui compares against, per rank, as plain JSON."""
    import pandas as pd
    from hta.trace_analysis import TraceAnalysis

    analysis = TraceAnalysis(trace_dir=trace_dir)
    ranks = analysis.t.get_ranks()
    out: dict = {"ranks": {}}
    breakdown = analysis.get_temporal_breakdown(visualize=False)
    overlap = analysis.get_comm_comp_overlap(visualize=False)
    launches = analysis.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    queues = analysis.get_queue_length_summary(ranks=ranks)
    for rank in ranks:
        b = breakdown[breakdown["rank"] == rank].iloc[0]
        o = overlap[overlap["rank"] == rank].iloc[0]
        events = launches[rank]
        idle = _idle(analysis, rank)
        q = queues.loc[rank] if queues is not None and rank in queues.index else None
        out["ranks"][str(rank)] = {
            "breakdown": {
                "idle_us": float(b["idle_time(us)"]),
                "compute_us": float(b["compute_time(us)"]),
                "non_compute_us": float(b["non_compute_time(us)"]),
                "kernel_us": float(b["kernel_time(us)"]),
            },
            "overlap_pct": _number(o["comp_comm_overlap_pctg"]),
            "launch_stats": {
                "launches": int(len(events)),
                "cpu_us_sum": float(events["cpu_duration"].sum()),
                "cpu_us_max": float(events["cpu_duration"].max()),
                "gpu_us_sum": float(events["gpu_duration"].sum()),
                "gpu_us_max": float(events["gpu_duration"].max()),
                "delay_us_sum": float(events["launch_delay"].sum()),
                "delay_us_max": float(events["launch_delay"].max()),
                "delay_us_median": float(events["launch_delay"].median()),
                # HTA's three outlier sets (CudaKernelAnalysis.visualize_cuda_launch_kernel_info)
                "short_kernels": int(((events["cpu_duration"] <= RUNTIME_CUTOFF)
                                      & (events["gpu_duration"] < events["cpu_duration"])).sum()),
                "long_launch_calls": int((events["cpu_duration"] > RUNTIME_CUTOFF).sum()),
                "long_delays": int((events["launch_delay"] > LAUNCH_DELAY_CUTOFF).sum()),
            },
            "idle_breakdown": idle,
            "queue_length": _queues(q, pd),
            "critical_path": _critical_paths(analysis, rank),
        }
    return out


def _critical_paths(analysis, rank: int) -> list[dict]:
    """HTA's critical path of each profiler step in the window: its length (the sum of its
    edges) and that by HTA's `bound_by` class."""
    out = []
    for instance in range(len(analysis.t.get_iterations(rank))):
        graph, ok = analysis.critical_path_analysis(
            rank=rank, annotation="ProfilerStep", instance_id=instance)
        if not ok:
            continue
        edges = graph.get_critical_path_breakdown()
        by = edges.groupby("bound_by").duration.sum().to_dict()
        out.append({"instance": instance, "length_us": float(edges.duration.sum()),
                    "by_bound": {k or "dependency": float(v) for k, v in by.items()}})
    return out


def _idle(analysis, rank: int) -> list[dict]:
    df, _ = analysis.get_idle_time_breakdown(
        ranks=[rank], consecutive_kernel_delay=CONSECUTIVE_KERNEL_DELAY, visualize=False)
    rows: dict[int, dict] = {}
    for _, r in df.iterrows():
        row = rows.setdefault(int(r["stream"]), {"stream": int(r["stream"]), "host_wait_us": 0.0,
                                                 "kernel_wait_us": 0.0, "other_us": 0.0})
        row[f"{r['idle_category']}_us"] = float(r["idle_time"])
    return [rows[s] for s in sorted(rows)]


def _queues(summary, pd) -> list[dict]:
    if summary is None:
        return []
    out = []
    for stream, row in summary.iterrows():
        q = row["queue_length"]
        out.append({"stream": int(stream), "count": int(q["count"]), "mean": float(q["mean"]),
                    "max": float(q["max"]), "median": float(q["50%"])})
    return out


def _number(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _without_gpu_steps(source: Path, target: Path) -> None:
    """A copy of a gzipped Kineto trace without the GPU-side ProfilerStep annotations."""
    with gzip.open(source, "rt") as f:
        trace = json.load(f)
    trace["traceEvents"] = [
        e for e in trace["traceEvents"]
        if not (e.get("cat") == "gpu_user_annotation" and "ProfilerStep" in e.get("name", ""))
    ]
    with gzip.open(target, "wt") as f:
        json.dump(trace, f)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":  # a child: one run, one rounding mode
        print(json.dumps(figures(sys.argv[2])))
        return
    import hta

    for run, files in RUNS.items():
        with tempfile.TemporaryDirectory() as tmp:
            exact, default = Path(tmp) / "exact", Path(tmp) / "default"
            exact.mkdir()
            default.mkdir()
            for name in files:
                base = Path(name).name
                shutil.copy(ROOT / "sample_traces" / name, default / base)
                _without_gpu_steps(ROOT / "sample_traces" / name, exact / base)
            result = {"hta_version": getattr(hta, "__version__", "0.5.0"), "traces": files,
                      "consecutive_kernel_delay_us": CONSECUTIVE_KERNEL_DELAY,
                      "runtime_cutoff_us": RUNTIME_CUTOFF,
                      "launch_delay_cutoff_us": LAUNCH_DELAY_CUTOFF}
            for mode, flag, folder in (("exact", "1", exact), ("default", "0", default)):
                env = {**os.environ, "HTA_DISABLE_NS_ROUNDING": flag}
                text = subprocess.run([sys.executable, __file__, "--one", str(folder)], env=env,
                                      check=True, capture_output=True, text=True).stdout
                result[mode] = json.loads(text.strip().splitlines()[-1])
        (HERE / f"{run}.hta.json").write_text(json.dumps(result, indent=1) + "\n")
        print(run, "written")


if __name__ == "__main__":
    main()
