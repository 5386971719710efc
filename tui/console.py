"""The Rich console that headless commands print to (`--summary`, `tui query`, `tui schema`)."""

from __future__ import annotations

import os

from rich.console import Console


def summary_console() -> Console:
    """A terminal gets its own width; a pipe or CI log gets room for long kernel names."""
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, width=140)
    return console
