"""Opening a run of many ranks again: `tui --summary --json RUN/` cold (empty cache) and
warm (every rank cached, the run opened before), wall time and peak RSS, beside the same
figures of the code before (`--before COMMIT` or a checkout) in the same run.

The ranks are *copies* of the four real DDP ranks in sample_traces/ddp4/ (rank i is a
hard link to ddp_rank{i % 4}; each copy is its own trace to tui: its own path, cache file
and memos). Every figure is of a whole `tui` process, its imports included; peak RSS is
that of the process and its load pool's processes together (sampled every 50 ms).

For this checkout it also times a warm open with only each rank's summary kept (the run's
own memo removed: the run worked out again over the stores), what a run costs when a rank
was added or changed. `same figures` compares the outputs less what says how they were
read (source.load_s, cache_notes, from_cache).

A size not timed cold (`--cold`) has its cache *seeded*: the four real ranks loaded once,
each copy's cache file a copy of its rank's with trace_meta's source path set to the copy
(what loading the copy would have written: the copies are hard links, of the same size
and modification time), and its rank's summary kept as its rank's was, stamped for its
own cache file; its first open then reads each rank's summary back and works the run
out over the stores ("warm, ranks' memos only"). The code before (`--before`) opens the
same cache warm; `--before-ranks` limits the sizes it is timed at (its warm open of 1,024
ranks took 96 s on a quiet 2-core VM).

Usage: python benchmarks/run_memo_bench.py --ranks 64,256,1024 [--cold 64,256]
                                           [--warm-runs 2] [--before COMMIT|CHECKOUT]
                                           [--before-ranks 64,256]
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
MIN_GAP_NS = 1_000_000  # the default --min-gap-ms

# Run in a small forked launcher, which reports its child's wall time, peak RSS (of the
# whole process tree: the child and its pool's processes together, read from /proc every
# 50 ms; at least the largest single one's, wait4's ru_maxrss) and CPU time (theirs
# together: on a shared machine the steadier figure).
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
page = os.sysconf("SC_PAGE_SIZE")

def tree_rss():
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    tree, grew = {pid}, True
    while grew:
        more = {p for p, parent in parents.items() if parent in tree} - tree
        grew, tree = bool(more), tree | more
    total = 0
    for p in tree:
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            pass
    return total

peak = 0
while True:
    done, status, usage = os.wait4(pid, os.WNOHANG)
    if done:
        break
    peak = max(peak, tree_rss())
    time.sleep(0.05)
cpu = usage.ru_utime + usage.ru_stime
peak = max(peak, usage.ru_maxrss * 1024)
print(f"\\nmeasured {time.perf_counter() - start} {peak} {cpu}", file=sys.stderr)
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
        wall, peak_rss, cpu = tail.split()
        return float(wall), int(peak_rss), out.read().decode(), float(cpu)


def figures(text: str) -> dict:
    summary = json.loads(text)
    for key in ("load_s", "cache_notes", "from_cache"):
        summary["source"].pop(key, None)
    return summary


def seed_cache(folder: Path, cache: Path, code: Path) -> None:
    """`cache` holding a cache file for every copy in `folder`, copied from the cache files
    of the first four (loaded here) with the copy's path set in trace_meta."""
    import duckdb

    shutil.rmtree(cache, ignore_errors=True)
    copies = sorted(folder.iterdir())
    first = folder.parent / f"{folder.name}_first4"
    first.mkdir(exist_ok=True)
    for copy in copies[:4]:
        if not (first / copy.name).exists():
            os.link(copy, first / copy.name)
    measured(code, first, cache)  # the four loaded: their cache files
    env_cache = os.environ.get("TUI_CACHE_DIR")
    os.environ["TUI_CACHE_DIR"] = str(cache)
    sys.path.insert(0, str(code))
    from tui.analysis.rank_memo import cache_stamp, rank_memo_file
    from tui.loading.cache import cache_file

    try:
        built = {i: cache_file(first / copy.name) for i, copy in enumerate(copies[:4])}
        memos = {i: json.loads(rank_memo_file(path, MIN_GAP_NS).read_text())
                 for i, path in built.items()}
        for i, copy in enumerate(copies):
            target = cache_file(copy)
            shutil.copyfile(built[i % 4], target)
            con = duckdb.connect(str(target))
            con.execute("UPDATE trace_meta SET value = ? WHERE key = 'source_path'",
                        [str(copy.resolve())])
            con.close()
            memo = memos[i % 4]
            memo["stamp"] = cache_stamp(target)
            memo["meta"]["source_path"] = str(copy.resolve())
            rank_memo_file(target, MIN_GAP_NS).write_text(json.dumps(memo))
        for path in built.values():  # the four's own: not the copies'
            for kept in cache.glob(f"{path.name}*.json"):
                kept.unlink()
        for kept in cache.glob("run-*.json"):
            kept.unlink()
    finally:
        if env_cache is None:
            os.environ.pop("TUI_CACHE_DIR", None)
        else:
            os.environ["TUI_CACHE_DIR"] = env_cache


