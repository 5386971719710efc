"""The Gaps tab: every GPU-idle gap over the threshold, explained, as `--summary` lists
them (rows come from `explained_gaps` itself). Enter shows the gap on the timeline; `t`
changes the threshold and asks again."""

from __future__ import annotations

import threading
from collections.abc import Iterable

import pyarrow as pa
from rich.text import Text
from textual import on, work
from textual.widget import Widget

from tui.analysis.gaps import explained_gaps
from tui.core.queries import load_query
from tui.core.units import format_ns
from tui.loading.trace import Trace
from tui.views.table_model import TableModel
from tui.widgets import keymap
from tui.widgets.host_screen import HostScreen
from tui.widgets.messages import GapThreshold
from tui.widgets.tables import formats as f
from tui.widgets.tables import keys
from tui.widgets.tables.base import Column, SqlTable
from tui.widgets.tables.names import shorten
from tui.widgets.tables.panel import TablePanel, full_name_line

GAP_FIELDS = ("device", "start_ns", "duration_ns", "before", "after", "cause", "kind")


class GapPanel(TablePanel):
    BINDINGS = keymap.bindings(keys.GAPS)

    def compose_tables(self) -> Iterable[Widget]:
        self.gaps = SqlTable((
            Column("rank", "#", 4, f.count, numeric=True),
            Column("duration_ns", "idle", 8, f.duration, numeric=True),
            Column("start_ns", "at", 12, self.ms, numeric=True),
            Column("device", "GPU", 3, f.text, numeric=True),
            Column("kind", "class", 15, f.text),
            Column("cause", "cause", 30, f.text, flexible=True),
            Column("before_short", "before", 18, f.text, full_key="before"),
            Column("after_short", "after", 18, f.text, full_key="after"),
        ), hidden=("end_ns",), sort="duration_ns", id="gap-table")
        self._filling = threading.Lock()
        return (self.gaps,)

    def build(self, trace: Trace) -> None:
        self.model = TableModel(trace, self.gaps.keys,
                                search=("cause", "kind", "before", "after"))
        self.origin = self.model.rows("timeline_extent")[0][0] or 0
        self.fill(self.min_gap_ns)

    def fill(self, min_gap_ns: int) -> None:
        """The gaps over `min_gap_ns`, explained, into the table (in a worker)."""
        gaps = self.model.run(lambda con: explained_gaps(con, min_gap_ns))
        columns = {name: [getattr(g, name) for g in gaps] for name in GAP_FIELDS}
        columns["before_short"] = [shorten(n) if n else "" for n in columns["before"]]
        columns["after_short"] = [shorten(n) if n else "" for n in columns["after"]]
        schema = pa.schema([(name, pa.int64() if name in ("device", "start_ns", "duration_ns")
                             else pa.string()) for name in columns])
        explained = pa.table(columns, schema=schema)
        self.model.build(load_query("table_gaps"), arrow={"explained": explained})

    def built(self) -> None:
        self.gaps.attach(self.model)

    @on(SqlTable.Selected)
    def _selected(self, event: SqlTable.Selected) -> None:
        event.stop()
        row = event.row
        self.jump(row["start_ns"], row["end_ns"], row["device"])

    def action_host(self) -> None:
        """The highlighted gap's host activity, full screen."""
        if self.trace is None or not self.gaps.total:
            return
        row = self.gaps.row_at(self.gaps.cursor)
        if row is None:
            return
        what = f"this gap ({format_ns(row['duration_ns'])} on GPU {row['device']})"
        self.app.push_screen(HostScreen(self.model.run, (row["start_ns"], row["end_ns"]), what))

    def action_threshold(self) -> None:
        if self.trace is None:
            return

        def done(text: str) -> None:
            self.gaps.focus()
            try:
                ms = float(text.strip().removesuffix("ms"))
            except ValueError:
                ms = -1.0
            if not ms >= 0:
                self.notify(f"not a number of milliseconds: {text!r}", severity="warning",
                            markup=False)
                return
            self.min_gap_ns = round(ms * 1_000_000)
            self.gaps.loading = True
            self._refill(self.min_gap_ns)
            self.post_message(GapThreshold(self.min_gap_ns))

        self.prompt.ask(f"minimum gap in ms (now {self.min_gap_ns / 1e6:g}); Enter applies",
                        "", done, on_cancel=self.gaps.focus)

    @work(thread=True, exclusive=True, group="gap-threshold")
    def _refill(self, min_gap_ns: int) -> None:
        with self._filling:  # a later threshold waits, then wins; an earlier one gives way
            if min_gap_ns != self.min_gap_ns:
                return
            self.fill(min_gap_ns)
        self.app.call_from_thread(self._built)

    def caption_text(self, table: SqlTable) -> Text:
        out = Text(f"gaps over {format_ns(self.min_gap_ns)} (t: change) · {table.caption()}"
                   " · Enter: show on the timeline · f: full kernel names")
        row = table.row_at(table.cursor) if table.total else None
        if row is not None:  # the highlighted gap's whole story, however narrow the columns
            out.append("\n")
            out.append_text(full_name_line("cause", row["cause"]))
            out.append("\n")
            out.append_text(full_name_line("between", f"{row['before'] or '(start)'}  →  "
                                                      f"{row['after'] or '(end)'}"))
        return out
