"""SVG snapshots of the main screens on a real sample trace (pytest-textual-snapshot).

Update after an intended change of look: `pytest tests/app/test_app_snapshots.py
--snapshot-update`, then review the SVGs in tests/app/__snapshots__/.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from tests.helpers.paths import sample
from tests.helpers.pilot import settle
from tui.apps.trace_app import TraceApp

pytestmark = pytest.mark.slow


def keys_then_settle(*keys: str) -> Callable[[Pilot], Awaitable[None]]:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


def test_timeline_fit_all(snap_compare) -> None:
    app = TraceApp(sample("gappy_training.pt.trace.json.gz"))
    assert snap_compare(app, terminal_size=(120, 40), run_before=keys_then_settle())


def test_largest_gap_at_80x24(snap_compare) -> None:
    app = TraceApp(sample("gappy_training.pt.trace.json.gz"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=keys_then_settle("b"))


def test_kernel_blocks_with_names_and_host_lanes(snap_compare) -> None:
    app = TraceApp(sample("multistream.pt.trace.json.gz"))
    assert snap_compare(app, terminal_size=(120, 30),
                        run_before=keys_then_settle("t", "plus", "plus", "plus", "plus",
                                                    "right_square_bracket"))


def test_help_screen(snap_compare) -> None:
    app = TraceApp(sample("multistream.pt.trace.json.gz"))
    assert snap_compare(app, terminal_size=(80, 24),
                        run_before=keys_then_settle("question_mark"))


# The layout at both ends of common terminal sizes, on a long trace (12 steps of nsys) with
# a search on, and on a multi-stream trace with its host lanes and a step zoomed to.

def test_long_trace_search_at_80x24(snap_compare) -> None:
    app = TraceApp(sample("gappy_then_tuned.sqlite"))
    assert snap_compare(app, terminal_size=(80, 24),
                        run_before=keys_then_settle("slash", "g", "e", "m", "m", "enter",
                                                    "n", "n"))


def test_long_trace_search_at_200x60(snap_compare) -> None:
    app = TraceApp(sample("gappy_then_tuned.sqlite"))
    assert snap_compare(app, terminal_size=(200, 60),
                        run_before=keys_then_settle("slash", "g", "e", "m", "m", "enter",
                                                    "n", "n", "3"))


def test_multistream_step_at_80x24(snap_compare) -> None:
    app = TraceApp(sample("multistream.sqlite"))
    assert snap_compare(app, terminal_size=(80, 24),
                        run_before=keys_then_settle("t", "at", "s", "t", "e", "p", "space",
                                                    "2", "enter"))


def test_multistream_step_at_200x60(snap_compare) -> None:
    app = TraceApp(sample("multistream.sqlite"))
    assert snap_compare(app, terminal_size=(200, 60),
                        run_before=keys_then_settle("t", "at", "s", "t", "e", "p", "space",
                                                    "2", "enter", "2"))