def timings(code: Path, folder: Path, cache: Path, cold: bool, warm_runs: int,
            ranks_only: bool) -> dict:
    """Cold (when `cold`), then warm `warm_runs` times (the median), then warm with each
    rank's memo only (`ranks_only`: before the warm runs on a seeded cache)."""
    out: dict = {}
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
        wall, rss, text, cpu = measured(code, folder, cache)
        out["cold"] = (wall, rss, cpu)
        out["text"] = text
    elif ranks_only:
        wall, rss, text, cpu = measured(code, folder, cache)
        out["ranks_only"] = (wall, rss, cpu)
        out["text"] = text
    runs = [measured(code, folder, cache) for _ in range(warm_runs)]
    runs.sort(key=lambda r: r[0])
    wall, rss, _, cpu = runs[(len(runs) - 1) // 2]
    out["warm"] = (wall, rss, cpu)
    out.setdefault("text", runs[0][2])
    out["warm_text"] = runs[0][2]
    if ranks_only and cold:
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
    parser.add_argument("--before-ranks", default=None,
                        help="the sizes the code before is timed at (default: every size)")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "tui-run-memo-bench")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    sizes = [int(n) for n in args.ranks.split(",")]
    cold_sizes = sizes if args.cold is None else [int(n) for n in args.cold.split(",") if n]
    before_sizes = (sizes if args.before_ranks is None
                    else [int(n) for n in args.before_ranks.split(",") if n])
    versions = [("this", ROOT)]
    if args.before:
        versions.append((f"before {args.before}", checkout(args.before, args.workdir)))
    print(f"copies of the 4 real DDP ranks (sample_traces/ddp4); {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}")
    print("ranks | code | cold s (CPU s) | cold s/rank | "
          "cold RSS MB | warm s (CPU s) | warm RSS MB | "
          "warm, ranks' memos only s (CPU s) | its RSS MB | "
          "same figures as this")
    for count in sizes:
        folder = run_folder(count, args.workdir)
        results = {}
        shared = args.workdir / f"cache-{count}-this"
        if count not in cold_sizes:
            seed_cache(folder, shared, ROOT)
        for name, code in versions:
            if name != "this" and count not in before_sizes:
                continue
            # the code before times its own cold open; else it reads this one's cache
            cold = count in cold_sizes
            cache = args.workdir / f"cache-{count}-before" if cold and name != "this" else shared
            results[name] = timings(code, folder, cache, cold, args.warm_runs,
                                    ranks_only=name == "this")
        this = figures(results["this"]["warm_text"])
        for name, got in results.items():
            cold = got.get("cold")
            same = (figures(got["text"]) == this and figures(got["warm_text"]) == this)
            print(" | ".join([
                str(count), name,
                f"{cold[0]:.2f} ({cold[2]:.2f})" if cold else "seeded",
                f"{cold[0] / count:.3f}" if cold else "-",
                f"{cold[1] / 1e6:.0f}" if cold else "-",
                f"{got['warm'][0]:.2f} ({got['warm'][2]:.2f})", f"{got['warm'][1] / 1e6:.0f}",
                (f"{got['ranks_only'][0]:.2f} ({got['ranks_only'][2]:.2f})"
                 if "ranks_only" in got else "-"),
                f"{got['ranks_only'][1] / 1e6:.0f}" if "ranks_only" in got else "-",
                "yes" if same else "NO"]), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}; warm: the median of "
          f"{args.warm_runs} run(s)")


if __name__ == "__main__":
    main()
