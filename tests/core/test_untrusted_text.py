"""Names inside a trace are untrusted: Rich markup, ANSI/OSC escapes and control characters
in them are shown literally in `--summary` (text and JSON), `tui query` output and
exports — never interpreted by Rich or by the terminal.

The traces here are GENERATED from the real samples: their kernel, range, device and rank
names are replaced by hostile ones.
"""

from __future__ import annotations

import csv
import gzip
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.helpers.paths import sample
from tui.cli.main import main
from tui.core.safe_text import printable

HOSTILE = [
    "[bold red]boom[/bold red]",
    "[link=https://evil.example/]click me[/link]",
    "\x1b[31mred\x1b[0m text",
    "\x1b]0;pwned title\x07",
    "\x1b]8;;https://evil.example/\x1b\\hyperlink\x1b]8;;\x1b\\",
    "\x9b2J c1 control",
    "bell\x07 back\x08 del\x7f",
    "new\nline\ttab\rreturn",
    "'); DROP TABLE gpu_activities; --",
]
# Raw control characters: C0 and C1, DEL (tab and newline are layout, checked separately)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def hostile_trace(tmp_path: Path) -> Path:
    """Generated: the real multistream sample with hostile names everywhere."""
    doc = json.loads(gzip.decompress(sample("multistream.pt.trace.json.gz").read_bytes()))
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    for i, event in enumerate(kernels):
        event["name"] = HOSTILE[i % len(HOSTILE)]
    for event in doc["traceEvents"]:
        if event.get("cat") == "user_annotation":
            event["name"] = "[red]step[/red]\x1b]0;x\x07"
    doc["deviceProperties"][0]["name"] = "[blink]H100[/blink]\x1b[5m"
    doc["distributedInfo"] = {"rank": "[bold]0[/bold]\x1b[2J",
                              "world_size": "[link=https://evil.example/]2[/link]"}
    path = tmp_path / "hostile[bold]name[red].json"
    path.write_text(json.dumps(doc))
    return path


def _no_raw_controls(text: str) -> None:
    found = CONTROL.search(text)
    assert found is None, f"raw control character {found.group()!r} in output"


def test_summary_text_shows_names_literally(hostile_trace: Path, capsys) -> None:
    assert main(["--summary", str(hostile_trace)]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    for name in HOSTILE:
        assert printable(name) in out, name
    assert "[blink]H100[/blink]\\x1b[5m" in out
    assert "rank [bold]0[/bold]\\x1b[2J of [link=https://evil.example/]2[/link]" in out
    assert "hostile[bold]name[red].json" in out


def test_summary_on_a_terminal_emits_only_colour_codes(hostile_trace: Path, monkeypatch,
                                                        capsys) -> None:
    """With Rich forced to treat stdout as a terminal, the only escape sequences in the
    output are its own colours: no OSC (titles, hyperlinks), no bell, no cursor moves."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["--summary", str(hostile_trace)]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" in out  # styled: this really was the terminal path
    assert re.findall(r"\x1b\[[0-9;]*[^0-9;m]|\x1b[^\[]", out) == []
    _no_raw_controls(re.sub(r"\x1b\[[0-9;]*m", "", out))
    for name in HOSTILE:
        assert printable(name) in re.sub(r"\x1b\[[0-9;]*m", "", out), name


def test_summary_json_keeps_names_exactly_and_escaped(hostile_trace: Path, capsys) -> None:
    assert main(["--summary", "--json", str(hostile_trace)]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    assert "\t" not in out and out.count("\n") == 1
    summary = json.loads(out)
    assert {k["name"] for k in summary["kernels"]} == set(HOSTILE)
    assert summary["source"]["rank"] == "[bold]0[/bold]\x1b[2J"


SQL = "SELECT name, count(*) AS n FROM gpu_activities WHERE kind = 'kernel' GROUP BY name"


def test_query_table_and_csv_show_names_literally(hostile_trace: Path, capsys) -> None:
    assert main(["query", str(hostile_trace), SQL + " ORDER BY name"]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    for name in HOSTILE:
        assert printable(name) in out, name
    assert main(["query", str(hostile_trace), SQL, "--csv"]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    names = {row["name"] for row in csv.DictReader(out.splitlines())}
    assert names == {printable(n) for n in HOSTILE}


def test_query_json_and_exported_files_keep_names_exactly(hostile_trace: Path, tmp_path: Path,
                                                          capsys) -> None:
    assert main(["query", str(hostile_trace), SQL, "--json"]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    assert {r["name"] for r in json.loads(out)} == set(HOSTILE)
    for suffix in ("parquet", "json", "csv"):
        target = tmp_path / f"export.{suffix}"
        assert main(["query", str(hostile_trace), SQL, "--output", str(target)]) == 0
        if suffix == "parquet":
            names = set(pq.read_table(target).column("name").to_pylist())
        elif suffix == "json":
            names = {r["name"] for r in json.loads(target.read_text())}
        else:
            with open(target, newline="") as f:
                names = {r["name"] for r in csv.DictReader(f)}
        assert names == set(HOSTILE), suffix  # a file keeps every byte of the data
    capsys.readouterr()


def test_user_sql_with_hostile_text_is_just_a_value(hostile_trace: Path, capsys) -> None:
    """The name that looks like SQL injection was stored as data: the table is intact."""
    assert main(["query", str(hostile_trace),
                 "SELECT count(*) AS n FROM gpu_activities WHERE name LIKE '%DROP TABLE%'",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": 5}]


def test_nsys_names_are_shown_literally(tmp_path: Path, capsys) -> None:
    """Generated: the real nsys export with its kernel and NVTX strings made hostile."""
    path = tmp_path / "hostile.sqlite"
    shutil.copy(sample("gappy_training.sqlite"), path)
    path.chmod(0o644)
    db = sqlite3.connect(path)
    ids = [r[0] for r in db.execute(
        "SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL")]
    for i, string_id in enumerate(ids):
        db.execute("UPDATE StringIds SET value = ? WHERE id = ?",
                   (HOSTILE[i % len(HOSTILE)] + f" #{i}", string_id))
    db.execute("UPDATE TARGET_INFO_GPU SET name = ?", ("\x1b]0;gpu\x07[i]GPU[/i]",))
    db.commit()
    db.close()
    assert main(["--summary", str(path)]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    assert "\\x1b]0;gpu\\x07[i]GPU[/i]" in out
    assert "[link=https://evil.example/]click me[/link]" in out
