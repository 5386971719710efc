"""The table tabs driven through Pilot on real sample traces, checked against the same
analyses `--summary --json` reports (trace_summary, explained_gaps) and plain queries."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.helpers.generated import evil_trace
from tests.helpers.paths import sample
from tests.helpers.pilot import settle, sync
from tests.helpers.tables import all_rows, kernel_names_matching, ready, shown
from tui.analysis.gaps import explained_gaps
from tui.analysis.summary import trace_summary
from tui.apps.trace_app import TraceApp
from tui.core.categories import categorize
from tui.core.units import format_ns
from tui.views.timeline import GapInfo, KernelInfo
from tui.widgets.tables.base import SqlTable

pytestmark = pytest.mark.slow

SIZE = (120, 40)
GAPPY = "gappy_training.pt.trace.json.gz"
GAPPY_NSYS = "gappy_training.sqlite"


@pytest.mark.parametrize("trace", [GAPPY, GAPPY_NSYS])
@sync
async def test_kernel_and_gap_tables_equal_the_summary(trace: str) -> None:
    """The Kernels tab equals the summary's kernels, the Gaps tab the explained gaps (one
    app: the two tabs read the same trace), and Enter on a gap moves the timeline there."""
    app = TraceApp(sample(trace))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        table = await ready(pilot, "kernel-names")
        assert app.focused is table
        expected = trace_summary(app.trace, app.min_gap_ns)["kernels"]
        rows = all_rows(table)
        assert [r["name"] for r in rows] == [k["name"] for k in expected]  # total ns desc
        for row, kernel in zip(rows, expected, strict=True):
            for key in ("count", "total_ns", "min_ns", "max_ns"):
                assert row[key] == kernel[key]
            for key in ("avg_ns", "median_ns", "percent"):
                assert row[key] == pytest.approx(kernel[key])
            assert row["category"] == categorize(row["name"])
        top = shown(table, 1)
        assert format_ns(expected[0]["total_ns"]) in top and f"{expected[0]['count']:,}" in top

        await pilot.press("3")
        table = await ready(pilot, "gap-table")
        gaps = explained_gaps(app.trace.con, app.min_gap_ns)
        assert gaps and table.total == len(gaps)
        fields = ("device", "start_ns", "duration_ns", "before", "after", "cause", "kind")
        assert [tuple(r[f] for f in fields) for r in all_rows(table)] == [
            tuple(getattr(g, f) for f in fields) for g in gaps]
        await pilot.press("down", "enter")
        timeline = await settle(pilot)
        assert isinstance(timeline.info, GapInfo)
        assert timeline.info.start_ns == gaps[1].start_ns


@sync
async def test_sort_keys_header_click_and_filter() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        table = await ready(pilot, "kernel-names")
        kernels = trace_summary(app.trace, app.min_gap_ns)["kernels"]
        await pilot.press("s")  # total -> count, largest first
        table = await ready(pilot, "kernel-names")
        assert (table.table_query.sort, table.table_query.descending) == ("count", True)
        assert all_rows(table)[0]["count"] == max(k["count"] for k in kernels)
        await pilot.press("r")
        table = await ready(pilot, "kernel-names")
        assert table.row_at(0)["count"] == min(k["count"] for k in kernels)
        counts = [r["count"] for r in all_rows(table)]
        assert counts == sorted(counts)
        # a click on the "max" header sorts by it, a second click flips it
        x = sum(w + 2 for w in table.widths()[:table.keys.index("max_ns")]) + 1
        await pilot.click(table, offset=(x, 0))
        table = await ready(pilot, "kernel-names")
        assert (table.table_query.sort, table.table_query.descending) == ("max_ns", True)
        await pilot.click(table, offset=(x, 0))
        table = await ready(pilot, "kernel-names")
        assert (table.table_query.sort, table.table_query.descending) == ("max_ns", False)
        # "/" filters on a substring of the name (or category), any case
        await pilot.press("slash", *"GEMM", "enter")
        table = await ready(pilot, "kernel-names")
        expected = {k["name"] for k in kernels
                    if "gemm" in k["name"].lower() or "gemm" in categorize(k["name"])}
        assert {r["name"] for r in all_rows(table)} == expected and table.total == len(expected)
        assert app.focused is table
        # SQL wildcards are taken literally: no name has a '%' in it
        await pilot.press("slash", "ctrl+u", "percent_sign", "enter")
        table = await ready(pilot, "kernel-names")
        assert table.total == 0
        await pilot.press("slash", "ctrl+u", "enter")
        table = await ready(pilot, "kernel-names")
        assert table.total == len(kernels)


@sync
async def test_enter_on_an_instance_moves_the_timeline_and_n_steps() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        await pilot.press("2")
        names = await ready(pilot, "kernel-names")
        name = names.row_at(0)["name"]
        await pilot.press("enter")  # the top kernel's launches, in time order
        instances = await ready(pilot, "kernel-instances")
        con = app.trace.con
        launches = con.execute("SELECT id, start_ns FROM gpu_activities WHERE kind = 'kernel' "
                               "AND name = ? ORDER BY start_ns", [name]).fetchall()
        assert [r["id"] for r in all_rows(instances)] == [i for i, _ in launches]
        calls = dict(con.execute(
            "SELECT k.id, h.name FROM gpu_activities AS k JOIN host_activities AS h "
            "ON h.kind = 'runtime' AND h.correlation = k.correlation WHERE k.name = ?",
            [name]).fetchall())
        assert {r["id"]: r["launch_name"] for r in all_rows(instances)} == calls
        assert set(calls.values()) <= {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel"}
        await pilot.press("down", "down", "enter")
        timeline = await settle(pilot)
        assert app.focused is timeline
        assert isinstance(timeline.info, KernelInfo) and timeline.info.id == launches[2][0]
        assert timeline.view.t0 <= launches[2][1] < timeline.view.t1
        # back in the table, n and N step through the launches; the keys stay there
        await pilot.press("2")
        instances = await ready(pilot, "kernel-instances")
        assert app.focused is instances
        await pilot.press("n")
        timeline = await settle(pilot)
        assert timeline.info.id == launches[3][0] and app.focused is instances
        await pilot.press("N", "N")
        timeline = await settle(pilot)
        assert timeline.info.id == launches[1][0]
        await pilot.press("backspace")  # back to the names
        assert app.query_one("#kernel-names", SqlTable).display


@sync
async def test_n_from_the_names_goes_to_the_first_launch() -> None:
    app = TraceApp(sample("multistream.pt.trace.json.gz"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        names = await ready(pilot, "kernel-names")
        name = names.row_at(0)["name"]
        await pilot.press("n")
        await ready(pilot, "kernel-instances")
        timeline = await settle(pilot)
        first = app.trace.con.execute(
            "SELECT id FROM gpu_activities WHERE name = ? ORDER BY start_ns LIMIT 1",
            [name]).fetchone()[0]
        assert isinstance(timeline.info, KernelInfo) and timeline.info.id == first


@sync
async def test_categories_group_the_kernels() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        names = await ready(pilot, "kernel-names")
        kernels = trace_summary(app.trace, app.min_gap_ns)["kernels"]
        await pilot.press("c")
        groups = await ready(pilot, "kernel-categories")
        rows = all_rows(groups)
        by_category: dict[str, int] = {}
        for k in kernels:
            by_category[categorize(k["name"])] = by_category.get(categorize(k["name"]), 0) + \
                k["total_ns"]
        assert {r["category"]: r["total_ns"] for r in rows} == by_category
        assert sum(r["percent"] for r in rows) == pytest.approx(100)
        top = rows[0]["category"]
        await pilot.press("enter")  # that category's kernel names
        names = await ready(pilot, "kernel-names")
        assert {r["name"] for r in all_rows(names)} == {
            k["name"] for k in kernels if categorize(k["name"]) == top}


@sync
async def test_a_tab_s_tables_come_when_a_click_first_shows_it() -> None:
    """A started app has no table in its tabs; a click on the Gaps tab's header mounts and
    builds that tab's table, and only that one."""
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.query(SqlTable)
        await pilot.click("#--content-tab-tab-3")
        table = await ready(pilot, "gap-table")
        assert [t.id for t in app.query(SqlTable)] == ["gap-table"]
        assert table.total == len(explained_gaps(app.trace.con, app.min_gap_ns)) > 0
        assert shown(table, 1).strip()  # its first row drawn


