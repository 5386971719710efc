"""Messages widgets post to each other (through the app), gathered in one place."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class JumpToTime(Message):
    """Show [start_ns, end_ns) on the timeline, e.g. from a table row's Enter.

    `device`/`stream` select the lane when known, `thread` (pid, tid) a host thread's lane
    for host-side rows (a blocking call); `activity_id` (gpu_activities.id)
    selects a kernel so the details panel shows it. `focus`: give the timeline the keys
    (False when stepping through rows with n/N keeps them in the table).
    """

    start_ns: int
    end_ns: int
    device: int | None = None
    stream: int | None = None
    activity_id: int | None = None
    focus: bool = True
    thread: tuple[int, int] | None = None


@dataclass
class ActivitySelected(Message):
    """The timeline cursor is on this GPU activity (gpu_activities.id), or on nothing."""

    activity_id: int | None


@dataclass
class DrillDown(Message):
    """Enter on a kernel: open its Nsight Compute results (gpu_activities.id)."""

    activity_id: int
    name: str


@dataclass
class GapThreshold(Message):
    """The Gaps tab's threshold changed: the timeline highlights and steps through the
    gaps over `min_gap_ns` too."""

    min_gap_ns: int
