"""A model of the timeline app for tests/app/test_app_model.py: one app per trace, driven by
actions (the keymap's keys, `/` and `@` with text, mouse clicks), and what must hold after
every one of them, checked against the trace's tables read with plain SQL.

`Driver` keeps one app running on its own event loop across hypothesis examples (a
trace is loaded once per module); `reset()` puts it back where a fresh app starts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from textual.pilot import Pilot
from textual.widgets import Input

from tui.apps.trace_app import TraceApp
from tui.core.units import format_offset
from tui.views.timeline import GapInfo, HostInfo, KernelInfo
from tui.views.timeline.distributed_lanes import PathInfo, QueueInfo
from tui.views.timeline.goto import parse_time
from tui.views.timeline.lanes import (
    LANE_CRITICAL,
    LANE_GPU,
    LANE_HOST,
    LANE_MEMORY,
    LANE_NVTX,
    LANE_OPENED,
    LANE_QUEUE,
    Lane,
)
from tui.views.timeline.memory import MemoryInfo
from tui.views.timeline.search import Query
from tui.widgets import theme
from tui.widgets.clipboard import clean
from tui.widgets.details import DetailsPanel, describe
from tui.widgets.tables.base import SqlTable
from tui.widgets.timeline import Timeline

SIZE = (80, 24)
Action = tuple[str, Any]  # ("key", "n") | ("search", "gemm") | ("click", (x, y, times)) ...


@dataclass(frozen=True)
class Before:
    """What the model needs to know of the state an action starts from."""

    cursor_t: int
    current_hit: int | None  # index of the hit selected, while it is
    query: str | None
    focused_timeline: bool
    base_screen: bool
    top_lane: int  # the lane on the timeline's first row
    rows: int  # the timeline's rows
    launch: dict[str, Any] | None  # the Kernels tab's launch highlighted, while it has the keys
    in_input: bool  # a prompt (a table's filter, say) has the keys: what is typed goes there


class Driver:
    """One app on a trace, run by a task of its own event loop (Textual's context stays
    that task's), which runs the coroutines `run` gives it."""

    def __init__(self, path: Path, ncu: Path | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.app = TraceApp(path, ncu=ncu)
        self.copied: list[str] = []
        self.app.copy_to_clipboard = self.copied.append  # type: ignore[method-assign]
        self._jobs: asyncio.Queue[tuple[Any, asyncio.Future[Any]] | None] = asyncio.Queue()
        self._ready: asyncio.Future[Pilot] = self.loop.create_future()
        self._served = self.loop.create_task(self._serve())
        self.pilot = self.loop.run_until_complete(self._ready)
        self.run(self.settle())
        assert self.timeline.data is not None, "the trace did not load"

    async def _serve(self) -> None:
        async with self.app.run_test(size=SIZE) as pilot:
            self._ready.set_result(pilot)
            while (job := await self._jobs.get()) is not None:
                coro, done = job
                try:
                    done.set_result(await coro)
                except Exception as exc:  # noqa: BLE001 (handed to the caller)
                    done.set_exception(exc)

    @property
    def timeline(self) -> Timeline:
        return self.app.timeline

    def run(self, coro: Any) -> Any:
        done: asyncio.Future[Any] = self.loop.create_future()
        self._jobs.put_nowait((coro, done))
        return self.loop.run_until_complete(done)

    def close(self) -> None:
        self._jobs.put_nowait(None)
        self.loop.run_until_complete(self._served)
        self.loop.close()

    async def settle(self) -> None:
        """Until no worker runs, the window asked for is drawn and messages are handled."""
        app, timeline = self.app, self.timeline
        for _ in range(2000):
            await self.pilot.pause()
            busy = any(worker.is_running for worker in app.workers)
            if not busy and timeline.data is not None and not timeline.pending:
                break
            await asyncio.sleep(0.002)
        await self.pilot.pause()
        await self.pilot.pause()

    def reset(self) -> None:
        """As a fresh app opens: no search, no selection, fit, the first lane."""
        async def go() -> None:
            app, timeline = self.app, self.timeline
            while len(app.screen_stack) > 1:
                app.pop_screen()
            await self.pilot.pause()
            if app.prompt.display:
                app.prompt.cancel()
            app.action_panel(0)
            timeline.focus()
            timeline.clear_search()
            timeline.unselect()
            timeline.mark_t = None
            timeline.current_gap, timeline.gap_rank, timeline.goto_text = None, -1, ""
            timeline.show_nvtx, timeline.show_host = True, False
            timeline._layout_lanes()
            timeline.lane_index = 0
            timeline.scroll_to(y=0, animate=False)
            assert timeline.data is not None
            timeline.cursor_t = timeline.data.extent.gpu_start_ns
            timeline.action_fit()
            app.status.notice = ""
            await self.settle()
            self.copied.clear()

        self.run(go())

    # -- acting ----------------------------------------------------------------------------

    def before(self) -> Before:
        timeline = self.timeline
        return Before(timeline.cursor_t, timeline._current_hit(),
                      timeline.hits.query.text if timeline.hits is not None else None,
                      self.app.focused is timeline, self.app.screen is self.app.screen_stack[0],
                      timeline.scroll_offset.y, timeline.scrollable_content_region.height,
                      self._launch(), isinstance(self.app.focused, Input))

    def _launch(self) -> dict[str, Any] | None:
        table = self.app.focused
        if isinstance(table, SqlTable) and table.id == "kernel-instances" and table.total:
            return table.row_at(table.cursor)
        return None

    def act(self, action: Action) -> None:
        self.run(self._act(action))

    async def _act(self, action: Action) -> None:
        what, arg = action
        pilot = self.pilot
        if what == "key":
            await pilot.press(arg)
        elif what in ("search", "search_undo", "goto"):
            await pilot.press("slash" if what != "goto" else "at")
            await self.settle()
            prompt = self.app.prompt
            if prompt.display and self.app.focused is prompt:
                prompt.value = arg  # as typed (or pasted): the search follows each change
                await self.settle()
                await pilot.press("escape" if what == "search_undo" else "enter")
        elif what == "type":  # a key at a time, as typed: "\n" is Enter, "\x1b" Esc
            names = {"@": "at", "/": "slash", " ": "space", "\n": "enter", "\x1b": "escape"}
            for char in arg:
                await pilot.press(names.get(char, char))
                await self.settle()
        elif what == "click":
            x, y, times = arg
            timeline = self.timeline
            if self.app.screen is self.app.screen_stack[0]:
                await pilot.click(timeline, offset=(x, y), times=times)
        await self.settle()


# -- what must hold after every action -------------------------------------------------------

def check(driver: Driver, before: Before, action: Action) -> None:
    app, timeline = driver.app, driver.timeline
    assert app._exception is None and app.is_running, app._exception
    data = timeline.data
    assert data is not None
    origin = data.extent.gpu_start_ns
    view = timeline.view
    assert timeline.frame is not None and timeline.frame.view == view, "window not drawn"
    # the cursor, and the lane it is on, are in view
    assert view.t0 <= timeline.cursor_t < view.t1, "the cursor is outside the window"
    assert 0 <= timeline.lane_index < len(timeline.lanes)
    top, rows = timeline.scroll_offset.y, timeline.scrollable_content_region.height
    if app.screen.maximized is None:  # a table maximised (m) hides the lanes
        assert top <= timeline.lane_index < top + rows, "the cursor's lane is scrolled away"
    # the details describe the selected event, which is on that lane, at the cursor
    info = timeline.info
    panel = app.query_one(DetailsPanel)
    shown = str(panel.render())
    assert shown == describe(info, origin, data.threads, panel.full_stack).plain, \
        "details of another event"
    lane = timeline.lane
    assert lane is not None
    lo = timeline.cursor_t // view.npc * view.npc
    hi = lo + view.npc
    check_info_at(driver, lane, info, lo, hi)
    # the status line agrees with the view and the search
    status = app.status
    text = str(status.render())
    summary = timeline.search_summary()
    if summary:
        assert text.startswith(f"{summary} │ "), text
    if not status.notice:
        assert summary or not text.startswith("/"), text
        assert (f"{format_offset(view.t0 - origin)} → {format_offset(view.t1 - origin)}"
                in text), text
        assert f"cursor {format_offset(timeline.cursor_t - origin)}" in text, text
    # no lane is opened unless an interval on it is selected
    opened = [one for one in timeline.lanes if one.kind == LANE_OPENED]
    assert len(opened) <= 1
    check_model(driver, before, action)


def check_info_at(driver: Driver, lane: Lane, info: Any, lo: int, hi: int) -> None:
    """`info` is drawn on `lane` and overlaps the cursor's column [lo, hi); None only
    where the lane has nothing in that column."""
    if isinstance(info, KernelInfo):
        assert lane.kind == LANE_GPU and (lane.k1, lane.k2) == (info.device, info.stream)
        assert info.start_ns < hi and info.start_ns + info.duration_ns >= lo
    elif isinstance(info, HostInfo):
        assert (lane.k1, lane.k2) == (info.pid, info.tid)
        if lane.kind == LANE_NVTX:
            assert (info.kind, info.depth) == ("annotation", lane.k3)
        elif lane.kind == LANE_HOST:
            assert info.kind != "annotation" and info.depth == 0
        else:
            assert lane.kind == LANE_OPENED and (info.kind, info.depth) == lane.opened
        assert info.start_ns < hi and info.start_ns + info.duration_ns >= lo
    elif isinstance(info, GapInfo):
        assert lane.kind == LANE_GPU and lane.k1 == info.device
        assert info.start_ns < hi and info.end_ns >= lo
        assert not on_lane(driver, lane, lo, hi), "a gap where the lane has work"
    elif isinstance(info, MemoryInfo):
        assert lane.kind == LANE_MEMORY and lane.k1 == info.device
    elif isinstance(info, PathInfo):  # the critical path's segment in the cursor's column
        segment = info.segment
        assert lane.kind == LANE_CRITICAL and segment.start_ns < hi and segment.end_ns > lo
    elif isinstance(info, QueueInfo):
        assert lane.kind == LANE_QUEUE and (lane.k1, lane.k2) == (info.device, info.stream)
        assert 0 < info.queue <= info.deepest
    else:
        assert info is None
        if lane.kind not in (LANE_MEMORY, LANE_QUEUE, LANE_CRITICAL):
            assert not on_lane(driver, lane, lo, hi), "nothing under the cursor, but ..."


def on_lane(driver: Driver, lane: Lane, lo: int, hi: int) -> bool:
    """Does anything the lane draws overlap [lo, hi)? Plain SQL over the trace's tables."""
    trace = driver.app.trace
    assert trace is not None
    if lane.kind == LANE_GPU:
        sql = ("SELECT count(*) FROM gpu_activities WHERE device = ? AND stream = ? "
               "AND start_ns < ? AND end_ns >= ?")
        params: list[object] = [lane.k1, lane.k2, hi, lo]
    else:
        if lane.kind == LANE_NVTX:
            which, extra = "kind = 'annotation' AND depth = ?", [lane.k3]
        elif lane.kind == LANE_HOST:
            which, extra = "kind <> 'annotation' AND depth = 0", []
        else:
            which, extra = "kind = ? AND depth = ?", list(lane.opened)
        sql = (f"SELECT count(*) FROM host_activities WHERE pid = ? AND tid = ? AND {which} "
               "AND start_ns < ? AND end_ns >= ?")
        params = [lane.k1, lane.k2, *extra, hi, lo]
    row = trace.con.cursor().execute(sql, params).fetchone()
    return bool(row and row[0])


def matching(driver: Driver, text: str) -> int | None:
    """How many kernels, copies and host intervals a search for `text` should find; None
    for a regular expression DuckDB refuses."""
    query = Query.parse(text)
    trace = driver.app.trace
    assert trace is not None
    test = "regexp_matches(name, ?)" if query.regex else "contains(lower(name), lower(?))"
    try:
        row = trace.con.cursor().execute(
            f"SELECT (SELECT count(*) FROM gpu_activities WHERE {test}) + "
            f"(SELECT count(*) FROM host_activities WHERE {test})",
            [query.pattern, query.pattern]).fetchone()
    except duckdb.Error:
        return None
    return int(row[0]) if row else 0


def check_model(driver: Driver, before: Before, action: Action) -> None:
    """What this action should have done, by the model's rules."""
    what, arg = action
    app, timeline = driver.app, driver.timeline
    hits = timeline.hits
    if not before.base_screen:
        return  # the keys went to a screen over the timeline
    if what == "search" and before.focused_timeline:
        expected = matching(driver, arg)
        if expected is None:  # said, and the search before stays
            assert app.status.said[-1].startswith("search: ")
            assert (hits.query.text if hits is not None else None) == before.query
            return
        if expected == 0:
            assert hits is not None and not len(hits) and hits.query.text == arg
            return
        assert hits is not None and len(hits) == expected
        later = [i for i, start in enumerate(hits.start) if start >= before.cursor_t]
        check_hit_selected(driver, later[0] if later else 0)
    elif what == "goto" and before.focused_timeline and parse_time(arg) is None:
        said = app.status.said[-1] if app.status.said else ""
        if said.startswith("@ ") and " at " in said:  # a range: selected, its details
            label = said[2:said.rindex(" at ")]
            info = timeline.info
            assert isinstance(info, HostInfo) and info.kind == "annotation", info
            assert info.name == label and timeline.cursor_t == info.start_ns
    elif what == "type" and arg.startswith("@") and arg.endswith("\n") and not before.in_input:
        # `@` from anywhere on the app's screen asks on the timeline; what follows is typed
        # into the prompt, never taken as a tab's keys, and Enter goes there
        said = app.status.said[-1] if app.status.said else ""
        assert app.focused is timeline, app.focused
        assert timeline.goto_text == arg[1:-1], (timeline.goto_text, said)
    elif what == "search_undo" and before.focused_timeline:
        assert (hits.query.text if hits is not None else None) == before.query
    elif what == "key" and arg in ("n", "N") and before.focused_timeline and hits is not None:
        forward = arg == "n"
        if before.current_hit is not None:
            index = before.current_hit + (1 if forward else -1)
            index = index if 0 <= index < len(hits) else None
        else:
            index = hits.step(before.cursor_t, forward)
        if index is None:  # none further: nothing moves
            assert timeline.cursor_t == before.cursor_t
        else:
            check_hit_selected(driver, index)
    elif what == "key" and arg == "enter" and before.launch is not None:
        info = timeline.info  # Enter on a launch in the Kernels tab: selected on the timeline
        assert isinstance(info, KernelInfo) and info.id == before.launch["id"], info
        assert app.focused is timeline
    elif what == "key" and arg == "y" and before.focused_timeline:
        info = timeline.info
        if isinstance(info, KernelInfo | HostInfo):
            assert driver.copied[-1:] == [clean(info.name)]
    elif what == "key" and arg == "escape" and before.focused_timeline:
        assert timeline.hits is None and timeline.mark_t is None
        assert not any(lane.kind == LANE_OPENED for lane in timeline.lanes)
    elif (what == "click" and arg[2] == 1 and arg[1] < before.rows
          and arg[0] < timeline.scrollable_content_region.width):  # not on the scrollbar
        index = before.top_lane + arg[1]  # a click on a lane: the cursor goes to it
        if index < len(timeline.lanes):
            assert timeline.lane_index == index
            if arg[0] >= theme.LABEL_WIDTH:
                x = timeline.view.x_of(timeline.cursor_t)
                assert x == arg[0] - theme.LABEL_WIDTH, (x, arg)


def check_hit_selected(driver: Driver, index: int) -> None:
    """Hit `index` is what is selected: the cursor on it, its details, a column wide."""
    timeline = driver.timeline
    hits = timeline.hits
    assert hits is not None
    hit = hits.hit(index)
    info = timeline.info
    assert isinstance(info, KernelInfo | HostInfo), info
    assert (info.id, info.start_ns) == (hit.id, hit.start_ns), (info, hit)
    assert timeline.lane is not None and timeline.lane.key == hit.lane
    assert timeline.cursor_t == hit.start_ns
    assert timeline.search_summary().endswith(f" {index + 1:,} of {len(hits):,}")
    if hit.end_ns > hit.start_ns:
        assert timeline.view.npc <= hit.end_ns - hit.start_ns, "the hit is under a column"
    assert Query.parse(hits.query.text).pattern.lower() in info.name.lower() \
        or hits.query.regex



# -- the keys come back to the timeline --------------------------------------------------------

def check_escape_gives_the_timeline_its_keys(driver: Driver) -> None:
    """From whatever state the actions left: Esc closes the screens over the timeline
    (one each), then one Esc gives the timeline the keys, and `@`, `/` and `g` act there."""
    driver.run(_escape_then_timeline_keys(driver))


async def _escape_then_timeline_keys(driver: Driver) -> None:
    app, timeline, pilot = driver.app, driver.timeline, driver.pilot
    for _ in range(4):  # the Source view over the launches over the timeline, a dialog
        if app.screen is app.screen_stack[0]:
            break
        await pilot.press("escape")
        await driver.settle()
    assert app.screen is app.screen_stack[0], "Esc did not close the screens over the app"
    await pilot.press("escape")
    await driver.settle()
    assert app.focused is timeline, f"after Esc the keys are with {app.focused}"
    for key, label in (("at", "go to"), ("slash", "search names")):
        await pilot.press(key)
        await driver.settle()
        prompt = app.prompt
        assert prompt.display and app.focused is prompt, f"{key} did not ask"
        assert prompt.placeholder.startswith(label), prompt.placeholder
        await pilot.press("escape")
        await driver.settle()
        assert not prompt.display and app.focused is timeline
    gap = timeline.current_gap
    await pilot.press("g")
    await driver.settle()
    said = app.status.said[-1] if app.status.said else ""
    assert (timeline.current_gap is not None and timeline.current_gap != gap) \
        or said.startswith("no more GPU-idle gaps"), (gap, timeline.current_gap, said)
    assert app.focused is timeline
