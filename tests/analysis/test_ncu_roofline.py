"""The roofline of a report: its points are NVIDIA's (SOLFPRoofline's "% of this device's
FP32 peak" on the details page ncu printed), its ceilings the device's; drawn in the
terminal at 80x24 with the launches selectable, and written as SVG by `tui export`."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import duckdb
import pytest

from tests.helpers.ncu_advice import KERNELS, nvidia_rules, report
from tests.helpers.ncu_pilot import ncu_app_ready
from tests.helpers.pilot import sync, until
from tui.analysis.ncu.roofline import Chart, chart
from tui.analysis.ncu.summary import ncu_summary
from tui.cli.main import main
from tui.sources.ncu.load import load_ncu
from tui.views.roofline_plot import render, svg


@pytest.fixture(scope="module")
def roof() -> Chart:
    con = duckdb.connect()
    load_ncu(report("before"), con)
    return chart(ncu_summary(con))


def test_points_are_nvidias_and_the_ceilings_the_devices(roof: Chart) -> None:
    # atomic_hist does no floating-point work: no point (ncu draws none either)
    assert [p.name for p in roof.points] == [k for k in KERNELS if k != "atomic_hist"]
    texts = dict(nvidia_rules("before").execute(
        "SELECT launch_id, description FROM ncu_rules WHERE rule = 'SOLFPRoofline'").fetchall())
    for p in roof.points:
        found = re.search(r"achieved\s+(?:close to )?(\d+)% of this device's FP32",
                          texts[p.launch_id])
        assert found, texts[p.launch_id]
        assert abs(p.pct_of_peak - float(found.group(1))) <= 1.0, p
    assert roof.bandwidth == pytest.approx(4.8e12, rel=0.02)  # H200: HBM3e, 4.8 TB/s
    ridge = roof.ridge("fp32")
    assert ridge is not None and 10 < ridge < 11
    by_name = {p.name: p for p in roof.points}
    assert by_name["local_array"].side == "memory"  # 2.6 FLOP/byte, left of the ridge
    assert by_name["register_tiled_gemm"].side == "compute"
    # register tiling: the same FLOPs, faster than the shared-tiled product
    assert by_name["register_tiled_gemm"].flop_per_s > by_name["tiled_gemm"].flop_per_s


def test_the_terminal_chart_reads_at_80_by_24(roof: Chart) -> None:
    text = render(roof, 78, 14, selected=2)
    lines = text.plain.splitlines()
    assert len(lines) == 14 and max(len(line) for line in lines) <= 78
    body = "\n".join(lines[:-2])
    for p in roof.points:  # every launch's mark is on the chart
        assert str(p.launch_id) in body
    assert "╱" in body and "─" in body and "┊" in body  # the two roofs and the ridge
    assert "10T" in text.plain and "100" in lines[-1]  # decade labels on both axes
    selected = [s for s in text.spans if "reverse" in str(s.style)]
    assert len(selected) == 1 and text.plain[selected[0].start] == "2"


def test_the_svg_has_every_point_and_the_ridge(roof: Chart) -> None:
    root = ET.fromstring(svg(roof))
    circles = [e for e in root.iter() if e.tag.endswith("circle")]
    assert len(circles) == len(roof.points)
    assert any("ridge 10." in (e.text or "") for e in root.iter())


def test_tui_export_writes_the_roofline_svg(tmp_path: Path) -> None:
    out = tmp_path / "roofline.svg"
    assert main(["export", str(report("before")), "roofline", "--output", str(out)]) == 0
    root = ET.parse(out).getroot()
    assert len([e for e in root.iter() if e.tag.endswith("circle")]) == 8
    table = tmp_path / "roofline.csv"
    assert main(["export", str(report("before")), "roofline", "--output", str(table)]) == 0
    assert len(table.read_text().splitlines()) == 9


@sync
async def test_the_roofline_screen_selects_launches() -> None:
    from tui.apps.ncu_app import NcuApp
    from tui.widgets.ncu_roofline import NcuRooflineScreen

    app = NcuApp(report("before"))
    async with app.run_test(size=(80, 24)) as pilot:
        await ncu_app_ready(pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, NcuRooflineScreen))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NcuRooflineScreen)
        plot = screen.query_one("#roof-plot")
        assert plot.content_region.height >= 8  # room to read it at 80x24
        assert screen.selected == 0
        await pilot.press("down", "down")
        await pilot.pause(0.2)
        assert screen.selected == 2
        drawn = str(plot.render())
        assert "┊" in drawn and "2" in drawn
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert app.screen is not screen
        assert app.browser.launches.launch_id == 2  # back on the launch chosen there


@sync
async def test_the_drill_down_shows_the_advice_and_nvidias_agreement() -> None:
    from tui.apps.ncu_app import NcuApp

    app = NcuApp(report("before"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ncu_app_ready(pilot)
        app.browser.launches.select_launch(8)  # register_heavy: two conditions
        await until(pilot, lambda: app.browser.panel.launch is not None
                    and app.browser.panel.launch["launch_id"] == 8)
        text = app.browser.panel.plain_text()
        assert "Global loads are uncoalesced" in text
        assert "NVIDIA agrees: UncoalescedGlobalAccess" in text
        assert "also: theoretical occupancy is 31%, limited by registers" in text
