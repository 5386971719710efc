"""The report's launches on a roofline (`r` in the Nsight Compute view): the chart above,
drawn to the space it has, the launches below; the one under the cursor is highlighted
in the chart. Esc goes back with that launch selected."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from tui.analysis.ncu.roofline import Chart, chart
from tui.core.safe_text import plain
from tui.views.ncu_session import NcuSession
from tui.views.roofline_plot import caption, mark, render, si
from tui.widgets import keymap

NO_POINTS = ("no launch has roofline inputs (FP instruction rates and DRAM bytes): profile "
             "with `ncu --set full` (or `--section SpeedOfLight_RooflineChart`) and open "
             "the .ncu-rep or a raw export")


class NcuRooflineScreen(Screen[int | None]):
    """Dismissed with the launch under the cursor (None when there is none)."""

    BINDINGS: ClassVar[list[BindingType]] = [*keymap.bindings(keymap.ROOFLINE)]
    DEFAULT_CSS = """
    NcuRooflineScreen #roof-title { height: auto; padding: 0 1; background: $panel; }
    NcuRooflineScreen #roof-plot { height: 1fr; min-height: 8; padding: 0 1; }
    NcuRooflineScreen #roof-caption { height: auto; padding: 0 1; color: $text-muted; }
    NcuRooflineScreen #roof-list { height: auto; max-height: 40%; }
    """

    def __init__(self, session: NcuSession, launch_id: int | None = None) -> None:
        super().__init__()
        self.session = session
        self.chart: Chart = chart(session.summary)
        self.precision = "fp64" if self.chart.peaks and "fp32" not in self.chart.peaks \
            else "fp32"
        self._start = launch_id

    def compose(self) -> ComposeResult:
        yield Static(id="roof-title")
        yield Static(id="roof-plot")
        yield Static(id="roof-caption")
        yield DataTable(id="roof-list", cursor_type="row", zebra_stripes=True)
        yield Footer()

    @property
    def table(self) -> DataTable:
        return self.query_one("#roof-list", DataTable)

    @property
    def selected(self) -> int | None:
        points = self.chart.points
        row = self.table.cursor_row
        return points[row].launch_id if points and 0 <= row < len(points) else None

    def on_mount(self) -> None:
        device = f" · {self.chart.device}" if self.chart.device else ""
        self.query_one("#roof-title", Static).update(Text.assemble(
            ("Roofline ", "bold"), plain(self.session.path.name, "bold"), plain(device),
            f" · {len(self.chart.points)} of {len(self.session.launches)} launches"))
        self.query_one("#roof-caption", Static).update(
            caption(self.chart, self.precision) if self.chart.points else NO_POINTS)
        table = self.table
        for column in ("", "#", "kernel", "FLOP/byte", "FLOP/s", "% of peak", "side"):
            table.add_column(column)
        for p in self.chart.points:
            table.add_row(Text(mark(p), "bold"), str(p.launch_id), plain(p.name[:40]),
                          f"{p.intensity:.3g}", si(p.flop_per_s), f"{p.pct_of_peak:.1f}%",
                          p.side)
        ids = [p.launch_id for p in self.chart.points]
        if self._start in ids:
            table.move_cursor(row=ids.index(self._start), animate=False)
        table.focus()
        self.call_after_refresh(self._draw)

    def on_resize(self) -> None:
        self.call_after_refresh(self._draw)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._draw()

    def _draw(self) -> None:
        plot = self.query_one("#roof-plot", Static)
        if not self.chart.points:
            plot.update("")
            return
        size = plot.content_region.size
        plot.update(render(self.chart, size.width, size.height, self.selected,
                           self.precision))

    def action_close(self) -> None:
        self.dismiss(self.selected)
