"""How fast the TUI's tables are on a big table: the instance list of the most frequent
kernel, through the SQL paging layer and through the app (Pilot).

Usage: python benchmarks/table_bench.py TRACE
Make a 100k+ row case with scale_trace.py (e.g. launch_bound_inference ×25: 120,000
launches of one kernel) and label the figures *scaled*: it is not a recording.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from tui.core.queries import load_query
from tui.loading.trace import open_trace
from tui.views.table_model import Query, TableModel
from tui.widgets.tables.base import PAGE_ROWS, SqlTable

KEYS = ("id", "start_ns", "duration_ns", "stream", "grid", "block", "launch_name")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def timed(label: str, fn, repeat: int = 5) -> object:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    print(f"{label:<52}{ms(statistics.median(times))}  (median of {repeat})")
    return result


def model_figures(path: Path) -> str:
    trace = open_trace(path)
    name, count = trace.con.execute(
        "SELECT name, count(*) FROM gpu_activities WHERE kind = 'kernel' "
        "GROUP BY name ORDER BY 2 DESC LIMIT 1").fetchone()
    print(f"{path.name}: most frequent kernel has {count:,} launches")
    model = TableModel(trace.con, KEYS, search=("launch_name", "grid"))
    timed("build the instance table (join launch calls)",
          lambda: model.build(load_query("table_instances"), {"name": name}), repeat=3)
    for label, query in (("sort by start", Query("start_ns")),
                         ("sort by duration desc", Query("duration_ns", descending=True)),
                         ("filter 'Launch'", Query("start_ns", text="Launch"))):
        def fresh(q: Query = query) -> int:
            model._prepared = None  # as after a key press: sort/filter anew, then count
            return model.count(q)
        timed(f"{label}: sort/filter + count", fresh)
        timed(f"{label}: first page ({PAGE_ROWS} rows)",
              lambda q=query: model.page(q, 0, PAGE_ROWS))
        timed(f"{label}: middle page", lambda q=query: model.page(q, count // 2, PAGE_ROWS))
        timed(f"{label}: last page", lambda q=query: model.page(q, count - PAGE_ROWS, PAGE_ROWS))
    trace.close()
    return name


async def app_figures(path: Path) -> None:
    from tests.helpers.pilot import settle
    from tests.helpers.tables import ready
    from tui.apps.trace_app import TraceApp

    app = TraceApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        names = await ready(pilot, "kernel-names")
        names.sort(names.columns[2], descending=True)  # by count: the most frequent first
        await ready(pilot, "kernel-names")
        t = time.perf_counter()
        await pilot.press("enter")
        table: SqlTable = await ready(pilot, "kernel-instances")
        print(f"{'app: Enter on the kernel -> instance rows drawn':<52}"
              f"{ms(time.perf_counter() - t)}  ({table.total:,} rows)")
        for keys, label in ((("end",), "End: the last row drawn"),
                            (("home",), "Home: the first row drawn"),
                            (("pagedown",) * 10, "10 × PgDn"),
                            (("r",), "r: reverse the sort, rows drawn"),
                            (("s",), "s: sort by duration, rows drawn")):
            t = time.perf_counter()
            await pilot.press(*keys)
            await ready(pilot, "kernel-instances")
            print(f"{'app: ' + label:<52}{ms(time.perf_counter() - t)}")


def main() -> None:
    path = Path(sys.argv[1])
    model_figures(path)
    asyncio.run(app_figures(path))


if __name__ == "__main__":
    main()
