"""The Source view's real inputs and NVIDIA's answers.

sample_traces/hot.ncu-rep.gz: recordings/source_view/hot.cu's six kernels, `--set full
--import-source yes` (gzip: 7.3 MB as recorded, 0.7 MB packed), unpacked once a session.
tests/data/ncu_source/: `ncu -i R --page source --csv --print-source sass|cuda,sass
--kernel-name K` of each kernel, as Nsight Compute 2025.3.1 printed them (see its README).
"""

from __future__ import annotations

import atexit
import csv
import gzip
import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.helpers import paths
from tests.helpers.paths import sample
from tui.sources.ncu.load import load_ncu
from tui.sources.ncu.load_source import load_source

DATA = paths.DATA / "ncu_source"
KERNELS = ["strided_load", "gather", "shared_walk", "fma_chain", "divergent", "sass_only"]
RECORDED_SOURCE = "/tmp/i36rec/src/hot.cu"  # where hot.cu was when it was profiled

# ncu's short stall names (its Source page columns) -> the metric suffixes we keep
NCU_STALLS = {
    "barrier": "barrier", "branch_resolving": "branch_resolving",
    "dispatch": "dispatch_stall", "drain": "drain", "imc": "imc_miss", "lg": "lg_throttle",
    "long_sb": "long_scoreboard", "math": "math_pipe_throttle", "membar": "membar",
    "mio": "mio_throttle", "misc": "misc", "no_inst": "no_instructions",
    "not_selected": "not_selected", "selected": "selected", "short_sb": "short_scoreboard",
    "sleep": "sleeping", "sleeping": "sleeping", "tex": "tex_throttle", "wait": "wait",
}
# ncu's per-instruction memory columns -> the instanced metrics they show
NCU_METRICS = {
    "Predicated-On Thread Instructions Executed": "thread_inst_executed_true",
    "Divergent Branches": "smsp__branch_targets_threads_divergent",
    "L1 Tag Requests Global": "memory_l1_tag_requests_global",
    "L1 Conflicts Shared N-Way": "derived__memory_l1_conflicts_shared_nway",
    "L1 Wavefronts Shared": "memory_l1_wavefronts_shared",
    "L1 Wavefronts Shared Ideal": "memory_l1_wavefronts_shared_ideal",
    "L1 Wavefronts Shared Excessive": "derived__memory_l1_wavefronts_shared_excessive",
    "L2 Theoretical Sectors Global": "memory_l2_theoretical_sectors_global",
    "L2 Theoretical Sectors Global Ideal": "memory_l2_theoretical_sectors_global_ideal",
    "L2 Theoretical Sectors Global Excessive":
        "derived__memory_l2_theoretical_sectors_global_excessive",
}


@cache
def hot_report_path() -> Path:
    """The report, unpacked once a session (test modules share it: not a fixture, which
    each module importing it would make anew)."""
    folder = Path(tempfile.mkdtemp(prefix="tui-ncu-source-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    out = folder / "hot.ncu-rep"
    with gzip.open(sample("hot.ncu-rep.gz"), "rb") as packed, open(out, "wb") as f:
        shutil.copyfileobj(packed, f)
    return out


@cache
def hot_loaded() -> duckdb.DuckDBPyConnection:
    """The report and all its per-instruction results, loaded once a session (read only:
    the tests share it)."""
    con = duckdb.connect()
    load_ncu(hot_report_path(), con)
    assert load_source(hot_report_path(), con) == list(range(len(KERNELS)))
    return con


@pytest.fixture
def hot_report() -> Path:
    return hot_report_path()


@pytest.fixture
def hot_con() -> duckdb.DuckDBPyConnection:
    return hot_loaded()


def _rows(name: str) -> list[list[str]]:
    with gzip.open(DATA / name, "rt", encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def ncu_sass(name: str) -> list[dict[str, str]]:
    """The instruction rows of the first kernel of a `--print-source sass` CSV (a 'Kernel
    Name' row, a header 'Address', ..., a row per instruction). ncu 2025.3 prints a kernel
    built with -lineinfo twice, the same rows each time: the copies must agree."""
    header: list[str] | None = None
    groups: list[tuple[str, list[dict[str, str]]]] = []
    for row in _rows(name):
        if row and row[0] == "Kernel Name":
            groups.append((row[1], []))
        elif row and row[0] == "Address":
            header = row
        elif header and groups and row and row[0].startswith("0x"):
            groups[-1][1].append(dict(zip(header, row, strict=False)))
    assert groups, name
    first = [rows for kernel, rows in groups if kernel == groups[0][0]]
    assert all(rows == first[0] for rows in first), name
    return first[0]


def ncu_lines(name: str) -> list[dict[str, Any]]:
    """The CUDA-line rows of a `--print-source cuda,sass` CSV: a line number and its text
    in the first two columns, the line's summed metrics after them (the SASS rows under
    each line have an empty first column)."""
    header: list[str] | None = None
    out: list[dict[str, Any]] = []
    for row in _rows(name):
        if row and row[0] == "Line No":
            header = row
        elif header and row and row[0].isdigit():
            entry: dict[str, Any] = dict(zip(header[4:], row[4:], strict=False))
            entry["line"], entry["text"] = int(row[0]), row[1]
            out.append(entry)
    return out


def number(cell: str) -> float:
    """ncu prints '-' where an instruction has no value of a metric."""
    return 0.0 if cell in ("-", "") else float(cell)
