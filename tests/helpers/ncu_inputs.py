"""Where the real Nsight Compute inputs are, and a trace table CONSTRUCTED from a report's
own launches for the matching tests.

small_kernels.* (kernels.cu's five kernels) ship in sample_traces/; kernels.* (gen_ncu.py's
nine, a 40 MB report) are only in ../shared/traces/ncu when that checkout is present.
"""

from __future__ import annotations

import csv
import gzip
import shutil
from collections.abc import Iterable
from pathlib import Path

import duckdb
import pytest

from tests.helpers.paths import DATA, ROOT, SAMPLES
from tui.core.queries import load_query
from tui.sources.ncu.load import load_ncu

SHARED = ROOT.parent / "shared" / "traces" / "ncu"
FORMS = ("ncu-rep", "details.csv", "raw.csv")

Row = tuple[str, tuple[int, int, int], tuple[int, int, int]]  # name, grid, block


def ncu_input(stem: str, form: str) -> Path:
    """sample_traces/ for small_kernels, ../shared otherwise (skip the test if absent)."""
    name = f"{stem}.{form}"
    for folder in (SAMPLES, SHARED):
        if (folder / name).is_file():
            return folder / name
    if stem == "small_kernels":
        pytest.fail(f"missing sample {SAMPLES / name}")
    pytest.skip(f"{name} is not present (needs ../shared/traces/ncu)")


def inflated_report(name: str, folder: Path) -> Path:
    """sample_traces/NAME.ncu-rep.gz (reports are kept gzipped) inflated into `folder` as
    NAME.ncu-rep, the file tui reads."""
    report = folder / f"{name}.ncu-rep"
    with gzip.open(SAMPLES / f"{name}.ncu-rep.gz", "rb") as packed, open(report, "wb") as out:
        shutil.copyfileobj(packed, out)
    return report


def nvidia_page(name: str, page: str) -> list[list[str]]:
    """NVIDIA's own page of a kept report (`ncu -i NAME.ncu-rep --page PAGE --csv`:
    tests/data/ncu_advice/NAME.PAGE.csv.gz), its rows as read."""
    with gzip.open(DATA / "ncu_advice" / f"{name}.{page}.csv.gz", "rt", newline="") as f:
        return list(csv.reader(f))


def loaded(stem: str, form: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_ncu(ncu_input(stem, form), con)
    return con


def add_trace(con: duckdb.DuckDBPyConnection, rows: Iterable[Row], copies: int = 3) -> None:
    """A constructed gpu_activities table: `copies` launches of each (name, grid, block)."""
    con.execute(load_query("schema"))
    values = []
    for i, (name, grid, block) in enumerate(rows):
        for c in range(copies):
            start = 1_000_000 * (i * copies + c)
            values.append((i * copies + c, "kernel", 0, 7, start, start + 5000, 5000, name,
                           *grid, *block))
    con.executemany(
        "INSERT INTO gpu_activities (id, kind, device, stream, start_ns, end_ns, duration_ns, "
        "name, grid_x, grid_y, grid_z, block_x, block_y, block_z) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values)
