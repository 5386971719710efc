"""`/`, `n`, `N` on the timeline: search names, count the hits, step through them.

A mixin of `Timeline`. The search runs in a worker (one query, `queries/views/timeline_search.sql`);
its hits are marked on the lanes and the overview, and `n`/`N` select the next or previous
hit in time, on whichever lane shows it (timeline_select.py: shown, opened, zoomed to).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb
from textual import work
from textual.message import Message
from textual.worker import get_current_worker

from tui.views.timeline.search import Hits, Query

if TYPE_CHECKING:
    from tui.widgets.timeline_host import TimelineHost as _Base
else:
    _Base = object


@dataclass
class Ask(Message):
    """The timeline wants a line of input (`kind`: "search" or "goto"), prefilled."""

    kind: str
    value: str


class TimelineSearch(_Base):
    hits: Hits | None = None
    hit_index: int | None = None  # the hit selected last, while it is

    def action_search(self) -> None:
        self.post_message(Ask("search", self.hits.query.text if self.hits is not None else ""))

    def search(self, text: str, jump: bool = False) -> None:
        """Search for `text` (`re:` starts a regular expression); "" clears. `jump`:
        then move to the first hit from the cursor on."""
        if not text:
            self.clear_search()
            return
        if self.data is not None:
            self._search(Query.parse(text), jump)

    @work(thread=True, exclusive=True, group="timeline-search")
    def _search(self, query: Query, jump: bool) -> None:
        assert self.data is not None
        try:
            hits = self.data.search(query)
        except duckdb.Error as exc:
            message = str(exc).splitlines()[0]
            self.app.call_from_thread(self.notify, f"search: {message}", markup=False)
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._found, hits, jump)

    def _found(self, hits: Hits, jump: bool) -> None:
        self.hits = hits
        self.hit_index = None
        self._rows.clear()  # rows are drawn again with the new marks
        self.refresh()
        self.post_message(self.ViewChanged(self))
        if not len(hits):
            self.notify(f"no name matches {hits.query.text}", markup=False)
        elif jump:  # the first hit from the cursor on, else the first of all
            index = hits.step(self.cursor_t - 1, True)
            self._to_hit(0 if index is None else index)

    def clear_search(self) -> None:
        if self.hits is not None:
            self.hits = None
            self.hit_index = None
            self._rows.clear()
            self.refresh()
            self.post_message(self.ViewChanged(self))

    def action_hit(self, forward: bool) -> None:
        hits = self.hits
        if hits is None:
            self.notify("/ searches names; then n and N step through the hits", markup=False)
            return
        if not len(hits):
            self.notify(f"no name matches {hits.query.text}", markup=False)
            return
        current = self._current_hit()
        index: int | None
        if current is not None:  # hits that start together are stepped through one by one
            index = current + (1 if forward else -1)
            index = index if 0 <= index < len(hits) else None
        else:
            index = hits.step(self.cursor_t, forward)
        if index is None:
            self.notify(f"no {'later' if forward else 'earlier'} hit for {hits.query.text}",
                        markup=False)
            return
        self._to_hit(index)

    def _to_hit(self, index: int | None) -> None:
        hits = self.hits
        if hits is None or index is None:
            return
        self.select(hits.hit(index))
        self.hit_index = index

    def _current_hit(self) -> int | None:
        """The index of the hit selected last, while it is still selected."""
        index, hits = self.hit_index, self.hits
        if index is None or hits is None or index >= len(hits):
            return None
        hit = hits.hit(index)
        return index if hit == self.selected and self.cursor_t == hit.start_ns else None

    def search_summary(self) -> str:
        """"/gemm 17 of 1,260" for the status line ("" with no search)."""
        hits = self.hits
        if hits is None:
            return ""
        current = self._current_hit()
        position = current + 1 if current is not None else hits.position(self.cursor_t)
        return f"/{hits.query.text} {position:,} of {len(hits):,}"
