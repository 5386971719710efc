"""A progress bar over the timeline while a trace loads: bytes read, rate, time left."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar

from tui.core.load_progress import LoadMeter

POLL_S = 0.25


class LoadBar(Horizontal):
    DEFAULT_CSS = """
    LoadBar { height: 1; }
    LoadBar > ProgressBar { width: 40; }
    LoadBar > Label { width: 1fr; }
    """

    def __init__(self, meter: LoadMeter) -> None:
        super().__init__(id="load-bar")
        self.meter = meter

    def compose(self) -> ComposeResult:
        yield ProgressBar(total=None, show_eta=False, show_percentage=True)
        yield Label("")

    def on_mount(self) -> None:
        self.set_interval(POLL_S, self.refresh_figures)

    def refresh_figures(self) -> None:
        now = self.meter.poll()
        bar = self.query_one(ProgressBar)
        fraction = now.fraction
        if fraction is None:  # building tables: no count, the bar pulses
            bar.update(total=None)
        else:
            bar.update(total=100, progress=100 * fraction)
        self.query_one(Label).update(now.line())  # figures only: no trace text, no markup
