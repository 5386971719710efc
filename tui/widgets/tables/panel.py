"""A tab below the timeline holding SqlTables: a caption line, `/` to filter, `m` to
maximise, and the trace handed over once it is loaded.

Subclasses say which tables they hold (`compose_tables`, mounted when the tab is first
shown) and build their models in a worker (`build`, also when first shown); everything
shared by the tabs lives here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import duckdb
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import AwaitMount, Widget
from textual.widgets import Input, Static

from tui.core.errors import TraceError
from tui.core.safe_text import printable
from tui.loading.trace import Trace
from tui.widgets import keymap
from tui.widgets.messages import JumpToTime
from tui.widgets.tables import keys
from tui.widgets.tables.base import SqlTable


class Prompt(Input):
    """A one-line input under a table: the filter, or a threshold. Esc gives up."""

    DEFAULT_CSS = "Prompt { display: none; height: 1; border: none; padding: 0 1; }"
    BINDINGS = [("escape", "give_up", "cancel")]

    def __init__(self) -> None:
        super().__init__(compact=True)
        # focusable only while asking: else, with the timeline still loading, the screen's
        # first focus landed here, hidden, and took the keys (q typed, not quit)
        self.can_focus = False
        self.on_change: Callable[[str], None] | None = None
        self.on_done: Callable[[str], None] | None = None
        self.on_cancel: Callable[[], object] | None = None

    def ask(self, label: str, value: str, on_done: Callable[[str], None],
            on_change: Callable[[str], None] | None = None,
            on_cancel: Callable[[], object] | None = None) -> None:
        self.on_done, self.on_change, self.on_cancel = None, None, None
        self.placeholder = label
        self.value = value
        self.on_done, self.on_change, self.on_cancel = on_done, on_change, on_cancel
        self.display = True
        self.can_focus = True
        if self.is_attached:  # at once: keys typed right after the one that asked come here
            self.screen.set_focus(self)
        else:
            self.focus()

    def _close(self) -> None:
        self.display = False
        self.can_focus = False
        self.on_change = None

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.on_change is not None:
            self.on_change(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        done = self.on_done
        self._close()
        if done is not None:
            done(event.value)

    def cancel(self) -> None:
        """Close, undoing what was typed."""
        cancel = self.on_cancel
        self._close()
        if cancel is not None:
            cancel()

    def action_give_up(self) -> None:
        """Esc: undo what was typed, and the timeline gets the keys (as Esc anywhere),
        after any focus the undoing asked for (a table's, deferred)."""
        self.cancel()
        self.app.call_later(self.app.run_action, "to_timeline")


class TablePanel(Vertical):
    BINDINGS = keymap.bindings(keys.PANEL)
    ALLOW_MAXIMIZE = True
    DEFAULT_CSS = """
    TablePanel { height: 1fr; }
    TablePanel > .caption-box { height: auto; max-height: 4; scrollbar-size-vertical: 1; }
    TablePanel .caption { height: auto; color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self.trace: Trace | None = None
        self.min_gap_ns = 0
        self.origin = 0  # the first GPU activity: times are shown from here, as elsewhere
        self.caption = Static(classes="caption")
        self.prompt = Prompt()
        self._last: SqlTable | None = None
        self._unbuilt = False  # a trace is loaded, the tables not built from it yet
        self._focus_when_built = False  # the tab was opened by its key while it built
        self._focus_from: Widget | None = None  # what had the keys then
        self._composed = False  # the tables are mounted (the tab was shown once)
        self._mounting: AwaitMount | None = None  # their mounting, until it is awaited

    def compose(self) -> ComposeResult:
        """Nothing yet: the tables come when the tab is first shown (compose_now). A tab
        never opened adds no widgets to style, at the app's start and each time another
        screen closes over it, nor to take apart at the end."""
        return iter(())

    def compose_now(self) -> None:
        """Mount the tables, their caption and filter prompt, once. They are in the DOM as
        this returns (the tab's key focuses one at once; a trace already loaded shows them
        loading); their own mounting ends later (awaited before the build)."""
        if self._composed or not self.is_attached:
            return
        self._composed = True
        widgets = list(self.compose_tables())
        for table in widgets:
            if isinstance(table, SqlTable) and self._unbuilt:
                table.loading = True
        # a long caption (a finding, a kernel's full name) scrolls: the wheel, or Tab to it
        caption_box = VerticalScroll(self.caption, classes="caption-box")
        self._mounting = self.mount_all([*widgets, caption_box, self.prompt])

    def compose_tables(self) -> Iterable[Widget]:
        raise NotImplementedError

    def tables(self) -> list[SqlTable]:
        return list(self.query(SqlTable).results())

    @property
    def active(self) -> SqlTable:
        """The table the keys are about: the focused one, or the last one focused."""
        focused = self.screen.focused if self.is_attached else None
        if isinstance(focused, SqlTable) and focused in self.tables():
            self._last = focused
        shown = [t for t in self.tables() if t.display]
        if self._last is None or self._last not in shown:
            self._last = shown[0] if shown else self.tables()[0]
        return self._last

    # -- loading -------------------------------------------------------------------------

    def trace_loaded(self, trace: Trace, min_gap_ns: int) -> None:
        """Build the tables from `trace` now if the panel is on screen, else when it is
        first shown: a tab never opened costs nothing (the findings' rules, every gap
        explained)."""
        self.trace, self.min_gap_ns = trace, min_gap_ns
        for table in self.tables():
            table.loading = True
        self._unbuilt = True
        if self.is_on_screen:
            self._build_once()

    async def on_show(self) -> None:
        self.compose_now()
        mounting, self._mounting = self._mounting, None
        if mounting is not None:
            await mounting  # the tables mounted before the build hands them their rows
        self._build_once()

    def _build_once(self) -> None:
        if self._unbuilt and self.trace is not None:
            self._unbuilt = False
            self._build()

    @work(thread=True, exclusive=True, group="table-build")
    def _build(self) -> None:
        assert self.trace is not None
        try:
            self.build(self.trace)
        except (duckdb.Error, TraceError) as exc:
            self.app.call_from_thread(self.notify, f"{exc}", title="table failed",
                                      severity="error", markup=False)
            return
        self.app.call_from_thread(self._built)

    def build(self, trace: Trace) -> None:
        """Make and build the models (in a worker); `built` attaches them."""
        raise NotImplementedError

    @property
    def building(self) -> bool:
        return self.trace is not None and any(table.loading for table in self.tables())

    def focus_when_built(self) -> None:
        """Give the active table the keys once it is built (a loading table takes none)."""
        self._focus_when_built = True

        def note() -> None:  # after the focus the tab's key asked for (focus() is deferred)
            self._focus_from = self.screen.focused

        self.app.call_later(note)

    def _built(self) -> None:
        for table in self.tables():
            table.loading = False
        self.built()
        # not when the keys went elsewhere meanwhile (`@` typed at once: its prompt keeps them)
        if (self._focus_when_built and self.is_on_screen
                and self.screen.focused is self._focus_from):
            self.active.focus()
        self._focus_when_built = False

    def built(self) -> None:
        raise NotImplementedError

    # -- caption, filter, maximise, jump -------------------------------------------------

    def caption_text(self, table: SqlTable) -> Text:
        return Text(table.caption())

    def update_caption(self) -> None:
        if self.tables():
            self.caption.update(self.caption_text(self.active))

    @on(SqlTable.Changed)
    @on(SqlTable.Highlighted)
    def _table_changed(self, event: Any) -> None:
        if event.table is self.active:
            self.update_caption()

    def on_descendant_focus(self) -> None:
        self.update_caption()

    def action_filter(self) -> None:
        table = self.active
        before = table.table_query.text

        def done(text: str) -> None:
            table.set_filter(text)
            table.focus()

        def cancel() -> None:
            table.set_filter(before)
            table.focus()

        self.prompt.ask("filter: a substring of the names (Enter keeps it; Esc undoes it)",
                        before, done, on_change=table.set_filter, on_cancel=cancel)

    def action_back(self) -> None:
        """Backspace: back a level, in a tab that has levels (see KernelPanel)."""

    def action_maximize(self) -> None:
        screen = self.screen
        if screen.maximized is self:
            screen.minimize()
        else:
            screen.maximize(self, container=False)

    def jump(self, start_ns: int, end_ns: int, device: int | None = None,
             stream: int | None = None, activity_id: int | None = None,
             focus: bool = True, thread: tuple[int, int] | None = None) -> None:
        """Show this on the timeline (`focus`: which then has the keys)."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        self.post_message(JumpToTime(start_ns, end_ns, device, stream, activity_id, focus,
                                     thread))

    def ms(self, t: int | None) -> str:
        """A time in the trace as ms since the first GPU activity, to the µs."""
        return "-" if t is None else f"{(t - self.origin) / 1e6:,.3f} ms"


def full_name_line(label: str, name: str | None) -> Text:
    """`label: name` with the name as plain text (never markup), folded if long."""
    out = Text(no_wrap=False, overflow="fold")
    out.append(f"{label}: ", style="bold")
    out.append(printable(name) if name is not None else "-")
    return out
