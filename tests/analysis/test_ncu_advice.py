"""The advice table on real kernels that each show one condition
(recordings/ncu_advice/kernels.cu, profiled before and after one change each), with
NVIDIA's rule results from its own details page (tests/data/ncu_advice/)."""

from __future__ import annotations

from functools import cache
from typing import Any

import duckdb
import pytest

from tests.helpers.ncu_advice import KERNELS, nvidia_rules, report
from tests.helpers.ncu_inputs import loaded
from tui.analysis.ncu.advice import advise, conditions
from tui.analysis.ncu.figures import KernelFigures, Metrics, kernel_figures
from tui.analysis.ncu.verdict import decide
from tui.core.queries import load_query
from tui.sources.ncu.load import load_ncu

# What each kernel of kernels.cu does, as the advice must name it (every row that holds).
EXPECTED = {
    "tiled_gemm": ["shared-throughput"],  # MIO throttle on shared loads, L1 at 92%
    "register_tiled_gemm": [],  # the same product tiled in registers: a small grid only
    "local_array": ["local-array"],  # buf[(j + k * 5) & 15]
    "spill": ["register-spills"],  # 48 live floats under a 32-register cap
    "barrier_heavy": ["barrier-stalls"],  # warp 0 works while 31 wait at __syncthreads()
    "atomic_hist": ["contended-atomics"],  # atomicAdd into 8 bins
    "divergent_loop": ["thread-divergence"],  # a loop of (lane + 1) * iters
    "texture_read": ["texture-throughput"],  # 8 tex1Dfetch taps, tex throttle
    "register_heavy": ["uncoalesced-global", "register-limited-occupancy"],  # 95 registers
}
# kernels.cu's other half: the kernels built with -DAFTER lose the condition they fixed.
FIXED = {"local_array": "local-array", "spill": "register-spills",
         "atomic_hist": "contended-atomics"}


@cache
def _con(which: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_ncu(report(which), con)
    return con


def _figures(con: duckdb.DuckDBPyConnection, launch_id: int) -> KernelFigures:
    rows = con.execute(load_query("ncu_launch_metrics"), {"launch_id": launch_id}).fetchall()
    return kernel_figures(Metrics(rows))


def _rules(con: duckdb.DuckDBPyConnection, launch_id: int) -> list[dict[str, Any]]:
    cur = con.execute(load_query("ncu_launch_rules"), {"launch_id": launch_id})
    names = [d[0] for d in cur.description or []]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def test_the_reports_hold_the_recorded_kernels() -> None:
    for which in ("before", "after"):
        names = [r[0] for r in _con(which).execute(
            "SELECT short_name FROM ncu_kernels ORDER BY launch_id").fetchall()]
        assert names == KERNELS


@pytest.mark.parametrize("launch_id,kernel", list(enumerate(KERNELS)))
def test_each_kernel_gets_the_advice_for_its_condition(launch_id: int, kernel: str) -> None:
    con = _con("before")
    found = advise(_figures(con, launch_id), _rules(con, launch_id))
    assert [a.condition for a in found] == EXPECTED[kernel]


def test_every_condition_is_shown_by_a_real_kernel() -> None:
    """The two rows these kernels do not show are shown by small_kernels' naive GEMM (L1
    busy with global loads) and its transpose (32-way shared bank conflicts)."""
    small = loaded("small_kernels", "ncu-rep")
    shown = {c for names in EXPECTED.values() for c in names}
    naive = advise(_figures(small, 1))
    transpose = advise(_figures(small, 3))
    assert [a.condition for a in naive] == ["global-reuse-in-l1"]
    assert [a.condition for a in transpose] == ["shared-bank-conflicts"]
    assert "32-way" in transpose[0].finding
    shown |= {"global-reuse-in-l1", "shared-bank-conflicts"}
    assert shown == set(conditions())


def test_a_shared_tiled_gemm_is_told_register_tiling_not_tiles() -> None:
    """The issue's case: L1 busy with shared loads, MIO throttle, its 64-bit shared loads
    counted 2-way by ncu but with no excessive wavefronts: no "use shared-memory tiles"."""
    con = _con("before")
    figures = _figures(con, 0)
    assert figures.shared_excess == pytest.approx(1.0)  # NVIDIA's "Excessive" is 0
    step = decide(figures, _rules(con, 0)).next_step
    assert "register tiling" in step and "float4" in step and "mio throttle" in step
    assert "shared-memory tiles" not in step and "tiled GEMM" not in step


def test_a_runtime_indexed_array_is_told_local_memory_not_l2() -> None:
    con = _con("before")
    verdict = decide(_figures(con, 2), _rules(con, 2))
    assert verdict.unit == "L2"  # NVIDIA's SpeedOfLight names L2 too
    assert "local memory" in verdict.next_step and "compile-time constant" in verdict.next_step
    assert "L2 is the busiest unit" not in verdict.next_step


@pytest.mark.parametrize("kernel,condition", sorted(FIXED.items()))
def test_the_optimised_kernel_loses_its_condition(kernel: str, condition: str) -> None:
    con = _con("after")
    launch_id = KERNELS.index(kernel)
    assert condition not in [a.condition for a in advise(_figures(con, launch_id))]


def test_nvidias_rules_on_its_details_page_back_the_advice() -> None:
    """NVIDIA's own findings (the details page ncu printed) name the same cause for the
    conditions its rules cover."""
    con, nvidia = _con("before"), nvidia_rules("before")
    agreeing = {}
    for launch_id in range(len(KERNELS)):
        for a in advise(_figures(con, launch_id), _rules(nvidia, launch_id)):
            agreeing[a.condition] = a.nvidia
    assert agreeing["local-array"].startswith("MemoryCacheAccessPattern")
    assert agreeing["register-spills"].startswith("MemoryCacheAccessPattern")
    assert agreeing["barrier-stalls"].startswith("CPIStall")
    assert agreeing["shared-throughput"].startswith("CPIStall")
    assert agreeing["thread-divergence"].startswith("ThreadDivergence")
    assert agreeing["uncoalesced-global"].startswith("UncoalescedGlobalAccess")
    assert agreeing["texture-throughput"].startswith("CPIStall")


def test_on_nvidias_details_page_the_rules_are_the_evidence() -> None:
    """The details page has no per-space counts or stall breakdown: NVIDIA's findings on
    it (local loads, MIO, texture queue, barrier, excessive sectors) lead to the same
    conditions. Only the atomics have no rule to go by."""
    details = nvidia_rules("before")
    for launch_id, kernel in enumerate(KERNELS):
        found = [a.condition for a in advise(_figures(details, launch_id),
                                             _rules(details, launch_id))]
        expected = [] if kernel == "atomic_hist" else EXPECTED[kernel]
        assert found == expected, kernel
