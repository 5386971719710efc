"""The app refuses what `tui --summary` refuses, the same way: one line on stderr, exit
status 2, before a terminal app starts where the first bytes tell; a trace that fails
while loading ends the app with that line too. Ctrl-C while a trace loads stops the load
and quits."""

from __future__ import annotations

import asyncio
import gzip
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT, sample
from tests.helpers.pilot import sync
from tui.apps.trace_app import TraceApp, exit_status


def tui(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # stdin and stdout are no terminal: an app that started would draw its escape codes
    return subprocess.run([sys.executable, "-m", "tui.cli.main", *args], capture_output=True,
                          text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)


def test_a_text_file_ends_with_the_summary_s_one_line_error_before_the_app_starts(
        tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("step 1 took 30 ms\nstep 2 took 31 ms\n")
    app, summary = tui(str(text)), tui("--summary", str(text))
    assert (app.returncode, summary.returncode) == (2, 2)
    assert app.stderr == summary.stderr
    assert app.stderr.startswith(f"tui: error: {text}: unknown format")
    assert app.stderr.count("\n") == 1 and app.stdout == ""


def test_a_gzipped_sqlite_export_is_said_to_be_gunzipped(tmp_path: Path) -> None:
    packed = tmp_path / "gappy_training.sqlite.gz"
    with open(sample("gappy_training.sqlite"), "rb") as f, gzip.open(packed, "wb") as out:
        shutil.copyfileobj(f, out)
    app, summary = tui(str(packed)), tui("--summary", str(packed))
    assert (app.returncode, summary.returncode) == (2, 2)
    assert app.stderr == summary.stderr == (
        f"tui: error: {packed}: an Nsight Systems SQLite export compressed with gzip; tui "
        f"reads it uncompressed: gunzip -k '{packed}' and open '{tmp_path}/"
        "gappy_training.sqlite'\n")


@sync
async def test_a_trace_that_fails_to_load_ends_the_app_with_that_error(
        tmp_path: Path, capsys) -> None:
    """JSON that is no trace gets past the first bytes; its loader's error ends the app
    (no app left open on an error box and tabs "counting…" for ever)."""
    bad = tmp_path / "settings.json"
    bad.write_text('{"learning_rate": 0.001, "steps": 100}')
    app = TraceApp(bad, use_cache=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            if not app.is_running:
                break
            await pilot.pause(0.02)
    assert app.return_code == 2
    assert app.failure is not None and 'no "traceEvents" array found' in app.failure
    capsys.readouterr()
    assert exit_status(app) == 2
    said = capsys.readouterr().err
    assert said == f"tui: error: {app.failure}\n"
    summary = tui("--summary", str(bad))
    assert (summary.returncode, summary.stderr) == (2, said)


@sync
async def test_ctrl_c_while_a_trace_loads_stops_the_load_and_quits() -> None:
    app = TraceApp(sample("launch_bound_inference.pt.trace.json.gz"), use_cache=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        assert app.trace is None, "loaded before Ctrl-C: take a larger trace"
        began = time.monotonic()
        await pilot.press("ctrl+c")
        for _ in range(500):
            if not app.is_running:
                break
            await asyncio.sleep(0.01)
        assert not app.is_running, "Ctrl-C did not quit"
    meter = app._meter
    assert meter is not None and meter.stopping  # the load was told to stop, not left on
    assert time.monotonic() - began < 5
    assert app.trace is None
