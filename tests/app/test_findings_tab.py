"""The Findings tab driven through Pilot: the findings `--summary --json` reports, most
costly first; Enter lists a finding's rows (NVIDIA's rule rows on this export); Enter on a
row moves the timeline there."""

from __future__ import annotations

import pytest

from tests.helpers.paths import inflated, sample
from tests.helpers.pilot import SIZE, messages, settle, sync
from tests.helpers.tables import all_rows, ready
from tui.analysis.summary import trace_summary
from tui.apps.trace_app import TraceApp
from tui.loading.trace import open_trace
from tui.views.timeline.lanes import LANE_HOST

pytestmark = pytest.mark.slow

RULES = "rules.sqlite"  # recordings/rules.cu under nsys: every nsys rule finds rows


@sync
async def test_findings_tab_lists_them_by_cost_and_enter_jumps_to_a_row() -> None:
    with open_trace(sample(RULES)) as loaded:
        expected = trace_summary(loaded, min_gap_ns=1_000_000)["findings"]
    app = TraceApp(sample(RULES))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        table = await ready(pilot, "finding-table")
        shown = all_rows(table)
        assert [(r["rule"], r["cost_ns"], r["rows"], r["text"]) for r in shown] == [
            (f["rule"], f["cost_ns"], len(f["rows"]), f["text"]) for f in expected]
        assert "cuda_memcpy_sync" in {r["rule"] for r in shown}
        index = next(i for i, r in enumerate(shown) if r["rule"] == "cuda_memcpy_sync")
        await pilot.press(*["down"] * index, "enter")
        rows = await ready(pilot, "finding-rows")
        nvidia = next(f for f in expected if f["rule"] == "cuda_memcpy_sync")["rows"]
        listed = all_rows(rows)
        assert [(r["start_ns"], r["duration_ns"], r["device"], r["stream"], r["api"])
                for r in listed] == [(r["start_ns"], r["duration_ns"], r["device"],
                                      r["stream"], r["api"]) for r in nvidia]
        assert len(listed) == 15
        assert "Device → Pageable" in listed[0]["detail"]
        await pilot.press("down", "enter")  # the second-longest synchronous copy
        timeline = await settle(pilot)
        second = nvidia[1]
        assert app.focused is timeline
        assert timeline.cursor_t == second["start_ns"] + second["duration_ns"] // 2
        lane = timeline.lanes[timeline.lane_index]
        assert (lane.k1, lane.k2) == (second["device"], second["stream"])
        await pilot.press("6")
        await pilot.press("backspace")  # back to the findings
        table = await ready(pilot, "finding-table")
        assert table.display and not rows.display


@sync
async def test_a_finding_without_rows_to_jump_to_says_so() -> None:
    app = TraceApp(sample(RULES))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        table = await ready(pilot, "finding-table")
        shown = all_rows(table)
        index = next(i for i, r in enumerate(shown) if r["rule"] == "top_kernel")
        await pilot.press(*["down"] * index, "enter")
        rows = await ready(pilot, "finding-rows")
        assert [r["detail"] for r in all_rows(rows)] == ["busy(float *, int, int) ×221"]
        await pilot.press("enter")
        await pilot.pause()
        assert rows.display  # no time to show: the table stays, with a note
        assert any("Kernels tab" in str(m) for m in messages(app))


@sync
async def test_findings_follow_the_gap_threshold() -> None:
    app = TraceApp(sample(RULES))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await ready(pilot, "gap-table")
        await pilot.press("t", *"5", "enter")  # gaps over 5 ms: 3 of the 6 over 1 ms
        await pilot.press("6")
        await settle(pilot)
        table = await ready(pilot, "finding-table")
        gaps = next(r for r in all_rows(table) if r["rule"] == "gpu_gaps")
        with open_trace(sample(RULES)) as loaded:
            expected = trace_summary(loaded, min_gap_ns=5_000_000)["gaps"]
        assert gaps["rows"] == len(expected) == 3
        assert gaps["text"].startswith("3 GPU-idle gaps over 5 ms")


async def _rows_of(pilot, rule: str):
    """The Findings tab (6), the finding of `rule` opened: its rows' table."""
    await settle(pilot)
    await pilot.press("6")
    table = await ready(pilot, "finding-table")
    index = next(i for i, r in enumerate(all_rows(table)) if r["rule"] == rule)
    await pilot.press(*["down"] * index, "enter")
    return await ready(pilot, "finding-rows")


