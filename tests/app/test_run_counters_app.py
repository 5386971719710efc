"""RunApp on a multi-process nsys report with the GPUs' hardware counters
(sample_traces/nvlink/: two H200s over NVLink, a torchrun process per GPU): `m` brings each
rank's counter means into view, at 80x24. The figures are those tests/runs/test_nvlink_run.py
holds to sqlite3's reading of the export."""

from __future__ import annotations

import pytest

from tests.helpers.paths import inflated
from tests.helpers.pilot import cells, sync, until
from tests.helpers.screen import drawn_screen
from tui.apps.run_app import RunApp
from tui.widgets.run_tables import CounterTable, RankTable


@pytest.mark.slow
@sync
async def test_m_shows_each_rank_s_own_gpu_counters_at_80x24() -> None:
    app = RunApp([inflated("nvlink/nvlink.sqlite")])
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.run_data is not None)
        await pilot.pause()
        assert app.query_one(RankTable).has_focus
        shown = [b.key for _n, b, _e, _t in app.screen.active_bindings.values() if b.show]
        assert "m" in shown
        await pilot.press("m")
        await pilot.pause()
        table = app.query_one(CounterTable)
        assert table.has_focus
        rows = cells(table)
        assert [r[:3] for r in rows[:2]] == [["busy span", "0", "0"], ["busy span", "1", "1"]]
        by = {(r[0], r[1]): r for r in rows}
        # over, rank, GPU, SM, tensor, NVLink (the busier direction), DRAM rd, DRAM wr
        assert by[("NVTX allreduce", "0")][5] == "59.9"
        assert by[("NVTX allreduce", "1")][5] == "62.6"
        assert by[("NVTX compute", "0")][3:5] == ["49.1", "47.6"]
        screen = "\n".join(await drawn_screen(pilot))
        assert "GPU hardware counters" in screen and "NVTX allreduce" in screen
        assert "59.9" in screen and "62.6" in screen  # the NVLink column fits
