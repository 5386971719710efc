"""Nsight Compute in the apps through Pilot: wait until the report is joined, the
drill-down or the Source view is open."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.helpers.pilot import settle, until
from tui.apps.ncu_app import NcuApp
from tui.apps.trace_app import TraceApp
from tui.widgets.ncu_panel import NcuPanel
from tui.widgets.ncu_screen import NcuScreen
from tui.widgets.ncu_source import NcuSourceScreen


async def ncu_ready(pilot: Pilot) -> TraceApp:
    app = pilot.app
    assert isinstance(app, TraceApp)
    await until(pilot, lambda: app.ncu.state in ("ready", "failed"))
    await settle(pilot)
    return app


async def drilled(pilot: Pilot) -> NcuPanel:
    await until(pilot, lambda: isinstance(pilot.app.screen, NcuScreen))
    await pilot.pause()
    return pilot.app.screen.query_one(NcuPanel)


async def ncu_app_ready(pilot: Pilot) -> NcuApp:
    app = pilot.app
    assert isinstance(app, NcuApp)
    await until(pilot, lambda: app.session is not None or bool(app._notifications))
    await pilot.pause()
    return app


async def source_shown(pilot: Pilot) -> NcuSourceScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, NcuSourceScreen)
                and pilot.app.screen.view is not None)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, NcuSourceScreen)
    return screen
