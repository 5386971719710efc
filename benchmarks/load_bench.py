"""Cold and warm open of scaled Kineto traces, side by side with baselines in the same run.

For each scale (copies of a real trace, made by scale_trace.py: label the figures as
scaled) it prints, with the baseline measured in the same run:
  - bare DuckDB: `read_json` of the same event array into a table (the floor for any
    DuckDB-based loader; the array is cut out of the file beforehand, not timed),
  - tui cold: `tui --summary --json TRACE` with an empty cache (load + summary),
  - tui warm: the same command again (from the cache),
  - peak RSS of each tui run,
  - optionally (--hta) Holistic Trace Analysis loading the same trace, run with the
    Python given by --hta-python (a venv with `pip install HolisticTraceAnalysis`).

With --gz-scales, the same traces gzipped: cold and warm open and peak RSS of the .json.gz
beside the cold open of the plain file.

With --xla-scales, the same for XLA (JAX) trace-viewer JSON scaled by scale_trace.py from
--xla-source (a real jax.profiler recording), against the same bare read_json.

With --nsys-scales, the same for Nsight Systems SQLite exports scaled by scale_nsys.py,
against a bare scan: every activity table read into Arrow through ADBC.

With --repeat N, every timed run (baselines included, HTA excepted) is made N times and
the median is printed. Before each, dirty pages are flushed (sync): writing a 700 MB
scratch array just before a run otherwise slows that run's own writes.

Usage: python benchmarks/load_bench.py [--source TRACE] [--scales 1,10,30] [--hta] [--gz-scales 40]
                                       [--nsys-scales 1,64,1024] [--xla-scales 1,73] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_SOURCE = ROOT / "sample_traces" / "launch_bound_inference.pt.trace.json.gz"
# un-jitted small JAX ops: 7.4 MB of events, 73 copies make 503 MB
DEFAULT_XLA_SOURCE = (ROOT / "sample_traces" / "jax_eager" / "plugins" / "profile"
                      / "2026_11_24_13_14_59" / "perfetto_trace.json.gz")

HTA_SCRIPT = """
import sys, time
t = time.time()
from hta.trace_analysis import TraceAnalysis
TraceAnalysis(trace_dir=sys.argv[1])
print(time.time() - t)
"""


# Runs the command it is given in a child of its own and prints that child's wall time and
# peak RSS as its last line of stderr. A child started straight from this process would
# report this process's own peak as its peak RSS (the kernel carries the peak of the
# memory a child starts from across exec, and Python starts children by vfork), and this
# process holds a big trace's 0.3 GB summary at times; a fork from a small launcher does
# not carry it.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(f"\\nmeasured {time.perf_counter() - start} {usage.ru_maxrss}", file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(cmd: list[str], env: dict | None = None,
                 cwd: Path | None = None) -> tuple[float, int, str]:
    """(wall seconds, peak RSS bytes, stdout) of one child process, measured by wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.run([sys.executable, "-c", LAUNCHER, *cmd], stdout=out,
                              stderr=err, env=env, cwd=cwd, check=False)
        out.seek(0)
        err.seek(0)
        errors, _, measured = err.read().decode().rpartition("\nmeasured ")
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {errors[-500:]}")
        wall, maxrss_kb = measured.split()
        return float(wall), int(maxrss_kb) * 1024, out.read().decode()


REPEAT = 1  # set from --repeat


