"""Tying an XLA trace's command-buffer work to its HLO ops (tui/derived/xla_hlo_match.py),
beside a baseline measured in the same run.

The real jax_train recording (8 replays of a 36-activity command buffer) is loaded, then
its GPU activities are repeated --scale times, each copy a replay of its own (new ids and
correlation ids, later times): a *scaled* trace, generated, and labelled so. For each
scale it prints the median of --repeat runs (wall seconds) of:
  - tui: `tie_gpu_work_to_hlo` (gpu_hlo_ops filled, command buffers placed by order),
  - baseline: DuckDB reading the columns it reads (id, module, op, name, kind, correlation)
    of every activity into Arrow, in id order: the least any placing must do.

Usage: python benchmarks/hlo_bench.py [--scale 500 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tui.derived.xla_hlo_match import tie_gpu_work_to_hlo
from tui.loading.trace import open_trace

RUN = Path(__file__).resolve().parent.parent / "sample_traces" / "jax_train" / "plugins" / \
    "profile" / "2026_11_24_13_14_53" / "perfetto_trace.json.gz"


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with open_trace(RUN, use_cache=False) as trace:
        con = trace.con
        con.execute("CREATE TEMP TABLE base AS SELECT * FROM gpu_activities")
        for scale in args.scale:
            con.execute("DELETE FROM gpu_activities")
            con.execute(
                "INSERT INTO gpu_activities SELECT b.* REPLACE (b.id + r * 1000 AS id, "
                "b.correlation + r * 1000 AS correlation, b.start_ns + r * 300000000 AS "
                "start_ns) FROM base AS b, range(?) AS t(r) ORDER BY id", [scale])
            rows = con.execute("SELECT count(*) FROM gpu_activities").fetchone()[0]

            def tie() -> None:
                con.execute("DELETE FROM gpu_hlo_ops")
                tie_gpu_work_to_hlo(con)

            def read() -> None:
                con.sql("SELECT id, hlo_module, hlo_op, name, kind, correlation FROM "
                        "gpu_activities ORDER BY id").to_arrow_table()

            tui_s = median_time(tie, args.repeat)
            base_s = median_time(read, args.repeat)
            print(f"scaled x{scale}: {rows:,} activities: tie {tui_s:.2f} s, "
                  f"read baseline {base_s:.2f} s ({tui_s / base_s:.1f}x)", flush=True)


if __name__ == "__main__":
    main()
