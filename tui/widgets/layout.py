"""How the screen's rows are shared: the lanes take what they need, up to a share of the
screen; the tab panel below gets the rest (a table wants rows more than empty lanes do)."""

from __future__ import annotations

FIXED_ROWS = 4  # status line, overview, ruler, footer
LANE_SHARE = 0.6  # lanes never take more than this of the rows left
PANEL_MIN = 15  # rows kept for the tabs below when the screen allows: tab bar, header,
# 8 table rows, the scroll bar and the four lines of caption and cause
LANES_MIN = 3


def lane_rows(screen_height: int, lanes: int) -> int:
    """Rows for the timeline's lanes on a screen `screen_height` rows tall."""
    free = max(0, screen_height - FIXED_ROWS)
    most = max(LANES_MIN, min(int(free * LANE_SHARE), free - PANEL_MIN))
    return max(1, min(lanes, most))
