"""A trace built in memory over CHECKPOINT_MIN_BYTES is checkpointed once built: the GPU
rows' ids, set by an UPDATE, are folded into the table rather than kept beside it (its
statements then cost about half the CPU), and what it is read as stays the same."""

from __future__ import annotations

import json

import pytest

from tests.helpers.paths import sample
from tui.cli.main import main
from tui.loading import trace as trace_module
from tui.loading.trace import open_trace

TRACE = "gappy_training.pt.trace.json.gz"  # GPU ids, host depths, stacks, gaps, steps
PENDING = "SELECT count(*) FROM pragma_storage_info('gpu_activities') WHERE has_updates"


def _summary(capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["--summary", "--json", "--no-cache", str(sample(TRACE))]) == 0
    out = json.loads(capsys.readouterr().out)
    out["source"].pop("load_s", None)
    return out


def _pending_updates() -> int:
    with open_trace(sample(TRACE), use_cache=False) as loaded:
        return loaded.con.execute(PENDING).fetchone()[0]


def test_a_checkpointed_trace_sums_up_as_one_that_is_not(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _summary(capsys)
    assert _pending_updates() > 0  # a small trace: not checkpointed
    monkeypatch.setattr(trace_module, "CHECKPOINT_MIN_BYTES", 0)
    assert _pending_updates() == 0
    assert _summary(capsys) == plain
    assert plain["kernels"] and plain["gaps"]
