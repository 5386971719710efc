"""`tui --summary`: the text and JSON a person or a CI job reads, and bad input."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from tests.helpers.caches import copy_cache_files
from tests.helpers.oracle import chrome_events
from tests.helpers.paths import NSYS_REFERENCE, ROOT, SAMPLES, sample
from tui.cli.main import main


def _run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The installed console entry point, as a user runs it (no terminal attached)."""
    return subprocess.run(
        [sys.executable, "-m", "tui", *args], capture_output=True, text=True,
        env={**os.environ, **(env or {})}, timeout=120,
    )


@pytest.mark.slow
def test_json_contract_on_an_nsys_export(capsys) -> None:
    # what main() prints, in this process: no process of its own (half a CPU-second of
    # imports) for what is no exit status or stream as a shell sees it
    assert main(["--summary", "--json", str(sample("gappy_training.sqlite"))]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["source"]["format"] == "nsys"
    assert summary["devices"] == [{"id": 0, "name": "NVIDIA H100 80GB HBM3",
                                   "busy_ns": summary["devices"][0]["busy_ns"],
                                   "span_ns": summary["devices"][0]["span_ns"]}]
    kernels = summary["kernels"]
    assert len(kernels) == 35 and sum(k["count"] for k in kernels) == 2112
    assert [k["total_ns"] for k in kernels] == sorted((k["total_ns"] for k in kernels),
                                                      reverse=True)
    assert set(kernels[0]) == {"name", "count", "total_ns", "avg_ns", "median_ns", "min_ns",
                               "max_ns", "percent"}
    gaps = summary["gaps"]
    reference = (NSYS_REFERENCE / "gappy_training.gpu_gaps.csv").read_text().splitlines()[1:]
    assert [(g["start_ns"], g["duration_ns"]) for g in gaps] == [
        (int(r.split(",")[2]), int(r.split(",")[1])) for r in reference
    ]
    assert set(gaps[0]) == {"device", "start_ns", "offset_ns", "duration_ns", "before",
                            "after", "cause", "kind"}
    with sqlite3.connect(sample("gappy_training.sqlite")) as db:  # +0: the first GPU activity
        origin = db.execute("SELECT min(s) FROM (SELECT min(start) AS s FROM "
                            "CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT min(start) FROM "
                            "CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT min(start) FROM "
                            "CUPTI_ACTIVITY_KIND_MEMSET)").fetchone()[0]
    assert summary["source"]["origin_ns"] == origin
    assert all(g["offset_ns"] == g["start_ns"] - origin for g in gaps)
    assert {g["kind"] for g in gaps} <= {"sync", "copy", "host-wait", "launch-overhead",
                                         "other"}
    assert summary["warnings"] == []
    findings = summary["findings"]
    assert all(set(f) == {"rule", "severity", "text", "cost_ns", "rows"} for f in findings)
    # most costly first, no cost last: the device's idle time is split by cause in
    # gpu_idle, costed where a finding names the cause (gpu_gaps: waits on the host)
    # (slow_steps: the first step range, warming up, 327 ms beyond a median step)
    assert [f["rule"] for f in findings] == [
        "gpu_gaps", "slow_steps", "gemm_cuda_cores", "top_kernel", "cuda_memcpy_async",
        "launch_overhead", "cuda_api_sync", "gpu_time_util", "gpu_idle"]
    diagnosis = summary["diagnosis"]
    assert list(summary)[:2] == ["source", "diagnosis"]
    # of the window of work, the NVTX range around the loop; the devices, the gaps and
    # the findings stay of the whole capture
    assert diagnosis["bound"] == "host" and diagnosis["text"].startswith(
        "Host-bound in NVTX range `gappy_training`, 652 ms: GPU 0")
    window = diagnosis["window"]
    assert window["kind"] == "range" and window["name"] == "gappy_training"
    assert diagnosis["setup_ns"] == window["start_ns"] - summary["source"]["first_ns"] > 0
    figures, device = diagnosis["figures"], summary["devices"][0]
    assert diagnosis["idle_ns"] == figures["span_ns"] - figures["busy_ns"] == sum(
        diagnosis["idle_by_cause"].values())
    assert figures["span_ns"] < device["span_ns"]
    by_rule = {f["rule"]: f for f in findings}
    assert by_rule["gpu_gaps"]["rows"] == gaps  # every row, no cap
    assert by_rule["cuda_api_sync"]["rows"][0] == {
        "start_ns": by_rule["cuda_api_sync"]["rows"][0]["start_ns"],
        "duration_ns": by_rule["cuda_api_sync"]["rows"][0]["duration_ns"],
        "pid": 1668, "tid": 1668, "api": by_rule["cuda_api_sync"]["rows"][0]["api"],
        "offset_ns": by_rule["cuda_api_sync"]["rows"][0]["start_ns"] - origin}
    assert summary["rules_not_checked"] == {}


def _main(capsys, *args: str) -> str:
    """main() in this process (no process boundary to test): its stdout."""
    assert main(list(args)) == 0
    return capsys.readouterr().out


@pytest.mark.slow
def test_text_prints_each_finding_as_the_json_says_it(capsys) -> None:
    path = str(sample("rules.sqlite"))
    text = " ".join(_main(capsys, "--summary", path).split())
    findings = json.loads(_main(capsys, "--summary", "--json", path))["findings"]
    assert len(findings) == 9
    for finding in findings:
        assert " ".join(finding["text"].split()) in text
        count = len(finding["rows"])
        assert f"{count:,} row{'s' if count != 1 else ''}: " in text


@pytest.mark.slow
def test_min_gap_ms_changes_the_gap_list(capsys) -> None:
    out = _main(capsys, "--summary", "--json", "--min-gap-ms", "0.5",
                str(sample("gappy_training.pt.trace.json.gz")))
    gaps = json.loads(out)["gaps"]
    assert all(g["duration_ns"] > 500_000 for g in gaps)
    assert len(gaps) > 10  # 10 gaps are over 1 ms


@pytest.mark.slow
def test_text_summary_names_the_findings() -> None:
    result = _run("--summary", str(sample("gappy_training.pt.trace.json.gz")))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "NVIDIA H100 80GB HBM3" in out
    assert "GPU-idle gaps over 1 ms: 10" in out
    assert "GPU 0 idle 64%" in out
    assert "pageable host memory" in out
    assert "\x1b[" not in out  # a pipe gets no colour codes


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.json", "no such file"),
        (lambda d: d, "is a directory"),
        (lambda d: _write(d / "empty.json", b""), "empty"),
        (lambda d: _write(d / "notes.txt", b"hello world"), "unknown format"),
        (lambda d: _write(d / "x.json", b'{"foo": 1}'), "no \"traceEvents\""),
        (lambda d: _write(d / "x.json", b'{"traceEvents": [{"ph": "X", "na'), "cut off"),
        (lambda d: _write(d / "x.json.gz", b"\x1f\x8b\x08\x00garbage"), "damaged"),
        (lambda d: _write(d / "x.sqlite", _sqlite_without_nsys_tables(d)),
         "not an Nsight Systems export"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, make, message: str, capsys) -> None:
    """main() as the entry point runs it (a real process's exit status and stderr for bad
    input: tests/sources/test_bad_input.py::test_as_a_subprocess)."""
    path = make(tmp_path)
    assert main(["--summary", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert message in err


@pytest.mark.slow
def test_nsys_rep_without_nsys_says_which_command_to_run(tmp_path: Path) -> None:
    rep = ROOT.parent / "shared/traces/nsys/multistream.nsys-rep"
    if not rep.is_file():
        pytest.skip("../shared/traces is not beside this checkout")
    copy = tmp_path / "multistream.nsys-rep"
    copy.write_bytes(rep.read_bytes())
    result = _run("--summary", str(copy), env={"PATH": "/nonexistent"})
    assert result.returncode == 2
    assert "nsys export --type sqlite" in result.stderr


def test_second_open_comes_from_the_cache(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    path = sample("tuned_training.pt.trace.json.gz")
    assert main(["--summary", "--json", str(path)]) == 0
    first = json.loads(capsys.readouterr().out)

    def no_loading(*_args, **_kwargs):
        raise AssertionError("the trace was loaded again")

    monkeypatch.setattr("tui.sources.kineto.load_kineto", no_loading)
    assert main(["--summary", "--json", str(path)]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["source"]["from_cache"] is True
    assert first["kernels"] == second["kernels"] and first["gaps"] == second["gaps"]


@pytest.mark.slow
def test_a_changed_trace_is_loaded_again(tmp_path: Path, capsys) -> None:
    path = tmp_path / "t.json.gz"
    path.write_bytes(sample("cuda_graphs.pt.trace.json.gz").read_bytes())
    main(["--summary", "--json", str(path)])
    capsys.readouterr()
    path.write_bytes(sample("multistream.pt.trace.json.gz").read_bytes())
    main(["--summary", "--json", str(path)])
    summary = json.loads(capsys.readouterr().out)
    assert summary["source"]["from_cache"] is False
    assert sum(k["count"] for k in summary["kernels"]) == 45


def test_no_cache_writes_nothing(private_cache: Path, capsys) -> None:
    before = set(private_cache.glob("*")) if private_cache.exists() else set()
    assert main(["--summary", "--no-cache", str(sample("cuda_graphs.pt.trace.json.gz"))]) == 0
    after = set(private_cache.glob("*")) if private_cache.exists() else set()
    assert after == before


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _sqlite_without_nsys_tables(directory: Path) -> bytes:
    import sqlite3

    db = directory / "other.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE people (name TEXT)")
    con.commit()
    con.close()
    return db.read_bytes()


def test_text_summary_prints_gap_starts_as_offsets(capsys) -> None:
    path = sample("gappy_training.pt.trace.json.gz")
    events = [e for e in chrome_events(path)
              if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    origin_us = min(Decimal(e["ts"]) for e in events)
    assert main(["--summary", "--json", str(path)]) == 0
    longest = json.loads(capsys.readouterr().out)["gaps"][0]
    assert main(["--summary", str(path)]) == 0
    out = capsys.readouterr().out
    offset_ms = (Decimal(longest["start_ns"]) / 1000 - origin_us) / 1000
    assert f"+{offset_ms:.3f} ms" in out  # +138.555 ms, as the app's Gaps tab
    assert str(longest["start_ns"]) not in out  # no 16-digit absolute times


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--summary"], ["--summary", "--json"]])
def test_output_whose_reader_has_gone_ends_quietly(tmp_path: Path, shared_cache: Path,
                                                   args: list[str]) -> None:
    """`tui --summary TRACE | head`: once the reader has gone, tui ends quietly, with the
    status of a command that SIGPIPE ended (141), whether it computed the summary or
    copied the stored one; a summary cut short is not stored, and a stored one is not
    reported damaged."""
    trace = sample("backtraces_training.sqlite")
    # the trace's cache file from the run's (no summary stored beside it): the first run
    # computes the summary without loading the trace cold again
    copy_cache_files([trace], shared_cache, tmp_path)
    env = {**os.environ, "TUI_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "tui", *args, str(trace)]

    def run(read: bool) -> tuple[int, bytes, bytes]:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env)
        assert proc.stdout is not None and proc.stderr is not None
        out = proc.stdout.read() if read else b""
        proc.stdout.close()  # before a byte is read: every write of tui's fails
        err = proc.stderr.read()
        return proc.wait(timeout=120), out, err

    as_json = "--json" in args
    assert run(read=False)[::2] == (141, b"")  # computed, cut short
    # the JSON is stored as it is written out, so a cut one is not; the text is printed
    # from a summary stored whole before
    assert bool(list(tmp_path.glob("*.summary-*"))) is not as_json
    rc, out, _ = run(read=True)
    assert rc == 0 and list(tmp_path.glob("*.summary-*"))
    assert run(read=False)[::2] == (141, b"")  # the stored summary, cut short
    rc, again, err = run(read=True)
    assert rc == 0 and err == b""
    if as_json:  # the same, but for where it came from
        assert ({**json.loads(again), "source": None} == {**json.loads(out), "source": None}
                and json.loads(out)["findings"])
    else:
        assert again.splitlines()[2:] == out.splitlines()[2:] and b"GPUs" in out


def test_a_folder_of_profiler_cycles_is_summed_up_as_its_newest_cycle(capsys) -> None:
    """tensorboard_trace_handler's folder of one process's two cycles: the newest cycle's
    steps (11-13, as the file holds them), not two ranks; the choice said on stderr."""
    newest = sorted((SAMPLES / "profiler_cycles").glob("*.gz"))[-1]
    steps = sorted({e["name"] for e in chrome_events(newest)
                    if str(e.get("name", "")).startswith("ProfilerStep#")})
    assert steps == ["ProfilerStep#11", "ProfilerStep#12", "ProfilerStep#13"]
    assert main(["--summary", str(SAMPLES / "profiler_cycles")]) == 0
    out, err = capsys.readouterr()
    assert "in 3 profiler steps (ProfilerStep#11 … ProfilerStep#13)" in out
    assert "ranks" not in out.splitlines()[0]
    assert "2 profiling cycles of one process (vm_728)" in err


def test_a_folder_of_ranks_profiler_cycles_is_the_run_of_their_newest(capsys) -> None:
    """Two DDP ranks' cycles (tensorboard_trace_handler, gzipped): the run is each rank's
    newest cycle, ranked by its distributedInfo, the rank that sleeps before each step
    the straggler."""
    folder = SAMPLES / "profiler_cycles_ddp"
    newest = sorted(folder.glob("vm_769.*.gz"))[-1]
    with gzip.open(newest, "rt") as f:
        assert json.load(f)["distributedInfo"]["rank"] == 1
    assert main(["--summary", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert "(kineto, 2 ranks of 2)" in out.splitlines()[0]
    assert "The run waits for its straggler, rank 1" in out
    assert "in 3 profiler steps (ProfilerStep#11 … ProfilerStep#13)" in out
    assert "profiling cycles of 2 processes, up to 2 each" in err
