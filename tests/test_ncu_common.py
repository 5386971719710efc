"""Shared helpers (no tests here): where the real Nsight Compute inputs are.

small_kernels.* (kernels.cu's five kernels) ship in sample_traces/; kernels.* (gen_ncu.py's
nine, a 40 MB report) are only in ../shared/traces/ncu when that checkout is present.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tui.sources.ncu.load import load_ncu

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"
SHARED = ROOT.parent / "shared" / "traces" / "ncu"
FORMS = ("ncu-rep", "details.csv", "raw.csv")


def ncu_input(stem: str, form: str) -> Path:
    """sample_traces/ for small_kernels, ../shared otherwise (skip the test if absent)."""
    name = f"{stem}.{form}"
    for folder in (SAMPLES, SHARED):
        if (folder / name).is_file():
            return folder / name
    if stem == "small_kernels":
        pytest.fail(f"missing sample {SAMPLES / name}")
    pytest.skip(f"{name} is not present (needs ../shared/traces/ncu)")


def loaded(stem: str, form: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_ncu(ncu_input(stem, form), con)
    return con
