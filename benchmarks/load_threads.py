"""What each thread of one cold load does and waits for: the stages of the load (the
functions in STAGES), each with its thread, start and end, and the kernel's account of
that thread meanwhile (/proc/self/task/TID/schedstat): CPU seconds, seconds it was ready
but waited for a core (*runq*: the machine is busy, or our own threads outnumber the
cores), and the rest (*blocked*: it slept, on the GIL, a lock, a queue or I/O).

A stage whose time is mostly *runq* waits for a core; one mostly *blocked* waits for
something of the process. Stages on other threads (the GPU metrics beside the rest of an
nsys export) show what overlaps what. Linux only. Run with PYTHONPATH pointing at the
code to measure; a stage that code lacks is left out.

Usage: python benchmarks/load_threads.py TRACE [--min-ms 3]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

STAGES = {
    "tui.sources.nsys_sqlite": ["_probe_schema", "_read_strings", "_load_gpu", "_load_host",
                                "stage_backtraces", "load_nsys_host", "_load_devices",
                                "_load_meta", "_load_threads", "load_nsys_memory",
                                "load_nsys_gpu_metrics"],
    "tui.sources.nsys_gpu_metrics": ["_read_names", "rowid_parts", "_write_part"],
    "tui.loading.trace": ["_new_database", "_load_into", "finalize_activities",
                          "build_stacks", "tie_gpu_work_to_hlo", "build_kernel_flops",
                          "build_gpu_idle", "write_database_file"],
}
EVENTS: list[tuple[str, str, float, float, float, float]] = []
START = time.perf_counter()


def _sched() -> tuple[float, float]:
    """This thread's CPU seconds and seconds waited on a run queue, so far."""
    with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
        cpu_ns, runq_ns, _ = f.read().split()
    return int(cpu_ns) / 1e9, int(runq_ns) / 1e9


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, (cpu, runq) = time.perf_counter(), _sched()
        try:
            return fn(*args, **kwargs)
        finally:
            cpu_end, runq_end = _sched()
            EVENTS.append((threading.current_thread().name, name, wall - START,
                           time.perf_counter() - START, cpu_end - cpu, runq_end - runq))
    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", type=Path)
    parser.add_argument("--min-ms", type=float, default=3.0, help="leave out shorter stages")
    args = parser.parse_args()
    os.environ.setdefault("TUI_CACHE_DIR", tempfile.mkdtemp(prefix="tui-threads-"))
    for module_name, names in STAGES.items():
        module = importlib.import_module(module_name)
        for name in names:
            if hasattr(module, name):
                setattr(module, name, _timed(name, getattr(module, name)))
    from tui.loading.trace import open_trace

    global START
    START = time.perf_counter()
    used = os.times()
    with open_trace(args.trace):
        wall = time.perf_counter() - START
    done = os.times()
    cpu = done.user + done.system - used.user - used.system
    print(f"{args.trace.name}: load wall {wall:.3f} s, CPU {cpu:.3f} s (every thread's); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'thread':<24}{'from':>7}{'to':>7}{'wall':>7}{'cpu':>7}{'runq':>7}{'blocked':>8}"
          "  stage")
    for thread, name, since, until, cpu, runq in sorted(EVENTS, key=lambda e: e[2]):
        if (until - since) * 1000 < args.min_ms:
            continue
        blocked = until - since - cpu - runq
        print(f"{thread[:23]:<24}{since:>7.3f}{until:>7.3f}{until - since:>7.3f}{cpu:>7.3f}"
              f"{runq:>7.3f}{blocked:>8.3f}  {name}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
