"""The command line with Nsight Compute inputs: which app opens, and the headless join of
a trace and its report (`tui --summary --json TRACE --ncu REPORT`)."""

from __future__ import annotations

import json

import pytest
from textual.app import App

from tests.helpers.paths import sample
from tui.apps.ncu_app import NcuApp
from tui.apps.trace_app import TraceApp
from tui.cli.main import main

TRACE, REPORT = "small_kernels.sqlite", "small_kernels.ncu-rep"


def test_summary_json_matches_all_five_kernels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--summary", "--json", str(sample(TRACE)), "--ncu", str(sample(REPORT))]) == 0
    summary = json.loads(capsys.readouterr().out)
    ncu = summary["ncu"]
    assert [m["status"] for m in ncu["matches"]] == ["matched"] * 5
    assert [m["matched_on"] for m in ncu["matches"]] == ["name+config"] * 5
    assert [k["verdict"] for k in ncu["kernels"]] == ["memory"] * 4 + ["small-grid"]
    trace_names = {k["name"] for k in summary["kernels"]}
    assert {m["candidates"][0]["name"] for m in ncu["matches"]} == trace_names


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[App[int]]:
    """The app `tui ...` would run, instead of running it."""
    apps: list[App[int]] = []
    monkeypatch.setattr(App, "run", lambda self, *args, **kwargs: apps.append(self))
    return apps


@pytest.mark.parametrize("form", ["ncu-rep", "details.csv", "raw.csv"])
def test_a_report_alone_opens_the_report_view(opened: list[App[int]], form: str) -> None:
    path = sample(f"small_kernels.{form}")
    assert main([str(path)]) == 0
    assert isinstance(opened[-1], NcuApp) and opened[-1].path == path
    assert main(["--ncu", str(path)]) == 0  # --ncu without a trace: the same
    assert isinstance(opened[-1], NcuApp)


def test_a_trace_with_its_report_opens_the_timeline(opened: list[App[int]]) -> None:
    assert main([str(sample(TRACE)), "--ncu", str(sample(REPORT))]) == 0
    app = opened[-1]
    assert isinstance(app, TraceApp) and app.path == sample(TRACE)
    assert app.ncu.path == sample(REPORT) and app.ncu.state == "loading"
    assert main([str(sample(TRACE))]) == 0
    assert isinstance(opened[-1], TraceApp) and opened[-1].ncu.state == "none"
