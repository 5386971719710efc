"""What the timeline's mixins (timeline_actions, _goto, _mouse, _search, _select) use of
the `Timeline` they are mixed into: its state, and the methods another part defines.

For the type checker only: at run time the mixins' base is `object` and these names
come from `Timeline` itself. The mixins cannot name `Timeline` as their base, even for
the checker: it derives from them, a cycle. A name used across parts is declared here
with the signature its part defines (the checker compares the two).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.cache import LRUCache
    from textual.message import Message
    from textual.scroll_view import ScrollView

    from tui.views.timeline import Bins, Lane, TimelineData, View
    from tui.views.timeline.distributed_lanes import PathInfo, QueueInfo
    from tui.views.timeline.gpu_metrics import MetricInfo
    from tui.views.timeline.lookup import GapSpan, Info
    from tui.views.timeline.memory import MemoryInfo
    from tui.views.timeline.search import Hit, Hits
    from tui.widgets.lane_render import Cells

    class TimelineHost(ScrollView):
        # timeline.py: the state
        data: TimelineData | None
        lanes: list[Lane]
        show_nvtx: bool
        show_host: bool
        show_distributed: bool
        show_metrics: bool
        view: View
        frame: Bins | None
        cursor_t: int
        lane_index: int
        mark_t: int | None
        info: Info | MemoryInfo | MetricInfo | PathInfo | QueueInfo | None
        current_gap: GapSpan | None
        gap_rank: int
        _fitted: bool
        _rows: LRUCache[tuple[int, tuple[int, int, int, int]], Cells]
        ViewChanged: Callable[[Any], Message]

        # timeline.py
        @property
        def ncols(self) -> int: ...
        @property
        def lane(self) -> Lane | None: ...
        def set_view(self, view: View, fitted: bool = False) -> None: ...
        def cursor_changed(self) -> None: ...
        def _layout_lanes(self) -> None: ...

        # timeline_actions.py
        def _snap(self, npc: int) -> int: ...
        def _max_npc(self) -> int: ...
        def _column_time(self, x: int) -> int: ...
        def _in_trace(self, t: int) -> int: ...
        def action_pan(self, screens: float) -> None: ...
        def show_range(self, start: int, end: int, margin: float = 0.25) -> None: ...
        def _query(self, *args: Any, **kwargs: Any) -> Any: ...  # (ask, then); a @work

        # timeline_search.py
        hits: Hits | None
        def clear_search(self) -> None: ...

        # timeline_select.py
        selected: Hit | None
        opened: Lane | None
        def select(self, hit: Hit) -> None: ...
        def select_range(self, hit: Hit, margin: float, at: int | None = None) -> None: ...
        def unselect(self) -> None: ...