@sync
async def test_gap_threshold_is_changed_from_the_ui() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")
        table = await ready(pilot, "gap-table")
        before = table.total
        await pilot.press("t", *"20", "enter")
        await pilot.pause()
        table = await ready(pilot, "gap-table")
        expected = explained_gaps(app.trace.con, 20_000_000)
        assert table.total == len(expected) < before
        assert [r["start_ns"] for r in all_rows(table)] == [g.start_ns for g in expected]
        assert "gaps over 20 ms" in str(app.query_one("#gaps-panel").caption.render())
        # the timeline follows: it highlights, and g/b step through, the same gaps
        timeline = app.timeline
        for _ in range(500):
            await pilot.pause()
            if timeline.data is not None and timeline.data.min_gap_ns == 20_000_000:
                break
            await asyncio.sleep(0.01)
        assert timeline.data.min_gap_ns == 20_000_000
        timeline.focus()
        await pilot.press("home", "g")  # the first gap from the start: over 20 ms now
        timeline = await settle(pilot)
        first = min(expected, key=lambda g: g.start_ns)
        first_over_1ms = min(explained_gaps(app.trace.con, 1_000_000), key=lambda g: g.start_ns)
        assert first.start_ns != first_over_1ms.start_ns  # else this would prove nothing
        assert timeline.current_gap is not None
        assert timeline.current_gap.start_ns == first.start_ns
        assert timeline.current_gap.duration_ns == first.duration_ns >= 20_000_000


