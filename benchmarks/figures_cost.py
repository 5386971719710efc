"""What a trace's distributed figures cost (`trace_figures`, a rank's share of a run's cold
open): each trace opened (from its cache), then its figures worked out `--repeat` times on
one DuckDB thread, as a pool process of two runs them; the median thread CPU ms a trace,
each statement's own (its thread time around `execute`, by query name) with `--statements`,
and a digest of the figures.

With `--before DIR` (a checkout of the code before) the same is timed for that code in a
process of its own, the two alternated `--rounds` times, and the figures' digests compared.

Usage: python benchmarks/figures_cost.py [--repeat 15] [--rounds 3] [--before DIR]
                                         [--statements] [TRACE ...]
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TRACES = [f"sample_traces/ddp4/ddp_rank{i}.pt.trace.json.gz" for i in range(4)]


def measure(traces: list[str], repeat: int, statements: bool) -> dict:
    """In this process: the median CPU ms of trace_figures a trace, the statements' ms a
    trace by query name, and the figures' digest."""
    import tui.core.queries as queries
    from tui.analysis.distributed import critical_path, figures, idle, window
    from tui.analysis.distributed import queues as queue_module
    from tui.analysis.distributed.figures import trace_figures
    from tui.core import db
    from tui.loading.trace import open_trace

    spent: dict[str, float] = collections.defaultdict(float)
    if statements:  # each query's text names itself, for the timer below
        def named(name: str) -> str:
            return f"/*{name}*/" + queries.load_query(name)

        for module in (figures, window, idle, queue_module, critical_path, db):
            module.load_query = named  # type: ignore[attr-defined]

    class Timed:
        def __init__(self, con) -> None:
            self.con = con

        def execute(self, sql: str, *args):
            started = time.thread_time()
            result = self.con.execute(sql, *args)
            name = sql[2:sql.index("*/")] if sql.startswith("/*") else " ".join(sql.split()[:4])
            spent[name] += time.thread_time() - started
            return result

        def __getattr__(self, name: str):
            return getattr(self.con, name)

    medians, out = [], {}
    for path in traces:
        with open_trace(ROOT / path) as trace:
            trace.con.execute("SET threads = 1")
            out[path] = trace_figures(trace.con)  # a first pass, not timed
            times = []
            for _ in range(repeat):
                started = time.thread_time()
                trace_figures(Timed(trace.con) if statements else trace.con)
                times.append(time.thread_time() - started)
            medians.append(statistics.median(times))
    per_trace = repeat * len(traces)
    return {"ms": 1000 * statistics.mean(medians),
            "statements": {k: 1000 * v / per_trace for k, v in spent.items()},
            "digest": hashlib.md5(json.dumps(out, sort_keys=True).encode()).hexdigest()}


def in_process(code: Path, args: argparse.Namespace) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--repeat",
               str(args.repeat), *(["--statements"] if args.statements else []), *args.traces]
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("traces", nargs="*", default=TRACES)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path)
    parser.add_argument("--statements", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.traces, args.repeat, args.statements)))
        return
    codes = [("this", ROOT)] + ([("before", args.before)] if args.before else [])
    results: dict[str, list[dict]] = {name: [] for name, _ in codes}
    for round_ in range(args.rounds):
        for name, code in codes if round_ % 2 == 0 else codes[::-1]:  # alternate the order
            results[name].append(in_process(code, args))
    digest = results["this"][0]["digest"]
    print(f"{len(args.traces)} traces, {args.repeat} times each, one DuckDB thread; "
          f"load average {os.getloadavg()[0]:.1f}")
    for name, runs in results.items():
        same = all(run["digest"] == digest for run in runs)
        print(f"{name}: " + ", ".join(f"{run['ms']:.1f}" for run in runs)
              + f" ms a trace; same figures as this: {'yes' if same else 'NO'}")
        if args.statements:
            total: dict[str, float] = collections.defaultdict(float)
            for run in runs:
                for key, ms in run["statements"].items():
                    total[key] += ms / len(runs)
            for key, ms in sorted(total.items(), key=lambda kv: -kv[1]):
                print(f"  {ms:6.2f} {key}")


if __name__ == "__main__":
    main()
