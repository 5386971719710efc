"""The Copies tab: memory copies and sets by direction and memory kind: how many bytes,
how long, how fast, pageable or pinned host memory. Enter shows the longest one."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import on
from textual.widget import Widget

from tui.core.queries import load_query
from tui.loading.trace import Trace
from tui.views.table_model import TableModel
from tui.widgets.tables import formats as f
from tui.widgets.tables.base import Column, SqlTable
from tui.widgets.tables.panel import TablePanel


class CopyPanel(TablePanel):
    def compose_tables(self) -> Iterable[Widget]:
        self.copies = SqlTable((
            Column("kind", "kind", 6, f.text),
            Column("direction", "dir", 4, f.text),
            Column("host_memory", "host mem", 8, f.text),
            Column("count", "count", 7, f.count, numeric=True),
            Column("bytes", "bytes", 10, f.size, numeric=True),
            Column("total_ns", "time", 8, f.duration, numeric=True),
            Column("avg_ns", "avg", 8, f.duration, numeric=True),
            Column("gb_per_s", "GB/s", 7, f.rate, numeric=True),
            Column("route", "from → to", 20, f.text, flexible=True),
        ), hidden=("longest_id", "longest_start_ns", "longest_end_ns", "longest_device",
                   "longest_stream"), sort="total_ns", id="copy-table")
        return (self.copies,)

    def build(self, trace: Trace) -> None:
        self.model = TableModel(trace, self.copies.keys,
                                search=("kind", "direction", "host_memory", "route"))
        self.model.build(load_query("table_copies"))

    def built(self) -> None:
        self.copies.attach(self.model)

    @on(SqlTable.Selected)
    def _selected(self, event: SqlTable.Selected) -> None:
        event.stop()
        row = event.row
        self.jump(row["longest_start_ns"], row["longest_end_ns"], row["longest_device"],
                  row["longest_stream"], row["longest_id"])

    def caption_text(self, table: SqlTable) -> Text:
        if table.total == 0 and not table.table_query.text:
            return Text("no memory copies or sets in this trace")
        return Text(f"{table.caption()} · GB/s: bytes over busy time · host mem: pageable "
                    "copies are staged by the driver, pinned ones are not · Enter: the longest")
