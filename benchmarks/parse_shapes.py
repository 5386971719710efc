"""The JSON parse alone: tui's event parts as JSON arrays (what the loader does) against
the same parts rewritten one event a line and read with DuckDB's newline-delimited reader,
beside the bare `read_json` of the whole array, for both file shapes:

- *one event a line*: a trace scaled by scale_trace.py (*scaled*);
- *pretty-printed*, as Kineto writes (one event over several lines): the real trace's
  events repeated (*repeated*, not shifted in time: for the parse only).

Each figure is one fresh process (wall s, CPU s of every thread, peak RSS MiB), the parse
into a file-backed table with tui's own stage query under a DuckDB memory limit; the rows
are checked to be the same, in the same order (a hash of every row with its position).

Methods (`--methods`, in the order given, each a fresh process): `bare` (the whole array,
one thread), `arrays` (tui's parts), `lines` (the parts rewritten in Python, one part
after another), `lines-np` (rewritten in NumPy, a thread a part), `lines-fix` (tui's own
rewrite in place, kineto.py `_to_lines`: TUI_JSON_LINES=1). With `--tui`, a cold and
a warm `tui --summary --json` of each trace too, beside load_bench.py's bare read.

Usage: python benchmarks/parse_shapes.py [--source TRACE] [--copies 40] [--threads N]
       [--memory 700MB] [--workdir DIR] [--methods arrays,lines-np] [--tui]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_SOURCE = ROOT / "sample_traces" / "launch_bound_inference.pt.trace.json.gz"
NL_TO_SPACE = bytes.maketrans(b"\n", b" ")
CHUNK = 8 << 20


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def separator(part: Path) -> bytes:
    """The bytes between two events' braces (white space, ',', white space), as the part's
    first two events have them."""
    from tui.sources.event_bounds import event_boundary

    with open(part, "rb") as f:
        head = f.read(1 << 20)
    comma = event_boundary(head)
    assert comma is not None
    start = head.rindex(b"}", 0, comma) + 1
    end = head.index(b"{", comma)
    return head[start:end]


def to_lines(part: Path, out: Path, sep: bytes) -> None:
    """Rewrite an array part one event a line, each byte kept in its place: every raw
    newline (white space in valid JSON) becomes a space, and the ',' between two events a
    newline; the brackets become spaces."""
    pattern = (b"}" + sep + b"{").translate(NL_TO_SPACE)
    repl = b"}" + sep.translate(NL_TO_SPACE).replace(b",", b"\n") + b"{"
    keep = len(pattern) - 1
    with open(part, "rb") as src, open(out, "wb") as dst:
        carry = b" " + src.read(CHUNK)[1:]  # the '['
        while True:
            more = src.read(CHUNK)
            data = carry.translate(NL_TO_SPACE).replace(pattern, repl)
            if not more:
                dst.write(data.rstrip(b"]") + b"\n")
                return
            dst.write(data[:-keep])
            carry = data[-keep:] + more


def to_lines_outside_gil(part: Path, out: Path, sep: bytes) -> None:
    """As to_lines, in NumPy (whose array operations let other threads run meanwhile), so
    that the parts can be rewritten a thread a part."""
    import numpy as np

    pattern = np.frombuffer((b"}" + sep + b"{").translate(NL_TO_SPACE), np.uint8)
    comma = int(np.flatnonzero(pattern == 0x2C)[0])
    keep = len(pattern) - 1
    with open(part, "rb") as src, open(out, "wb") as dst:
        carry = bytearray()
        first = True
        while True:
            block = bytearray(CHUNK)
            got = src.readinto(block)
            data = carry + block[:got]
            a = np.frombuffer(data, np.uint8)
            if first:
                a[0] = 0x20  # the '['
                first = False
            np.copyto(a, 0x20, where=a == 0x0A)
            at = np.flatnonzero(a == 0x2C)
            at = at[(at >= comma) & (at - comma + len(pattern) <= len(a))]
            for k, byte in enumerate(pattern):
                at = at[a[at - comma + k] == byte]
            a[at] = 0x0A
            if not got:
                dst.write(bytes(data).rstrip(b"]") + b"\n")
                return
            dst.write(memoryview(data)[:-keep])
            carry = data[-keep:]


def one(method: str, trace: Path, threads: int, memory: str, work: Path) -> None:
    """Run one method in this process and print its figures as JSON."""
    import duckdb

    from tui.core.queries import load_query
    from tui.sources.chrome_json import extract_events
    from tui.sources.kineto import ARRAYS, LINES, MAX_EVENT_BYTES

    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{memory}'")
    con.execute(f"SET temp_directory = '{work / 'spill'}'")
    con.execute("SET enable_progress_bar = false")
    con.execute(f"ATTACH '{work / 'scratch.duckdb'}' AS scratch")
    con.execute(load_query("kineto_events_table"))
    stage = load_query("kineto_stage_events")
    reader = ARRAYS
    figures: dict = {"method": method}
    wall, cpu = time.perf_counter(), _cpu()
    parts_dir = work / "parts"
    parts_dir.mkdir()
    if method == "bare":  # the whole array, one thread (tui's stage query, one array)
        con.execute("SET threads = 1")
        events = extract_events(trace, parts_dir / "events.json", 1)
        figures["copy_s"] = time.perf_counter() - wall
        paths = [str(p) for p in events.paths]
    else:
        con.execute(f"SET threads = {threads}")
        events = extract_events(trace, parts_dir / "events.json", threads)
        figures["copy_s"] = time.perf_counter() - wall
        paths = [str(p) for p in events.paths]
        if method == "lines-fix":  # tui's rewrite in place (kineto.py, event_lines.py)
            from tui.sources.kineto import _to_lines

            t, c0 = time.perf_counter(), _cpu()
            done = _to_lines(events.paths)
            figures["rewrite_s"] = time.perf_counter() - t
            figures["rewrite_cpu_s"] = _cpu() - c0
            if done:
                reader = LINES
            else:
                figures["method"] = "arrays (not one event a line)"
        if method in ("lines", "lines-np"):
            t, c0 = time.perf_counter(), _cpu()
            sep = separator(events.paths[0])
            lines = [parts_dir / f"lines-{k}.json" for k in range(len(events.paths))]
            if method == "lines":
                for part, out in zip(events.paths, lines, strict=True):
                    to_lines(part, out, sep)
            else:  # a thread a part
                with ThreadPoolExecutor(len(lines)) as pool:
                    list(pool.map(to_lines_outside_gil, events.paths, lines,
                                  [sep] * len(lines)))
            for part in events.paths:
                part.unlink()
            paths = [str(out) for out in lines]
            figures["rewrite_s"] = time.perf_counter() - t
            figures["rewrite_cpu_s"] = _cpu() - c0
            reader = LINES
    t, c = time.perf_counter(), _cpu()
    con.execute(stage, {"path": paths, "max_object_bytes": MAX_EVENT_BYTES, **reader})
    figures["parse_s"] = time.perf_counter() - t
    figures["parse_cpu_s"] = _cpu() - c
    figures["total_s"] = time.perf_counter() - wall
    figures["total_cpu_s"] = _cpu() - cpu
    figures["parts"] = len(paths)
    row = con.execute("SELECT count(*), bit_xor(hash(rowid, ph, name, start_ns, duration_ns, "
                      "args::VARCHAR)) FROM scratch.kineto_events").fetchone()
    assert row is not None
    figures["rows"], figures["hash"] = row[0], str(row[1])
    figures["rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


def make_pretty(source_json: Path, copies: int, target: Path) -> None:
    """The real trace's events, pretty-printed as Kineto writes them, repeated."""
    data = source_json.read_bytes()
    start = data.index(b"[", data.index(b'"traceEvents"')) + 1
    end = data.rindex(b"]")
    body = data[start:end].strip()
    with open(target, "wb") as out:
        out.write(data[:start] + b"\n")
        for k in range(copies):
            out.write((b",\n  " if k else b"") + body)
        out.write(b"\n" + data[end:])


