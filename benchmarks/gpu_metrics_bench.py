"""What GPU metrics cost a cold load: one nsys export loaded with its GPU_METRICS samples
and without them (the same export, the table dropped), side by side in one run.

Each run is a process of its own with an empty cache: it imports tui, then times
`open_trace` (the load and the cache file written) and, unless --no-summary, the summary
on top; wall seconds and CPU seconds (every thread's), and the cache file's size. The
two reports take turns, REPEAT times; the medians are printed, and their ratio. With
--before DIR (a copy of the code before a change, e.g. `git archive COMMIT | tar -x -C
DIR`), that code's loads of both take turns with them too.

Make the reports with scale_gpu_metrics.py (a *scaled* export: label the figures so):
    python benchmarks/scale_gpu_metrics.py loop_host.sqlite /tmp/m.sqlite --rows 2500000 \\
        --without /tmp/m_without.sqlite
    python benchmarks/gpu_metrics_bench.py /tmp/m.sqlite /tmp/m_without.sqlite --repeat 5

With --connections 1,2,4, instead: the GPU metrics alone (load_nsys_gpu_metrics into an
empty in-memory schema, nothing else loading beside them) read on each of those numbers
of connections at once, REPEAT times in turns, a process each: what more cores give.

Usage: python benchmarks/gpu_metrics_bench.py WITH.sqlite WITHOUT.sqlite [--repeat 5]
                                              [--no-summary] [--before DIR]
                                              [--connections 1,2,4]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a child: the load (and the summary) of argv[1], timed after the imports.
CHILD = """
import json, os, sys, time
from pathlib import Path
from tui.analysis.summary import trace_summary
from tui.loading.trace import open_trace

def cpu():
    t = os.times()
    return t.user + t.system

out = {}
wall, used = time.perf_counter(), cpu()
with open_trace(Path(sys.argv[1])) as trace:
    out["load_wall"], out["load_cpu"] = time.perf_counter() - wall, cpu() - used
    if sys.argv[2] == "1":
        wall, used = time.perf_counter(), cpu()
        trace_summary(trace, 1_000_000)
        out["summary_wall"], out["summary_cpu"] = time.perf_counter() - wall, cpu() - used
cache = Path(os.environ["TUI_CACHE_DIR"])
out["cache_bytes"] = sum(f.stat().st_size for f in cache.rglob("*.duckdb"))
print(json.dumps(out))
"""

# Run in a child: the GPU metrics of argv[1] alone, read on argv[2] connections at once.
PARTS_CHILD = """
import json, os, sys, time
from pathlib import Path
from tui.core.db import connect
from tui.core.queries import load_query
from tui.sources.nsys_gpu_metrics import load_nsys_gpu_metrics, rowid_parts
from tui.sources.nsys_sqlite import _probe_schema

def cpu():
    t = os.times()
    return t.user + t.system

path = Path(sys.argv[1])
con = connect()
con.execute(load_query("schema"))
schema = _probe_schema(path)
parts = len(rowid_parts(f"file:{path}?mode=ro", int(sys.argv[2])))
wall, used = time.perf_counter(), cpu()
load_nsys_gpu_metrics(path, schema, con, int(sys.argv[2]))
out = {"wall": time.perf_counter() - wall, "cpu": cpu() - used, "parts": parts}
out["rows"] = con.execute("SELECT count(*) FROM gpu_metrics").fetchone()[0]
print(json.dumps(out))
"""


def parts_once(trace: Path, connections: int) -> dict[str, float]:
    """The GPU metrics of `trace` alone, read on `connections` connections."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", PARTS_CHILD, str(trace), str(connections)],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{trace}: {proc.stderr[-800:]}")
    return json.loads(proc.stdout.splitlines()[-1])


def compare_connections(trace: Path, counts: list[int], repeat: int) -> None:
    """Print the medians of the metrics' read on each number of connections."""
    runs: dict[int, list[dict[str, float]]] = {n: [] for n in counts}
    for _ in range(repeat):
        for n in counts:
            runs[n].append(parts_once(trace, n))
    print(f"{'connections':<12}{'parts':>6}{'rows':>10}{'wall s':>9}{'CPU s':>8}")
    for n, rs in runs.items():
        print(f"{n:<12}{int(rs[0]['parts']):>6}{int(rs[0]['rows']):>10}"
              f"{statistics.median(r['wall'] for r in rs):>9.3f}"
              f"{statistics.median(r['cpu'] for r in rs):>8.3f}")
    print(f"(medians of {repeat} runs each, taking turns; {os.cpu_count()} cores here, "
          f"load average {os.getloadavg()[0]:.1f})")


def run_once(trace: Path, summary: bool, code: Path = ROOT) -> dict[str, float]:
    """One cold load (and summary) of `trace` by the tui in `code`."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "TUI_CACHE_DIR": cache, "PYTHONPATH": str(code)}
        os.sync()
        proc = subprocess.run([sys.executable, "-c", CHILD, str(trace), "1" if summary else "0"],
                              capture_output=True, text=True, env=env, cwd=code, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"{trace}: {proc.stderr[-800:]}")
        return json.loads(proc.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("with_metrics", type=Path)
    parser.add_argument("without_metrics", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-summary", action="store_true")
    parser.add_argument("--before", type=Path, help="a copy of the code before a change")
    parser.add_argument("--connections", help="e.g. 1,2,4: the metrics alone on each")
    args = parser.parse_args()
    if args.connections:
        compare_connections(args.with_metrics, [int(n) for n in args.connections.split(",")],
                            args.repeat)
        return
    summary = not args.no_summary
    codes = {"": ROOT, **({"before ": args.before.resolve()} if args.before else {})}
    runs: dict[str, list[dict[str, float]]] = {}
    for _ in range(args.repeat):
        for prefix, code in codes.items():
            runs.setdefault(prefix + "with", []).append(
                run_once(args.with_metrics, summary, code))
            runs.setdefault(prefix + "without", []).append(
                run_once(args.without_metrics, summary, code))
    keys = ["load_wall", "load_cpu"] + (["summary_wall", "summary_cpu"] if summary else [])
    med = {label: {k: statistics.median(r[k] for r in rs) for k in keys + ["cache_bytes"]}
           for label, rs in runs.items()}
    print(f"{'report':<16}" + "".join(f"{k:>14}" for k in keys) + f"{'cache MB':>10}")
    for prefix in codes:
        for label in (prefix + "with", prefix + "without"):
            m = med[label]
            print(f"{label:<16}" + "".join(f"{m[k]:>14.3f}" for k in keys)
                  + f"{m['cache_bytes'] / 1e6:>10.1f}")
        ratio = {k: med[prefix + "with"][k] / med[prefix + "without"][k] for k in keys}
        print(f"{prefix + 'ratio':<16}" + "".join(f"{ratio[k]:>13.2f}x" for k in keys))
    print(f"(medians of {args.repeat} cold runs each, taking turns; "
          f"min..max load CPU with {min(r['load_cpu'] for r in runs['with']):.3f}.."
          f"{max(r['load_cpu'] for r in runs['with']):.3f}, without "
          f"{min(r['load_cpu'] for r in runs['without']):.3f}.."
          f"{max(r['load_cpu'] for r in runs['without']):.3f})")


if __name__ == "__main__":
    main()