@sync
async def test_a_blocking_call_row_jumps_to_its_host_thread() -> None:
    with open_trace(sample(RULES)) as loaded:
        found = trace_summary(loaded, min_gap_ns=1_000_000)["findings"]
    sync_rows = next(f for f in found if f["rule"] == "cuda_api_sync")["rows"]
    app = TraceApp(sample(RULES))
    async with app.run_test(size=SIZE) as pilot:
        await _rows_of(pilot, "cuda_api_sync")
        await pilot.press("enter")  # the longest blocking call
        timeline = await settle(pilot)
        first = sync_rows[0]
        assert timeline.cursor_t == first["start_ns"] + first["duration_ns"] // 2
        lane = timeline.lanes[timeline.lane_index]
        assert (lane.kind, lane.k1, lane.k2) == (LANE_HOST, first["pid"], first["tid"])


@sync
async def test_a_slow_step_row_jumps_to_the_step_on_its_thread() -> None:
    """The torch.compile'd GPT-2 whose step 20 writes a checkpoint (nsys, whole program):
    the slow_steps finding lists step 20, and Enter shows it on the thread that ran it."""
    path = inflated("compiled_lm/compiled_lm_lean.sqlite")
    with open_trace(path) as loaded:
        found = trace_summary(loaded, min_gap_ns=1_000_000)["findings"]
    (step,) = next(f for f in found if f["rule"] == "slow_steps")["rows"]
    app = TraceApp(path)
    async with app.run_test(size=SIZE) as pilot:
        rows = await _rows_of(pilot, "slow_steps")
        (listed,) = all_rows(rows)
        assert (listed["start_ns"], listed["duration_ns"]) == (step["start_ns"],
                                                               step["duration_ns"])
        assert listed["detail"].startswith("step 20: ")
        await pilot.press("enter")
        timeline = await settle(pilot)
        assert timeline.cursor_t == step["start_ns"] + step["duration_ns"] // 2
        lane = timeline.lanes[timeline.lane_index]
        assert (lane.kind, lane.k1, lane.k2) == (LANE_HOST, step["pid"], step["tid"])


@sync
async def test_a_slow_repeat_of_a_program_that_marks_nothing_jumps_to_its_thread() -> None:
    """Triton's benchmarks (nsys, no annotations): the window is the kernel sequence's
    repeats, and the repeat that waited for the matmul's compile is a slow step; Enter on
    its row shows it on the thread that launched it."""
    path = inflated("unannotated/triton.sqlite")
    with open_trace(path) as loaded:
        found = trace_summary(loaded, min_gap_ns=1_000_000)["findings"]
    slowest = max(next(f for f in found if f["rule"] == "slow_steps")["rows"],
                  key=lambda r: r["duration_ns"])
    assert slowest["name"].startswith("repeat ") and slowest["duration_ns"] > 1_000_000_000
    app = TraceApp(path)
    async with app.run_test(size=SIZE) as pilot:
        rows = await _rows_of(pilot, "slow_steps")
        first = all_rows(rows)[0]  # the longest first
        assert (first["start_ns"], first["duration_ns"]) == (slowest["start_ns"],
                                                             slowest["duration_ns"])
        assert first["detail"].startswith(f"{slowest['name']}: ")
        await pilot.press("enter")
        timeline = await settle(pilot)
        assert timeline.cursor_t == slowest["start_ns"] + slowest["duration_ns"] // 2
        lane = timeline.lanes[timeline.lane_index]
        assert (lane.kind, lane.k1, lane.k2) == (LANE_HOST, slowest["pid"], slowest["tid"])


@sync
async def test_the_diagnosis_heading_the_tab_is_the_summarys_with_where_the_host_was() -> None:
    """`unannotated/diskread.sqlite` (a loop that reads each batch from disk with
    `np.load`): the Findings tab's caption opens with the diagnosis `--summary` prints, the
    host's work named (fread) as the summary names it from the launching thread's OS calls,
    then where the waited-on host was and where it was in the set-up, from the CPU
    samples: the tab said neither, nor the host's work."""
    path = inflated("unannotated/diskread.sqlite")
    with open_trace(path) as loaded:
        expected = trace_summary(loaded, min_gap_ns=1_000_000)["diagnosis"]
    assert expected["host_where"] and expected["setup_where"]
    app = TraceApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await ready(pilot, "finding-table")
        caption = str(app.query_one("#findings-panel").caption.render())
    flat = " ".join(caption.split())
    assert flat.startswith(" ".join(expected["text"].split()))
    assert "busy most in fread" in flat
    assert f"while the GPU idled, {expected['host_where']}" in flat
    assert f"in the set-up, {expected['setup_where']}" in flat
