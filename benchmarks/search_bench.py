"""`/` on the timeline at scale: the search query and what the app does with its hits.

Prints, for a substring and a regular expression over a Kineto trace scaled to ~400k
kernels (*scaled*, made by scale_trace.py from a real recording) and the bundled sample
(real):
  - the search (timeline_search.sql through TimelineData.search, hits fetched as numpy),
    beside the baseline of the same run: a bare DuckDB count of the same names,
  - `n` (the next hit from a time), the hit count "k of N", and the marks of one lane and
    of the overview for a 160-column window (what each redraw costs).

Usage: python benchmarks/search_bench.py [--copies 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from timeline_bench import SAMPLE, scaled_trace  # noqa: E402

from tui.loading.trace import open_trace  # noqa: E402
from tui.views.timeline import TimelineData, View  # noqa: E402
from tui.views.timeline.search import Query  # noqa: E402

SEARCHES = ("gemm", "re:^(void )?at::native::.*elementwise")


def timed(fn, rounds: int) -> tuple[float, object]:  # noqa: ANN001
    times, out = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def count_names(con: duckdb.DuckDBPyConnection, query: Query) -> int:
    """The baseline: DuckDB counting the same names, nothing fetched."""
    where = ("regexp_matches(name, $p)" if query.regex
             else "contains(lower(name), lower($p))")
    return con.execute(f"SELECT (SELECT count(*) FROM gpu_activities WHERE {where}) + "
                       f"(SELECT count(*) FROM host_activities WHERE {where})",
                       {"p": query.pattern}).fetchone()[0]


def bench(path: Path, label: str, rounds: int) -> None:
    with open_trace(path) as trace:
        data = TimelineData(trace.con, 1_000_000, trace.cache_path)
        data.prepare()
        kernels = trace.con.execute("SELECT count(*) FROM gpu_activities").fetchone()[0]
        print(f"\n{label}: {path.name}, {kernels:,} GPU activities")
        extent = data.extent
        view = View(max(1, (extent.gpu_end_ns - extent.gpu_start_ns) // 160),
                    extent.gpu_start_ns // max(1, (extent.gpu_end_ns - extent.gpu_start_ns)
                                                // 160), 160)
        for text in SEARCHES:
            query = Query.parse(text)
            baseline_s, count = timed(partial(count_names, trace.con, query), rounds)
            search_s, hits = timed(partial(data.search, query), rounds)
            middle = (extent.gpu_start_ns + extent.gpu_end_ns) // 2
            step_s, _ = timed(partial(hits.step, middle, True), rounds)
            lane = data.lanes[0].key
            hits.lane_columns(lane, view)  # the one split per lane, untimed
            lane_s, _ = timed(partial(hits.lane_columns, lane, view), rounds)
            all_s, _ = timed(partial(hits.all_columns, view), rounds)
            assert len(hits) == count
            print(f"  /{text}: {len(hits):,} hits · search {search_s * 1000:,.1f} ms "
                  f"(baseline: DuckDB count of the same names {baseline_s * 1000:,.1f} ms) · "
                  f"n {step_s * 1e6:,.0f} µs · lane marks {lane_s * 1000:,.2f} ms · "
                  f"overview marks {all_s * 1000:,.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    bench(SAMPLE, "real", args.rounds)
    bench(scaled_trace(args.copies), "scaled", args.rounds)


if __name__ == "__main__":
    main()
