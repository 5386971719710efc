"""`tui REPORT`: an Nsight Compute report on its own (no trace): its profiled launches in
report order, and the drill-down of the one under the cursor; Enter (or `s`) opens its
Source view, `r` the roofline of all of them. Loads in a worker, with a progress line."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import duckdb
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import BindingType

from tui.core.errors import TraceError
from tui.views.ncu_session import NcuSession, open_ncu
from tui.widgets import keymap
from tui.widgets.key_footer import KeyFooter
from tui.widgets.ncu_progress import NcuProgress
from tui.widgets.ncu_screen import NcuBrowser

_KEYS = (*(k for k in keymap.APP if k.action in ("focus_next", "quit")),
         *(k for k in keymap.NCU if k.action in ("source", "roofline")))


class NcuApp(App[int]):
    TITLE = "tui"
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.bindings(_KEYS)]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.session: NcuSession | None = None

    def compose(self) -> ComposeResult:
        yield NcuBrowser(id="ncu")
        yield NcuProgress(f"Nsight Compute: reading {self.path.name} …")
        yield KeyFooter()

    @property
    def browser(self) -> NcuBrowser:
        return self.query_one(NcuBrowser)

    def on_mount(self) -> None:
        self.browser.loading = True
        self._load()

    @work(thread=True, exclusive=True, group="load")
    def _load(self) -> None:
        def progress(done: int, total: int) -> None:
            self.call_from_thread(self._stage, done, total)

        try:
            session = open_ncu(self.path, progress)
        except (TraceError, OSError, duckdb.Error) as exc:
            self.call_from_thread(self._failed, str(exc))
            return
        self.call_from_thread(self._loaded, session)

    def _stage(self, done: int, total: int) -> None:
        for bar in self.query(NcuProgress).results():
            bar.stage(f"Nsight Compute: explaining launch {done} of {total}", done, total)

    def _failed(self, message: str) -> None:
        self.browser.loading = False
        self.query(NcuProgress).remove()
        self.notify(message, title="cannot open the Nsight Compute report", severity="error",
                    timeout=30, markup=False)

    def _loaded(self, session: NcuSession) -> None:
        self.session = session
        self.query(NcuProgress).remove()
        browser = self.browser
        browser.loading = False
        browser.show(session)
        browser.launches.focus()
        for warning in session.warnings:
            self.notify(warning, title="while loading", severity="warning", markup=False)

    @on(NcuBrowser.Chosen)
    def _chosen(self) -> None:
        self.browser.open_source()  # Enter on a launch: where in its code it is slow

    def action_source(self) -> None:
        self.browser.open_source()

    def action_roofline(self) -> None:
        self.browser.open_roofline()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("source", "roofline"):  # the launches' keys: not over another view
            return self.screen is self.screen_stack[0]
        return True

    def on_unmount(self) -> None:
        if self.session is not None:
            self.session.close()
