"""`tui export`: checked against the real samples."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from tests.helpers.paths import sample
from tui.cli.main import main

GAPPY = "gappy_training.pt.trace.json.gz"


def summary(capsys: pytest.CaptureFixture[str], name: str) -> dict:
    assert main(["--summary", "--json", str(sample(name))]) == 0
    return json.loads(capsys.readouterr().out)


def test_export_kernels_gaps_instances(tmp_path: Path, capsys) -> None:
    expected = summary(capsys, GAPPY)
    for what, suffix in (("kernels", "csv"), ("gaps", "parquet"), ("instances", "parquet")):
        target = tmp_path / f"{what}.{suffix}"
        assert main(["export", str(sample(GAPPY)), what, "--output", str(target)]) == 0
        assert "wrote" in capsys.readouterr().err
        table = pa_csv.read_csv(target) if suffix == "csv" else pq.read_table(target)
        if what == "kernels":
            assert table.column("name").to_pylist() == [k["name"] for k in expected["kernels"]]
            assert table.column("count").to_pylist() == [k["count"] for k in expected["kernels"]]
        elif what == "gaps":
            assert table.num_rows == len(expected["gaps"])
            assert sorted(table.column("duration_ns").to_pylist()) == sorted(
                g["duration_ns"] for g in expected["gaps"])
        else:
            assert table.num_rows == sum(k["count"] for k in expected["kernels"])


@pytest.mark.slow
def test_export_ncu_verdicts(tmp_path: Path, capsys) -> None:
    expected = summary(capsys, "small_kernels.ncu-rep")
    target = tmp_path / "verdicts.csv"
    assert main(["export", str(sample("small_kernels.ncu-rep")), "ncu", "-o", str(target)]) == 0
    table = pa_csv.read_csv(target)
    assert table.column("verdict").to_pylist() == [k["verdict"] for k in expected["kernels"]]
    assert "grid" in table.column_names and "top_stall" in table.column_names


def test_export_refuses_a_bad_suffix_before_loading(tmp_path: Path, capsys) -> None:
    target = tmp_path / "kernels.xlsx"
    assert main(["export", str(tmp_path / "missing.json"), "kernels", "-o", str(target)]) == 2
    assert "unknown export format" in capsys.readouterr().err
    assert not target.exists()

