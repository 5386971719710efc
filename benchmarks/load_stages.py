"""Where a cold load's time goes: each DuckDB call of the load and the summary, with its
wall time, the process's CPU seconds meanwhile (every thread's: DuckDB's workers too),
the cores that makes, and the peak RSS, sampled.

A stage's *threads* figure is its CPU seconds over those of its busiest thread (from
/proc/self/task: DuckDB's workers are threads of this process; threads that ended during
the stage count as one): 1.0 is a stage on one thread, whatever else the machine runs
(unlike *cores*, CPU over wall time, which a busy machine lowers). Stages that run beside
each other (the host depths beside the GPU rows' sort) share their threads' figures.

Each DuckDB call (execute, fetch, ...) made by tui's code is named by the line that made
it; calls that overlap (a second connection beside the first) each count the whole
process's CPU of their time. Stages (the loader, finalize, stacks, idle intervals, the
summary) are the functions named in STAGES.

Usage: python benchmarks/load_stages.py TRACE [--memory 1GB] [--top 25] [--stages-only]
       [--cache DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = {"load_kineto", "load_xla_json", "load_nsys_sqlite", "_extract", "parse_chrome_events",
          "finalize_activities", "write_host_depths", "stage_kineto_memory", "build_stacks",
          "build_gpu_idle", "trace_summary", "_build", "device_times", "classify_idle",
          "critical_paths", "group_depths", "_set_depths", "_to_lines",
          "stage_stacks_beside_write"}


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def _thread_ticks() -> dict[str, int]:
    """CPU clock ticks (user + system) of each thread of this process."""
    ticks = {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        ticks[task] = int(fields[11]) + int(fields[12])
    return ticks


_TICKS = os.sysconf("SC_CLK_TCK")


def _spread(before: dict[str, int], after: dict[str, int], cpu_s: float) -> float:
    """CPU of every thread over that of the busiest, between two _thread_ticks(), `cpu_s`
    the process's CPU meanwhile: what it used beyond the threads still there went to
    threads that ended (a parse thread), counted as one."""
    used = [t - before.get(task, 0) for task, t in after.items()]
    gone = cpu_s * _TICKS - sum(used)
    busiest = max([*used, gone])
    return cpu_s * _TICKS / busiest if busiest > 0 else 1.0


class _Rss(threading.Thread):
    """Samples the process's RSS every 20 ms; `peak_since(mark)` is the highest since."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[tuple[float, int]] = []
        self.page = os.sysconf("SC_PAGE_SIZE")

    def run(self) -> None:
        with open("/proc/self/statm") as f:
            while True:
                f.seek(0)
                self.samples.append((time.perf_counter(), int(f.read().split()[1]) * self.page))
                time.sleep(0.02)

    def peak(self, start: float, end: float) -> int:
        return max((r for t, r in self.samples if start <= t <= end), default=0)


class _Stages:
    """The stage functions (STAGES) timed whole, nothing else: no line is traced, so Python
    code runs at its own speed (line tracing slows it several times: a Python-heavy stage
    looks dearer than it is)."""

    def __init__(self) -> None:
        self.lines: dict[str, list[float]] = {}
        self.stages: list[tuple[str, float, float, float, float, float]] = []
        self.open: dict[int, tuple[float, float, dict[str, int]]] = {}

    def global_trace(self, frame, event, arg):  # noqa: ANN001
        if frame.f_code.co_name not in STAGES or "/tui/" not in frame.f_code.co_filename:
            return None
        frame.f_trace_lines = False
        self.open[id(frame)] = (time.perf_counter(), _cpu(), _thread_ticks())
        return self.local_trace

    def local_trace(self, frame, event, arg):  # noqa: ANN001
        if event == "return":
            started = self.open.pop(id(frame), None)
            if started is not None:
                cpu = _cpu()
                self.stages.append((f"[{frame.f_code.co_name}]", started[0],
                                    time.perf_counter(), started[1], cpu,
                                    _spread(started[2], _thread_ticks(), cpu - started[1])))
        return self.local_trace


