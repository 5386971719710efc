"""The ranks app on one XLA process driving four GPUs (sample_traces/jax_dp), through
Pilot: a rank per device, as `tui LOGDIR` opens it."""

from __future__ import annotations

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.pilot import SIZE, cells, static_text, sync, until
from tui.apps.run_app import RunApp
from tui.widgets.run_tables import BandwidthTable, RankTable

XPLANE = (ROOT / "sample_traces" / "jax_dp" / "plugins" / "profile" / "2026_11_27_05_46_00"
          / "vm.xplane.pb")


@pytest.mark.slow
@sync
async def test_the_ranks_app_shows_each_device_as_a_rank() -> None:
    app = RunApp([XPLANE])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.run_data is not None)
        await pilot.pause()
        assert app.run_data is not None
        summary = app.run_data.summary
        header = static_text(app, "#run-header")
        assert "no straggler: ranks are balanced" in header
        assert [r[0] for r in cells(app.query_one(RankTable))] == ["0", "1", "2", "3"]
        assert "data parallelism" in static_text(app, "#run-findings")
        rates = summary["collective_bandwidth"]
        assert len(rates) == 3 and [r[:4] for r in cells(app.query_one(BandwidthTable))] == [
            [r["name"], f"{r['bytes']:,}", "4", str(r["instances"])] for r in rates]
        await pilot.press("q")
