"""The screen as plain text, the way a terminal shows it (for layout assertions)."""

from __future__ import annotations

import io

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from tests.helpers.pilot import until


def screen_text(app: App) -> list[str]:
    width, height = app.size
    console = Console(file=io.StringIO(), width=width, height=height, color_system=None,
                      legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.file.getvalue().splitlines()


def frame_pending(app: App) -> bool:
    """Whether the screen has a layout, scroll or repaint still to draw: the app draws at
    most TEST_FPS frames a second (tests/conftest.py), so the frame after a key may come
    later than the key's messages have been handled."""
    screen = app.screen
    return bool(screen._layout_required or screen._scroll_required
                or screen._repaint_required or screen._recompose_required
                or screen._dirty_widgets)


async def frame_drawn(pilot: Pilot) -> None:
    """Wait until what is pending on the screen is drawn."""
    await until(pilot, lambda: not frame_pending(pilot.app))


async def drawn_screen(pilot: Pilot) -> list[str]:
    """The screen as text once what is pending on it is drawn."""
    await frame_drawn(pilot)
    return screen_text(pilot.app)
