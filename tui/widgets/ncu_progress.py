"""One line that shows a Nsight Compute report loading: the stage, and a bar per launch."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar

from tui.core.safe_text import printable


class NcuProgress(Horizontal):
    DEFAULT_CSS = """
    NcuProgress { height: 1; padding: 0 1; background: $panel; }
    NcuProgress Label { width: auto; margin-right: 2; }
    """

    def __init__(self, stage: str) -> None:
        super().__init__(id="ncu-progress")
        self._stage = printable(stage)

    def compose(self) -> ComposeResult:
        yield Label(self._stage, markup=False)
        yield ProgressBar(total=None, show_eta=False)

    def stage(self, text: str, done: int | None = None, total: int | None = None) -> None:
        self.query_one(Label).update(printable(text))
        self.query_one(ProgressBar).update(total=total, progress=done or 0)
