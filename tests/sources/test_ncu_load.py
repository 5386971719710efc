"""Loading Nsight Compute inputs: the three forms agree, rules keep their speedups, bad
input fails with one clear exception type."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb
import pytest

from tests.helpers.ncu_inputs import FORMS, loaded, ncu_input
from tests.helpers.paths import SAMPLES
from tui.sources.ncu.load import NcuInputError, detect_format, is_ncu_input, load_ncu
from tui.sources.ncu.parsed import KERNEL_COLUMNS, METRIC_COLUMNS, RULE_COLUMNS

STEMS = ("small_kernels", "kernels")
KERNEL_QUERY = """SELECT launch_id, short_name, grid_x, grid_y, grid_z, block_x, block_y,
    block_z, registers_per_thread, shared_memory_bytes, duration_ns, device, context, stream
    FROM ncu_kernels ORDER BY launch_id"""


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_three_forms_give_the_same_launches(stem: str) -> None:
    rows = {form: loaded(stem, form).execute(KERNEL_QUERY).fetchall() for form in FORMS}
    rep = rows["ncu-rep"]
    assert len(rep) == (5 if stem == "small_kernels" else 9)
    for form in ("details.csv", "raw.csv"):
        assert len(rows[form]) == len(rep)
        for a, b in zip(rep, rows[form], strict=True):
            assert a[:9] == b[:9], form  # ids, names, launch configuration, registers
            assert a[11:] == b[11:], form  # device, context, stream
            # The details page prints scaled values ("61.82 us", "4.10 Kbyte/block"):
            # shared memory and duration keep 3-4 significant digits there.
            assert b[9:11] == pytest.approx(a[9:11], rel=2e-3), form


def test_small_kernels_are_kernels_cu_in_launch_order() -> None:
    con = loaded("small_kernels", "ncu-rep")
    names = [r[0] for r in con.execute(
        "SELECT short_name FROM ncu_kernels ORDER BY launch_id").fetchall()]
    assert names == ["saxpy", "naive_sgemm", "strided_read", "transpose_bank_conflicts",
                     "tiny_grid"]
    mangled, duration, grid = con.execute(
        "SELECT mangled_name, duration_ns, [grid_x, grid_y, block_x, block_y] "
        "FROM ncu_kernels WHERE launch_id = 1").fetchall()[0]
    assert mangled.startswith("_Z11naive_sgemm")
    assert duration == 549_824  # gpu__time_duration.sum, ns
    assert grid == [64, 64, 16, 16]  # dim3(m / 16, m / 16), dim3(16, 16) with m = 1024


def test_values_are_in_base_units_whatever_the_page_printed() -> None:
    # The raw page prints "61.824000 us" and "2.957540 Tbyte/s"; the report stores ns, byte/s.
    for form in ("ncu-rep", "raw.csv"):
        con = loaded("small_kernels", form)
        got = dict(con.execute(
            "SELECT name, [value] || [0] FROM ncu_metrics WHERE launch_id = 0 AND name IN "
            "('gpu__time_duration.sum', 'dram__bytes.sum.per_second')").fetchall())
        assert got["gpu__time_duration.sum"][0] == pytest.approx(61_824)
        assert got["dram__bytes.sum.per_second"][0] == pytest.approx(2.9575e12, rel=1e-3)
        units = dict(con.execute("SELECT name, unit FROM ncu_metrics WHERE launch_id = 0 AND "
                                 "name = 'gpu__time_duration.sum'").fetchall())
        assert units == {"gpu__time_duration.sum": "ns"}


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_rule_rows_are_loaded_with_their_speedups(stem: str) -> None:
    query = ("SELECT launch_id, rule, type, coalesce(speedup_type, ''), "
             "coalesce(speedup_pct, -1) FROM ncu_rules ORDER BY ALL")
    from_csv = loaded(stem, "details.csv").execute(query).fetchall()
    from_rep = loaded(stem, "ncu-rep").execute(query).fetchall()
    # Against the CSV file read independently: every rule row, with its speedup.
    with open(ncu_input(stem, "details.csv"), newline="") as f:
        expected = sorted((int(r["ID"]), r["Rule Name"], r["Rule Type"],
                           r["Estimated Speedup Type"],
                           float(r["Estimated Speedup"] or -1))
                          for r in csv.DictReader(f) if r["Rule Name"])
    assert from_csv == expected
    assert sum(1 for r in expected if r[4] > 0) > len(expected) / 2
    # The report holds the same findings; the CSV rounds speedups to 4 digits.
    assert [r[:4] for r in from_rep] == [r[:4] for r in from_csv]
    assert [r[4] for r in from_rep] == pytest.approx([r[4] for r in from_csv], rel=1e-3)
    # The raw page has no rule rows, and must not invent any.
    assert loaded(stem, "raw.csv").execute(query).fetchall() == []


def test_rule_text_from_the_report_reads_like_the_csv() -> None:
    query = ("SELECT description FROM ncu_rules WHERE launch_id = 4 AND rule = 'SOLBottleneck'")
    rep = loaded("small_kernels", "ncu-rep").execute(query).fetchall()
    assert rep == loaded("small_kernels", "details.csv").execute(query).fetchall()
    assert "@section" not in rep[0][0] and "too small to fill" in rep[0][0]


def test_tables_have_the_columns_the_readers_fill() -> None:
    con = loaded("small_kernels", "raw.csv")
    for table, columns in (("ncu_kernels", KERNEL_COLUMNS), ("ncu_metrics", METRIC_COLUMNS),
                           ("ncu_rules", RULE_COLUMNS)):
        assert tuple(con.table(table).columns) == columns


def test_loading_again_replaces_the_earlier_report() -> None:
    con = loaded("small_kernels", "details.csv")
    warnings = load_ncu(ncu_input("small_kernels", "raw.csv"), con)
    assert any("replaced the 5" in w for w in warnings)
    assert con.execute("SELECT count(*), count(DISTINCT launch_id) FROM ncu_kernels").fetchone() \
        == (5, 5)
    assert con.execute("SELECT value FROM ncu_meta WHERE key = 'format'").fetchone() == (
        "ncu-raw-csv",)


@pytest.mark.parametrize("form,expected", [("ncu-rep", "ncu-rep"),
                                           ("details.csv", "ncu-details-csv"),
                                           ("raw.csv", "ncu-raw-csv")])
def test_input_form_is_told_by_content_not_name(tmp_path: Path, form: str, expected: str) -> None:
    renamed = tmp_path / "no_extension"
    renamed.write_bytes(ncu_input("small_kernels", form).read_bytes())
    assert detect_format(renamed) == expected and is_ncu_input(renamed)


def test_other_files_are_not_ncu_input(tmp_path: Path) -> None:
    trace = SAMPLES / "multistream.sqlite"
    text = tmp_path / "notes.csv"
    text.write_text("name,value\na,1\n")
    for path in (trace, text, tmp_path / "missing.ncu-rep", tmp_path):
        assert not is_ncu_input(path)


def _damaged(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_bad_input_raises_ncu_input_error(tmp_path: Path) -> None:
    report = ncu_input("small_kernels", "ncu-rep").read_bytes()
    header = ncu_input("small_kernels", "details.csv").read_text().splitlines()[0]
    cases = {
        "header only, rest lost": _damaged(tmp_path, "a.ncu-rep", report[:100_000]),
        "magic bytes then junk": _damaged(tmp_path, "b.ncu-rep", b"NVR\x00" + b"\xff" * 5000),
        "a CSV that is not ncu's": _damaged(tmp_path, "c.csv", b"name,value\na,1\n"),
        "ncu CSV header, no rows": _damaged(tmp_path, "d.csv", (header + "\n").encode()),
        "binary junk": _damaged(tmp_path, "e.bin", bytes(range(256)) * 10),
        "missing file": tmp_path / "missing.ncu-rep",
    }
    for what, path in cases.items():
        with pytest.raises(NcuInputError) as err:
            load_ncu(path, duckdb.connect())
        assert str(path) in str(err.value), what
        assert len(str(err.value)) > 40, what  # says what to do, not just "bad file"


def test_truncated_report_keeps_what_is_readable(tmp_path: Path) -> None:
    report = ncu_input("small_kernels", "ncu-rep").read_bytes()
    path = _damaged(tmp_path, "cut.ncu-rep", report[: len(report) * 9 // 10])
    con = duckdb.connect()
    warnings = load_ncu(path, con)
    assert any("unreadable" in w for w in warnings)
    assert 0 < con.execute("SELECT count(*) FROM ncu_kernels").fetchall()[0][0] < 5


def test_damaged_csv_rows_are_skipped_with_a_warning(tmp_path: Path) -> None:
    lines = ncu_input("small_kernels", "raw.csv").read_text().splitlines()
    path = _damaged(tmp_path, "raw.csv", "\n".join([*lines, lines[-1] + ',"x","y"']).encode())
    con = duckdb.connect()
    warnings = load_ncu(path, con)
    assert any("malformed" in w for w in warnings)
    assert con.execute("SELECT count(*) FROM ncu_kernels").fetchone() == (5,)


def test_csv_captured_from_a_live_ncu_run_loads(tmp_path: Path) -> None:
    # `ncu --csv ./app > out.csv 2>&1` puts ncu's messages and the app's output first.
    text = ncu_input("small_kernels", "details.csv").read_text()
    path = tmp_path / "live.csv"
    path.write_text("==PROF== Connected to process 607 (kernels)\ndone: no error\n"
                    "==PROF== Disconnected from process 607\n" + text)
    con = duckdb.connect()
    assert load_ncu(path, con) == []
    assert con.execute("SELECT count(*) FROM ncu_kernels").fetchall() == [(5,)]


def test_loading_inside_the_callers_transaction() -> None:
    con = duckdb.connect()
    con.begin()
    load_ncu(ncu_input("small_kernels", "raw.csv"), con)
    con.commit()
    assert con.execute("SELECT count(*) FROM ncu_kernels").fetchall() == [(5,)]


def test_a_report_of_ncu_s_default_sections_is_read_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bert_default.ncu-rep.gz: `ncu` with no section set named (its default, what
    `ncu -o REPORT python3 train.py` collects: launch statistics, occupancy, speed of
    light, workload distribution) on the first 10 matching kernels of BERT's training
    steps. Every rule row of every launch is NVIDIA's details page's
    (tests/data/ncu_advice/bert_default.details.csv.gz), with its speedup, and each launch
    gets a verdict, the sections the report lacks (memory workload, source) unasked."""
    import json

    from tests.helpers.ncu_inputs import inflated_report, nvidia_page
    from tui.cli.main import main

    header, *rows = nvidia_page("bert_default", "details")
    # a metric's row stops before the rule fields
    details = [dict(zip(header, row, strict=False)) for row in rows]
    assert {r["Section Name"] for r in details} >= {"SpeedOfLight", "Occupancy", "LaunchStats"}
    assert not any("MemoryWorkload" in r["Section Name"] for r in details)
    expected = sorted((int(r["ID"]), r["Rule Name"], r["Rule Type"],
                       round(float(r["Estimated Speedup"] or -1), 1))
                      for r in details if r.get("Rule Name"))
    assert main(["--summary", "--json", str(inflated_report("bert_default", tmp_path))]) == 0
    kernels = json.loads(capsys.readouterr().out)["kernels"]
    assert len(kernels) == 10 and all(k["verdict"] for k in kernels)
    read = sorted((k["launch_id"], r["rule"], r["type"], round(r["speedup_pct"] or -1, 1))
                  for k in kernels for r in k["nvidia_rules"])
    assert read == expected
