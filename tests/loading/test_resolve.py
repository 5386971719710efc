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
