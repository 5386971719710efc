"""The footer of keys follows the focus, and is rebuilt only when the keys it shows change."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from tests.helpers.paths import sample
from tests.helpers.pilot import GAPPY, settle, sync
from tests.helpers.tables import ready
from tui.apps.trace_app import TraceApp
from tui.widgets.key_footer import KeyFooter

pytestmark = pytest.mark.slow


def shown(app: TraceApp) -> list[str]:
    return [key.description for key in app.query_one(KeyFooter).query(FooterKey)]


@sync
async def test_the_footer_shows_the_focused_widget_s_keys_and_is_rebuilt_only_for_new_ones(
) -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        on_timeline = shown(app)
        assert "NVTX" in on_timeline and "sort" not in on_timeline
        keys = footer.query(FooterKey).first()
        # the same keys asked for again (a refocus of the timeline): the same widgets stay
        app.set_focus(None)
        app.set_focus(app.timeline)
        await pilot.pause()
        await pilot.pause()
        assert shown(app) == on_timeline
        assert footer.query(FooterKey).first() is keys
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
