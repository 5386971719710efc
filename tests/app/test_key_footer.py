"""The footer of keys follows the focus, is redrawn only when the keys it shows change, and
a click on a key presses it."""

from __future__ import annotations

import pytest

from tests.helpers.paths import sample
from tests.helpers.pilot import GAPPY, settle, sync
from tests.helpers.tables import ready
from tui.apps.trace_app import TraceApp
from tui.widgets.help import HelpScreen
from tui.widgets.key_footer import KeyFooter

pytestmark = pytest.mark.slow


def shown(app: TraceApp) -> list[str]:
    return [binding.description for binding, _enabled, _tip in app.query_one(KeyFooter).line.keys]


@sync
async def test_the_footer_shows_the_focused_widget_s_keys_and_is_redrawn_only_for_new_ones(
) -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        on_timeline = shown(app)
        assert "NVTX" in on_timeline and "sort" not in on_timeline
        keys = footer.line.keys
        # the same keys asked for again (a refocus of the timeline): not drawn again
        app.set_focus(None)
        app.set_focus(app.timeline)
        await pilot.pause()
        await pilot.pause()
        assert shown(app) == on_timeline
        assert footer.line.keys is keys
        # the Kernels table focused: its keys
        await pilot.press("2")
        await ready(pilot, "kernel-names")
        await pilot.pause()
        on_table = shown(app)
        assert "sort" in on_table and "categories" in on_table and "NVTX" not in on_table
        # and back
        await pilot.press("escape")
        await settle(pilot)
        await pilot.pause()
        assert shown(app) == on_timeline
        # the key under the mouse is drawn over the hover background, the others as before
        line = footer.line
        before = line.render()
        await pilot.hover(line, offset=(0, 0))
        hovered = line.render()
        assert hovered.plain == before.plain
        assert hovered.get_style_at_offset(app.console, 0) != before.get_style_at_offset(
            app.console, 0)
        last = len(before.plain) - 1
        assert hovered.get_style_at_offset(app.console, last) == before.get_style_at_offset(
            app.console, last)
        # a click on a key presses it: `?` opens the help
        text = before.plain
        assert text.startswith(line.app.get_key_display(line.keys[0][0]))
        await pilot.click(line, offset=(text.index("? help"), 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
