"""Timeline responsiveness, measured by driving the real app headless (App.run_test).

For each trace it prints:
  - first frame: seconds from a fresh process's start (imports included) and from the
    app's start to the timeline's first drawn window, opening from the cache (the cache
    is warmed by an untimed open first); and from the app's start until every worker
    (the tables below the timeline too) has finished,
  - keypress to repaint: median and p95 over a fixed exploration script (zoom in, pan,
    move the cursor, next gap, zoom out, fit), from the key being sent until the window
    it asked for is drawn. The bins cache is emptied before each round, so windows are
    queried, not replayed.

Traces: the bundled sample (real), and copies of a real trace made by scale_trace.py
(label their figures *scaled*): ~400k kernels by default, ~4M with --huge. The largest
trace is also run without the level-of-detail summary, as the baseline it is measured
against.

Usage: python benchmarks/timeline_bench.py [--rounds 3] [--huge] [--size 160x45]
       [--trace PATH ...]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLE = ROOT / "sample_traces" / "gappy_training.pt.trace.json.gz"
SCALE_SOURCE = ROOT / "sample_traces" / "cuda_graphs.pt.trace.json.gz"  # 1,288 kernels
WORK = Path(tempfile.gettempdir()) / "tui-timeline-bench"
ROUND = (["plus"] * 6 + ["L", "L", "H"] + ["right"] * 4 + ["right_square_bracket"] * 2
         + ["g", "g", "G"] + ["minus"] * 6 + ["0"])


def scaled_trace(copies: int) -> Path:
    """cuda_graphs x copies, made once with scale_trace.py (needs orjson)."""
    out = WORK / f"cuda_graphs_x{copies}.scaled.pt.trace.json"
    if out.is_file():
        return out
    WORK.mkdir(parents=True, exist_ok=True)
    plain = WORK / "cuda_graphs.pt.trace.json"
    with gzip.open(SCALE_SOURCE, "rb") as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    python = sys.executable if _has_orjson(sys.executable) else "python3"
    subprocess.run([python, str(HERE / "scale_trace.py"), str(plain), str(out), str(copies)],
                   check=True)
    return out


def _has_orjson(python: str) -> bool:
    return subprocess.run([python, "-c", "import orjson"], capture_output=True).returncode == 0


class Clock:
    """When the app last wrote a screen update, and when the timeline last changed.

    Keys are sent to the driver as a terminal would send them (Pilot.press also waits
    for the whole process to go idle, which would be timed too), and a key's time is
    from sending it to the first screen update written after the timeline took the
    key and drew the window it asked for.
    """

    def __init__(self, app, timeline) -> None:  # noqa: ANN001 (TraceApp, Timeline)
        self.app, self.timeline = app, timeline
        self.displays: list[float] = []
        self.changed = 0.0
        display, show, changed = app._display, timeline._show, timeline.cursor_changed

        def on_display(*args):  # noqa: ANN002, ANN202
            display(*args)
            self.displays.append(time.perf_counter())

        def on_show(*args):  # noqa: ANN002, ANN202
            show(*args)
            self.changed = time.perf_counter()

        def on_changed():  # noqa: ANN202
            changed()
            self.changed = time.perf_counter()

        app._display, timeline._show, timeline.cursor_changed = on_display, on_show, on_changed

    def busy(self) -> bool:
        timeline = self.timeline
        return (timeline.data is None or timeline.pending
                or any(worker.is_running for worker in self.app.workers))

    async def press(self, key: str) -> float:
        from textual import events
        from textual.keys import _get_unicode_name_from_key

        try:
            char: str | None = unicodedata.lookup(_get_unicode_name_from_key(key))
        except KeyError:
            char = key if len(key) == 1 else None
        start = time.perf_counter()
        self.changed = 0.0
        self.app._driver.send_message(events.Key(key, char))
        return await self.drawn(start)

    async def drawn(self, start: float, whole_app: bool = True) -> float:
        """Seconds from `start` to the first update written once the timeline settled
        (and, with `whole_app`, every worker of the app, the tables' too, finished)."""
        while True:
            await asyncio.sleep(0.0002)
            timeline = self.timeline
            busy = (self.busy() if whole_app
                    else timeline.data is None or timeline.pending)
            if busy or self.changed < start:
                continue
            after = [t for t in self.displays if t >= self.changed]
            if after:
                return after[0] - start


async def _drive(path: Path, size: tuple[int, int], rounds: int,
                 summary: bool = True, process_start: float | None = None
                 ) -> dict[str, object]:
    from tui.views.timeline import bins

    min_rows = bins.LOD_MIN_ROWS
    if not summary:  # the baseline: every window binned from the activity tables
        bins.LOD_MIN_ROWS = 1 << 62
    try:
        return await _drive_app(path, size, rounds, process_start)
    finally:
        bins.LOD_MIN_ROWS = min_rows


async def _drive_app(path: Path, size: tuple[int, int], rounds: int,
                     process_start: float | None) -> dict[str, object]:
    from tui.apps.trace_app import TraceApp
    from tui.widgets.timeline import Timeline

    start = time.perf_counter()
    app = TraceApp(path)
    async with app.run_test(size=size):
        timeline = app.query_one(Timeline)
        clock = Clock(app, timeline)
        first_frame = await clock.drawn(start, whole_app=False)
        settled = await clock.drawn(start)
        if process_start is not None:  # to the fd: the app captures print() while it runs
            os.write(1, f"first frame from process start: "
                        f"{start - process_start + first_frame}\n".encode())
        times, sources = [], []
        for _ in range(rounds):
            timeline._bins.clear()
            for key in ROUND:
                times.append(await clock.press(key))
                sources.append(timeline.frame.source if timeline.frame else "?")
        rows = sum(lane.activities for lane in timeline.data.lanes if lane.is_gpu)
    return {"first_frame": first_frame, "settled": settled, "times": times, "sources": sources,
            "rows": rows}


def _first_frame_in_fresh_process(path: Path, size: tuple[int, int]) -> float:
    """Process start (before any import) to first frame, from the cache."""
    code = (
        "import time; t = time.perf_counter(); import asyncio, sys; "
        "sys.path.insert(0, sys.argv[1]); from timeline_bench import _drive; "
        "asyncio.run(_drive(__import__('pathlib').Path(sys.argv[2]), "
        "(int(sys.argv[3]), int(sys.argv[4])), 0, process_start=t))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(HERE), str(path), str(size[0]),
                          str(size[1])], check=True, capture_output=True, text=True,
                         env=os.environ)
    line = [x for x in out.stdout.splitlines() if x.startswith("first frame from process")]
    return float(line[-1].split(": ")[1])


