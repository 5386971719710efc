"""`tui query` and `tui schema`: read-only SQL over a trace and the documented schema."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.helpers.paths import sample
from tui.cli.main import main

TRACE = "gappy_training.sqlite"


def test_query_prints_csv_matching_the_summary(capsys) -> None:
    sql = ("SELECT name, count(*) AS n FROM gpu_activities WHERE kind = 'kernel' "
           "GROUP BY name ORDER BY sum(duration_ns) DESC")
    assert main(["query", str(sample(TRACE)), sql, "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert main(["--summary", "--json", str(sample(TRACE))]) == 0
    kernels = json.loads(capsys.readouterr().out)["kernels"]
    assert [(r["name"], int(r["n"])) for r in rows] == [(k["name"], k["count"]) for k in kernels]


def test_query_json_and_parquet_export(tmp_path: Path, capsys) -> None:
    sql = "SELECT * FROM gpu_idle WHERE duration_ns > 1000000 ORDER BY duration_ns DESC"
    assert main(["query", str(sample(TRACE)), sql, "--json"]) == 0
    gaps = json.loads(capsys.readouterr().out)
    assert len(gaps) == 28 and gaps[0]["duration_ns"] == 4445257952
    out = tmp_path / "gaps.parquet"
    assert main(["query", str(sample(TRACE)), sql, "--output", str(out)]) == 0
    assert pq.read_table(out).num_rows == 28


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("DROP TABLE devices", "DROP statements are not allowed"),
        ("INSERT INTO devices VALUES (9, 'x', 1, 1, '1')", "INSERT statements are not allowed"),
        ("COPY devices TO '/tmp/x.csv'", "COPY statements are not allowed"),
        ("SELECT 1; DROP TABLE devices", "one statement at a time"),
        ("SELEC 1", "syntax error"),
        ("SELECT nope FROM devices", "nope"),
    ],
)
def test_query_is_read_only_and_errors_are_one_line(sql: str, message: str, capsys) -> None:
    assert main(["query", str(sample(TRACE)), sql]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert main(["query", str(sample(TRACE)), "SELECT count(*) AS n FROM devices", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": 1}]


def test_schema_lists_every_table_with_units(capsys) -> None:
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    for table in ("trace_meta", "devices", "gpu_activities", "host_activities", "gpu_idle"):
        assert f"{table}:" in out
    assert "start, ns, in the trace's own clock" in out
