"""Nsight Compute results in the app: the report's launches above, the drill-down of the
one under the cursor below (`NcuBrowser`); as a screen over the timeline (`NcuScreen`,
from Enter on a kernel or `c`), or as the whole app for a report alone (`tui REPORT`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tui.core.safe_text import plain
from tui.views.ncu_session import NcuSession
from tui.views.timeline.lookup import StackFrame
from tui.widgets import keymap
from tui.widgets.key_footer import KeyFooter
from tui.widgets.messages import JumpToTime
from tui.widgets.ncu_list import NcuLaunchList
from tui.widgets.ncu_panel import NcuPanel
from tui.widgets.ncu_roofline import NcuRooflineScreen
from tui.widgets.ncu_source import NcuSourceScreen


def title_text(session: NcuSession) -> Text:
    source = session.summary.get("source", {})
    out = Text.assemble(("Nsight Compute ", "bold"), plain(session.path.name, "bold"),
                        f" · {source.get('format', '?')}")
    if source.get("device_name"):
        out.append_text(Text.assemble(" · ", plain(source["device_name"])))
    out.append(f" · {len(session.launches)} launches")
    if session.has_trace:
        counts = session.match_counts()
        out.append(" · in the trace: " + ", ".join(f"{n} {status}" for status, n
                                                   in counts.items() if n))
    return out


class NcuBrowser(Vertical):
    """`show(session, launch_id, note)`: list every launch, drill into `launch_id`."""

    DEFAULT_CSS = """
    NcuBrowser { height: 1fr; }
    NcuBrowser #ncu-title { height: auto; padding: 0 1; background: $panel; }
    NcuBrowser #ncu-note { height: auto; padding: 0 1; display: none; }
    NcuBrowser #ncu-note.-shown { display: block; }
    NcuBrowser #ncu-note.-warn { color: $warning; }
    NcuBrowser NcuLaunchList { margin-bottom: 1; }
    """

    @dataclass
    class Chosen(Message):
        """Enter on a launch in the list."""

        launch_id: int

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self.session: NcuSession | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="ncu-title")
        yield Static(id="ncu-note")
        yield NcuLaunchList(id="ncu-list")
        yield NcuPanel(id="ncu-panel")

    @property
    def launches(self) -> NcuLaunchList:
        return self.query_one(NcuLaunchList)

    @property
    def panel(self) -> NcuPanel:
        return self.query_one(NcuPanel)

    def show(self, session: NcuSession, launch_id: int | None = None, note: str = "",
             warn: bool = False) -> None:
        self.session = session
        self.query_one("#ncu-title", Static).update(title_text(session))
        self.set_note(note, warn)
        launches = self.launches
        launches.show(session)
        if launch_id is not None:
            launches.select_launch(launch_id)
        self._drill(launches.launch_id)

    def set_note(self, note: str, warn: bool = False) -> None:
        widget = self.query_one("#ncu-note", Static)
        widget.update(plain(note))
        widget.set_class(bool(note), "-shown")
        widget.set_class(warn, "-warn")

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._drill(self.launches.launch_id)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.launches.launch_id is not None:
            self.post_message(self.Chosen(self.launches.launch_id))

    def open_source(self) -> None:
        """The Source view of the launch under the cursor, over this screen."""
        if self.session is not None and self.launches.launch_id is not None:
            self.app.push_screen(NcuSourceScreen(self.session, self.launches.launch_id))

    def open_roofline(self) -> None:
        """Every launch on a roofline, over this screen; back with a launch selected."""
        if self.session is None:
            return

        def back(launch_id: int | None) -> None:
            if launch_id is not None:
                self.launches.select_launch(launch_id)
                self._drill(launch_id)

        self.app.push_screen(NcuRooflineScreen(self.session, self.launches.launch_id), back)

    def _drill(self, launch_id: int | None) -> None:
        session = self.session
        if session is None:
            return
        launch = session.launches.get(launch_id) if launch_id is not None else None
        match = session.matches.get(launch_id) if launch_id is not None else None
        if self.panel.launch is not launch or launch is None:
            first = session.first_activity(launch_id) if launch_id is not None else None
            stack = session.launch_stack(first.id) if first is not None else []
            self.panel.show(launch, match, session.summary.get("source", {}),
                            tuple(StackFrame(*frame) for frame in stack))


class NcuScreen(Screen[None]):
    """The report over the timeline: Esc goes back, Enter/t shows the launch's kernel."""

    BINDINGS: ClassVar[list[BindingType]] = [*keymap.bindings(keymap.NCU)]

    def __init__(self, session: NcuSession, launch_id: int | None = None, note: str = "",
                 warn: bool = False) -> None:
        super().__init__()
        self.session = session
        self._start = (launch_id, note, warn)

    def compose(self) -> ComposeResult:
        yield NcuBrowser(id="ncu")
        yield KeyFooter()

    def on_mount(self) -> None:
        browser = self.query_one(NcuBrowser)
        browser.show(self.session, *self._start)
        browser.launches.focus()

    def action_close(self) -> None:
        self.dismiss()

    @on(NcuBrowser.Chosen)
    def _chosen(self, event: NcuBrowser.Chosen) -> None:
        self._jump(event.launch_id)

    def action_source(self) -> None:
        self.query_one(NcuBrowser).open_source()

    def action_roofline(self) -> None:
        self.query_one(NcuBrowser).open_roofline()

    def action_show_on_timeline(self) -> None:
        launch_id = self.query_one(NcuBrowser).launches.launch_id
        if launch_id is not None:
            self._jump(launch_id)

    def _jump(self, launch_id: int) -> None:
        activity = self.session.first_activity(launch_id)
        if activity is None:
            self.notify(f"launch #{launch_id} has no matching kernel in the trace",
                        severity="warning", markup=False)
            return
        self.app.post_message(JumpToTime(activity.start_ns, activity.end_ns, activity.device,
                                         activity.stream, activity.id))
        self.dismiss()