def _keys_line(times: list[float], sources: list[str]) -> str:
    times = sorted(times)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    lod = sum(s.startswith("lod") for s in sources)
    return (f"keypress to repaint over {len(times)} keys: median "
            f"{statistics.median(times) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
            f"max {times[-1] * 1000:.1f} ms ({lod} windows from the summary)")


def bench(label: str, path: Path, size: tuple[int, int], rounds: int,
          baseline: bool = False) -> None:
    from tui.apps.trace_app import DEFAULT_MIN_GAP_NS
    from tui.loading.trace import open_trace
    from tui.views.timeline import TimelineData

    t = time.perf_counter()
    trace = open_trace(path)  # warm the cache and the timeline's summary (untimed below)
    TimelineData(trace.con, DEFAULT_MIN_GAP_NS, trace.cache_path).prepare()
    trace.close()
    warm = time.perf_counter() - t
    result = asyncio.run(_drive(path, size, rounds))
    fresh = _first_frame_in_fresh_process(path, size)
    print(f"{label}: {result['rows']:,} GPU activities ({path.name})")
    print(f"  cache and summary build or open (untimed warm-up): {warm:.2f} s")
    print(f"  first frame from cache: {fresh:.2f} s from process start, "
          f"{result['first_frame']:.2f} s from app start; every table's worker done "
          f"{result['settled']:.2f} s from app start")
    print(f"  {_keys_line(result['times'], result['sources'])}")  # type: ignore[arg-type]
    if baseline:
        plain = asyncio.run(_drive(path, size, rounds, summary=False))
        print("  baseline, same keys without the summary (every window from the tables): "
              f"{_keys_line(plain['times'], plain['sources'])}")  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--copies", type=int, default=311, help="scaled trace: ~1.3k x N")
    parser.add_argument("--huge", action="store_true", help="also ~4M kernels (x3110)")
    parser.add_argument("--size", default="160x45", help="terminal COLSxROWS")
    parser.add_argument("--trace", type=Path, action="append", default=[],
                        help="also this trace (e.g. a multi-GB scaled one); repeatable")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.split("x"))
    os.environ.setdefault("TUI_CACHE_DIR", str(WORK / "cache"))
    print(f"terminal {cols}x{rows}, {len(ROUND)} keys a round, cache {os.environ['TUI_CACHE_DIR']}")
    bench("sample (real)", SAMPLE, (cols, rows), args.rounds)
    bench("scaled", scaled_trace(args.copies), (cols, rows), args.rounds,
          baseline=not args.huge)
    for path in args.trace:
        bench("given", path, (cols, rows), args.rounds, baseline=True)
    if args.huge:
        bench("scaled", scaled_trace(args.copies * 10), (cols, rows), args.rounds,
              baseline=True)


if __name__ == "__main__":
    main()
