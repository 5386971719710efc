"""The tables' key and mouse actions: cursor, paging, sorting, full names, header clicks.

A mixin of `SqlTable` (as timeline_actions.py is of the timeline): base.py holds state,
paging and drawing; this file holds what each key in keys.TABLE does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual import events

from tui.core.safe_text import printable

if TYPE_CHECKING:
    from textual.message import Message
    from textual.scroll_view import ScrollView

    from tui.views.table_model import Query
    from tui.widgets.tables.base import Column

    class _Base(ScrollView):
        """What these actions use of the `SqlTable` they are mixed into, for the type
        checker only (SqlTable derives from TableActions: naming it here is a cycle)."""

        Changed: Callable[..., Message]
        Selected: Callable[..., Message]
        columns: tuple[Column, ...]
        table_query: Query
        total: int | None
        cursor: int
        full_names: bool
        def set_query(self, query: Query) -> None: ...
        def row_at(self, index: int) -> dict[str, Any] | None: ...
        def widths(self) -> list[int]: ...
        def _announce(self) -> None: ...
        def _resize_virtual(self) -> None: ...
        def _shown_key(self, column: Column) -> str: ...
else:
    _Base = object

GUTTER = 2  # blank cells between columns


class TableActions(_Base):
    # -- keys and mouse ------------------------------------------------------------------

    def move_to(self, index: int) -> None:
        if not self.total:
            return
        self.cursor = max(0, min(self.total - 1, index))
        rows = max(1, self.scrollable_content_region.height - 1)
        if self.cursor < self.scroll_offset.y:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= self.scroll_offset.y + rows:
            self.scroll_to(y=self.cursor - rows + 1, animate=False)
        self.refresh()
        self._announce()

    def action_cursor(self, step: int) -> None:
        self.move_to(self.cursor + step)

    def action_page(self, screens: int) -> None:
        self.move_to(self.cursor + screens * max(1, self.scrollable_content_region.height - 2))

    def action_edge(self, end: bool) -> None:
        self.move_to((self.total or 0) - 1 if end else 0)

    def action_scroll_columns(self, cells: int) -> None:
        self.scroll_to(x=max(0, self.scroll_offset.x + cells), animate=False)

    def action_select(self) -> None:
        row = self.row_at(self.cursor)
        if row is not None:
            self.post_message(self.Selected(self, row))

    def sort(self, column: Column, descending: bool | None = None) -> None:
        """Sort by `column`; again on the same column: the other way round."""
        key = self._shown_key(column)
        if descending is None:
            query = self.table_query
            descending = not query.descending if key == query.sort else column.numeric
        self.set_query(replace(self.table_query, sort=key, descending=descending))

    def action_sort_by(self, step: int) -> None:
        now = next((i for i, c in enumerate(self.columns)
                    if self.table_query.sort in (c.key, c.full_key)), 0)
        self.sort(self.columns[(now + step) % len(self.columns)])

    def action_reverse(self) -> None:
        self.set_query(replace(self.table_query, descending=not self.table_query.descending))

    def action_full_names(self) -> None:
        self.full_names = not self.full_names
        if not self.full_names:
            self.scroll_to(x=0, animate=False)
        self._resize_virtual()
        self.refresh()
        self.post_message(self.Changed(self))

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:  # a header click sorts by that column
            x = event.x + self.scroll_offset.x
            for column, width in zip(self.columns, self.widths(), strict=True):
                if x < width + GUTTER:
                    self.sort(column)
                    return
                x -= width + GUTTER
            return
        self.move_to(self.scroll_offset.y + event.y - 1)
        if event.chain == 2:
            self.action_select()

    def caption(self) -> str:
        """`row 3 of 1,204 · by total ▼ · "gemm"`: where the cursor is, sort, filter."""
        column = next((c for c in self.columns if self.table_query.sort in (c.key, c.full_key)),
                      None)
        arrow = "▼" if self.table_query.descending else "▲"
        count = "counting…" if self.total is None else (
            f"row {self.cursor + 1:,} of {self.total:,}" if self.total else "no rows")
        text = f"{count} · by {column.title if column else self.table_query.sort} {arrow}"
        if self.table_query.text:
            text += f" · filter “{printable(self.table_query.text)}”"
        return text
