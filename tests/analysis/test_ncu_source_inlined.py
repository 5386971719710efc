"""Source lines as Nsight Compute's Source page counts them, inlined code included: every
(file, line) block of `ncu -i R --page source --csv --print-source sass,cuda --kernel-name K`
equals ours, for the nine kernels of recordings/ncu_advice/kernels.cu (before) and the
privatised histogram (after). atomicAdd is inlined from device_atomic_functions.hpp: its
line 107 holds the instructions the line table gives it, some shared with the call site."""

from __future__ import annotations

import csv
import gzip
from functools import cache
from typing import Any

import duckdb
import pytest

from tests.helpers.ncu_advice import KERNELS, report
from tests.helpers.ncu_source import NCU_STALLS, number
from tests.helpers.paths import DATA as DATA_ROOT
from tui.analysis.ncu.source import SourceView, source_view
from tui.core.queries import load_query
from tui.sources.ncu.load import load_ncu
from tui.sources.ncu.load_source import load_source

DATA = DATA_ROOT / "ncu_advice"
HEADER = "/usr/local/cuda/targets/x86_64-linux/include/device_atomic_functions.hpp"
ATOMIC = KERNELS.index("atomic_hist")


def ncu_file_lines(name: str) -> dict[tuple[str, int], dict[str, Any]]:
    """(file, line) -> the line's row of a `--print-source sass,cuda` CSV, which prints a
    block per source file ("File Path"), each with its lines and their SASS."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    header: list[str] | None = None
    file = ""
    with gzip.open(DATA / name, "rt", encoding="utf-8", newline="") as f:
        for row in csv.reader(f):
            if row and row[0] == "File Path":
                file = row[1]
            elif row and row[0] == "Line No":
                header = row
            elif header and row and row[0].isdigit():
                entry: dict[str, Any] = dict(zip(header[4:], row[4:], strict=False))
                entry["text"] = row[1]
                out[(file, int(row[0]))] = entry
    return out


@cache
def _loaded(which: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_ncu(report(which), con)
    load_source(report(which), con, range(len(KERNELS)) if which == "before" else [ATOMIC])
    return con


def _view(which: str, launch: int) -> SourceView:
    return source_view(_loaded(which), launch, KERNELS[launch])


def _compare(con: duckdb.DuckDBPyConnection, view: SourceView,
             theirs: dict[tuple[str, int], dict[str, Any]]) -> None:
    ours = {(x.file, x.line): x for x in view.lines}
    assert sorted(ours) == sorted(theirs)
    per_line: dict[tuple[str, int, str], tuple[int, int]] = {}
    for file, line, reason, samples, not_issued in con.execute(
            load_query("ncu_source_line_stalls"), {"launch_id": view.launch_id}).fetchall():
        per_line[(file, line, reason)] = (samples, not_issued)
    for key, row in theirs.items():
        x = ours[key]
        assert (x.text or "").strip() == row["text"].strip(), key
        assert (x.stall_samples, x.stall_samples_not_issued, x.inst_executed,
                x.thread_inst_executed) == (
            int(row["Warp Stall Sampling (All Samples)"]),
            int(row["Warp Stall Sampling (Not-issued Samples)"]),
            int(row["Instructions Executed"]), int(row["Thread Instructions Executed"])), key
        for short, reason in NCU_STALLS.items():
            if f"stall_{short}" in row:
                got = per_line.get((*key, reason), (0, 0))
                assert got[0] == int(row[f"stall_{short}"]), (key, short)
        assert (x.memory.global_requests or 0) == number(row["L1 Tag Requests Global"]), key


@pytest.mark.parametrize(("launch", "kernel"), list(enumerate(KERNELS)))
def test_every_line_of_every_file_equals_ncu(launch: int, kernel: str) -> None:
    _compare(_loaded("before"), _view("before", launch),
             ncu_file_lines(f"advice_before.{kernel}.sass_cuda.csv.gz"))


def test_the_atomic_header_line_holds_the_code_inlined_from_it() -> None:
    view = _view("before", ATOMIC)
    header = view.line_of(HEADER, 107)
    call = next(x for x in view.lines if x.line == 157)
    assert header is not None and header.text and "__iAtomicAdd" in header.text
    assert header.stall_samples == 39 and header.instructions == 2  # NVIDIA: 39
    assert call.stall_samples == 115_282  # the call site keeps what it shares with it
    shared = {s.address for s in view.sass_of(HEADER, 107)} & {
        s.address for s in view.sass_of(call.file, 157)}
    assert len(shared) == 1  # the instruction both rows of the line table cover
    assert [f.name for f in view.files] == [call.file, HEADER]
    assert view.files[1].origin == "report" and view.files[1].text


def test_a_privatised_histogram_shows_both_atomics_under_the_header() -> None:
    """After: a shared-memory atomicAdd (line 152) and the global one (line 154), both
    inlined from the header's line 107."""
    con, view = _loaded("after"), _view("after", ATOMIC)
    _compare(con, view, ncu_file_lines("advice_after.atomic_hist.sass_cuda.csv.gz"))
    ops = sorted(s.instruction.split()[0] for s in view.sass_of(HEADER, 107))
    assert ops == ["ATOMS.POPC.INC.32", "REDG.E.ADD.STRONG.GPU"]
