"""What a run's rank costs in a load pool's process, statement by statement: copies of the
four real DDP ranks (sample_traces/ddp4/) loaded one after another in one process as a
pool process loads them (`load_store` with the rank's summary, one DuckDB thread, 500 MB,
an empty cache), each statement's thread CPU time recorded around `execute`, by the name
of its query (`queries/`) or its first words. Prints the process's user and sys CPU ms a
rank, its minor page faults a rank, and the statements' ms a rank, largest first. The
first two ranks are not counted (the imports, the first plans).

Run it with PYTHONPATH at the checkout to measure; alternate two checkouts on a busy
machine (the figures of one run move by ±5%).

With --plans, DuckDB's detailed profile of every statement is summed too: each optimizer
pass's ms a rank, binding's, the physical plan's and the operators', then by query (the
profile itself costs CPU: compare its figures with each other, not with a run without it).

Usage: PYTHONPATH=. python benchmarks/rank_statements.py [--ranks 16] [--top 60] [--plans]
                                                         [--disable PASS,PASS]
"""

from __future__ import annotations

import argparse
import collections
import json
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
# With --plans: DuckDB's detailed profile of each statement, summed by phase
# ("optimizer:join_order", "planner:binding", "physical_planner", "operators") and by query.
phases: dict[str, float] = collections.defaultdict(float)
query_phases: dict[str, dict[str, float]] = collections.defaultdict(
    lambda: collections.defaultdict(float))
profiled = False
disabled = ""  # --disable: DuckDB's optimizer passes left out on every connection


def _set_up(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    if disabled:
        con.execute(f"SET disabled_optimizers = '{disabled}'")
    return _profile(con)


def _profile(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    if profiled:
        con.execute("SET enable_profiling = 'no_output'")
        con.execute("SET profiling_mode = 'detailed'")
    return con


def _note_plan(con: duckdb.DuckDBPyConnection, seen: list[object]) -> None:
    """The phases of the statement `con` completed last (DuckDB's profile is there once a
    result is fetched, so it is read before the next statement and at the close), added
    to `phases` and `query_phases` under its query's name; `seen`: the last one added."""
    try:
        profile = json.loads(con.get_profiling_information(format="json"))
    except (duckdb.Error, ValueError):
        return
    query = profile.get("query", {})
    if not query.get("sql") or seen[:1] == [(query["sql"], query.get("total_time"))]:
        return
    seen[:] = [(query["sql"], query.get("total_time"))]
    found = {f"optimizer:{name}": seconds
             for name, seconds in profile.get("optimizer", {}).items() if name != "total_time"}
    found["planner:binding"] = profile.get("planner", {}).get("binding_time", 0.0)
    found["physical_planner"] = profile.get("physical_planner", {}).get("total_time", 0.0)
    found["operators"] = query.get("cpu_time", 0.0)
    key = _key(query["sql"])
    for phase, seconds in found.items():
        phases[phase] += seconds
        query_phases[key][phase] += seconds


class Timed:
    """A DuckDB connection whose statements are timed; its cursors are timed too."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._seen: list[object] = []

    def execute(self, sql: str, *args):
        if profiled:
            _note_plan(self._con, self._seen)
        started = time.thread_time()
        try:
            return self._con.execute(sql, *args)
        finally:
            key = _key(sql)
            spent[key] += time.thread_time() - started
            calls[key] += 1

    def cursor(self) -> Timed:
        return Timed(_profile(self._con.cursor()))

    def close(self) -> None:
        if profiled:
            _note_plan(self._con, self._seen)
        self._con.close()

    def __getattr__(self, name: str):
        return getattr(self._con, name)

    def __enter__(self) -> Timed:
        return self

    def __exit__(self, *exc) -> None:
        if profiled:
            _note_plan(self._con, self._seen)
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
    parser.add_argument("--plans", action="store_true",
                        help="DuckDB's detailed profile of every statement: each optimizer "
                             "pass's, binding's, the physical plan's and the operators' ms a "
                             "rank, summed, then by query (profiling costs CPU of its own)")
    parser.add_argument("--disable", default="",
                        help="optimizer passes left out on every connection as it is opened (a "
                             "trial: 'join_order,common_subplan'; a small trace's database "
                             "then sets its own, tui.core.db.light_plans)")
    args = parser.parse_args()
    global profiled, disabled
    profiled = args.plans
    disabled = args.disable
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
        duckdb.connect = lambda *a, **k: Timed(_set_up(connect(*a, **k)))  # type: ignore[assignment]
        _name_queries()
        load._worker_start(threading.Event(), 1, "500MB")
        for path in paths[:2]:
            load.load_store(load.LoadJob(path, min_gap_ns=MIN_GAP_NS))
        spent.clear()
        calls.clear()
        phases.clear()
        query_phases.clear()
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
    if profiled:
        _print_plans(n, args.top)


def _print_plans(n: int, top: int) -> None:
    print(f"\nphases (DuckDB's profile): {1000 * sum(phases.values()) / n:.1f} ms a rank")
    for phase, seconds in sorted(phases.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{1000 * seconds / n:8.2f} ms  {phase}")
    print("\nby query: the optimizers, binding, the physical plan, the operators (ms a rank)")
    by_optimizers = sorted(query_phases.items(), key=lambda kv: -sum(
        v for k, v in kv[1].items() if k.startswith("optimizer:")))
    for key, found in by_optimizers[:top]:
        optimizers = sum(v for k, v in found.items() if k.startswith("optimizer:"))
        largest = sorted(((v, k.split(":")[1]) for k, v in found.items()
                          if k.startswith("optimizer:")), reverse=True)[:3]
        print(f"{1000 * optimizers / n:7.2f} {1000 * found['planner:binding'] / n:6.2f} "
              f"{1000 * found['physical_planner'] / n:6.2f} {1000 * found['operators'] / n:6.2f}"
              f"  {key}  ({', '.join(f'{name} {1000 * v / n:.2f}' for v, name in largest)})")


if __name__ == "__main__":
    main()
