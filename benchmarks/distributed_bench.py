"""What the distributed figures (tui/analysis/distributed: breakdown, overlap, launch
statistics, idle categories, queue length, critical path) add to a cold load and to a
run's analysis, measured beside the same run's total.

- One big Kineto trace (default: launch_bound_inference.pt.trace.json.gz scaled up by
  scale_trace.py, --scale 40: ~700 MB, *scaled*): the cold `tui --summary --json` (empty
  cache; the figures included) and `trace_figures` alone on the cached trace (median of 3).
  Added share = figures / (cold - figures).
- A run of --ranks copies of the real DDP rank traces (*copied*, as multirank_bench.py):
  the cold open (every rank parsed, its summary and figures worked out in its worker), and
  the warm opens (every rank from its cache; the figures read back from beside it, or
  worked out where not kept) against a warm open without the figures at all (the same
  run's baseline). The figures' own time is measured on every store (summed); the cold
  open's share is estimated from it, spread over the workers.

Usage: python benchmarks/distributed_bench.py [--scale 40] [--ranks 1024] [--workers N]
       [--skip-trace] [--skip-run]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))


def big_trace(scale: int, workdir: Path) -> Path:
    import gzip

    source = ROOT / "sample_traces" / "launch_bound_inference.pt.trace.json.gz"
    plain = workdir / "launch_bound_inference.pt.trace.json"
    if not plain.exists():
        plain.write_bytes(gzip.decompress(source.read_bytes()))
    target = workdir / f"launch_bound_inference_x{scale}.pt.trace.json"
    if not target.exists():
        subprocess.run([sys.executable, str(HERE / "scale_trace.py"), str(plain),
                        str(target), str(scale)], check=True)
    return target


def figures_time(con) -> float:
    from tui.analysis.distributed import trace_figures

    started = time.perf_counter()
    trace_figures(con)
    return time.perf_counter() - started


def trace_cost(trace: Path, workdir: Path, repeat: int) -> None:
    from tui.loading.trace import open_trace

    cache = workdir / "cache-trace"
    colds = []
    for _ in range(repeat):
        shutil.rmtree(cache, ignore_errors=True)
        env = {**os.environ, "TUI_CACHE_DIR": str(cache)}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tui", "--summary", "--json", str(trace)],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        colds.append(time.perf_counter() - started)
    os.environ["TUI_CACHE_DIR"] = str(cache)
    spent = []
    for _ in range(3):
        with open_trace(trace) as opened:
            spent.append(figures_time(opened.con))
    with open_trace(trace) as opened:
        kernels = opened.con.execute("SELECT count(*) FROM gpu_activities").fetchone()[0]
    cold, figures = statistics.median(colds), statistics.median(spent)
    print(f"trace (scaled) | {trace.stat().st_size / 1e6:.0f} MB | {kernels:,} GPU activities"
          f" | cold summary {cold:.2f} s | figures {figures:.3f} s | added "
          f"{100 * figures / (cold - figures):.1f}%")


def run_cost(count: int, workers: int, workdir: Path) -> None:
    from multirank_bench import rank_files

    from tui.analysis.distributed.memo import figures_file
    from tui.runs.combine import _alias
    from tui.runs.run import open_run

    files = rank_files(count, 1, workdir)
    cache = workdir / "cache-run"
    shutil.rmtree(cache, ignore_errors=True)
    os.environ["TUI_CACHE_DIR"] = str(cache)
    opens = []
    for label in ("cold", "warm (figures kept)", "warm (figures kept)"):
        started = time.perf_counter()
        with open_run(files, workers=workers, min_gap_ns=1_000_000) as run:
            opens.append((label, time.perf_counter() - started))
            stores = run.stores
            if label == "cold":
                kept = sum(1 for s in stores if s.db_path and figures_file(s.db_path).exists())
    with open_run(files, workers=workers) as run:  # the figures' own time, store by store
        spent = 0.0
        for index in range(len(run.stores)):
            run.con.execute(f"USE {_alias(index)}")
            spent += figures_time(run.con)
        run.con.execute("USE memory.main")
    import tui.analysis.summary as summary_module

    kept_figures = summary_module.cached_figures
    summary_module.cached_figures = lambda con, path: {}  # the baseline: no figures at all
    try:
        started = time.perf_counter()
        with open_run(files, workers=workers, min_gap_ns=1_000_000):
            opens.append(("warm without figures (baseline)", time.perf_counter() - started))
    finally:
        summary_module.cached_figures = kept_figures
    for store in stores:  # warm without kept figures: each worked out again
        if store.db_path:
            figures_file(store.db_path).unlink(missing_ok=True)
    started = time.perf_counter()
    with open_run(files, workers=workers, min_gap_ns=1_000_000):
        opens.append(("warm (figures worked out)", time.perf_counter() - started))
    print(f"run of {count} copied DDP ranks, {workers} workers | figures {spent:.2f} s in all "
          f"({1000 * spent / count:.1f} ms a rank); kept beside {kept} of {count} caches")
    baseline = dict(opens)["warm without figures (baseline)"]
    for label, seconds in opens:
        if label == "cold":
            share = spent / workers  # the figures' time, spread over the workers
            added = f"figures' share {100 * share / (seconds - share):.1f}% (estimated)"
        elif "baseline" in label:
            added = "-"
        else:
            added = f"{100 * (seconds - baseline) / baseline:+.1f}% against the baseline"
        print(f"  {label} | {seconds:.2f} s | {added}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=int, default=40)
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-trace", action="store_true")
    parser.add_argument("--skip-run", action="store_true")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "tui-distributed-bench")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores")
    if not args.skip_trace:
        trace_cost(big_trace(args.scale, args.workdir), args.workdir, args.repeat)
    if not args.skip_run:
        run_cost(args.ranks, args.workers, args.workdir)


if __name__ == "__main__":
    main()
