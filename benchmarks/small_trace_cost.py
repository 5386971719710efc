"""The fixed cost of a small trace: `tui --summary --json --no-cache` of a dozen small real
samples, each opened cold (loaded, its tables derived, summed up) in one process whose
imports are done (a first pass over them all is not timed), CPU seconds a trace (the
process's threads and the processes it started together: a run's load pool) and in all,
the median of `--repeat` passes (and their least: on a shared machine the steadier).

With `--before DIR` (a checkout of the code before, e.g. `git worktree add /tmp/before
HEAD`) the same is timed for that code in a process of its own (its `tui` first on
PYTHONPATH), the two processes one after the other for each pass, and every sample's
`--summary --json` of the two compared, less the fields that time the load (`load_s`):
"same" or the first path where they differ (exit code 1 when any differs).
With `--profile`, the cProfile of one pass of this checkout's code, by own CPU time (DuckDB's
time counts as the own time of the Python function that ran the statement).

Usage: python benchmarks/small_trace_cost.py [--repeat 3] [--before DIR] [--profile]
                                             [--samples a.pt.trace.json.gz,ddp4]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLES = ["multistream.pt.trace.json.gz", "gappy_training.pt.trace.json.gz",
           "multistream.sqlite", "bound_sync.sqlite", "sync_habits.pt.trace.json.gz",
           "tuned_training.pt.trace.json.gz", "jax_train", "ncu_kernels.sqlite",
           "cuda_graphs.pt.trace.json.gz", "launch_bound_inference.pt.trace.json.gz", "ddp4",
           "jax_lm"]
TIMING_KEYS = {"load_s"}  # what says how long a load took, not what the trace holds


def _cpu_s() -> float:
    """CPU seconds of this process's threads and of its children that ended."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _summary(name: str) -> tuple[float, str]:
    """CPU seconds of one cold `--summary --json` of sample `name`, and its output."""
    from tui.cli.main import main

    out = io.StringIO()
    before = _cpu_s()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--summary", "--json", "--no-cache", f"sample_traces/{name}"])
    spent = _cpu_s() - before
    if code not in (0, None):
        raise SystemExit(f"{name}: exit code {code}")
    return spent, out.getvalue()


def worker(names: list[str], repeat: int, profile: bool) -> None:
    """Time the samples in this process; print {cpu_s: {name: [s, ...]}, outputs} as JSON."""
    for name in names:  # imports and first-time costs, not timed
        _summary(name)
    cpu: dict[str, list[float]] = {name: [] for name in names}
    outputs: dict[str, str] = {}
    # CPU time, not wall time: on a shared machine the wall clock counts the waits for a core
    profiler = cProfile.Profile(time.process_time) if profile else None
    for i in range(repeat):
        for name in names:
            if profiler is not None and i == 0:
                profiler.enable()
            spent, outputs[name] = _summary(name)
            if profiler is not None and i == 0:
                profiler.disable()
            cpu[name].append(spent)
    if profiler is not None:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(35)
        print(text.getvalue(), file=sys.stderr)
    json.dump({"cpu_s": cpu, "outputs": outputs}, sys.stdout)


def _run_worker(code_root: Path, names: list[str], repeat: int, profile: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code_root))
    args = [sys.executable, str(Path(__file__).resolve()), "--worker",
            "--samples", ",".join(names), "--repeat", str(repeat)]
    if profile:
        args.append("--profile")
    done = subprocess.run(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, check=True)
    return json.loads(done.stdout)


def _without_timing(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def first_difference(a: object, b: object, path: str = "") -> str | None:
    """The first path where two JSON values differ (None: equal)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key} (only in one)"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} ({len(a)} against {len(b)} items)"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} against {b!r}"


def compare_outputs(this: str, before: str) -> str | None:
    """The first difference of two `--summary --json` outputs, less TIMING_KEYS."""
    return first_difference(_without_timing(json.loads(this)),
                            _without_timing(json.loads(before)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a checkout of the code before")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--samples", default=",".join(SAMPLES))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = args.samples.split(",")
    if args.worker:
        worker(names, args.repeat, args.profile)
        return 0
    this: dict[str, list[float]] = {name: [] for name in names}
    before: dict[str, list[float]] = {name: [] for name in names}
    outputs: dict[str, tuple[str, str]] = {}
    # one pass a process, the two codes taking turns: both meet the same load
    for i in range(args.repeat):
        ran = _run_worker(ROOT, names, 1, args.profile and i == 0)
        for name in names:
            this[name] += ran["cpu_s"][name]
        if args.before:
            old = _run_worker(args.before.resolve(), names, 1, False)
            for name in names:
                before[name] += old["cpu_s"][name]
                outputs[name] = (ran["outputs"][name], old["outputs"][name])
    print(f"CPU s of a cold --summary --json --no-cache, median of {args.repeat} "
          f"(least){' this / before' if args.before else ''}:")
    same = True
    for name in names:
        line = f"  {name:42} {_figure(this[name])}"
        if args.before:
            difference = compare_outputs(*outputs[name])
            same = same and difference is None
            line += f"  {_figure(before[name])}  {_change(this[name], before[name])}  " + (
                "same" if difference is None else f"DIFFERS at {difference}")
        print(line)
    passes_this = [sum(times) for times in zip(*this.values(), strict=True)]
    line = f"  {'all':42} {_figure(passes_this)}"
    if args.before:
        passes_before = [sum(times) for times in zip(*before.values(), strict=True)]
        line += f"  {_figure(passes_before)}  {_change(passes_this, passes_before)}"
    print(line)
    return 0 if same else 1


def _figure(times: list[float]) -> str:
    return f"{statistics.median(times):6.3f} ({min(times):6.3f})"


def _change(this: list[float], before: list[float]) -> str:
    """The change of the median (and of the least)."""
    return (f"{statistics.median(this) / statistics.median(before) - 1:+6.1%} "
            f"({min(this) / min(before) - 1:+6.1%})")


if __name__ == "__main__":
    sys.exit(main())
