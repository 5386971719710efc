"""A table drawn line by line from SQL pages: the shared widget of every table tab.

Like the timeline (and toolong's log view) it is a `ScrollView` whose `render_line`
draws only the rows on screen. Rows come in pages of PAGE_ROWS from `TableModel.page`
(SQL `ORDER BY … LIMIT … OFFSET …`), fetched in workers and kept in an LRU cache; a row
whose page is still on its way is drawn as `…`. Sorting and filtering are new queries,
never Python sorts. Line 0 is the header; it stays put while the rows scroll.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import duckdb
from rich.segment import Segment
from rich.style import Style
from textual import events, work
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.core.safe_text import printable
from tui.views.table_model import Query, Row, TableModel
from tui.widgets import keymap
from tui.widgets.tables import keys
from tui.widgets.tables.table_actions import GUTTER, TableActions
from tui.widgets.text import cut_middle

PAGE_ROWS = 100
HEADER = Style(bold=True, underline=True)
SORTED = Style(bold=True, underline=True, reverse=True)
CURSOR = Style(reverse=True)
CURSOR_UNFOCUSED = Style(bgcolor="grey30")
PENDING = Style(dim=True)
PageKey = tuple[int, Query, int]  # (model generation, query, page number)


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    width: int  # cells; for the flexible column, its least width
    fmt: Callable[[Any], str] = str
    numeric: bool = False  # right-aligned, sorted largest first at the first press
    flexible: bool = False  # takes whatever width the other columns leave
    full_key: str | None = None  # shown instead of `key` while full names are on
    middle: bool = False  # a long value loses its middle, not its end (a frame's line)


def fit(text: str, width: int, right: bool, middle: bool = False) -> str:
    if len(text) > width:
        if middle:
            return cut_middle(text, width)
        return text[: max(0, width - 1)] + "…" if width else ""
    return text.rjust(width) if right else text.ljust(width)


class SqlTable(TableActions, ScrollView, can_focus=True):
    BINDINGS = keymap.bindings(keys.TABLE)
    DEFAULT_CSS = "SqlTable { height: 1fr; scrollbar-size-vertical: 1; }"

    @dataclass
    class Highlighted(Message):
        """The cursor is on `row` (None: the table is empty)."""

        table: SqlTable
        row: dict[str, Any] | None

    @dataclass
    class Selected(Message):
        """Enter (or a double click) on `row`."""

        table: SqlTable
        row: dict[str, Any]

    @dataclass
    class Changed(Message):
        """The row count, the sort or the filter changed: captions redraw."""

        table: SqlTable

    def __init__(self, columns: Sequence[Column], hidden: Sequence[str] = (),
                 sort: str | None = None, descending: bool = True, *,
                 id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._hidden = tuple(hidden)
        self.use_columns(columns)
        self.model: TableModel | None = None
        self.table_query = Query(sort or self.columns[0].key, descending)
        self.total: int | None = None  # rows that pass the filter; None: not counted yet
        self.cursor = 0
        self.full_names = False
        self._full_widths: dict[str, int] = {}
        self._pages: LRUCache[PageKey, list[Row]] = LRUCache(64)
        self._asked: set[PageKey] = set()
        self._announced: object = ()

    def use_columns(self, columns: Sequence[Column]) -> None:
        """Show these columns (before a model is attached: its keys follow them)."""
        self.columns = tuple(columns)
        shown = [k for c in self.columns for k in (c.key, c.full_key) if k]
        self.keys = tuple(dict.fromkeys([*shown, *self._hidden]))

    # -- data ----------------------------------------------------------------------------

    def attach(self, model: TableModel) -> None:
        """Show `model` (built, or just rebuilt): count its rows and draw from the top."""
        self.model = model
        self.cursor = 0
        self.scroll_to(0, 0, animate=False)
        self._recount()

    def set_query(self, query: Query) -> None:
        self.table_query = query
        self.cursor = 0
        self._announced = ()  # the row under the cursor is said again once its page is in
        self.scroll_to(y=0, animate=False)
        self._recount()
        self.refresh()
        self.post_message(self.Changed(self))

    def set_filter(self, text: str) -> None:
        if text != self.table_query.text:
            self.set_query(replace(self.table_query, text=text))

    def _recount(self) -> None:
        if self.model is not None:
            self._count(self.model, self.model.generation, self.table_query)

    @work(thread=True, exclusive=True, group="table-count")
    def _count(self, model: TableModel, generation: int, query: Query) -> None:
        try:
            total = model.count(query)
            widths = {c.full_key: model.max_length(c.full_key)
                      for c in self.columns if c.full_key}
        except duckdb.Error as exc:
            self.app.call_from_thread(self.notify, f"table query failed: {exc}",
                                      severity="error", markup=False)
            return
        self.app.call_from_thread(self._counted, generation, query, total, widths)

    def _counted(self, generation: int, query: Query, total: int,
                 widths: dict[str, int]) -> None:
        if self.model is None or (generation, query) != (self.model.generation, self.table_query):
            return  # a newer count is on its way
        self.total, self._full_widths = total, widths
        self.cursor = max(0, min(self.cursor, total - 1))
        self._resize_virtual()
        self.refresh()
        self.post_message(self.Changed(self))
        self._announce()

    def export_source(self) -> Any:
        """What the app's export key (x) writes: every row as sorted and filtered now,
        every column (full names, raw ns) included. An `ExportSource`, or None."""
        from tui.widgets.export_dialog import ExportSource

        model, query = self.model, self.table_query
        if model is None:
            return None
        return ExportSource(self.id or "table", lambda: model.arrow(query))

    def row_at(self, index: int) -> dict[str, Any] | None:
        """Row `index` as a dict, or None while its page is being fetched."""
        if self.model is None or self.total is None or not 0 <= index < self.total:
            return None
        key = (self.model.generation, self.table_query, index // PAGE_ROWS)
        page = self._pages.get(key)
        if page is None:
            if key not in self._asked:
                self._asked.add(key)
                self._fetch(self.model, key)
            return None
        offset = index % PAGE_ROWS
        return dict(zip(self.keys, page[offset], strict=True)) if offset < len(page) else None

    @work(thread=True, group="table-page")
    def _fetch(self, model: TableModel, key: PageKey) -> None:
        generation, query, number = key
        if (generation, query) != (model.generation, self.table_query):
            # a lambda: Textual counts a callback's parameters, and a builtin method such
            # as set.discard has no signature to count (ValueError)
            self.app.call_from_thread(lambda: self._asked.discard(key))
            return  # scrolled past or re-sorted meanwhile: not worth a query
        try:
            rows = model.page(query, number * PAGE_ROWS, PAGE_ROWS)
        except duckdb.Error as exc:
            self.app.call_from_thread(self.notify, f"table query failed: {exc}",
                                      severity="error", markup=False)
            return
        self.app.call_from_thread(self._arrived, key, rows)

    def _arrived(self, key: PageKey, rows: list[Row]) -> None:
        self._asked.discard(key)
        self._pages[key] = rows
        self.refresh()
        self._announce()

    def _announce(self) -> None:
        """Post Highlighted when the row under the cursor is known and new."""
        row = self.row_at(self.cursor) if self.total else None
        if row is None and self.total:
            return  # its page arrives later and announces it then
        if row != self._announced:
            self._announced = row
            self.post_message(self.Highlighted(self, row))

    # -- geometry and drawing ------------------------------------------------------------

    def widths(self) -> list[int]:
        room = self.scrollable_content_region.width
        fixed = sum(c.width + GUTTER for c in self.columns if not c.flexible)
        out = []
        for c in self.columns:
            width = c.width
            if c.flexible:
                width = max(width, room - fixed)
            if self.full_names and c.full_key:
                width = max(width, self._full_widths.get(c.full_key, 0))
            out.append(width)
        return out

    def _resize_virtual(self) -> None:
        width = sum(self.widths()) + GUTTER * (len(self.columns) - 1)
        self.virtual_size = Size(width, (self.total or 0) + 1)

    def on_resize(self, event: events.Resize) -> None:
        self._resize_virtual()

    def _shown_key(self, column: Column) -> str:
        return column.full_key if self.full_names and column.full_key else column.key

    def _line(self, texts: Sequence[str], styles: Sequence[Style | None]) -> list[Segment]:
        out: list[Segment] = []
        for i, (text, style) in enumerate(zip(texts, styles, strict=True)):
            if i:
                out.append(Segment(" " * GUTTER, styles[0] if styles[0] is CURSOR else None))
            out.append(Segment(text, style))
        return out

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        widths = self.widths()
        if y == 0:
            texts, styles = [], []
            for c, w in zip(self.columns, widths, strict=True):
                arrow = (" ▼" if self.table_query.descending else " ▲") \
                    if self.table_query.sort in (c.key, c.full_key) else ""
                texts.append(fit(c.title + arrow, w, c.numeric))
                styles.append(SORTED if arrow else HEADER)
            segments = self._line(texts, styles)
        else:
            index = self.scroll_offset.y + y - 1
            if self.total is None or index >= self.total:
                return Strip.blank(width, base)
            row = self.row_at(index)
            style: Style | None = None
            if index == self.cursor:
                style = CURSOR if self.has_focus else CURSOR_UNFOCUSED
            if row is None:
                texts = [fit("…", w, c.numeric) for c, w in zip(self.columns, widths,
                                                                strict=True)]
                segments = self._line(texts, [style or PENDING] * len(texts))
            else:
                texts = [fit(printable(c.fmt(row[self._shown_key(c)])), w, c.numeric, c.middle)
                         for c, w in zip(self.columns, widths, strict=True)]
                segments = self._line(texts, [style] * len(texts))
        x = self.scroll_offset.x
        return Strip(segments).crop(x, x + width).adjust_cell_length(width, base) \
            .apply_style(base)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
