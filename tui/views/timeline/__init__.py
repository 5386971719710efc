"""What the timeline view asks of a loaded trace: lanes, binned windows, point lookups.

Views call these; nothing here draws. Every query is a file in `queries/views/timeline_*.sql`.
"""

from tui.views.timeline.bins import Bins, BinSource, Cell, View
from tui.views.timeline.data import TimelineData
from tui.views.timeline.lanes import Lane
from tui.views.timeline.lookup import GapInfo, HostInfo, KernelInfo

__all__ = [
    "BinSource", "Bins", "Cell", "GapInfo", "HostInfo", "KernelInfo", "Lane", "TimelineData",
    "View",
]
