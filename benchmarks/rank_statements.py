"""What a run's rank costs in a load pool's process, statement by statement: copies of the
four real DDP ranks (sample_traces/ddp4/) loaded one after another in one process as a
pool process loads them (`load_store` with the rank's summary, one DuckDB thread, 500 MB,
an empty cache), each statement's thread CPU time recorded around `execute`, by the name
of its query (`queries/`) or its first words. Prints the process's user and sys CPU ms a
rank, its minor page faults a rank, and the statements' ms a rank, largest first. The
first two ranks are not counted (the imports, the first plans).

Run it with PYTHONPATH at the checkout to measure; alternate two checkouts on a busy
machine (the figures of one run move by ±5%).

Usage: PYTHONPATH=. python benchmarks/rank_statements.py [--ranks 16] [--top 60]
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import duckdb

SOURCE = Path(__file__).resolve().parent.parent / "sample_traces" / "ddp4"
MIN_GAP_NS = 1_000_000  # the default --min-gap-ms

spent: dict[str, float] = collections.defaultdict(float)
calls: collections.Counter[str] = collections.Counter()
names: dict[str, str] = {}  # a query's text -> its name


class Timed:
    """A DuckDB connection whose statements are timed; its cursors are timed too."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def execute(self, sql: str, *args):
        started = time.thread_time()
        try:
            return self._con.execute(sql, *args)
        finally:
            key = _key(sql)
            spent[key] += time.thread_time() - started
            calls[key] += 1

    def cursor(self) -> Timed:
        return Timed(self._con.cursor())

    def __getattr__(self, name: str):
        return getattr(self._con, name)

    def __enter__(self) -> Timed:
        return self

    def __exit__(self, *exc) -> None:
        self._con.__exit__(*exc)


def _key(sql: str) -> str:
    if sql in names:
        return names[sql]
    for text, name in names.items():  # a query filled (tui.core.queries.fill)
        if sql.startswith(text[:200]):
            return name + "*"
    return " ".join(sql.split()[:4])[:60]


def _name_queries() -> None:
    """Every module's load_query also notes the name of the text it returns."""
    import tui.core.queries as queries

    original = queries.load_query

    def named(name: str) -> str:
        text = original(name)
        names[text] = name
        return text

    queries.load_query = named  # type: ignore[assignment]
    for module in list(sys.modules.values()):
        if module is not None and getattr(module, "load_query", None) is original:
            module.load_query = named  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=16)
    parser.add_argument("--top", type=int, default=60)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rank-statements-"))
    os.environ["TUI_CACHE_DIR"] = str(work / "cache")
    sources = sorted(SOURCE.glob("ddp_rank*.pt.trace.json.gz"))
    paths = []
    for i in range(args.ranks + 2):
        path = work / f"copy{i:05d}_rank{i % 4}.pt.trace.json.gz"
        os.link(sources[i % 4], path)
        paths.append(path)
    try:
        import tui.runs.load as load

        connect = duckdb.connect
        duckdb.connect = lambda *a, **k: Timed(connect(*a, **k))  # type: ignore[assignment]
        _name_queries()
        load._worker_start(threading.Event(), 1, "500MB")
        for path in paths[:2]:
            load.load_store(load.LoadJob(path, min_gap_ns=MIN_GAP_NS))
        spent.clear()
        calls.clear()
        before = resource.getrusage(resource.RUSAGE_SELF)
        for path in paths[2:]:
            load.load_store(load.LoadJob(path, min_gap_ns=MIN_GAP_NS))
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    n = args.ranks
    user = 1000 * (after.ru_utime - before.ru_utime) / n
    system = 1000 * (after.ru_stime - before.ru_stime) / n
    print(f"{n} ranks; load average {os.getloadavg()[0]:.1f}; CPU ms a rank: user {user:.1f}, "
          f"sys {system:.1f}; minor faults a rank {(after.ru_minflt - before.ru_minflt) / n:,.0f}")
    print(f"statements: {1000 * sum(spent.values()) / n:.1f} ms a rank, "
          f"{sum(calls.values()) / n:.0f} of them (failed ones counted too)")
    for key, seconds in sorted(spent.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{1000 * seconds / n:8.2f} ms {calls[key] / n:5.1f}×  {key}")


if __name__ == "__main__":
    main()
