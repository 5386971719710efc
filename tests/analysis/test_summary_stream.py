"""A summary's big row lists stay compact (RowSets) and are written out a piece at a time:
the text must be what json.dumps of the plain lists gives, the rows what the rules'
queries return, and a stored summary is copied out without being decoded."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.helpers.paths import sample
from tui.analysis.gaps import explained_gaps
from tui.analysis.row_sets import CHUNK_ROWS, ArrowRows, GapRows, RowSet
from tui.analysis.summary import trace_summary
from tui.cli.main import main
from tui.core.db import connect
from tui.core.queries import load_query
from tui.loading.trace import open_trace
from tui.views.reports.json_stream import iter_json


def _plain(value):
    """`value` with every RowSet made a list of dicts."""
    if isinstance(value, RowSet):
        return [dict(row) for row in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sync_habits.sqlite", "gappy_then_tuned.sqlite",
                                  "stacks_training.pt.trace.json.gz",
                                  "jax_train/plugins/profile/2026_11_24_13_14_53/vm.xplane.pb"])
def test_streamed_json_is_what_json_dumps_writes(name: str) -> None:
    with open_trace(sample(name)) as trace:
        summary = trace_summary(trace, 100_000)
    text = "".join(iter_json(summary))
    assert text == json.dumps(_plain(summary))
    assert json.loads(text)["source"]["format"]
    # the gaps are RowSets, and every one has its offset from the trace's +0
    assert isinstance(summary["gaps"], GapRows) and len(summary["gaps"]) > 0
    origin = summary["source"]["origin_ns"]
    assert all(g["offset_ns"] == g["start_ns"] - origin for g in summary["gaps"])
    gaps_rule = next(f for f in summary["findings"] if f["rule"] == "gpu_gaps")
    assert gaps_rule["rows"] == list(summary["gaps"])


def test_rule_rows_are_the_rule_query_rows() -> None:
    """ArrowRows give the values DuckDB's own rows give, in the rule's order."""
    with open_trace(sample("sync_habits.sqlite")) as trace:
        con = trace.con
        rows = ArrowRows.of_query(con, load_query("rule_cuda_api_sync"))
        cursor = con.execute(load_query("rule_cuda_api_sync"))
        columns = [d[0] for d in cursor.description]
        expected = [dict(zip(columns, r, strict=True)) for r in cursor.fetchall()]
    assert len(rows) == len(expected) == 32  # as test_nsys_rules checks against nsys
    assert list(rows) == expected and rows == expected
    assert rows.column("duration_ns") == [r["duration_ns"] for r in expected]


def test_a_row_set_reads_like_a_list_across_chunks() -> None:
    con = connect()
    rows = ArrowRows.of_query(con, "SELECT range AS start_ns, range * 2 AS duration_ns "
                                   "FROM range(10) ORDER BY range")
    plain = [{"start_ns": i, "duration_ns": 2 * i} for i in range(10)]
    assert len(rows) == 10 and rows[0] == plain[0] and rows[-1] == plain[-1]
    assert rows[3:7] == plain[3:7] and rows[::4] == plain[::4] and rows[8:100] == plain[8:]
    assert [r for chunk in rows.chunks(3) for r in chunk] == plain
    with pytest.raises(IndexError):
        rows[10]
    shifted = rows.with_offsets(5)
    assert [r["offset_ns"] for r in shifted] == [i - 5 for i in range(10)]
    assert "offset_ns" not in rows[0]  # the rows it came from are as they were
    assert "".join(iter_json(shifted)) == json.dumps(list(shifted))
    assert "".join(iter_json(ArrowRows.of_query(con, "SELECT 1 AS a WHERE false"))) == "[]"
    many = ArrowRows.of_query(con, "SELECT range AS start_ns, 'x' || range AS api "
                                   "FROM range(20000) ORDER BY range", None).with_offsets(7)
    assert len(many) > 2 * CHUNK_ROWS  # written in three chunks
    assert "".join(iter_json(many)) == json.dumps(
        [{"start_ns": i, "api": f"x{i}", "offset_ns": i - 7} for i in range(20000)])


def test_gap_rows_are_the_gaps() -> None:
    with open_trace(sample("gappy_training.sqlite")) as trace:
        gaps = explained_gaps(trace.con, 1_000_000)
    rows = GapRows(gaps, origin=0)
    assert len(rows) == len(gaps) > 0
    assert rows[0] == {**gaps[0].as_dict(), "offset_ns": gaps[0].start_ns}


def test_the_summary_gives_duckdb_a_smaller_share_meanwhile(monkeypatch) -> None:
    """Of a trace that is not small (a small one keeps DuckDB's whole part:
    tests/loading/test_small_trace_shares.py)."""
    import tui.analysis.summary as summary_module
    import tui.loading.trace

    monkeypatch.setattr(tui.loading.trace, "ONE_THREAD_BYTES", 0)

    seen = []
    real = summary_module.device_busy

    def spying(con):
        seen.append(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        return real(con)

    monkeypatch.setenv("TUI_MEMORY", "1GB")
    monkeypatch.setattr(summary_module, "device_busy", spying)
    with open_trace(sample("gappy_training.sqlite"), use_cache=False) as trace:
        before = trace.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        trace_summary(trace, 1_000_000)
        after = trace.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    assert seen[0] in ("286.1 MiB", "300.0 MB")  # 30% of the budget
    assert before == after and after in ("667.5 MiB", "700.0 MB")


@pytest.mark.slow
def test_a_warm_json_summary_is_copied_from_the_memo_undecoded(
        tmp_path: Path, monkeypatch, capsys) -> None:
    import tui.analysis.summary_memo
    import tui.loading.trace

    monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path / "cache"))
    trace = str(sample("gappy_then_tuned.sqlite"))
    assert main(["--summary", "--json", trace]) == 0
    cold = capsys.readouterr().out

    def refused(*_args, **_kwargs):
        raise AssertionError("decoded or computed again")

    with monkeypatch.context() as patch:
        patch.setattr(tui.loading.trace, "open_trace", refused)
        patch.setattr(tui.analysis.summary_memo, "read_memo", refused)
        assert main(["--summary", "--json", trace]) == 0
    warm = capsys.readouterr().out
    assert warm.endswith("}\n") and warm != cold
    cold_summary, warm_summary = json.loads(cold), json.loads(warm)
    assert warm_summary["source"].pop("cache_note") == "from cache (summary stored)"
    assert cold_summary["source"].pop("cache_note") != "from cache (summary stored)"
    assert warm_summary["source"].pop("from_cache") is True
    assert cold_summary["source"].pop("from_cache") is False
    assert warm_summary == cold_summary
    # the text summary decodes the same memo
    assert main(["--summary", trace]) == 0
    assert "from cache (summary stored)" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["cut", "header", "empty"])
def test_a_damaged_memo_is_computed_again(damage: str, tmp_path: Path, monkeypatch,
                                           capsys) -> None:
    monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path / "cache"))
    trace = str(sample("gappy_training.sqlite"))
    assert main(["--summary", "--json", trace]) == 0
    cold = json.loads(capsys.readouterr().out)
    (memo,) = (tmp_path / "cache").glob("*.summary-*.json")
    head, body = memo.read_text().split("\n", 1)
    memo.write_text({"cut": head + "\n" + body[: len(body) // 2],
                     "header": head.replace('"tui_version": "', '"tui_version": "0') + "\n" + body,
                     "empty": ""}[damage])
    assert main(["--summary", "--json", trace]) == 0
    warm = json.loads(capsys.readouterr().out)
    assert warm["source"]["cache_note"] == "from cache"  # computed from the database
    assert warm["gaps"] == cold["gaps"]
    assert main(["--summary", trace]) == 0  # and stored again, for the text too
    assert "from cache (summary stored)" in capsys.readouterr().out


def test_write_json_to_a_stream_matches() -> None:
    out = io.StringIO()
    value = {"a": [1, {"b": ArrowRows.of_query(connect(), "SELECT 1 AS x")}], "c": "é"}
    for piece in iter_json(value):
        out.write(piece)
    assert out.getvalue() == json.dumps({"a": [1, {"b": [{"x": 1}]}], "c": "é"})


@pytest.mark.slow
def test_the_text_summary_from_the_memo_is_the_computed_one(tmp_path: Path, monkeypatch,
                                                             capsys) -> None:
    """The text report reads the memo's brief (long row lists cut to BRIEF_ROWS) and
    prints what it prints from the database: counts and first rows alike."""
    import tui.loading.trace
    from tui.analysis.summary_memo import BRIEF_ROWS

    monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "150")
    trace = str(sample("sync_habits.sqlite"))
    flags = ["--summary", "--min-gap-ms", "0.01"]
    assert main([*flags, "--json", trace]) == 0
    full = json.loads(capsys.readouterr().out)
    sync_rows = next(f for f in full["findings"] if f["rule"] == "cuda_api_sync")["rows"]
    assert len(full["gaps"]) > BRIEF_ROWS and len(sync_rows) > BRIEF_ROWS
    assert main([*flags, "--no-cache", trace]) == 0
    computed = capsys.readouterr().out

    def refused(*_args, **_kwargs):
        raise AssertionError("computed again")

    monkeypatch.setattr(tui.loading.trace, "open_trace", refused)
    assert main([*flags, trace]) == 0
    from_memo = capsys.readouterr().out
    assert "from cache (summary stored)" in from_memo
    assert from_memo.replace(" — from cache (summary stored)", "") == computed.replace(
        " — not cached: --no-cache", "")
    (memo,) = (tmp_path / "cache").glob("*.summary-*.json")
    head, brief, rest = memo.read_text().split("\n")
    assert len(brief) < len(rest) / 3 and f'"row_count": {len(full["gaps"])}' in brief


def test_rows_written_column_by_column_are_what_json_dumps_writes(monkeypatch) -> None:
    """ArrowRows of integers, booleans and text are written by Arrow, column by column,
    text with what json.dumps escapes too (quotes, backslashes, control characters,
    non-ASCII); floats and rows without a start are written as dicts; the text is
    json.dumps' in every case, across chunks, with and without offsets."""
    import tui.analysis.row_sets
    from tui.analysis.json_columns import rows_json

    con = connect()
    plain = ("SELECT range AS start_ns, range * 3 AS duration_ns, range % 2 = 0 AS even, "
             "CASE WHEN range % 3 = 0 THEN NULL ELSE 'cudaMemcpy #' || range END AS api, "
             "CASE WHEN range % 5 = 0 THEN NULL ELSE range END AS pid "
             "FROM range(40) ORDER BY range")
    escaped = {"quote": "'say \"hi\"'", "backslash": "'a\\b'", "newline": "'a' || chr(10)",
               "non_ascii": "'1 µs › 2'", "tab": "chr(9)", "astral": "chr(128512)",
               "all": "'\\\\ \"' || chr(1) || 'µ' || chr(128512)"}
    cases = {"plain": plain, "no start": plain.replace("range AS start_ns",
                                                      "NULLIF(range, 7) AS start_ns"),
             "float": "SELECT range AS start_ns, range / 3 AS pct FROM range(40)"}
    for name, text in escaped.items():
        cases[name] = f"SELECT range AS start_ns, {text} || range AS api FROM range(40)"
    monkeypatch.setattr(tui.analysis.row_sets, "ARROW_JSON_ROWS", 16)
    for name, query in cases.items():
        rows = ArrowRows.of_query(con, query)
        for origin in (None, 5):
            shifted = rows.with_offsets(origin)
            assert "".join(iter_json(shifted)) == json.dumps(list(shifted)), (name, origin)
        written = rows_json(rows.table, 5)
        assert (written is not None) == (name not in ("no start", "float")), name


def test_a_row_set_written_twice_is_encoded_once(monkeypatch) -> None:
    """A summary's gaps are also its gpu_gaps finding's rows, one RowSet: the JSON holds
    them twice, as json.dumps would, and they are encoded once."""
    with open_trace(sample("gappy_training.sqlite")) as trace:
        summary = trace_summary(trace, 1_000_000)
    gaps_rule = next(f for f in summary["findings"] if f["rule"] == "gpu_gaps")
    assert gaps_rule["rows"] is summary["gaps"] and len(summary["gaps"]) == 28
    encoded = []
    real = GapRows.json_chunks
    monkeypatch.setattr(GapRows, "json_chunks", lambda rows: encoded.append(rows) or real(rows))
    text = "".join(iter_json(summary))
    assert text == json.dumps(_plain(summary)) and encoded == [summary["gaps"]]
    assert text.count('"kind": "host-wait"') == 2 * sum(
        gap["kind"] == "host-wait" for gap in summary["gaps"]) > 0