def busy_inside(kernels: list[tuple[int, int]], start: int, end: int) -> int:
    """The union of [s, e) intervals clipped to [start, end): plain Python."""
    total, reach = 0, start
    for s, e in sorted((max(s, start), min(e, end)) for s, e in kernels
                       if s < end and e > start):
        if e > reach:
            total += e - max(s, reach)
            reach = e
    return total


@sync
async def test_nvtx_table_counts_gpu_time_inside_each_range_and_copies_table_sums_copies(
) -> None:
    """Two tabs of one nsys trace in one app: NVTX ranges against plain Python over the
    rows, copies against a GROUP BY."""
    app = TraceApp(sample(GAPPY_NSYS))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        table = await ready(pilot, "nvtx-table")
        con = app.trace.con
        kernels = con.execute("SELECT start_ns, end_ns FROM gpu_activities "
                              "WHERE kind = 'kernel'").fetchall()
        ranges = con.execute("SELECT name, start_ns, end_ns FROM host_activities "
                             "WHERE kind = 'annotation'").fetchall()
        expected: dict[str, list[int]] = {}
        for name, start, end in ranges:
            entry = expected.setdefault(name, [0, 0, 0, 0])
            entry[0] += 1
            entry[1] += end - start
            entry[2] += busy_inside(kernels, start, end)
            entry[3] += sum(1 for s, e in kernels if s < end and e > start)
        rows = all_rows(table)
        assert {r["name"]: [r["count"], r["total_ns"], r["gpu_ns"], r["kernels"]]
                for r in rows} == expected
        assert all(0 < expected[name][2] < expected[name][1] for name in expected)
        assert rows[0]["name"] == "gappy_training"  # the longest in total comes first
        await pilot.press("5")
        table = await ready(pilot, "copy-table")
        copies = con.execute(
            "SELECT kind, copy_kind, count(*), sum(bytes), sum(duration_ns) FROM gpu_activities "
            "WHERE kind IN ('memcpy', 'memset') GROUP BY ALL").fetchall()
        rows = all_rows(table)
        assert len(rows) == len(copies) == 4
        got = {(r["kind"], r["direction"]): (r["count"], r["bytes"], r["total_ns"]) for r in rows}
        assert got == {(k, d or "set"): (n, b, t) for k, d, n, b, t in copies}
        pageable = next(r for r in rows if r["direction"] == "HtoD")
        assert pageable["host_memory"] == "Pageable"
        assert pageable["gb_per_s"] == pytest.approx(pageable["bytes"] / pageable["total_ns"])
        await pilot.press("enter")  # the longest copy of the top group, on the timeline
        timeline = await settle(pilot)
        assert isinstance(timeline.info, KernelInfo)
        assert timeline.info.id == table.row_at(0)["longest_id"]


@sync
async def test_kernel_names_are_shown_literally(tmp_path: Path) -> None:
    app = TraceApp(evil_trace(tmp_path / "evil.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        table = await ready(pilot, "kernel-names")
        line = table.render_line(1)
        assert "[bold]evil\\x1b[31m kernel" in line.text and "\x1b" not in line.text
        assert not any(s.style and s.style.bold and "evil" in s.text for s in line)
        caption = app.query_one("#kernels-panel").caption.render()
        assert "[bold]evil\\x1b[31m kernel" in str(caption)
        await pilot.press("enter")
        instances = await ready(pilot, "kernel-instances")
        assert instances.total == 1


@sync
async def test_x_exports_the_table_as_sorted_and_filtered(tmp_path: Path) -> None:
    from tui.widgets.export_dialog import ExportDialog

    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await kernel_names_matching(pilot, "gemm")
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        source = app.screen.source
        exported = source.rows()
        assert exported.num_rows == table.total
        assert exported.column("name").to_pylist() == [r["name"] for r in all_rows(table)]
        await pilot.press("escape")


@sync
async def test_a_page_asked_for_a_table_since_re_sorted_is_forgotten() -> None:
    """A page fetch that finds the table re-sorted meanwhile drops its key on the app's
    thread: a builtin method as the callback (set.discard) made Textual's worker fail."""
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        table = await ready(pilot, "kernel-names")
        assert table.model is not None
        stale = (table.model.generation - 1, table.table_query, 0)
        table._asked.add(stale)
        table._fetch(table.model, stale)
        await ready(pilot, "kernel-names")
        assert stale not in table._asked
