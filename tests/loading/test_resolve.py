"""What a command line's paths are (tui/loading/resolve.py), on the real sample traces."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLES, sample
from tui.core.errors import TraceError
from tui.core.samples import DEFAULT_SAMPLE
from tui.loading.resolve import resolve


@pytest.mark.parametrize(("name", "kind", "trace_format"), [
    ("gappy_training.pt.trace.json.gz", "trace", "kineto"),
    ("gappy_training.sqlite", "trace", "nsys-sqlite"),
    ("small_kernels.ncu-rep", "ncu", "ncu-rep"),
    ("small_kernels.details.csv", "ncu", "ncu-csv"),
    ("small_kernels.raw.csv", "ncu", "ncu-csv"),
])
def test_one_file_is_a_trace_or_a_report_by_its_content(name: str, kind: str,
                                                         trace_format: str) -> None:
    target = resolve([sample(name)])
    assert (target.kind, target.format, target.paths) == (kind, trace_format, (sample(name),))


def test_no_path_is_the_bundled_sample() -> None:
    target = resolve([])
    assert (target.kind, target.path.name, target.format) == ("trace", DEFAULT_SAMPLE, "kineto")


def test_several_files_or_a_folder_are_the_ranks_of_a_run() -> None:
    ranks = [sample("ddp_rank0.pt.trace.json.gz"), sample("ddp_rank1.pt.trace.json.gz")]
    assert resolve(ranks).kind == "run"
    assert resolve(ranks).paths == tuple(ranks)
    assert resolve([SAMPLES / "ddp4"]).kind == "run"


def test_a_logdir_is_its_newest_run_said_in_a_note() -> None:
    target = resolve([SAMPLES / "jax_dp"])
    run = SAMPLES / "jax_dp" / "plugins" / "profile" / "2026_11_27_05_46_00"
    assert target.kind == "run"  # one process over four GPUs: a rank each
    assert target.path == run / "vm.trace.json.gz"
    assert target.format == "xla"
    assert target.note is not None and "2026_11_27_05_46_00" in target.note
    assert resolve([SAMPLES / "jax_dp"], run="2026_11_27_05_46_00").path == target.path


def test_a_store_tui_convert_wrote_is_a_store(tmp_path: Path) -> None:
    from tui.cli.main import main

    out = tmp_path / "stores"
    assert main(["convert", str(sample("ddp_rank0.pt.trace.json.gz")), "--out", str(out),
                 "--no-cache"]) == 0
    (store,) = out.iterdir()
    assert resolve([store]).kind == "store"


def test_bad_input_is_one_line_before_anything_loads(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a trace\n")
    with pytest.raises(TraceError, match="unknown format"):
        resolve([text])
    with pytest.raises(TraceError, match="no such file"):
        resolve([tmp_path / "missing.json"])
    with pytest.raises(TraceError, match="--run goes with"):
        resolve([sample("gappy_training.pt.trace.json.gz")], run="x")


CYCLES = SAMPLES / "profiler_cycles"  # two cycles of one process, as the handler named them


def test_a_folder_of_one_process_s_profiler_cycles_is_its_newest_cycle() -> None:
    first, newest = sorted(CYCLES.glob("*.pt.trace.json.gz"))
    target = resolve([CYCLES])
    assert (target.kind, target.format, target.paths) == ("trace", "kineto", (newest,))
    assert target.note is not None
    assert "2 profiling cycles of one process (vm_728)" in target.note
    assert newest.name in target.note and first.name not in target.note


def test_several_processes_cycles_are_a_run_of_each_one_s_newest() -> None:
    folder = SAMPLES / "profiler_cycles_ddp"  # two DDP ranks' two cycles each
    target = resolve([folder])
    assert target.kind == "run"
    assert [p.name for p in target.paths] == ["vm_768.1796020799735324790.pt.trace.json.gz",
                                              "vm_769.1796020799735616716.pt.trace.json.gz"]
    assert target.note is not None and "2 processes, up to 2 each" in target.note


def test_the_handler_s_files_one_a_process_are_the_ranks_as_they_are(tmp_path: Path) -> None:
    newest = sorted(CYCLES.glob("*.gz"))[-1]
    for worker in ("vm_728", "vm_729"):
        (tmp_path / newest.name.replace("vm_728", worker)).write_bytes(newest.read_bytes())
    target = resolve([tmp_path])
    assert (target.kind, target.paths, target.note) == ("run", (tmp_path,), None)
