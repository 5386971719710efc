"""Long loads are visible and stoppable: the progress line and bar, and Ctrl-C at any point.

The big trace here is SCALED: the real `launch_bound_inference` sample repeated 6 times in
time by benchmarks/scale_trace.py (a generator), ~120 MB, so that a load lasts long enough
to be stopped in each of its stages.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import gzip
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from tests.helpers.paths import ROOT, sample
from tests.helpers.pilot import settle, sync
from tui.apps import trace_app as app_module
from tui.apps.trace_app import TraceApp
from tui.cli.main import main
from tui.core import load_progress
from tui.core.load_progress import size_text
from tui.loading import trace as trace_module
from tui.loading.store import TraceStore
from tui.sources import nsys_sqlite
from tui.views import progress_line
from tui.views.progress_line import TracesProgress
from tui.widgets.load_bar import LoadBar

SOURCE = "launch_bound_inference.pt.trace.json.gz"
COPIES = 6


@pytest.fixture(scope="module")
def scaled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The scaled trace, and its kernel count read independently (json: cat 'kernel'):
    made once per test run, in the folder pytest-xdist's workers share, under a lock."""
    root = tmp_path_factory.getbasetemp()  # under xdist a worker's; its parent, the run's
    folder = (root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root) / "scaled"
    folder.mkdir(exist_ok=True)
    trace, count = folder / f"scaled_x{COPIES}.json", folder / "kernels"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not count.is_file():
            plain = folder / "source.json"
            with gzip.open(sample(SOURCE), "rb") as f:
                plain.write_bytes(f.read())
            kernels = sum(1 for e in json.loads(plain.read_bytes())["traceEvents"]
                          if e.get("cat") == "kernel" and e.get("ph") == "X")
            subprocess.run([sys.executable, str(ROOT / "benchmarks" / "scale_trace.py"),
                            str(plain), str(trace), str(COPIES)], check=True)
            count.write_text(str(kernels * COPIES))
    return trace, int(count.read_text())


@pytest.fixture(scope="module")
def scaled_opened_cold(scaled: tuple[Path, int],
                       tmp_path_factory: pytest.TempPathFactory) -> dict:
    """`tui --summary --json` of the scaled trace from an empty cache dir, in this process:
    what the next open after each stopped load gives, that load having left its cache dir
    empty (each test checks that). Opened once for the module, not once a stage: the
    same open of the same ~120 MB trace, 2-3 CPU-s each time."""
    trace, _ = scaled
    cache = tmp_path_factory.mktemp("scaled-cold") / "cache"
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        patch.setenv("TUI_CACHE_DIR", str(cache))
        assert main(["--summary", "--json", str(trace)]) == 0
    return json.loads(out.getvalue())