def tui_figures(trace: Path, work: Path) -> None:
    """load_bench.py's bare read of the events, then tui's cold and warm open."""
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(ROOT))
    import load_bench

    from tui.sources.chrome_json import extract_events

    array = work / "bare-events.json"
    extract_events(trace, array, 1)
    bare, events = load_bench.bare_duckdb_read_counted(array)
    array.unlink()
    cold, warm = load_bench.cold_and_warm(load_bench.summary_cmd(trace), work / "cache",
                                          cwd=ROOT)
    print(f"bare read_json {bare:6.2f} s ({events:,} events) | tui cold {cold[0]:6.2f} s "
          f"({cold[0] / bare:.2f}x), peak RSS {cold[1] / 1e6:,.0f} MB | warm {warm[0]:.2f} s, "
          f"{warm[1] / 1e6:,.0f} MB", flush=True)
    budget = re.search(r'"memory_budget": *"([^"]*)"', cold[2])
    print(f"budget: {budget.group(1) if budget else '?'}", flush=True)
    shutil.rmtree(work / "cache", ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    ap.add_argument("--copies", type=int, default=40)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--memory", default="700MB")
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("--shapes", default="lines,pretty")
    ap.add_argument("--methods", default="bare,arrays,lines,arrays,lines")
    ap.add_argument("--tui", action="store_true",
                    help="also a cold and a warm `tui --summary --json` of each trace beside "
                         "load_bench.py's bare read_json of its events")
    ap.add_argument("--one", nargs=2, metavar=("METHOD", "TRACE"))
    args = ap.parse_args()
    if args.one:
        one(args.one[0], Path(args.one[1]), args.threads, args.memory, args.workdir)
        return
    work = args.workdir or Path(tempfile.mkdtemp(prefix="parse-shapes-"))
    work.mkdir(parents=True, exist_ok=True)
    plain = work / "source.json"
    if not plain.exists():
        with gzip.open(args.source, "rb") as f, open(plain, "wb") as out:
            shutil.copyfileobj(f, out)
    traces = {}
    if "lines" in args.shapes:
        traces["one event a line (scaled)"] = work / f"scaled_x{args.copies}.json"
        if not traces["one event a line (scaled)"].exists():
            subprocess.run([sys.executable, str(HERE / "scale_trace.py"), str(plain),
                            str(traces["one event a line (scaled)"]), str(args.copies),
                            str(os.cpu_count() or 1)], check=True)
    if "pretty" in args.shapes:
        # the pretty file is ~1.2x the scaled one per copy: about the same size
        traces["pretty-printed (repeated)"] = work / f"pretty_x{args.copies}.json"
        if not traces["pretty-printed (repeated)"].exists():
            make_pretty(plain, max(1, args.copies * 8 // 10),
                        traces["pretty-printed (repeated)"])
    print(f"threads {args.threads}, memory {args.memory}, cores {os.cpu_count()}, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    for label, trace in traces.items():
        print(f"## {label}: {trace.stat().st_size / 1e6:,.0f} MB", flush=True)
        if args.tui:
            tui_figures(trace, work)
        hashes = set()
        for method in args.methods.split(","):
            run_dir = Path(tempfile.mkdtemp(dir=work, prefix=f"{method}-"))
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
            out = subprocess.run(
                [sys.executable, __file__, "--one", method, str(trace), "--threads",
                 str(args.threads), "--memory", args.memory, "--workdir", str(run_dir)],
                capture_output=True, text=True, env=env)
            shutil.rmtree(run_dir, ignore_errors=True)
            if out.returncode:
                print(f"{method}: failed: {out.stderr.strip().splitlines()[-1:]}", flush=True)
                continue
            fig = json.loads(out.stdout.strip().splitlines()[-1])
            hashes.add((fig["rows"], fig["hash"]))
            print(f"{method:7s} parts {fig['parts']:2d}  copy {fig['copy_s']:6.2f}  "
                  f"rewrite {fig.get('rewrite_s', 0):6.2f} "
                  f"({fig.get('rewrite_cpu_s', 0):5.2f} CPU-s)  "
                  f"parse {fig['parse_s']:6.2f} s "
                  f"({fig['parse_cpu_s']:6.2f} CPU-s)  all {fig['total_s']:6.2f} s "
                  f"({fig['total_cpu_s']:6.2f} CPU-s)  {fig['rss_mib']:5.0f} MiB  "
                  f"{fig['rows']:,} rows", flush=True)
        print("same rows, same order" if len(hashes) == 1 else f"ROWS DIFFER: {hashes}",
              flush=True)


if __name__ == "__main__":
    main()
