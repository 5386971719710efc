"""Big Kineto traces, both file shapes: tui's cold and warm `--summary --json` and peak RSS
beside DuckDB's bare `read_json` of the same events, all in one run, printed as it goes.

Each trace is made here from the real sample in the repository (scale_trace.py: copies of
`launch_bound_inference`, shifted in time: *scaled*), in the shape asked for:
  - `lines`: one event a line (as scale_trace.py, and most re-exports, write it);
  - `pretty`: each event over several lines, indented (the shape Kineto writes).
A size is the file's size (e.g. 700MB, 3GB, 10GB; the copies rounded to fit).

For each trace, in one run: the bare read (the events array cut out of the file
beforehand, untimed; one DuckDB query, as load_bench.py's), then for each `--json-lines`
setting a cold open (the cache emptied first; the median of `--repeat`, every run
printed) and a warm one. Before each timed run its input (the array, the trace) is read
through once, untimed, so that both read it from the page cache. With `--paired`, each
cold open follows a bare read of its own (the array kept meanwhile: the trace's size more
of disk), and the ratio is the median of each pair's: the bare read of one 10 GB trace on a
2-core VM took from 79 to 100 s a run, and a ratio to one bare read moved with it.
`--json-lines on` sets
TUI_JSON_LINES=1: a plain file's parts are rewritten one event a line and read by DuckDB's
newline-delimited reader (kineto.py).

Each trace is deleted after its runs (a 10 GB one needs about 3x its size of free disk
while it runs: the trace, the cut-out array or tui's parts, the cache). `--deadline S`
skips what would start after S seconds, saying so.

Usage: python benchmarks/big_traces.py [--sizes 700MB,3GB] [--shapes lines,pretty]
        [--json-lines off,on] [--repeat 1] [--paired] [--memory 4GB] [--workdir DIR]
        [--deadline 520]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import load_bench  # noqa: E402  (beside this file)

SOURCE = ROOT / "sample_traces" / "launch_bound_inference.pt.trace.json.gz"
UNITS = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
         "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}
STARTED = time.perf_counter()


def size_bytes(text: str) -> int:
    match = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]I?B)?\s*", text.upper())
    if not match:
        raise SystemExit(f"not a size: {text!r} (e.g. 700MB, 3GB)")
    return int(float(match.group(1)) * UNITS[match.group(2) or "MB"])


def scale(plain: Path, copies: int, shape: str, target: Path) -> None:
    args = [sys.executable, str(HERE / "scale_trace.py"), str(plain), str(target), str(copies),
            str(os.cpu_count() or 1)]
    subprocess.run(args + (["--pretty"] if shape == "pretty" else []), check=True)


def copy_bytes(plain: Path, shape: str, work: Path) -> int:
    """Bytes one copy of the sample takes in `shape` (a copy of it made and measured)."""
    one = work / f"one-{shape}.json"
    scale(plain, 1, shape, one)
    size = one.stat().st_size
    one.unlink()
    return size


def elapsed() -> float:
    return time.perf_counter() - STARTED


def tui_runs(trace: Path, work: Path, env_extra: dict, repeat: int,
             memory: str | None, bare_before: Callable[[], float] | None = None,
             ) -> tuple[list[tuple], tuple, str, list[float]]:
    """Cold runs (each from an empty cache; with `bare_before`, each after a bare read of
    its own), then one warm run; the last cold's budget, and the bare reads' seconds."""
    cache = work / "cache"
    env = {**os.environ, **env_extra, "TUI_CACHE_DIR": str(cache)}
    cmd = load_bench.summary_cmd(trace) + (["--memory", memory] if memory else [])
    colds, bares = [], []
    for _ in range(repeat):
        if bare_before is not None:
            bares.append(bare_before())
        shutil.rmtree(cache, ignore_errors=True)
        os.sync()
        read_through(trace)
        colds.append(load_bench.run_measured(cmd, env, ROOT))
    warm = load_bench.run_measured(cmd, env, ROOT)
    shutil.rmtree(cache, ignore_errors=True)
    budget = json.loads(colds[-1][2]).get("source", {}).get("memory_budget", "?")
    return colds, warm, budget, bares


def read_through(path: Path) -> None:
    """Read a file once, untimed, so that a timed run reads it from the page cache: the bare
    read's array was just written, so it is there; the trace may not be, where the machine's
    memory cannot hold the trace, the array and tui's parts at once (a 10 GB trace's cold
    open on a 24 GB machine: 173 s, against 126-128 s read through first)."""
    with open(path, "rb") as f:
        while f.read(8 << 20):
            pass


def targets_met(ratio: float, rss: int, warm: float, budget: str) -> str:
    """The targets: cold <= 0.5x the bare read on 16 cores or more (1.5x on fewer), peak
    RSS <= the budget + 300 MB (1 GB on 2 cores), warm <= 0.5 s."""
    cores = os.cpu_count() or 1
    cold_ok = ratio <= (0.5 if cores >= 16 else 1.5)
    try:
        rss_limit = size_bytes(budget) + 300 * 10**6 if cores > 2 else 10**9
    except SystemExit:  # a budget this script cannot read
        rss_limit = None
    rss_ok = "?" if rss_limit is None else "yes" if rss <= rss_limit else "no"
    return (f"{'yes' if cold_ok else 'no'}, {rss_ok}, {'yes' if warm <= 0.5 else 'no'}")


def one_trace(plain: Path, size: int, shape: str, per_copy: int, args, work: Path) -> None:
    copies = max(1, round(size / per_copy))
    trace = work / f"{shape}-x{copies}.json"
    t = time.perf_counter()
    scale(plain, copies, shape, trace)
    made = time.perf_counter() - t
    mb = trace.stat().st_size / 1e6
    print(f"\n## {shape}, {mb:,.0f} MB (x{copies} copies, made in {made:.0f} s), "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    from tui.sources.chrome_json import extract_events

    array = work / "bare-events.json"
    extract_events(trace, array, 1)

    def bare_read() -> float:
        os.sync()
        read_through(array)
        seconds, events = load_bench.bare_duckdb_read_counted(array)
        if not args.paired:  # paired, the row says each
            print(f"bare read_json (one array): {seconds:.2f} s, {events:,} events",
                  flush=True)
        return seconds

    bare = 0.0  # paired: each cold open's own bare read instead
    if not args.paired:
        bare = bare_read()
        array.unlink()
    print("| size | shape | json lines | bare s | tui cold s (each run) | cold / bare | "
          "cold RSS MB | warm s | warm RSS MB | budget | targets: cold, RSS, warm |", flush=True)
    print("|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    settings = args.json_lines.split(",")
    for setting in settings:
        if args.deadline and elapsed() > args.deadline:
            print(f"skipped (past --deadline {args.deadline} s): {shape} json lines {setting}",
                  flush=True)
            continue
        env = {"TUI_JSON_LINES": "1" if setting == "on" else "0"}
        colds, warm, budget, bares = tui_runs(trace, work, env, args.repeat, args.memory,
                                              bare_read if args.paired else None)
        median = statistics.median_low([run[0] for run in colds])
        # paired: each cold open beside the bare read just before it
        ratio = (statistics.median_low([run[0] / b for run, b in zip(colds, bares, strict=True)])
                 if bares else median / bare)
        rss = max(run[1] for run in colds)
        each = " / ".join(f"{run[0]:.2f}" for run in colds)
        bare_text = " / ".join(f"{b:.2f}" for b in bares) if bares else f"{bare:.2f}"
        met = targets_met(ratio, rss, warm[0], budget)
        print(f"| {mb:,.0f} MB | {shape} | {setting} | {bare_text} | {median:.2f} ({each}) | "
              f"{ratio:.2f} | {rss / 1e6:,.0f} | {warm[0]:.2f} | {warm[1] / 1e6:,.0f} | "
              f"{budget} | {met} |", flush=True)
    array.unlink(missing_ok=True)
    trace.unlink()



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="700MB", help="file sizes, e.g. 700MB,3GB,10GB")
    ap.add_argument("--shapes", default="lines,pretty", help="lines, pretty or both")
    ap.add_argument("--json-lines", default="off,on",
                    help="TUI_JSON_LINES settings to run each trace under: off, on")
    ap.add_argument("--repeat", type=int, default=1, help="cold runs of each")
    ap.add_argument("--memory", help="tui's --memory (default: tui's own default budget)")
    ap.add_argument("--workdir", type=Path, help="where traces are made (default: a temp dir)")
    ap.add_argument("--paired", action="store_true",
                    help="a bare read before each cold open, the ratio each pair's (median)")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds after which no further tui run starts (0: none)")
    args = ap.parse_args()
    import duckdb

    work = args.workdir or Path(tempfile.mkdtemp(prefix="big-traces-"))
    work.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(work).free
    print(f"{platform.node()}: {os.cpu_count()} cores, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB memory, "
          f"{free / 1e9:,.0f} GB free in {work}, load {os.getloadavg()[0]:.1f}; Python "
          f"{platform.python_version()}, DuckDB {duckdb.__version__}; scaled traces "
          f"(copies of {SOURCE.name})", flush=True)
    plain = work / "source.json"
    with gzip.open(SOURCE, "rb") as f, open(plain, "wb") as out:
        shutil.copyfileobj(f, out)
    shapes = [shape for shape in args.shapes.split(",") if shape]
    per_copy = {shape: copy_bytes(plain, shape, work) for shape in shapes}
    for size in (size_bytes(s) for s in args.sizes.split(",")):
        for shape in shapes:
            if args.deadline and elapsed() > args.deadline:
                print(f"\nskipped (past --deadline {args.deadline} s): {size / 1e6:,.0f} MB "
                      f"{shape}", flush=True)
                continue
            one_trace(plain, size, shape, per_copy[shape], args, work)
    plain.unlink()
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\ndone in {elapsed():.0f} s", flush=True)


if __name__ == "__main__":
    main()