def _summary_process(trace: Path, cache: Path, memory: str | None = None) -> subprocess.Popen:
    # Ctrl-C's default action in the child, as in a terminal: a test run started in the
    # background of a shell (`pytest &`) hands its children SIGINT ignored, and Python
    # then raises no KeyboardInterrupt
    budget = {"TUI_MEMORY": memory} if memory else {}
    return subprocess.Popen([sys.executable, "-m", "tui", "--summary", "--json", str(trace)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TUI_CACHE_DIR": str(cache), **budget},
                            cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _stages(cache: Path, seen: list[str]) -> list[str]:
    """The stages seen so far, from the files in the cache dir: "opening" (the partial
    cache file is there), "reading" (the scratch copy of the events too), "building" (the
    scratch copy gone again, the partial file still there)."""
    names = [p.name for p in cache.iterdir()] if cache.is_dir() else []
    scratch = any(n.startswith("tui-load-") for n in names)
    partial = any(".partial-" in n for n in names)
    if partial and not seen:
        seen.append("opening")
    if scratch and "reading" not in seen:
        seen.append("reading")
    if partial and not scratch and "reading" in seen and "building" not in seen:
        seen.append("building")
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["opening", "reading", "building"])
def test_ctrl_c_stops_cleanly(scaled: tuple[Path, int], tmp_path: Path, stage: str,
                             scaled_opened_cold: dict) -> None:
    """At "opening" the trace is built in its cache file, its partial file there from the
    start (a budget it takes over a quarter of); else in memory, the partial file written
    at the end. The next open (in this process: no Ctrl-C in it; from the cache dir left
    empty, as `scaled_opened_cold` opens it) loads the trace whole."""
    trace, kernels = scaled
    cache = tmp_path / "cache"
    proc = _summary_process(trace, cache, "250MB" if stage == "opening" else None)
    deadline = time.monotonic() + 60
    seen: list[str] = []
    while stage not in _stages(cache, seen):
        assert proc.poll() is None, f"the load ended before the {stage} stage"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (130, "", "")
    assert list(cache.iterdir()) == []  # no partial cache, no scratch copy of the events
    summary = scaled_opened_cold
    assert summary["source"]["cache_note"] == "built now: no cache yet"
    assert sum(k["count"] for k in summary["kernels"]) == kernels


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["reading", "building"])
def test_quitting_the_app_stops_its_load(scaled: tuple[Path, int], tmp_path: Path,
                                         monkeypatch, stage: str) -> None:
    """q while a trace loads: the app quits (the key was typed into a hidden prompt), the
    load stops (it would have gone on and written its cache) and leaves nothing behind,
    and the next open loads it whole."""
    trace, kernels = scaled
    cache = tmp_path / "cache"
    monkeypatch.setenv("TUI_CACHE_DIR", str(cache))
    quit_at = 0.0

    async def drive() -> TraceApp:
        nonlocal quit_at
        app = TraceApp(trace)
        async with app.run_test(size=(120, 30)) as pilot:
            deadline = time.monotonic() + 60
            seen: list[str] = []
            while stage not in _stages(cache, seen):
                assert app.trace is None, f"the load ended before the {stage} stage"
                assert time.monotonic() < deadline
                await asyncio.sleep(0.005)
            quit_at = time.monotonic()
            await pilot.press("q")
        return app

    app = asyncio.run(drive())
    assert time.monotonic() - quit_at < 10
    assert app.return_code == 0 and not app._exit_renderables
    assert list(cache.iterdir()) == []  # no cache, partial or whole; no scratch copy
    with trace_module.open_trace(trace) as again:
        assert again.cache_note == "built now: no cache yet"
        count = again.con.execute("SELECT count(*) FROM gpu_activities "
                                  "WHERE kind = 'kernel'").fetchone()[0]
    assert count == kernels


# The ranks app in a process of its own: its pool's processes are spawned (a fresh
# interpreter each, which imports the main module again), and multiprocessing starts its
# resource tracker once a process; a test process may have started it already.
RANKS_APP_TIMEOUT_S = 300
DUMP_AFTER_S = 240
RANKS_APP = """
import asyncio, faulthandler, json, os, sys, time
from pathlib import Path
from tui.apps.run_app import RunApp

# a run that hangs shows where: every thread's stack on stderr before the test's timeout,
# the pool's processes' too (a spawned process runs this module's top again, its argv given)
faulthandler.dump_traceback_later(float(sys.argv[4]), exit=False)

class Recorded(RunApp):
    lines = []

    def on_run_app_progress(self, event) -> None:
        self.lines.append(event.line)
        super().on_run_app_progress(event)

async def drive(folder: Path, cache: Path, quit_when_reading: bool) -> dict:
    app = Recorded([folder])
    async with app.run_test(size=(120, 30)) as pilot:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            await asyncio.sleep(0.01)
            names = [p.name for p in cache.iterdir()] if cache.is_dir() else []
            if quit_when_reading and sum(n.startswith("tui-load-") for n in names) == 2:
                break  # both traces' events are being read, each in its own process
            if not quit_when_reading and app.run_data is not None:
                break
        else:  # not loaded in time: say what the app was doing, and leave at once
            workers = [(w.name, str(w.state), repr(w.error)) for w in app.workers]
            said = [str(n.message) for n in app._notifications]
            print(json.dumps({"not_loaded_in_s": 120, "progress": app.lines,
                              "running": app.is_running, "return_code": app.return_code,
                              "workers": workers, "notified": said}),
                  file=sys.stderr, flush=True)
            os._exit(3)
        header = str(app.query_one("#run-header").render())
        progress_shown = app.query_one("#run-progress").display
        # the cursor's move to the straggler scrolls with an animation: a q pressed while
        # it runs ends the app's animator before it completes, and Pilot's press, which
        # waits for every animation to complete, then waits for ever (3 of 40 runs at a
        # load of 6 processes on 2 cores)
        await pilot.wait_for_scheduled_animations()
        quit_at = time.monotonic()
        await pilot.press("q")
    return {"quit_s": time.monotonic() - quit_at, "header": header, "progress": app.lines,
            "progress_shown": progress_shown,
            "loaded": app.run_data is not None, "return_code": app.return_code}

if __name__ == "__main__":
    folder, cache, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    print(json.dumps(asyncio.run(drive(folder, cache, mode == "quit"))))
"""


