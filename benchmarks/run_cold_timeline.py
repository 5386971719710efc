"""Where a run's cold open spends its wall time, and whether it keeps every core busy:
`tui --summary --json RUN/` over copies of the four real DDP ranks (as run_memo_bench.py
makes them), an empty cache, with

- the parent's stages (imports, the run's discovery, the load pool, the combine, the
  run's summary, the JSON), each with its start, end and the parent's CPU seconds
  meanwhile (every thread of it);
- every process of the tree sampled every 0.1 s (/proc/PID/stat: user + system time),
  summed into slices of `--slice` seconds: how many cores the parent and the pool's
  processes kept busy in each. A slice under the machine's cores is a core left idle
  (or taken by another program: see the load average printed).

Run with PYTHONPATH pointing at the code to measure (default: this checkout).

Usage: python benchmarks/run_cold_timeline.py [--ranks 64] [--slice 1.0]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# Runs in the measured process: the parent's stages timed, then `tui` as its main.
STAGED = r"""
import functools, importlib, os, sys, time
START = time.perf_counter()
STAGES = {"tui.loading.paths": ["expand_paths"],
          "tui.runs.load": ["load_stores", "_load_in_pool"],
          "tui.runs.combine": ["combine", "split_processes"],
          "tui.runs.summary": ["run_summary", "collective_waits"],
          "tui.views.reports.run_json": ["write_run_json"]}

def timed(name, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            print(f"stage {name} {wall - START:.3f} {time.perf_counter() - START:.3f} "
                  f"{time.process_time() - cpu:.3f}", file=sys.stderr)
    return wrapper

import tui.cli.main
print(f"stage imports 0 {time.perf_counter() - START:.3f} {time.process_time():.3f}",
      file=sys.stderr)
for module_name, names in STAGES.items():
    module = importlib.import_module(module_name)
    for name in names:
        if hasattr(module, name):
            setattr(module, name, timed(name, getattr(module, name)))
# the callers' own names too (imported by name before the patch)
import tui.runs.run as run_module, tui.cli.ranks  # noqa
for name in ("load_stores", "combine", "split_processes"):
    if hasattr(run_module, name):
        setattr(run_module, name, getattr(sys.modules["tui.runs.load" if name ==
                "load_stores" else "tui.runs.combine"], name))
sys.argv = ["tui", *sys.argv[1:]]
code = tui.cli.main.main()
print(f"stage total 0 {time.perf_counter() - START:.3f} {time.process_time():.3f}",
      file=sys.stderr)
sys.exit(code)
"""


def tree_cpu(root: int, ticks: int) -> dict[int, float]:
    """CPU seconds so far of `root` and every process under it, by pid."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / ticks
    tree, grew = {root}, True
    while grew:
        more = {p for p, parent in parents.items() if parent in tree} - tree
        grew, tree = bool(more), tree | more
    return {p: cpu[p] for p in tree if p in cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--slice", type=float, default=1.0, help="seconds a row")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "tui-run-memo-bench")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from run_memo_bench import run_folder

    folder = run_folder(args.ranks, args.workdir)
    cache = Path(tempfile.mkdtemp(prefix="tui-cold-timeline-"))
    code = os.environ.get("PYTHONPATH", str(ROOT)).split(os.pathsep)[0]
    env = {**os.environ, "TUI_CACHE_DIR": str(cache), "PYTHONPATH": code}
    ticks = os.sysconf("SC_CLK_TCK")
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-c", STAGED, "--summary", "--json",
                                 str(folder)], stdout=subprocess.DEVNULL, stderr=err, env=env,
                                cwd=code)  # `-c` puts the working directory first on the path
        samples: list[tuple[float, dict[int, float]]] = []
        while proc.poll() is None:
            samples.append((time.perf_counter() - started, tree_cpu(proc.pid, ticks)))
            time.sleep(0.1)
        wall = time.perf_counter() - started
        err.seek(0)
        stages = [line.split()[1:] for line in err.read().decode().splitlines()
                  if line.startswith("stage ")]
    shutil.rmtree(cache, ignore_errors=True)
    print(f"{args.ranks} ranks cold: {wall:.2f} s wall; {os.cpu_count()} cores; "
          f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"{'stage':<18}{'from':>8}{'to':>8}{'wall':>8}{'parent CPU':>12}")
    for name, since, until, cpu in stages:
        print(f"{name:<18}{float(since):>8.2f}{float(until):>8.2f}"
              f"{float(until) - float(since):>8.2f}{float(cpu):>12.2f}")
    # cores busy a slice: the CPU seconds each process gained over it, / its length
    print(f"\n{'from s':>7}{'parent cores':>14}{'pool cores':>12}{'all':>6}")
    last: dict[int, float] = {}
    edge, parent_used, pool_used = args.slice, 0.0, 0.0
    idle = 0.0
    for at, cpu in samples:
        for pid, seconds in cpu.items():
            gained = seconds - last.get(pid, 0.0)
            if pid == proc.pid:
                parent_used += gained
            else:
                pool_used += gained
        last = cpu
        if at >= edge:
            total = (parent_used + pool_used) / args.slice
            idle += max(0.0, (os.cpu_count() or 1) - total) * args.slice
            print(f"{edge - args.slice:>7.1f}{parent_used / args.slice:>14.2f}"
                  f"{pool_used / args.slice:>12.2f}{total:>6.2f}")
            edge, parent_used, pool_used = edge + args.slice, 0.0, 0.0
    print(f"core-seconds left idle by the tree: {idle:.1f} of "
          f"{wall * (os.cpu_count() or 1):.1f}")


if __name__ == "__main__":
    main()
