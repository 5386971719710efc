"""The screen as plain text, the way a terminal shows it (for layout assertions)."""

from __future__ import annotations

import io

from rich.console import Console
from textual.app import App


def screen_text(app: App) -> list[str]:
    width, height = app.size
    console = Console(file=io.StringIO(), width=width, height=height, color_system=None,
                      legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.file.getvalue().splitlines()