def _ranks_app(tmp_path: Path, folder: Path, mode: str) -> dict:
    driver = tmp_path / "ranks_app.py"
    driver.write_text(RANKS_APP)
    cache, scratch = tmp_path / "cache", tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    try:
        done = subprocess.run(
            [sys.executable, str(driver), str(folder), str(cache), mode, str(DUMP_AFTER_S)],
            capture_output=True, text=True, cwd=ROOT, timeout=RANKS_APP_TIMEOUT_S,
            env={**{k: v for k, v in os.environ.items() if k != "TUI_WORKERS"},
                 "TUI_CACHE_DIR": str(cache), "TMPDIR": str(scratch)})
    except subprocess.TimeoutExpired as hung:
        stderr = hung.stderr.decode() if isinstance(hung.stderr, bytes) else hung.stderr
        pytest.fail(f"the ranks app ran past {RANKS_APP_TIMEOUT_S} s; its threads at "
                    f"{DUMP_AFTER_S} s:\n{(stderr or '')[-6000:]}")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.slow
def test_the_ranks_app_loads_a_run_in_processes(tmp_path: Path) -> None:
    """Four traces: loaded by a pool of processes, which failed to start inside the app
    ("bad value(s) in fds_to_keep": Textual's stderr has no file descriptor)."""
    folder = tmp_path / "run"
    folder.mkdir()
    for copy in (0, 1):
        for rank in (0, 1):
            os.link(sample(f"ddp_rank{rank}.pt.trace.json.gz"),
                    folder / f"copy{copy}_rank{rank}.pt.trace.json.gz")
    shown = _ranks_app(tmp_path, folder, "load")
    assert shown["loaded"] and shown["return_code"] == 0
    # a line as each trace is ready, then the bar goes
    sizes = sorted(f.stat().st_size for f in folder.iterdir())
    assert shown["progress"][0] == f"0 of 4 traces ({size_text(sum(sizes))} to load)"
    assert [line.split(",")[0] for line in shown["progress"][1:]] == [
        f"{n} of 4 traces" for n in (1, 2, 3, 4)]
    assert shown["progress"][-1].startswith(
        f"4 of 4 traces, {size_text(sum(sizes))} of {size_text(sum(sizes))} · ")
    assert shown["progress"][-1].endswith(" · working out the run")
    assert not shown["progress_shown"]
    header, cache, straggler, *diagnosis = shown["header"].splitlines()
    # what bounds the run: what bounds its stragglers, the copies of the sleeping rank
    assert diagnosis[0].startswith("The run waits for its stragglers, ranks 1, 3: ")
    assert diagnosis[-1] == ("rank 0 communication-bound · rank 1 host-bound · "
                             "rank 2 communication-bound · rank 3 host-bound")
    assert header == f"{folder}  (kineto, 4 ranks of 2, span 89.5 ms)"
    assert cache == "built now: no cache yet (×4)"
    # ranks by the files' order: 1 and 3 are copies of the real rank 1, which sleeps: they
    # arrive last together, and of equals the lower rank is named, every run
    assert straggler.startswith("stragglers: ranks 1, 3 (2 of 4)")
    assert "— rank 1 — holds the others up" in straggler


