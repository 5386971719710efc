"""The Memory tab: allocations, largest first, with how long each lived, the op and the
Python frame that made it; the caption gives each device's peak. Enter shows an
allocation's lifetime on the timeline."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import on
from textual.widget import Widget

from tui.analysis.memory import MemoryPeak, memory_peaks
from tui.core.queries import fill, fragment
from tui.core.units import format_bytes
from tui.loading.trace import Trace
from tui.views.table_model import TableModel
from tui.widgets.tables import formats as f
from tui.widgets.tables.base import Column, SqlTable
from tui.widgets.tables.panel import TablePanel


def _lifetime(value: object) -> str:
    return "not freed" if value is None else f.duration(value)


class MemoryPanel(TablePanel):
    def compose_tables(self) -> Iterable[Widget]:
        self.allocations = SqlTable((
            Column("bytes", "size", 10, f.size, numeric=True),
            Column("where", "device", 6, f.text),
            Column("ts_ns", "at", 14, self.ms, numeric=True),
            Column("lifetime_ns", "lived", 9, _lifetime, numeric=True),
            Column("op", "op", 22, f.text),
            Column("user_frame", "your frame", 24, f.text),
            Column("frame", "innermost frame", 20, f.text, flexible=True),
        ), hidden=("id", "device_type", "device", "freed_ns", "end_ns"), sort="bytes",
            id="memory-allocations")
        self.peaks: list[MemoryPeak] = []
        return (self.allocations,)

    def build(self, trace: Trace) -> None:
        self.model = TableModel(trace, self.allocations.keys,
                                search=("where", "op", "frame", "user_frame"))
        allocations = fragment("memory_allocations")
        self.model.build(fill("table_memory", allocations=allocations),
                         {"limit": None})
        self.peaks = self.model.run(memory_peaks)
        self.origin = self.model.rows("timeline_extent")[0][0] or 0

    def built(self) -> None:
        self.allocations.attach(self.model)

    @on(SqlTable.Selected)
    def _selected(self, event: SqlTable.Selected) -> None:
        event.stop()
        row = event.row
        self.jump(row["ts_ns"], row["end_ns"], row["device"] if row["device_type"] == "gpu"
                  else None)

    def caption_text(self, table: SqlTable) -> Text:
        if not self.peaks:
            return Text("no memory events in this trace: record with "
                        "torch.profiler.profile(profile_memory=True), or nsys "
                        "--cuda-memory-usage=true")
        peaks = []
        for p in self.peaks:
            name = f"GPU {p.device}" if p.device_type == "gpu" else (
                "host" if p.device_type == "host" else f"other {p.device}")
            reserved = (f" ({format_bytes(p.peak_reserved_bytes)} reserved)"
                        if p.peak_reserved_bytes else "")
            peaks.append(f"{name} peak {format_bytes(p.peak_allocated_bytes)}{reserved} at "
                         f"{self.ms(p.peak_ns)}")
        return Text(f"{table.caption()} · " + " · ".join(peaks)
                    + " · Enter: its lifetime on the timeline")
