"""The Source view of one profiled launch (from the Nsight Compute drill-down: `s`, or
Enter on a launch of a report opened alone): the kernel's CUDA lines with their warp
samples, stall reasons, memory traffic and the load each line waits on; below, the SASS
of the line under the cursor. `v` switches to the whole SASS listing; without line
information (or the source text) that listing is all there is. `n`/`N` step from hot
line to hot line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import duckdb
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from tui.analysis.ncu.source import SourceView, explain_line, explain_sass
from tui.core.errors import TraceError
from tui.core.safe_text import plain
from tui.views.ncu_session import NcuSession
from tui.widgets import keymap
from tui.widgets import ncu_source_text as cells


@dataclass(frozen=True)
class Row:
    """What a row of the main table shows: a file or function heading, a CUDA line, or a
    SASS instruction."""

    kind: str  # 'heading' | 'line' | 'sass'
    file: str | None = None
    line: int | None = None
    address: int | None = None


class NcuSourceScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.bindings(keymap.SOURCE)]
    DEFAULT_CSS = """
    NcuSourceScreen #src-title { height: auto; padding: 0 1; background: $panel; }
    NcuSourceScreen #src-note { height: auto; padding: 0 1; color: $warning; display: none; }
    NcuSourceScreen #src-note.-shown { display: block; }
    NcuSourceScreen #src-main { height: 2fr; }
    NcuSourceScreen #src-explain { height: auto; max-height: 4; padding: 0 1;
                                   background: $boost; }
    NcuSourceScreen #src-sass { height: 1fr; }
    NcuSourceScreen.-sass-mode #src-sass { display: none; }
    NcuSourceScreen.-empty #src-main, NcuSourceScreen.-empty #src-sass,
    NcuSourceScreen.-empty #src-explain { display: none; }
    """

    def __init__(self, session: NcuSession, launch_id: int) -> None:
        super().__init__()
        self.session = session
        self.launch_id = launch_id
        self.view: SourceView | None = None
        self.mode = "cuda"
        self.rows: list[Row] = []
        self._hot: list[int] = []  # row indices of hot lines, top to bottom
        self._offsets: dict[int, int] = {}

    def compose(self) -> ComposeResult:
        launch = self.session.launches[self.launch_id]
        yield Static(Text.assemble((f"#{self.launch_id} ", "bold"),
                                   plain(launch["short_name"] or launch["name"], "bold"),
                                   " · Source · reading the report …"), id="src-title")
        yield Static(id="src-note")
        yield DataTable(id="src-main", cursor_type="row", zebra_stripes=True)
        yield Static(id="src-explain")
        yield DataTable(id="src-sass", cursor_type="row", zebra_stripes=True)
        yield Footer()

    @property
    def main(self) -> DataTable:
        return self.query_one("#src-main", DataTable)

    @property
    def detail(self) -> DataTable:
        return self.query_one("#src-sass", DataTable)

    def on_mount(self) -> None:
        self.main.loading = True
        self._load()

    @work(thread=True, exclusive=True, group="ncu-source")
    def _load(self) -> None:
        try:
            view = self.session.source(self.launch_id)
        except (TraceError, OSError, duckdb.Error) as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self.show, view)

    def _failed(self, message: str) -> None:
        self.main.loading = False
        self._note(f"cannot read the per-instruction results: {message}")
        self.add_class("-empty")

    def show(self, view: SourceView) -> None:
        self.view = view
        self.main.loading = False
        self._offsets = cells.offsets(view)
        self._note(view.note)
        if view.status in ("no-counters", "unavailable"):
            self.add_class("-empty")
            self._title()
            return
        self.set_mode("cuda" if view.status == "source" else "sass")
        self.main.focus()

    def _note(self, note: str) -> None:
        widget = self.query_one("#src-note", Static)
        widget.update(plain(note))
        widget.set_class(bool(note), "-shown")

    def _title(self) -> None:
        view = self.view
        if view is None:
            return
        files = ", ".join(f"{cells.file_name(f.name)} ({_origin(f.origin)})"
                          for f in view.files)
        self.query_one("#src-title", Static).update(cells.title(view, files))

    def set_mode(self, mode: str) -> None:
        """'cuda' (lines, SASS of the line below) or 'sass' (the whole listing); the cursor
        stays on the line (its hottest instruction) it was on, else the hottest."""
        view = self.view
        if view is None:
            return
        was = self.current
        self.mode = mode
        self.set_class(mode == "sass", "-sass-mode")
        self._title()
        if mode == "cuda":
            self._fill_lines(view)
        else:
            self._fill_sass(view)
        target = self._row_for(was) if was is not None else None
        if target is None:
            target = self._hottest_row()
        if target is not None:
            self._go(target)
        self._explain()

    def _go(self, row: int) -> None:
        """The cursor to `row`, scrolled to the middle of the table: what leads to a hot
        line (and what follows) stays in view."""
        table = self.main
        table.move_cursor(row=row, animate=False, scroll=False)

        def center(tries: int = 10) -> None:
            height = table.scrollable_content_region.height
            if not height and tries:  # not laid out yet (a screen just opened): wait for it
                table.call_after_refresh(center, tries - 1)
                return
            table.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True)

        table.call_after_refresh(center)

    def _row_for(self, was: Row) -> int | None:
        """The row of this mode that shows what `was` showed in the other one."""
        view = self.view
        if view is None or was.kind == "heading":
            return None
        if self.mode == "sass":
            code = view.sass_of(was.file, was.line)
            if not code:
                return None
            address = max(code, key=lambda s: s.stall_samples).address
            return next((i for i, r in enumerate(self.rows) if r.address == address), None)
        wanted = Row("line", was.file, was.line)
        return next((i for i, r in enumerate(self.rows) if r == wanted), None)

    def _fill(self, table: DataTable, columns: tuple[str, ...], rows: list[list[Text]],
              keys: bool = False) -> None:
        """Fill `table` anew; each column as wide as its widest cell (the text columns at
        most TEXT_WIDTH), measured here: a table refilled on every cursor move is drawn
        before its own measuring runs."""
        table.clear(columns=True)
        for i, column in enumerate(columns):
            width = max([len(column), *(row[i].cell_len for row in rows)])
            if column in cells.TEXT_COLUMNS:
                width = min(width, max(cells.TEXT_WIDTH, len(column)))
            table.add_column(column, key=column, width=width)
        for n, row in enumerate(rows):
            table.add_row(*row, key=str(n) if keys else None)

    def _fill_lines(self, view: SourceView) -> None:
        hot = {(x.file, x.line) for x in view.hot_lines()}
        by_line = {(x.file, x.line): x for x in view.lines}
        rows: list[list[Text]] = []
        self.rows, self._hot = [], []
        files = sorted(view.files, key=lambda f: (not f.text, -sum(
            x.stall_samples for x in view.lines if x.file == f.name), f.name))
        for f in files:
            numbers = {x.line for x in view.lines if x.file == f.name}
            numbers.update(range(1, len(f.text) + 1))
            if len(files) > 1:
                self.rows.append(Row("heading", f.name))
                rows.append(cells.ordered(
                    {"source": Text.assemble(("── ", "dim"), plain(f.name, "bold"),
                                             (f"  ({_origin(f.origin)})", "dim"))},
                    cells.LINE_COLUMNS))
            for n in sorted(numbers):
                text = f.text[n - 1] if 0 < n <= len(f.text) else None
                if (f.name, n) in hot:
                    self._hot.append(len(self.rows))
                self.rows.append(Row("line", f.name, n))
                rows.append(cells.ordered(cells.line_cells(
                    n, text, by_line.get((f.name, n)), view.total_samples, (f.name, n) in hot),
                    cells.LINE_COLUMNS))
        self._fill(self.main, cells.LINE_COLUMNS, rows, keys=True)

    def _fill_sass(self, view: SourceView) -> None:
        hot = {s.address for s in view.hot_sass()}
        rows: list[list[Text]] = []
        self.rows, self._hot = [], []
        functions = {s.function for s in view.sass}
        current = None
        for s in view.sass:
            if len(functions) > 1 and s.function != current:
                current = s.function
                self.rows.append(Row("heading"))
                rows.append(cells.ordered(
                    {"instruction": Text.assemble(("── ", "dim"), plain(s.function, "bold"))},
                    cells.SASS_COLUMNS))
            if s.address in hot:
                self._hot.append(len(self.rows))
            self.rows.append(Row("sass", s.file, s.line, s.address))
            rows.append(cells.ordered(cells.sass_cells(s, view, self._offsets, s.address in hot),
                                      cells.SASS_COLUMNS))
        self._fill(self.main, cells.SASS_COLUMNS, rows, keys=True)

    def _hottest_row(self) -> int | None:
        view = self.view
        if view is None or not self._hot:
            return None
        if self.mode == "cuda":
            top = view.hot_lines()[0]
            return next((i for i in self._hot
                         if (self.rows[i].file, self.rows[i].line) == (top.file, top.line)),
                        self._hot[0])
        address = view.hot_sass()[0].address
        return next((i for i in self._hot if self.rows[i].address == address), self._hot[0])

    @property
    def current(self) -> Row | None:
        i = self.main.cursor_row
        return self.rows[i] if 0 <= i < len(self.rows) else None

    @on(DataTable.RowHighlighted, "#src-main")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._explain()

    def _explain(self) -> None:
        view, row = self.view, self.current
        explain = self.query_one("#src-explain", Static)
        if view is None or row is None or row.kind == "heading":
            explain.update("")
            self.detail.clear(columns=True)
            return
        if row.kind == "sass" and row.address is not None:
            instruction = view.instruction_at(row.address)
            text = explain_sass(instruction, view.total_samples, view) if instruction else ""
            explain.update(plain(text))
            return
        line = view.line_of(row.file, row.line)
        explain.update(plain(explain_line(line, view.total_samples)) if line else
                       Text(f"line {row.line}: no instructions", style="dim"))
        self._fill_detail(view, row)

    def _fill_detail(self, view: SourceView, row: Row) -> None:
        hot = {s.address for s in view.hot_sass()}
        self._fill(self.detail, cells.LINE_SASS_COLUMNS, [
            cells.ordered(cells.sass_cells(s, view, self._offsets, s.address in hot),
                          cells.LINE_SASS_COLUMNS)
            for s in view.sass_of(row.file, row.line)])

    def action_hot(self, forward: bool) -> None:
        """The next (or previous) hot line from the cursor, wrapping around."""
        if not self._hot:
            self.notify("no hot lines: no warp samples in this launch", markup=False)
            return
        at = self.main.cursor_row
        if forward:
            target = next((i for i in self._hot if i > at), self._hot[0])
        else:
            target = next((i for i in reversed(self._hot) if i < at), self._hot[-1])
        self._go(target)

    def action_toggle_view(self) -> None:
        view = self.view
        if view is None or view.status not in ("source", "sass-only"):
            return
        if view.status == "sass-only":
            self.notify(view.note, markup=False)
            return
        self.set_mode("sass" if self.mode == "cuda" else "cuda")

    def action_close(self) -> None:
        self.dismiss()


def _origin(origin: str | None) -> str:
    return {"report": "from the report", "disk": "from disk"}.get(origin or "",
                                                                   "text not found")