@pytest.mark.slow
def test_quitting_the_ranks_app_stops_every_load(scaled: tuple[Path, int],
                                                 tmp_path: Path) -> None:
    """q while two big traces load, each in a process of the pool: both loads stop (before,
    the app waited for both to be loaded and cached) and leave nothing behind."""
    trace, _ = scaled
    folder = tmp_path / "run"
    folder.mkdir()
    for rank in (0, 1):
        os.link(trace, folder / f"rank{rank}.json")
    shown = _ranks_app(tmp_path, folder, "quit")
    assert not shown["loaded"] and shown["return_code"] == 0
    assert shown["quit_s"] < 10
    assert list((tmp_path / "cache").iterdir()) == []  # no cache, partial or whole
    assert list((tmp_path / "scratch").iterdir()) == []  # nor the run's scratch folder


def test_many_traces_count_those_from_the_cache_apart(tmp_path: Path) -> None:
    """A trace from the cache is ready at once: it counts as ready, but not in the bytes
    or the rate; the time left shows once a tenth of the bytes is done."""
    cached, small, big = (tmp_path / name for name in ("cached.json", "small.json", "big.json"))
    for path, size in ((cached, 5000), (small, 100), (big, 2900)):
        path.write_bytes(b" " * size)
    progress = TracesProgress([cached, small, big], on_stderr=False)
    assert progress.line() == "0 of 3 traces (7.8 KB to load)"
    progress.one_done(TraceStore(cached, "kineto", {}, from_cache=True))
    assert progress.line() == "1 of 3 traces (2.9 KB to load)"
    progress.one_done(TraceStore(small, "kineto", {}))
    assert re.fullmatch(r"2 of 3 traces, 100 B of 2\.9 KB · [0-9.]+ [KM]?B/s", progress.line())
    progress.one_done(TraceStore(big, "kineto", {}))
    assert re.fullmatch(r"3 of 3 traces, 2\.9 KB of 2\.9 KB · [0-9.]+ [KM]?B/s",
                        progress.line())
    progress.then = "working out the run"  # what follows, said once every trace is ready
    assert progress.line().endswith("B/s · working out the run")
    everything_cached = TracesProgress([cached], on_stderr=False)
    everything_cached.one_done(TraceStore(cached, "kineto", {}, from_cache=True))
    assert everything_cached.line() == "1 of 1 traces, from the cache"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.slow
def test_progress_line_on_a_terminal(scaled: tuple[Path, int], capsys, monkeypatch) -> None:
    trace, kernels = scaled
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(progress_line, "FIRST_AFTER_S", 0.0)
    monkeypatch.setattr(progress_line, "INTERVAL_S", 0.02)
    assert main(["--summary", "--json", "--no-cache", str(trace)]) == 0
    summary = json.loads(capsys.readouterr().out)  # stdout is the JSON alone
    assert sum(k["count"] for k in summary["kernels"]) == kernels
    lines = [line for line in terminal.getvalue().split("\r\x1b[K") if line]
    size = load_progress.size_text(trace.stat().st_size)
    reading = [line for line in lines if " reading " in line]
    assert reading and all(f" of {size} (" in line for line in reading)
    assert any(f"building tables (read {size})" in line for line in lines)
    assert terminal.getvalue().endswith("\r\x1b[K")  # the line is erased at the end


@pytest.mark.slow
def test_a_run_s_progress_line_on_a_terminal(capsys, monkeypatch) -> None:
    """`tui --summary` of several traces: a line at once (a run's first trace may take
    minutes), then one as each trace is ready, erased at the end."""
    ranks = [sample(f"ddp_rank{rank}.pt.trace.json.gz") for rank in (0, 1)]
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["--summary", "--json", "--no-cache", *map(str, ranks)]) == 0
    assert json.loads(capsys.readouterr().out)["straggler"] == 1  # stdout is the JSON alone
    lines = [line for line in terminal.getvalue().split("\r\x1b[K") if line]
    total = size_text(sum(rank.stat().st_size for rank in ranks))
    assert lines[0] == f"tui: 0 of 2 traces ({total} to load)"
    assert [line.split(",")[0] for line in lines[1:]] == ["tui: 1 of 2 traces",
                                                        "tui: 2 of 2 traces"]
    assert lines[2].startswith(f"tui: 2 of 2 traces, {total} of {total} · ")
    assert lines[2].endswith("/s · working out the run")
    assert terminal.getvalue().endswith("\r\x1b[K")  # the line is erased at the end


