"""The timeline of an XLA profile with GPU counters (jax_pm_counters/: CUPTI PM sampling of
SMs active, the tensor pipe and DRAM read and write, recordings/gen_pm_counters_jax.py)
draws the counters' lanes under the GPU at 80×24, `m` toggling them, as for nsys."""

from __future__ import annotations

from tests.helpers.paths import SAMPLES
from tests.helpers.pilot import lane_text, settle, sync
from tui.apps.trace_app import TraceApp

XPLANE = (SAMPLES / "jax_pm_counters" / "plugins" / "profile" / "2026_11_28_13_28_23"
          / "vm.xplane.pb")


@sync
async def test_counter_lanes_show_under_the_gpu() -> None:
    app = TraceApp(XPLANE)
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = await settle(pilot)
        labels = [lane.label for lane in timeline.lanes]
        assert labels[:4] == ["GPU0 s14", "SM GPU0", "tensor GPU0", "DRAM GPU0"]
        assert not any("__" in label for label in labels)  # no counter as a stream
        sm_row = lane_text(timeline, 1)
        assert sm_row.startswith("SM GPU0") and "█" in sm_row
        await pilot.press("m")
        timeline = await settle(pilot)
        assert "SM GPU0" not in [lane.label for lane in timeline.lanes]
        await pilot.press("m")
        timeline = await settle(pilot)
        assert [lane.label for lane in timeline.lanes][1] == "SM GPU0"
