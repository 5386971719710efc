"""What an idle GPU waited for when its next work was queued already: the idle that
tui/analysis/idle_causes.py calls `other` is either that (the work was issued before the
GPU ran dry, yet did not start: it waited on other work) or idle that no host call is
linked to (a trace without the launching calls). Which one, from the device's activities
in the window of work (queries/analysis/queued_waits_by_device.sql):

  gpus     most activities have a known launch, and copies pass to or from another GPU
           (peer copies): a model split across the process's GPUs, each waiting for the
           work another hands it
  streams  most activities have a known launch, no peer copies: the queued work waited on
           another stream's work or an event
  None     most activities have no known launch: what the GPU waited for is not recorded
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.core.queries import load_query

if TYPE_CHECKING:
    import duckdb

GPUS, STREAMS = "gpus", "streams"
# A device whose activities have a known launch at least this share of them: its `other`
# idle is queued work waiting, not work whose launch is unknown.
LAUNCHED_MOST = 0.5


def queued_waits(con: duckdb.DuckDBPyConnection, start_ns: int | None = None,
                 end_ns: int | None = None) -> dict[int, str | None]:
    """Per device, what its queued work waited for in [start_ns, end_ns): GPUS, STREAMS,
    or None where most of its activities have no known launch."""
    rows = con.execute(load_query("queued_waits_by_device"),
                       {"start_ns": start_ns, "end_ns": end_ns}).fetchall()
    return {device: waited_on(activities, launched, peer_copies)
            for device, activities, launched, peer_copies in rows}


def waited_on(activities: int, launched: int, peer_copies: int) -> str | None:
    """GPUS, STREAMS or None from a device's counts (as the module says)."""
    if not activities or launched < LAUNCHED_MOST * activities:
        return None
    return GPUS if peer_copies else STREAMS
