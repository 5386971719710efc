"""Driving an app through Textual's Pilot: run an async test, wait until the app is
where the keys sent it, read what it shows."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Coroutine
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static, TabPane

from tui.apps.trace_app import TraceApp
from tui.widgets.details import DetailsPanel
from tui.widgets.timeline import Timeline

SIZE = (120, 40)
# how long settle and tables.ready wait, in time rather than in tries: on a busy machine a
# tab's first frames (each a layout the next step waits on, at the tests' frame rate) lag
WAIT_S = 60
GAPPY = "gappy_training.pt.trace.json.gz"


def sync(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test in its own event loop (no pytest-asyncio needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def settle(pilot: Pilot) -> Timeline:
    """Wait until the trace is loaded and the window the keys asked for is drawn."""
    timeline = pilot.app.query_one(Timeline)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        await pilot.pause()
        busy = any(worker.is_running for worker in pilot.app.workers)
        if timeline.data is not None and not timeline.pending and not busy:
            break
        await asyncio.sleep(0.01)
    await pilot.pause()
    return timeline


async def until(pilot: Pilot, done: Callable[[], bool], tries: int = 3000) -> None:
    for _ in range(tries):
        await pilot.pause()
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the app never got there")


async def type_in(pilot, text: str) -> None:
    for ch in text:
        await pilot.press({" ": "space", "#": "number_sign", "+": "plus", ".": "full_stop",
                           "^": "circumflex_accent", "_": "underscore", ":": "colon"}.get(ch, ch))


def lane_text(timeline: Timeline, index: int) -> str:
    return timeline.render_line(index - timeline.scroll_offset.y).text


def details_text(pilot: Pilot) -> str:
    return str(pilot.app.query_one(DetailsPanel).render())


def messages(app: object) -> list[str]:
    toasts = [n.message for n in app._notifications]  # type: ignore[attr-defined]
    status = getattr(app, "status", None)  # TraceApp shows passing notices on its status line
    return toasts + (status.said if status is not None else [])


def tab_key(app: TraceApp, panel: type) -> str:
    """The digit that shows the tab holding `panel` (tabs may be added before it)."""
    panes = list(app.query(TabPane).results())
    index = next(i for i, p in enumerate(panes) if p.query(panel))
    return str(index + 1)


def cells(table) -> list[list[str]]:
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)]
            for i in range(table.row_count)]


def static_text(app, selector: str) -> str:
    return str(app.query_one(selector, Static).render())