def test_no_progress_when_not_a_terminal(capsys) -> None:
    assert main(["--summary", "--no-cache", str(sample("multistream.pt.trace.json.gz"))]) == 0
    assert capsys.readouterr().err == ""


def test_meter_reads_the_file_offset(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    trace.write_bytes(b"x" * 4_000_000)
    with load_progress.watch(trace) as meter, open(trace, "rb") as reader:
        load_progress.stage(trace, load_progress.READING)
        reader.seek(1_000_000)
        assert meter.poll().done == 1_000_000 and meter.poll().fraction == 0.25
        load_progress.stage(trace, load_progress.BUILDING)
        now = meter.poll()
        assert (now.done, now.fraction) == (4_000_000, None)
    load_progress.stage(trace, load_progress.READING)  # nobody watches: nothing happens
    assert meter.stage == load_progress.BUILDING


def test_progress_text() -> None:
    now = load_progress.Snapshot("reading", 250 << 20, 1 << 30, 5.0, 50 << 20, 15.5)
    assert now.line() == "reading 250.0 MB of 1.0 GB (24%) · 50.0 MB/s · 16 s left"
    building = load_progress.Snapshot("building tables", 1 << 30, 1 << 30, 31.0, None, None)
    assert building.line() == "building tables (read 1.0 GB) · 31 s"


@pytest.mark.slow
@sync
async def test_app_shows_a_bar_while_loading(tmp_path: Path, monkeypatch) -> None:
    trace = tmp_path / "t.json.gz"
    trace.write_bytes(sample("multistream.pt.trace.json.gz").read_bytes())
    # the load waits until the bar is checked: its own reader of the file would move the
    # furthest offset the bar shows (to the end, once it is read)
    checked = threading.Event()
    opened = app_module.open_trace_or_store

    def open_when_checked(*args, **kwargs):
        checked.wait(30)
        return opened(*args, **kwargs)

    monkeypatch.setattr(app_module, "open_trace_or_store", open_when_checked)
    app = TraceApp(trace, use_cache=False)
    async with app.run_test(size=(120, 30)) as pilot:
        bars = list(app.query(LoadBar))
        assert len(bars) == 1  # mounted before the load's worker runs
        with open(trace, "rb") as reader:  # the bar follows the meter
            reader.seek(trace.stat().st_size // 2)
            bars[0].meter.set_stage(load_progress.READING, None)
            bars[0].refresh_figures()
            assert bars[0].query_one("ProgressBar").percentage == pytest.approx(0.5, abs=0.01)
        checked.set()
        await settle(pilot)
        assert not list(app.query(LoadBar))  # gone once the trace is loaded


def test_ctrl_c_while_the_cache_is_made_is_not_a_cache_that_cannot_be_written(
        monkeypatch, tmp_path: Path) -> None:
    """DuckDB stops a query on Ctrl-C with an InterruptException, a duckdb.Error: taken for
    a cache dir that cannot be written, the load went on in memory and exited 0."""
    def interrupted(*_args):
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")

    monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(trace_module, "_new_database", interrupted)
    with pytest.raises(duckdb.InterruptException):
        trace_module.open_trace(sample("multistream.pt.trace.json.gz"))


@pytest.mark.parametrize("stop", [duckdb.InterruptException("INTERRUPT Error: Interrupted!"),
                                  RuntimeError("Query interrupted")])  # in the main thread
def test_ctrl_c_while_an_nsys_table_is_copied_is_not_a_table_that_cannot_be_read(
        stop: Exception, monkeypatch, tmp_path: Path) -> None:
    """Taken for a table that cannot be read, the kernels would be skipped with a warning
    and the load would go on."""
    def interrupted(*args) -> None:
        raise stop

    monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(nsys_sqlite, "_copy", interrupted)
    with pytest.raises(type(stop)):
        trace_module.open_trace(sample("multistream.sqlite"))