class _Lines:
    """Exclusive time of each line of tui's code: on every trace event of a thread, the
    time since its last event goes to the line it was at (the innermost of tui's frames,
    so a line calling DuckDB or NumPy gets their time). Stage functions (STAGES) are also
    timed whole."""

    def __init__(self) -> None:
        self.last: dict[int, tuple[str, float, float]] = {}  # thread -> line, wall, cpu
        self.lines: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 1e18, 0.0])
        self.stages: list[tuple[str, float, float, float, float, float]] = []
        self.open: dict[int, tuple[float, float, dict[str, int]]] = {}

    def _charge(self, now: float, cpu: float) -> None:
        thread = threading.get_ident()
        last = self.last.get(thread)
        if last is not None:
            row = self.lines[last[0]]
            row[0] += now - last[1]
            row[1] += cpu - last[2]
            row[2] = min(row[2], last[1])
            row[3] = max(row[3], now)

    def global_trace(self, frame, event, arg):  # noqa: ANN001
        code = frame.f_code
        if "/tui/" not in code.co_filename:
            return None
        now, cpu = time.perf_counter(), _cpu()
        self._charge(now, cpu)
        self.last[threading.get_ident()] = (self._name(frame), now, cpu)
        if code.co_name in STAGES:
            self.open[id(frame)] = (now, cpu, _thread_ticks())
        return self.local_trace

    def local_trace(self, frame, event, arg):  # noqa: ANN001
        now, cpu = time.perf_counter(), _cpu()
        self._charge(now, cpu)
        thread = threading.get_ident()
        if event == "return":
            back = frame.f_back
            while back is not None and "/tui/" not in back.f_code.co_filename:
                back = back.f_back
            if back is None:
                self.last.pop(thread, None)
            else:
                self.last[thread] = (self._name(back), now, cpu)
            started = self.open.pop(id(frame), None)
            if started is not None:
                self.stages.append((f"[{frame.f_code.co_name}]", started[0], now,
                                    started[1], cpu,
                                    _spread(started[2], _thread_ticks(), cpu - started[1])))
        else:
            self.last[thread] = (self._name(frame), now, cpu)
        return self.local_trace

    @staticmethod
    def _name(frame) -> str:  # noqa: ANN001
        code = frame.f_code
        return f"{Path(code.co_filename).name}:{frame.f_lineno} {code.co_name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", type=Path)
    parser.add_argument("--memory", default=None)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-summary", action="store_true")
    parser.add_argument("--threads", type=int, default=None,
                        help="DuckDB's threads, whatever the budget allows")
    parser.add_argument("--by-cpu", action="store_true", help="lines by CPU seconds")
    parser.add_argument("--stages-only", action="store_true",
                        help="time the stages only, tracing no line (Python at its own speed)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="the cache dir to use and keep (a second run times the summary "
                             "on the cache the first built)")
    args = parser.parse_args()
    if args.memory:
        os.environ["TUI_MEMORY"] = args.memory
    cache = args.cache or Path(tempfile.mkdtemp(prefix="tui-stages-"))
    os.environ["TUI_CACHE_DIR"] = str(cache)
    sys.path.insert(0, str(ROOT))
    if args.threads:
        import tui.core.budget

        tui.core.budget.BYTES_PER_THREAD = max(
            1, tui.core.budget.memory_budget_bytes() // args.threads)
    from tui.analysis.summary import trace_summary
    from tui.loading.trace import open_trace

    rss = _Rss()
    rss.start()
    lines: _Lines | _Stages = _Stages() if args.stages_only else _Lines()
    threading.settrace(lines.global_trace)
    sys.settrace(lines.global_trace)
    t0, c0 = time.perf_counter(), _cpu()
    try:
        with open_trace(args.trace) as trace:
            t_loaded = time.perf_counter()
            if not args.no_summary:
                trace_summary(trace, 1_000_000)
    finally:
        sys.settrace(None)
        threading.settrace(None)
        if args.cache is None:
            shutil.rmtree(cache, ignore_errors=True)
    t1, c1 = time.perf_counter(), _cpu()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"{args.trace.name}: {os.cpu_count()} cores; load {t_loaded - t0:.2f} s, "
          f"all {t1 - t0:.2f} s, {c1 - c0:.1f} CPU-s, peak RSS {peak / 2**20:.0f} MiB")
    print(f"{'call':<60} {'wall s':>7} {'CPU s':>7} {'cores':>5} {'peak MiB':>8} {'at s':>6} "
          f"{'threads':>7}")
    for name, s, e, a, b, spread in sorted(lines.stages, key=lambda r: r[1]):
        print(f"{name:<60} {e - s:7.2f} {b - a:7.1f} {(b - a) / max(e - s, 1e-9):5.1f} "
              f"{rss.peak(s, e) / 2**20:8.0f} {s - t0:6.2f} {spread:7.1f}")
    print()
    order = 1 if args.by_cpu else 0
    for name, (wall, cpu, first, last) in sorted(lines.lines.items(),
                                                 key=lambda kv: -kv[1][order])[: args.top]:
        print(f"{name[:60]:<60} {wall:7.2f} {cpu:7.1f} {cpu / max(wall, 1e-9):5.1f} "
              f"{rss.peak(first, last) / 2**20:8.0f} {first - t0:6.2f}")


if __name__ == "__main__":
    main()
