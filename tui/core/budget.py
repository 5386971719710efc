"""The memory budget of a tui process and the cores it may use: plain Python, no DuckDB,
so that a command given `--memory` that only reads a kept summary back imports no more
than it would without it."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

from tui.core.errors import TraceError

# The memory budget: `--memory`, else TUI_MEMORY (TUI_MEMORY_LIMIT, its older name), e.g.
# '1GB' or '800MB', else one that fits the machine (default_budget). How it is shared out
# while a trace loads: tui/core/db.py.
DEFAULT_MEMORY = "1GB"  # the floor of the default budget: what a 2-core machine gets
# DuckDB runs a thread a core unless told, and each thread holds memory its limit does not
# count (DuckDB's out-of-memory guide: fewer threads first; 125 MB a thread at the least).
# On a 16-core host with the 1GB budget, 16 threads peaked at 1,142 MiB (3 GB nsys export)
# and 989 MiB (3 GB Kineto trace), 4 threads at 969 and 946 MiB, no slower; and the
# summary's medians ran out of memory at 16 threads where 4 had enough. So a thread for
# each BYTES_PER_THREAD of the budget, up to the cores there are.
BYTES_PER_THREAD = 250_000_000
# The default budget: BUDGET_PER_CORE for each core this process may run on (a thread a
# core, and room beside it); at least DEFAULT_MEMORY, at most a quarter of the machine's
# memory (or of its cgroup's limit) and DEFAULT_CAP. Measured on a 16-core H200 host, a
# 10 GB Kineto trace's cold summary (one event a line, beside a bare DuckDB read of its
# events of 69 s): 36.3 and 38.1 s at 4GB (250 MB a core; 3.9 GB RSS), 33.7 and 33.3 s
# at 8GB (5.6 GB RSS), the two alternated in one run; a 3 GB one within one run's spread
# (9.66 and 10.93 s at 8GB against 9.78 and 9.84 s at 4GB), as it was with the code of
# 2026-11-26 (4GB 0.60x the bare read, 8GB 0.61x).
BUDGET_PER_CORE = 500_000_000
DEFAULT_CAP = 8_000_000_000
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(([KMGT])(i?)B|B)?\s*", re.IGNORECASE)
_POWERS = {"K": 1, "M": 2, "G": 3, "T": 4}


def memory_budget() -> str:
    """The memory limit DuckDB connections get; a TraceError when it is not a size."""
    value = (os.environ.get("TUI_MEMORY") or os.environ.get("TUI_MEMORY_LIMIT")
             or default_budget())
    if not _SIZE.fullmatch(value):
        raise TraceError(f"memory budget {value!r} is not a size: give e.g. --memory 1GB "
                         "or TUI_MEMORY=800MB")
    return value.strip()


def default_budget() -> str:
    """The budget when none is given, fitted to the machine (BUDGET_PER_CORE says how)."""
    fitted = min(usable_cores() * BUDGET_PER_CORE, machine_memory_bytes() // 4, DEFAULT_CAP)
    floor = size_bytes(DEFAULT_MEMORY)
    return DEFAULT_MEMORY if fitted <= floor else f"{fitted // 1_000_000}MB"


def budget_source() -> str:
    """Where the budget came from, for --debug: the option or variable, or the machine."""
    if os.environ.get("TUI_MEMORY") or os.environ.get("TUI_MEMORY_LIMIT"):
        return "--memory or TUI_MEMORY"
    return (f"fitted to {available_cores()} cores and "
            f"{machine_memory_bytes() / 1e9:.0f} GB of memory")


def machine_memory_bytes() -> int:
    """The memory this process may use: the machine's, or its cgroup's limit if lower."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not a POSIX system: assume little
        return 4 * size_bytes(DEFAULT_MEMORY)
    for limit_file in ("/sys/fs/cgroup/memory.max",
                       "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            physical = min(physical, int(text))
    return physical


def size_bytes(size: str) -> int:
    """A size ('1GB', '800MB', '1GiB', a bare number of bytes) in bytes."""
    match = _SIZE.fullmatch(size)
    assert match is not None  # sizes are checked where they are read (memory_budget)
    number, _, prefix, binary = match.groups()
    scale = (1024 if binary else 1000) ** _POWERS[prefix.upper()] if prefix else 1
    return int(float(number) * scale)


def memory_budget_bytes() -> int:
    """The budget in bytes ('1GB': 10^9, '1GiB': 2^30, a bare number: bytes)."""
    return size_bytes(memory_budget())


def duckdb_threads() -> int:
    """DuckDB's threads: one a core this process may run on, one for each
    BYTES_PER_THREAD of the budget at most, TUI_THREADS at most where it is set (several
    tui processes sharing the cores: a test runner's workers, a shared login node), one
    at least."""
    threads = min(available_cores(), memory_budget_bytes() // BYTES_PER_THREAD)
    cap = thread_cap()
    return max(1, threads if cap is None else min(threads, cap))


def thread_cap() -> int | None:
    """TUI_THREADS, where it is a positive number."""
    cap = os.environ.get("TUI_THREADS", "").strip()
    return int(cap) if cap.isdigit() and int(cap) > 0 else None


def worker_setting() -> int | None:
    """TUI_WORKERS, where it is a positive number: the processes that load a run's ranks
    when --workers is not given (1: none, the ranks loaded in this process)."""
    workers = os.environ.get("TUI_WORKERS", "").strip()
    return int(workers) if workers.isdigit() and int(workers) > 0 else None


def cap_threads(threads: int) -> None:
    """Keep this process's DuckDB to `threads` at most (a lower TUI_THREADS stays)."""
    cap = thread_cap()
    if cap is None or cap > threads:
        os.environ["TUI_THREADS"] = str(threads)


def available_cores() -> int:
    """The cores this process may run on (its affinity: a Slurm job's share, say)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def usable_cores() -> int:
    """The cores this process may run on, TUI_THREADS at most where it is set (several tui
    processes sharing the cores)."""
    cap = thread_cap()
    return available_cores() if cap is None else min(available_cores(), cap)


@contextlib.contextmanager
def budget_of(size: str) -> Iterator[None]:
    """Connections opened in the block get the budget `size`."""
    before = os.environ.get("TUI_MEMORY")
    os.environ["TUI_MEMORY"] = size
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TUI_MEMORY", None)
        else:
            os.environ["TUI_MEMORY"] = before


def set_memory_budget(size: str) -> None:
    """Make `size` the budget of every connection from now on, in this process and the
    processes it starts (they inherit TUI_MEMORY); a TraceError when it is not a size."""
    os.environ["TUI_MEMORY"] = size
    memory_budget()
