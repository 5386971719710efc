"""A small trace's database plans its statements without DuckDB's costlier optimizer passes
(tui.core.db.light_plans, tui.loading.trace.LIGHT_PLANS_BYTES), built or opened from its
cache; a bigger one keeps every pass. The summary is the same either way, figure for
figure: a step's FLOPs and MFU (flops_steps.sql sums doubles over a join) included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.paths import sample
from tui.cli.main import main
from tui.core.db import LIGHT_PLAN_PASSES_LEFT_OUT, connect, joins_as_written
from tui.loading import trace as trace_module
from tui.loading.trace import open_trace

# an XLA trace with FLOPs by step (0.3 MB gzipped): its summary's joins and float sums
TRACE = "jax_lm/plugins/profile/2026_11_27_05_46_59/perfetto_trace.json.gz"
LIGHT = set(LIGHT_PLAN_PASSES_LEFT_OUT)


def _left_out(trace: trace_module.Trace) -> set[str]:
    """The passes left out on the trace's database (DuckDB keeps them in an order of its own)."""
    setting = trace.con.execute("SELECT current_setting('disabled_optimizers')").fetchone()[0]
    return set(setting.split(",")) - {""}


def _summary(capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["--summary", "--json", "--no-cache", str(sample(TRACE))]) == 0
    summary = json.loads(capsys.readouterr().out)
    summary["source"].pop("load_s", None)
    return summary


def test_a_small_trace_plans_light_and_sums_up_as_a_big_one(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert sample(TRACE).stat().st_size * 8 < trace_module.LIGHT_PLANS_BYTES
    with open_trace(sample(TRACE), use_cache=False) as trace:
        assert _left_out(trace) == LIGHT
        with joins_as_written(trace.con):  # the build side as written, the light passes kept
            assert _left_out(trace) == LIGHT | {"build_side_probe_side"}
        assert _left_out(trace) == LIGHT
    light = _summary(capsys)
    monkeypatch.setattr(trace_module, "LIGHT_PLANS_BYTES", 0)  # the same trace, as a big one
    with open_trace(sample(TRACE), use_cache=False) as trace:
        assert _left_out(trace) == set()
    full = _summary(capsys)
    assert [step["mfu"] > 0 for step in light["flops"]["by_step"]] == [True] * 4
    assert light == full


def test_a_small_trace_opened_from_its_cache_plans_light(private_cache: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rank = sample("ddp4/ddp_rank0.pt.trace.json.gz")
    with open_trace(rank) as built:
        assert not built.from_cache and _left_out(built) == LIGHT
    with open_trace(rank) as cached:
        assert cached.from_cache and _left_out(cached) == LIGHT
    monkeypatch.setattr(trace_module, "LIGHT_PLANS_BYTES", 0)
    with open_trace(rank) as cached:
        assert cached.from_cache and _left_out(cached) == set()


def test_other_connections_keep_every_pass() -> None:
    con = connect(":memory:")  # e.g. a run's combined tables
    try:
        assert con.execute("SELECT current_setting('disabled_optimizers')").fetchone()[0] == ""
        with joins_as_written(con):
            assert con.execute(
                "SELECT current_setting('disabled_optimizers')").fetchone()[0] == \
                "build_side_probe_side"
    finally:
        con.close()
