"""The Rich console that headless commands print to (`--summary`, `tui query`, `tui schema`)."""

from __future__ import annotations

import os

from rich.console import Console


class _HeadlessConsole(Console):
    def on_broken_pipe(self) -> None:
        """What the output was piped into stopped reading (`| head`): raised on for tui.cli.main
        to end as every command does then (Rich's own ending exits 1)."""
        self.quiet = True
        raise BrokenPipeError


def summary_console() -> Console:
    """A terminal gets its own width; a pipe or CI log gets room for long kernel names."""
    console = _HeadlessConsole(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = _HeadlessConsole(highlight=False, width=140)
    return console
