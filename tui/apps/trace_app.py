"""The Textual app: the timeline in the middle, details and tables below it.

Loading runs in a worker behind a loading indicator. Below the timeline sits a
TabbedContent (`#panels`): "Details" first; table widgets add their tabs in `panels()`
and, if they define `trace_loaded(trace, min_gap_ns)`, get the trace once it is open.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

import duckdb
from rich.console import RenderableType
from rich.errors import MarkupError
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from tui.analysis.gaps import DEFAULT_MIN_GAP_MS
from tui.core import load_progress
from tui.core.db import CursorSource
from tui.core.errors import TraceError
from tui.core.safe_text import plain, printable
from tui.core.units import format_ns
from tui.loading.parquet_store import open_trace_or_store
from tui.loading.resolve import Target
from tui.loading.trace import Trace
from tui.views.timeline import TimelineData
from tui.widgets import keymap
from tui.widgets.app_commands import CommandsApp
from tui.widgets.copy import copy_text
from tui.widgets.details import DetailsPanel, DetailsScroll
from tui.widgets.help import HelpScreen
from tui.widgets.host_screen import HostScreen
from tui.widgets.key_footer import KeyFooter
from tui.widgets.layout import lane_rows
from tui.widgets.load_bar import LoadBar
from tui.widgets.messages import DrillDown, GapThreshold, JumpToTime
from tui.widgets.ncu_attach import NcuAttachment
from tui.widgets.overview import Overview
from tui.widgets.ruler import Ruler
from tui.widgets.status import StatusBar
from tui.widgets.tables import TAB_COUNT, table_panels
from tui.widgets.tables.findings import FindingPanel
from tui.widgets.tables.keys import panel_bindings
from tui.widgets.tables.panel import Prompt, TablePanel
from tui.widgets.timeline import Timeline
from tui.widgets.timeline_search import Ask

DEFAULT_MIN_GAP_NS = round(DEFAULT_MIN_GAP_MS * 1_000_000)


@runtime_checkable
class TracePanel(Protocol):
    """A tab below the timeline that wants the trace once it is loaded."""

    def trace_loaded(self, trace: Trace, min_gap_ns: int) -> None: ...


class TraceApp(CommandsApp):
    CSS_PATH = "app.tcss"
    TITLE = "tui"
    BINDINGS = [*keymap.bindings(keymap.APP), *keymap.forwarded(keymap.TIMELINE),
                *panel_bindings(TAB_COUNT)]
    ESCAPE_TO_MINIMIZE = False  # Esc gives the timeline the keys (a maximised table too)

    def __init__(self, path: Path, use_cache: bool = True,
                 min_gap_ns: int = DEFAULT_MIN_GAP_NS, ncu: Path | None = None) -> None:
        super().__init__()
        self.path = path
        self.use_cache = use_cache
        self.min_gap_ns = min_gap_ns
        self.trace: Trace | None = None
        self.ncu = NcuAttachment(self, ncu)  # the --ncu report, loaded beside the trace
        self._meter: load_progress.LoadMeter | None = None  # the load's, once it starts
        self.failure: str | None = None  # why the trace could not be opened

    def compose(self) -> ComposeResult:
        # kept as attributes: handlers may run while the screen is being torn down
        self.status = StatusBar(id="status")
        self.overview = Overview(id="overview")
        self.ruler = Ruler(id="ruler")
        self.timeline = Timeline(id="timeline")
        self.details = DetailsPanel(id="details")
        self.prompt = Prompt()  # a line under the lanes for / (search) and @ (go to)
        yield self.status
        with Vertical(id="timeline-area"):
            yield self.overview
            yield self.ruler
            yield self.timeline
            yield self.prompt
        with TabbedContent(id="panels"):
            with TabPane("Details", id="details-tab"), DetailsScroll(id="details-scroll"):
                yield self.details
            for title, widget in self.panels():
                with TabPane(title):
                    yield widget
        yield KeyFooter()

    def panels(self) -> Iterator[tuple[str, Widget]]:
        """More tabs beside "Details" (kernel stats, gaps, ...): yield (title, widget)."""
        yield from table_panels()

    async def action_to_timeline(self, action: str = "") -> None:
        """Esc (and the timeline's `anywhere` keys from elsewhere): the timeline gets the
        keys back, and runs `action` if given. Over another screen, nothing: that screen
        has its own Esc."""
        if self.screen is not self.screen_stack[0]:
            return
        if self.screen.maximized is not None:
            self.screen.minimize()
        if self.prompt.display:  # a search or go-to left open: given up
            self.prompt.cancel()
        self.screen.set_focus(self.timeline)  # at once: the keys typed next come here
        if action and self.timeline.data is not None:
            await self.run_action(action, self.timeline)

    def action_panel(self, index: int) -> None:
        """Keys 1-8: show that tab below the timeline and give it the keys."""
        panes = list(self.query(TabPane).results())
        if index < len(panes):
            if self.screen.maximized is not None:  # another tab's table filled the screen
                self.screen.minimize()
            self.query_one("#panels", TabbedContent).active = panes[index].id or ""
            for panel in panes[index].query(TablePanel).results():
                panel.compose_now()  # a tab's tables come when it is first shown
            focusable = [w for w in panes[index].query("*") if w.focusable and w.display
                         and not w.has_class("caption-box")]  # its table, not its caption
            # at once, not deferred: a key typed right after (`@`) must find the focus moved
            self.screen.set_focus(focusable[0] if focusable else self.timeline)
            building = [p for p in panes[index].query(TablePanel).results() if p.building]
            if not focusable and building:  # its tables are being built: keys to them after
                building[0].focus_when_built()

    def on_mount(self) -> None:
        self.status.update(plain(f"loading {self.path.name} …"))  # a name is no markup
        timeline = self.timeline
        timeline.loading = True
        self._meter = load_progress.start_watching(self.path)
        self.query_one("#timeline-area").mount(LoadBar(self._meter), before=timeline)
        self._load()
        self.ncu.start()

    @work(thread=True, exclusive=True, group="load")
    def _load(self) -> None:
        meter = self._meter
        assert meter is not None
        try:
            trace = open_trace_or_store(self.path, use_cache=self.use_cache)
        except (TraceError, OSError) as exc:
            if not meter.stopping:
                self.call_from_thread(self._failed, str(exc))
            return
        except Exception:
            if meter.stopping:  # the app quit: the load stopped and cleaned up after itself
                return
            raise
        finally:
            load_progress.stop_watching(meter)  # no more interrupts, whatever came of it
        if meter.stopping:
            trace.close()
            return
        try:
            data = TimelineData(trace, self.min_gap_ns, trace.cache_path)
            data.prepare()
        except (TraceError, OSError) as exc:
            self.call_from_thread(self._failed, str(exc))
            return
        self.call_from_thread(self._loaded, trace, data)

    def _load_ended(self) -> None:
        for bar in self.query(LoadBar):
            bar.remove()

    def _failed(self, message: str) -> None:
        """The trace cannot be opened: the app ends, and `run_app` says why on one line
        with exit status 2, as `tui --summary` does."""
        self._load_ended()
        self.failure = message
        self.exit(return_code=2)

    def _loaded(self, trace: Trace, data: TimelineData) -> None:
        self._load_ended()
        self.trace = trace
        rank = trace.meta("rank")  # a rank of a distributed run says which
        self.status.show_trace(self.path.name,
                               trace.format + (f" · rank {rank}" if rank is not None else "")
                               + f" · {trace.cache_note.split(':')[0]}")
        self.sub_title = trace.cache_note  # the whole reason: "rebuilt: the trace changed …"
        timeline = self.timeline
        timeline.loading = False
        timeline.set_data(data)
        timeline.focus()
        self.refresh_bindings()  # the footer: a widget's keys are hidden while it loads
        self.overview.set_data(data)
        for panel in self.query(TabPane).results():
            for child in panel.children:
                if isinstance(child, TracePanel):
                    child.trace_loaded(trace, self.min_gap_ns)
        for warning in trace.warnings:
            self.notify(warning, title="while loading", severity="warning", markup=False)
        self.ncu.trace_loaded(trace)

    @on(Timeline.LanesChanged)
    def fit_rows(self) -> None:
        """The lanes take the rows they need, up to a share; the panels get the rest."""
        rows = lane_rows(self.size.height, len(self.timeline.lanes))
        if self.timeline.styles.height != rows:
            self.timeline.styles.height = rows

    def on_resize(self) -> None:
        self.fit_rows()

    @on(Timeline.ViewChanged)
    def _view_changed(self, event: Timeline.ViewChanged) -> None:
        timeline = event.timeline
        if timeline.data is None:
            return
        extent = timeline.data.extent
        shown = timeline.frame.view if timeline.frame is not None else timeline.view
        self.ruler.show(shown, extent.gpu_start_ns, timeline.cursor_t,
                                   timeline.mark_t)
        self.overview.show(shown)
        self.overview.show_hits(timeline.hits)
        self.status.show_search(timeline.search_summary())
        fit_npc = max(1, (extent.gpu_end_ns - extent.gpu_start_ns) // max(1, shown.ncols))
        self.status.show_view(shown, extent.gpu_start_ns, fit_npc,
                                            timeline.cursor_t)

    @on(Timeline.CursorInfo)
    def _cursor_info(self, event: Timeline.CursorInfo) -> None:
        data = self.timeline.data
        origin = data.extent.gpu_start_ns if data is not None else 0
        self.details.show(event.info, origin, data.threads if data is not None else None)

    @on(Ask)
    def _ask(self, event: Ask) -> None:
        timeline = self.timeline
        before = event.value
        if event.kind == "goto":
            def went(text: str) -> None:
                timeline.focus()
                timeline.goto(text)

            self.prompt.ask("go to: 1.25s · +10ms (from the cursor) · step 3 · an NVTX range's "
                            "name (Esc: stay)", before, went, on_cancel=timeline.focus)
            return

        def done(text: str) -> None:
            timeline.focus()
            timeline.search(text, jump=True)

        def cancel() -> None:
            timeline.focus()
            timeline.search(before)

        self.prompt.ask("search names: a substring, or re:REGEX (Enter: the first hit from "
                        "the cursor; Esc: undo)", before, done, on_change=timeline.search,
                        on_cancel=cancel)

    @on(JumpToTime)
    def _jump(self, event: JumpToTime) -> None:
        timeline = self.timeline
        timeline.jump_to(event.start_ns, event.end_ns, event.device, event.stream,
                         thread=event.thread, activity_id=event.activity_id)
        if event.focus:
            timeline.focus()

    @on(DrillDown)
    def _drill_down(self, event: DrillDown) -> None:
        self.ncu.drill_down(event.activity_id, event.name)

    @on(GapThreshold)
    def _gap_threshold(self, event: GapThreshold) -> None:
        if self.trace is None or event.min_gap_ns == self.min_gap_ns:
            return
        self.min_gap_ns = event.min_gap_ns
        self._rethreshold(self.trace, event.min_gap_ns)
        for panel in self.query(FindingPanel).results():  # gpu_gaps counts the same gaps
            panel.trace_loaded(self.trace, event.min_gap_ns)

    @work(thread=True, exclusive=True, group="gap-threshold")
    def _rethreshold(self, trace: Trace, min_gap_ns: int) -> None:
        """The timeline's data for another gap threshold (a big trace's zoom-out summary
        is built again for it, in this worker; the old one stays on screen meanwhile)."""
        data = TimelineData(trace, min_gap_ns, trace.cache_path)
        data.prepare()
        self.call_from_thread(self._rethresholded, data)

    def _rethresholded(self, data: TimelineData) -> None:
        if data.min_gap_ns != self.min_gap_ns:
            return  # a later threshold is on its way
        self.timeline.use_gap_threshold(data)
        self.overview.set_data(data)
        self.notify(f"the timeline now highlights gaps over {format_ns(data.min_gap_ns)}",
                    timeout=3, markup=False)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """A passing notice goes to the status line, where it covers no data; warnings and
        errors, and notices over another screen, stay toasts."""
        status = getattr(self, "status", None)
        if (severity == "information" and status is not None and status.is_attached
                and self.screen is self.screen_stack[0]):
            text = f"{title}: {message}" if title else message
            if markup:
                with contextlib.suppress(MarkupError):
                    text = Text.from_markup(text).plain
            status.say(text, timeout)
            return
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def sql_connection(self) -> CursorSource | None:
        return self.trace

    def palette_extras(self) -> Iterator[Widget]:
        yield self.timeline

    def action_copy(self) -> None:
        found = copy_text(self.screen.focused)
        if found is None:
            self.notify("nothing to copy here: put the cursor on a kernel or a row", markup=False)
            return
        what, text = found
        self.copy_to_clipboard(text)
        size = len(text.encode("utf-8"))
        # the terminal never says whether it took the text: say how to find out
        self.notify(f"copied {what}: {size:,} bytes, sent to the terminal's clipboard (OSC 52); "
                    "nothing to paste? the terminal ignores OSC 52 (tmux: set -g "
                    "set-clipboard on)", markup=False)

    def action_ncu_launches(self) -> None:
        self.ncu.show_launches()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("What the host was doing", "in the marked stretch (v), else the "
                            "gap under the cursor, else the window on screen: CPU samples, "
                            "OS calls, Python frames", self.action_host)

    def action_host(self) -> None:
        """What the host was doing in the marked stretch, the gap under the cursor or the
        window, full screen (HostScreen)."""
        trace, timeline = self.trace, self.timeline
        if trace is None:
            return
        if timeline.mark_t is not None:
            lo, hi = sorted((timeline.mark_t, timeline.cursor_t))
            stretch, what = (lo, max(hi, lo + 1)), "the marked stretch"
        elif timeline.current_gap is not None and \
                timeline.current_gap.start_ns <= timeline.cursor_t < timeline.current_gap.end_ns:
            gap = timeline.current_gap
            stretch, what = (gap.start_ns, gap.end_ns), (
                f"this gap ({format_ns(gap.duration_ns)} on GPU {gap.device})")
        else:
            stretch, what = (timeline.view.t0, timeline.view.t1), "the window"

        def run(work: Callable[[duckdb.DuckDBPyConnection], object]) -> object:
            with contextlib.closing(trace.cursor()) as cur:
                return work(cur)

        self.push_screen(HostScreen(run, stretch, what))

    def exit(self, result: int | None = None, return_code: int = 0,
             message: RenderableType | None = None) -> None:
        # Queries still running in workers (a table's, the SQL prompt's) are stopped at
        # once: closing their screens would wait for them, and the process's exit too.
        if self.trace is not None:
            self.trace.cursors.interrupt()
        elif self._meter is not None and not self._meter.ended:
            self._meter.stop()  # still loading: stop it (it removes what it built)
        super().exit(result, return_code, message)

    def on_unmount(self) -> None:
        self.ncu.close()
        if self.trace is not None:
            self.trace.close()


def run_app(target: Target, use_cache: bool = True,
            min_gap_ns: int = DEFAULT_MIN_GAP_NS, ncu: Path | None = None) -> int:
    """Run the TUI on `target` (a trace, or a store `tui convert` wrote), with the Nsight
    Compute report `ncu` matched to it; an Nsight Compute report as the target opens the
    report on its own. Returns the exit status."""
    app: App[int]
    if target.kind == "ncu" and ncu is None:
        from tui.apps.ncu_app import NcuApp

        app = NcuApp(target.path)
    else:
        app = TraceApp(target.path, use_cache, min_gap_ns, ncu)
    app.run()
    return exit_status(app)


def exit_status(app: App) -> int:
    """The app's exit status; a trace it could not open said on stderr, as the command
    line says its errors (`tui: error: …`, status 2)."""
    failure = getattr(app, "failure", None)
    if failure is not None:
        print(f"tui: error: {printable(failure)}", file=sys.stderr)
        return 2
    return app.return_code or 0
