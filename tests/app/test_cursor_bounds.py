"""The cursor stays where the window can follow it: moved past the last activity with →
or sent outside with @, it stops at the trace's edge; fitting the GPU's span brings it in."""

from __future__ import annotations

import pytest

from tests.helpers.paths import sample
from tests.helpers.pilot import settle, sync, type_in
from tui.apps.trace_app import TraceApp

pytestmark = pytest.mark.slow

SIZE = (80, 24)
TRACE = sample("small_kernels.sqlite")


@sync
async def test_the_cursor_stops_at_the_end_of_the_trace() -> None:
    app = TraceApp(TRACE)
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        await pilot.press("end")
        timeline = await settle(pilot)
        extent = timeline.data.extent
        past = (extent.end_ns - timeline.cursor_t) // timeline.view.npc + 3
        assert 3 <= past < 100
        await pilot.press(*["right"] * past)
        timeline = await settle(pilot)
        assert timeline.cursor_t == extent.end_ns - 1
        assert timeline.view.t0 <= timeline.cursor_t < timeline.view.t1


@sync
async def test_at_a_time_outside_the_trace_goes_to_its_edge() -> None:
    app = TraceApp(TRACE)
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        extent = timeline.data.extent
        assert extent.end_ns - extent.gpu_start_ns < 5_000_000  # 5 ms is past its end
        assert extent.end_ns - extent.start_ns < 1_000_000_000  # 1 s back: before its start
        for target, edge, said in (("5ms", extent.end_ns - 1, "ends"),
                                   ("-1s", extent.start_ns, "starts")):
            await pilot.press("at", "ctrl+a", "ctrl+k")
            await type_in(pilot, target)
            await pilot.press("enter")
            timeline = await settle(pilot)
            assert timeline.cursor_t == edge
            assert timeline.view.t0 <= timeline.cursor_t < timeline.view.t1
            assert app.status.said[-1].endswith(f"(the trace {said} there)")


@sync
async def test_fit_brings_the_cursor_into_the_window() -> None:
    """H takes the cursor along, before the first kernel (host work is there): 0 fits
    the GPU's span, and the cursor comes to its edge, on screen."""
    app = TraceApp(TRACE)
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        await pilot.press("H")
        timeline = await settle(pilot)
        assert timeline.cursor_t < timeline.data.extent.gpu_start_ns
        await pilot.press("0")
        timeline = await settle(pilot)
        assert timeline.view.t0 <= timeline.cursor_t < timeline.view.t1
