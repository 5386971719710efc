"""Opening a run of many ranks again: `tui --summary --json RUN/` cold (empty cache) and
warm (every rank cached, the run opened before), wall time and peak RSS, beside the same
figures of the code before (`--before COMMIT` or a checkout) in the same run.

The ranks are *copies* of the four real DDP ranks in sample_traces/ddp4/ (rank i is a
hard link to ddp_rank{i % 4}; each copy is its own trace to tui: its own path, cache file
and memos). Every figure is of a whole `tui` process, its imports included; peak RSS is
the largest of the process and the load pool's processes (wait4's ru_maxrss).

For this checkout it also times a warm open with only each rank's summary kept (the run's
own memo removed: the run worked out again over the stores), what a run costs when a rank
was added or changed. `same figures` compares the outputs less what says how they were
read (source.load_s, cache_notes, from_cache).

Usage: python benchmarks/run_memo_bench.py --ranks 64,256 [--cold 64,256] [--warm-runs 2]
                                           [--before COMMIT|CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOURCE = ROOT / "sample_traces" / "ddp4"

# Run in a small forked launcher, which reports its child's wall time, peak RSS (the
# largest of the child and the processes it waited for, its pool's) and CPU time (theirs
# together: on a shared machine the steadier figure).
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
cpu = usage.ru_utime + usage.ru_stime
print(f"\\nmeasured {time.perf_counter() - start} {usage.ru_maxrss} {cpu}", file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_folder(count: int, workdir: Path) -> Path:
    """A folder of `count` copies of the DDP ranks (hard links where the file system
    allows)."""
    sources = sorted(SOURCE.glob("ddp_rank*.pt.trace.json.gz"))
    folder = workdir / f"ddp4_copies_{count}"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        target = folder / f"copy{i:05d}_rank{i % 4}.pt.trace.json.gz"
        if not target.exists():
            try:
                os.link(sources[i % 4], target)
            except OSError:
                shutil.copyfile(sources[i % 4], target)
    return folder


def checkout(before: str, workdir: Path) -> Path:
    """The code before: a checkout given, or a commit exported (git archive) once."""
    if Path(before).is_dir():
        return Path(before).resolve()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", before],
                            check=True, capture_output=True, text=True).stdout.strip()
    target = workdir / f"before-{commit}"
    if not (target / "tui").is_dir():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def measured(code: Path, folder: Path, cache: Path) -> tuple[float, int, str, float]:
    """(wall s, peak RSS bytes, stdout, CPU s) of `tui --summary --json FOLDER` run from `code`."""
    env = {**os.environ, "TUI_CACHE_DIR": str(cache), "PYTHONPATH": str(code)}
    cmd = [sys.executable, "-m", "tui", "--summary", "--json", str(folder)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.run([sys.executable, "-c", LAUNCHER, *cmd], stdout=out, stderr=err,
                              env=env, cwd=code, check=False)
        out.seek(0)
        err.seek(0)
        errors, _, tail = err.read().decode().rpartition("\nmeasured ")
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {errors[-500:]}")
        wall, maxrss_kb, cpu = tail.split()
        return float(wall), int(maxrss_kb) * 1024, out.read().decode(), float(cpu)


def figures(text: str) -> dict:
    summary = json.loads(text)
    for key in ("load_s", "cache_notes", "from_cache"):
        summary["source"].pop(key, None)
    return summary


def timings(code: Path, folder: Path, cache: Path, cold: bool, warm_runs: int,
            ranks_only: bool) -> dict:
    """Cold (when `cold`; else the cache is only filled), then warm `warm_runs` times
    (the median), then warm with each rank's memo only (`ranks_only`)."""
    out: dict = {}
    if cold or not cache.is_dir():
        shutil.rmtree(cache, ignore_errors=True)
        wall, rss, text, cpu = measured(code, folder, cache)
        if cold:
            out["cold"] = (wall, rss, cpu)
        out["text"] = text
    runs = [measured(code, folder, cache) for _ in range(warm_runs)]
    runs.sort(key=lambda r: r[0])
    wall, rss, _, cpu = runs[(len(runs) - 1) // 2]
    out["warm"] = (wall, rss, cpu)
    out.setdefault("text", runs[0][2])
    out["warm_text"] = runs[0][2]
    if ranks_only:
        for memo in cache.glob("run-*.json"):
            memo.unlink()
        wall, rss, _, cpu = measured(code, folder, cache)
        out["ranks_only"] = (wall, rss, cpu)
        measured(code, folder, cache)  # the run's memo written again
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", default="64,256", help="run sizes (copies of 4 ranks)")
    parser.add_argument("--cold", default=None,
                        help="the sizes also timed cold (default: every size)")
    parser.add_argument("--warm-runs", type=int, default=2)
    parser.add_argument("--before", help="a commit or a checkout: the code to compare with")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "tui-run-memo-bench")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    sizes = [int(n) for n in args.ranks.split(",")]
    cold_sizes = sizes if args.cold is None else [int(n) for n in args.cold.split(",") if n]
    versions = [("this", ROOT)]
    if args.before:
        versions.append((f"before {args.before}", checkout(args.before, args.workdir)))
    print(f"copies of the 4 real DDP ranks (sample_traces/ddp4); {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}")
    print("ranks | code | cold s (CPU s) | cold s/rank | cold RSS MB | warm s (CPU s) | "
          "warm RSS MB | warm, ranks' memos only s (CPU s) | same figures as this")
    for count in sizes:
        folder = run_folder(count, args.workdir)
        results = {}
        for name, code in versions:
            cache = args.workdir / f"cache-{count}-{name.split()[0]}"
            results[name] = timings(code, folder, cache, count in cold_sizes, args.warm_runs,
                                    ranks_only=name == "this")
        this = figures(results["this"]["warm_text"])
        for name, got in results.items():
            cold = got.get("cold")
            same = (figures(got["text"]) == this and figures(got["warm_text"]) == this)
            print(" | ".join([
                str(count), name,
                f"{cold[0]:.2f} ({cold[2]:.2f})" if cold else "-",
                f"{cold[0] / count:.3f}" if cold else "-",
                f"{cold[1] / 1e6:.0f}" if cold else "-",
                f"{got['warm'][0]:.2f} ({got['warm'][2]:.2f})", f"{got['warm'][1] / 1e6:.0f}",
                (f"{got['ranks_only'][0]:.2f} ({got['ranks_only'][2]:.2f})"
                 if "ranks_only" in got else "-"),
                "yes" if same else "NO"]), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}; warm: the median of "
          f"{args.warm_runs} run(s)")


if __name__ == "__main__":
    main()
