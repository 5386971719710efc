"""The default memory budget fits the machine (tui/core/budget.py: default_budget)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import sample
from tui.core import budget as budgets


@pytest.fixture
def no_budget_given(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TUI_MEMORY", "TUI_MEMORY_LIMIT", "TUI_THREADS"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("cores", "memory_gb", "budget"), [
    (2, 24, "1GB"),       # 500 MB a core
    (1, 24, "1GB"),       # the floor
    (4, 64, "2000MB"),
    (16, 128, "8000MB"),  # 500 MB a core, the cap
    (64, 512, "8000MB"),  # the cap
    (16, 8, "2000MB"),    # a quarter of a small machine's memory
    (16, 2, "1GB"),       # never under the floor
])
def test_the_default_budget_fits_the_cores_and_memory(no_budget_given, monkeypatch, cores,
                                                       memory_gb, budget) -> None:
    monkeypatch.setattr(budgets, "available_cores", lambda: cores)
    monkeypatch.setattr(budgets, "machine_memory_bytes", lambda: memory_gb * 1_000_000_000)
    assert budgets.memory_budget() == budget
    assert budgets.duckdb_threads() == max(
        1, min(cores, budgets.memory_budget_bytes() // budgets.BYTES_PER_THREAD))


def test_the_option_and_the_variable_still_win(no_budget_given, monkeypatch) -> None:
    monkeypatch.setattr(budgets, "available_cores", lambda: 64)
    monkeypatch.setenv("TUI_MEMORY", "700MB")
    assert budgets.memory_budget() == "700MB"


def test_threads_shared_by_several_processes_shrink_the_default(no_budget_given,
                                                                monkeypatch) -> None:
    monkeypatch.setattr(budgets, "available_cores", lambda: 16)
    monkeypatch.setattr(budgets, "machine_memory_bytes", lambda: 128_000_000_000)
    monkeypatch.setenv("TUI_THREADS", "8")
    assert budgets.memory_budget() == "4000MB"


def test_debug_prints_the_budget_and_the_json_says_it(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tui", "--summary", "--json", "--debug", "--memory", "1500MB",
         "--no-cache", str(sample("multistream.pt.trace.json.gz"))],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "tui: memory budget 1500MB (--memory or TUI_MEMORY)" in done.stderr
    import json

    assert json.loads(done.stdout)["source"]["memory_budget"] == "1500MB"