def median_run(run: Callable[[], tuple]) -> tuple:
    """Call `run` REPEAT times (after a sync each time); the run with the median first
    value (the wall time)."""
    results = []
    for _ in range(REPEAT):
        os.sync()
        results.append(run())
    results.sort(key=lambda r: r[0])
    return results[(len(results) - 1) // 2]


def summary_cmd(trace: Path) -> list[str]:
    """What is timed: `tui --summary --json TRACE`, as its own process."""
    return [sys.executable, "-m", "tui", "--summary", "--json", str(trace)]


def cold_and_warm(cmd: list[str], cache: Path,
                  cwd: Path | None = None) -> tuple[tuple, tuple]:
    """Median cold run (the cache emptied before each) and median warm run of `cmd` (from
    the cache the last cold run left), run in `cwd` (whose tui `-m tui` runs)."""
    env = {**os.environ, "TUI_CACHE_DIR": str(cache)}

    def cold() -> tuple:
        shutil.rmtree(cache, ignore_errors=True)
        return run_measured(cmd, env, cwd)

    cold_run = median_run(cold)
    return cold_run, median_run(lambda: run_measured(cmd, env, cwd))


def bare_duckdb_read(events_array: Path) -> float:
    return bare_duckdb_read_counted(events_array)[0]


def bare_duckdb_read_counted(events_array: Path) -> tuple[float, int]:
    """Seconds of the bare read, and the events it read."""
    code = (
        "import duckdb, sys, time\n"
        "con = duckdb.connect()\n"
        "con.execute(\"SET enable_progress_bar = false\")\n"
        "t = time.perf_counter()\n"
        "con.execute(\"CREATE TABLE e AS SELECT * FROM read_json(?, format='array', columns={"
        "ph:'VARCHAR',cat:'VARCHAR',name:'VARCHAR',pid:'VARCHAR',tid:'VARCHAR',ts:'VARCHAR',"
        "dur:'VARCHAR',args:'JSON'})\", [sys.argv[1]])\n"
        "print(time.perf_counter() - t, con.execute('SELECT count(*) FROM e').fetchone()[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(events_array)], check=True,
                         capture_output=True, text=True).stdout
    seconds, events = out.split()
    return float(seconds), int(events)


NSYS_SCAN = """
import sys, time
import adbc_driver_sqlite.dbapi as adbc
t = time.perf_counter()
con = adbc.connect(f"file:{sys.argv[1]}?mode=ro")
rows = 0
for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
              "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"):
    cur = con.cursor()
    cur.execute(f"SELECT * FROM {table}")
    rows += cur.fetch_arrow_table().num_rows
print(time.perf_counter() - t)
"""


def nsys_rows(copies: int, workdir: Path, source: Path) -> None:
    trace = workdir / f"nsys_x{copies}.sqlite"
    if not trace.exists():
        subprocess.run([sys.executable, str(HERE / "scale_nsys.py"), str(source), str(trace),
                        str(copies)], check=True)
    baseline = median_run(lambda: (float(run_measured(
        [sys.executable, "-c", NSYS_SCAN, str(trace)])[2].strip()),))[0]
    (cold, cold_rss, out), (warm, warm_rss, _) = cold_and_warm(
        summary_cmd(trace), workdir / f"nsys_cache_x{copies}")
    kernels = sum(k["count"] for k in json.loads(out)["kernels"])
    row = (f"{copies}x", f"{trace.stat().st_size / 1e6:.0f}", f"{kernels:,}", f"{baseline:.2f}",
           f"{cold:.2f}", f"{cold / baseline:.2f}", f"{warm:.2f}", f"{cold_rss / 1e6:.0f}",
           f"{warm_rss / 1e6:.0f}")
    print(" | ".join(row), flush=True)


def gz_rows(copies: int, workdir: Path, source: Path) -> None:
    trace = make_scaled(source, copies, workdir)
    gz = workdir / f"{trace.name}.gz"
    if not gz.exists():
        gzip_file(trace, gz)
    runs = {}
    for path in (gz, trace):
        runs[path] = cold_and_warm(summary_cmd(path), workdir / f"cache_{path.name}")
    (cold, cold_rss, _), (warm, _, _) = runs[gz]
    plain_cold = runs[trace][0][0]
    row = (f"{copies}x", f"{gz.stat().st_size / 1e6:.0f}", f"{cold:.2f}", f"{warm:.2f}",
           f"{cold_rss / 1e6:.0f}", f"{plain_cold:.2f}", f"{cold / plain_cold:.2f}")
    print(" | ".join(row), flush=True)


GZ_JOBS = 1  # set from --gz-jobs


def gzip_file(plain: Path, gz: Path) -> None:
    """gzip `plain` at level 6: with GZ_JOBS processes, as that many gzip members one
    after the other (a valid .gz, inflated as one stream of members)."""
    if GZ_JOBS == 1:
        with open(plain, "rb") as f, gzip.open(gz, "wb", compresslevel=6) as out:
            shutil.copyfileobj(f, out, 1 << 20)
        return
    from concurrent.futures import ProcessPoolExecutor

    size = plain.stat().st_size
    bounds = [size * k // GZ_JOBS for k in range(GZ_JOBS + 1)]
    with ProcessPoolExecutor(GZ_JOBS) as pool:
        members = list(pool.map(_gzip_member, [plain] * GZ_JOBS, bounds[:-1], bounds[1:]))
    with open(gz, "wb") as out:
        for member in members:
            out.write(member)


def _gzip_member(plain: Path, start: int, end: int) -> bytes:
    with open(plain, "rb") as f:
        f.seek(start)
        return gzip.compress(f.read(end - start), compresslevel=6)


def xla_rows(copies: int, workdir: Path, source: Path) -> None:
    """Like the Kineto rows, but each cold open is timed right after a bare read (pairs,
    REPEAT of them): on a shared machine the load drifts within minutes, and a baseline
    taken minutes before its cold opens can be off by 2x. Prints the medians and the
    median of the pairs' ratios."""
    from tui.sources.chrome_json import extract_events

    trace = make_scaled(source, copies, workdir, prefix="xla_")
    array = workdir / f"xla_events_x{copies}.json"
    extract_events(trace, array)
    cache = workdir / f"xla_cache_x{copies}"
    env = {**os.environ, "TUI_CACHE_DIR": str(cache)}
    pairs = []
    for _ in range(REPEAT):
        os.sync()
        bare = bare_duckdb_read(array)
        shutil.rmtree(cache, ignore_errors=True)
        os.sync()
        pairs.append((bare, *run_measured(summary_cmd(trace), env)))
    warm, warm_rss, _ = median_run(lambda: run_measured(summary_cmd(trace), env))
    baseline = sorted(p[0] for p in pairs)[(len(pairs) - 1) // 2]
    _, cold, cold_rss, out = sorted(pairs, key=lambda p: p[1])[(len(pairs) - 1) // 2]
    ratio = sorted(p[1] / p[0] for p in pairs)[(len(pairs) - 1) // 2]
    kernels = sum(k["count"] for k in json.loads(out)["kernels"])
    events = _count_events(array)
    array.unlink()
    row = (f"{copies}x", f"{trace.stat().st_size / 1e6:.0f}", f"{events:,}", f"{kernels:,}",
           f"{baseline:.2f}", f"{cold:.2f}", f"{ratio:.2f}", f"{warm:.2f}",
           f"{cold_rss / 1e6:.0f}", f"{warm_rss / 1e6:.0f}",
           " ".join(f"{c:.2f}/{b:.2f}" for b, c, *_ in pairs))
    print(" | ".join(row), flush=True)


def make_scaled(source: Path, copies: int, workdir: Path, prefix: str = "") -> Path:
    # named after the source: a copy of another source left in the workdir is not reused
    name = prefix + source.name.split(".")[0]
    plain = workdir / f"{name}.json"
    if not plain.exists():
        opener = gzip.open if source.read_bytes()[:2] == b"\x1f\x8b" else open
        with opener(source, "rb") as f, open(plain, "wb") as out:
            shutil.copyfileobj(f, out)
    target = workdir / f"{name}_x{copies}.json"
    if not target.exists():
        subprocess.run([sys.executable, str(HERE / "scale_trace.py"), str(plain), str(target),
                        str(copies)], check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--scales", default="1,10,30")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "tui-bench")
    parser.add_argument("--hta", action="store_true", help="also time HolisticTraceAnalysis")
    parser.add_argument("--hta-python", default=sys.executable)
    parser.add_argument("--gz-scales", default="", help="gzipped copies too, e.g. 40")
    parser.add_argument("--nsys-scales", default="", help="e.g. 1,64,1024")
    parser.add_argument("--xla-scales", default="", help="XLA (JAX) JSON too, e.g. 1,73")
    parser.add_argument("--xla-source", type=Path, default=DEFAULT_XLA_SOURCE)
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each timed step; the median is printed")
    parser.add_argument("--gz-jobs", type=int, default=1,
                        help="processes that gzip a scaled trace (as that many members)")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout (the code before): its cold and warm open "
                             "of each Kineto scale too, in the same run")
    parser.add_argument("--nsys-source", type=Path,
                        default=ROOT / "sample_traces" / "gappy_then_tuned.sqlite")
    args = parser.parse_args()
    global REPEAT, GZ_JOBS
    REPEAT = max(1, args.repeat)
    GZ_JOBS = max(1, args.gz_jobs)
    args.workdir.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from tui.sources.chrome_json import extract_events

    print(f"machine: {os.cpu_count()} cores; median of {REPEAT} run(s) each")
    header = ("scale", "MB", "events", "kernels", "duckdb s", "cold s", "cold/duckdb",
              "warm s", "cold RSS MB", "warm RSS MB", "HTA s", "HTA/cold")
    if args.scales:
        print(f"source: {args.source.name} (real), scaled copies")
        print(" | ".join(header))
    for copies in (int(s) for s in args.scales.split(",") if s):
        trace = make_scaled(args.source, copies, args.workdir)
        array = args.workdir / f"events_x{copies}.json"
        extract_events(trace, array)
        baseline, events = median_run(lambda a=array: bare_duckdb_read_counted(a))
        (cold, cold_rss, out), (warm, warm_rss, _) = cold_and_warm(
            summary_cmd(trace), args.workdir / f"cache_x{copies}")
        if args.before is not None:
            (b_cold, b_rss, b_out), (b_warm, _, _) = cold_and_warm(
                summary_cmd(trace), args.workdir / f"cache_before_x{copies}", args.before)
            print(f"{copies}x before ({args.before}): cold {b_cold:.2f} s "
                  f"({b_cold / baseline:.2f}x the bare read), warm {b_warm:.2f} s, "
                  f"cold RSS {b_rss / 1e6:.0f} MB; same summary: "
                  f"{_same_summary(out, b_out)}", flush=True)
        summary = json.loads(out)
        kernels = sum(k["count"] for k in summary["kernels"])
        hta = ""
        ratio = ""
        if args.hta:
            hta_dir = args.workdir / f"hta_x{copies}"
            hta_dir.mkdir(exist_ok=True)
            link = hta_dir / "rank0.json"
            if not link.exists():
                link.symlink_to(trace)
            hta_s, _, hta_out = run_measured([args.hta_python, "-c", HTA_SCRIPT, str(hta_dir)])
            hta = f"{float(hta_out.strip().splitlines()[-1]):.1f}"
            ratio = f"{float(hta) / cold:.0f}x"
        array.unlink()
        row = (f"{copies}x", f"{trace.stat().st_size / 1e6:.0f}", f"{events:,}", f"{kernels:,}",
               f"{baseline:.2f}", f"{cold:.2f}", f"{cold / baseline:.2f}", f"{warm:.2f}",
               f"{cold_rss / 1e6:.0f}", f"{warm_rss / 1e6:.0f}", hta, ratio)
        print(" | ".join(row), flush=True)
    if args.gz_scales:
        print("\nKineto .json.gz: the scaled traces gzipped (level 6), beside the plain file")
        print(" | ".join(("scale", "gz MB", "cold s", "warm s", "cold RSS MB", "plain cold s",
                          "gz cold / plain cold")))
        for copies in (int(s) for s in args.gz_scales.split(",") if s):
            gz_rows(copies, args.workdir, args.source)
    if args.nsys_scales:
        print(f"\nnsys source: {args.nsys_source.name} (real), scaled copies")
        print(" | ".join(("scale", "MB", "kernels", "ADBC scan s", "cold s", "cold/scan",
                          "warm s", "cold RSS MB", "warm RSS MB")))
        for copies in (int(s) for s in args.nsys_scales.split(",")):
            nsys_rows(copies, args.workdir, args.nsys_source)
    if args.xla_scales:
        print(f"\nXLA source: {args.xla_source.name} of {args.xla_source.parents[3].name} "
              "(real), scaled copies")
        print(" | ".join((*header[:6], "median of cold/duckdb pairs", *header[7:10],
                          "pairs (cold/duckdb s)")))
        for copies in (int(s) for s in args.xla_scales.split(",") if s):
            xla_rows(copies, args.workdir, args.xla_source)


def _same_summary(one: str, other: str) -> bool:
    """Do two `--summary --json` outputs agree, where they are about the trace?"""
    def about_trace(text: str) -> dict:
        summary = json.loads(text)
        summary.get("source", {}).pop("cache_note", None)
        summary.get("source", {}).pop("from_cache", None)
        return summary
    return about_trace(one) == about_trace(other)


def _count_events(array: Path) -> int:
    import duckdb

    con = duckdb.connect()
    row = con.execute(
        "SELECT count(*) FROM read_json_objects(?, format='array')", [str(array)]
    ).fetchone()
    return row[0] if row else 0


if __name__ == "__main__":
    main()
