"""A small trace (tui.loading.trace.keeps_whole_share) keeps DuckDB's whole part of the
budget while it is loaded and summed up; a bigger one, or one under a small budget, is held
to the lower shares that leave room for its arrays and rows beside DuckDB. The summary is
the same either way."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from tests.helpers.paths import sample
from tui.cli.main import main
from tui.core import db
from tui.core.budget import budget_of
from tui.loading import trace as trace_module

TRACE = "multistream.pt.trace.json.gz"  # 45 kernels, 79 KB
SETTING_IN_BLOCK = db.setting_in_block


def _summary_and_limits(capsys, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, list[str]]:
    """The trace's `--summary --json --no-cache`, and each memory_limit a share set."""
    limits: list[str] = []

    @contextlib.contextmanager
    def recorded(con: duckdb.DuckDBPyConnection, name: str, value: str) -> Iterator[None]:
        if name == "memory_limit":
            limits.append(value)
        with SETTING_IN_BLOCK(con, name, value):
            yield

    monkeypatch.setattr(db, "setting_in_block", recorded)
    assert main(["--summary", "--json", "--no-cache", str(sample(TRACE))]) == 0
    summary = json.loads(capsys.readouterr().out)
    summary["source"].pop("load_s", None)
    return summary, limits


def test_a_small_trace_keeps_duckdbs_whole_share(capsys, monkeypatch) -> None:
    assert Path(sample(TRACE)).stat().st_size * 8 < trace_module.ONE_THREAD_BYTES
    small, small_limits = _summary_and_limits(capsys, monkeypatch)
    monkeypatch.setattr(trace_module, "ONE_THREAD_BYTES", 0)  # the same trace, as a big one
    big, big_limits = _summary_and_limits(capsys, monkeypatch)
    assert small_limits == []
    # the load's two shares (finalizing the rows, deriving the rest) and the summary's
    assert len(big_limits) == 3
    assert sum(k["count"] for k in small["kernels"]) == 45
    assert small == big


def test_under_a_small_budget_a_small_trace_keeps_the_shares() -> None:
    """A DDP rank (0.4 MB gzipped, ~1.5 MB of events) under 1GB keeps DuckDB's whole part;
    under 20MB (its summary's share 6 MB) it is held to the shares."""
    rank = sample("ddp4/ddp_rank0.pt.trace.json.gz")
    with budget_of("1GB"):
        assert trace_module.keeps_whole_share(rank)
    with budget_of("20MB"):
        assert not trace_module.keeps_whole_share(rank)
    assert not trace_module.keeps_whole_share(rank.with_name("not_there.json.gz"))
