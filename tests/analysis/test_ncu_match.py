"""Matching profiled launches to a trace's kernels.

The trace side is a `gpu_activities` table (the core schema) that each test builds itself:
its rows are CONSTRUCTED from the ncu report's own launches (names respelled the way other
tools spell them, configurations changed on purpose), not recorded by a profiler.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from tests.helpers.ncu_inputs import add_trace, loaded
from tui.analysis.ncu.match import match_ncu_kernels


def _ncu_launches(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str | None, tuple, tuple]]:
    return [(r[0], r[1], tuple(r[2:5]), tuple(r[5:8])) for r in con.execute(
        "SELECT name, mangled_name, grid_x, grid_y, grid_z, block_x, block_y, block_z "
        "FROM ncu_kernels ORDER BY launch_id").fetchall()]


def _trace_from_ncu(con: duckdb.DuckDBPyConnection,
                    rename: Callable[[str, str | None], str] = lambda name, _m: name) -> None:
    add_trace(con, [(rename(name, mangled), grid, block)
                    for name, mangled, grid, block in _ncu_launches(con)])


def test_each_launch_matches_its_own_kernels_by_name_and_configuration() -> None:
    con = loaded("small_kernels", "details.csv")
    _trace_from_ncu(con)
    matches = match_ncu_kernels(con)
    assert [m.launch_id for m in matches] == [0, 1, 2, 3, 4]
    for m in matches:
        assert (m.status, m.matched_on) == ("matched", "name+config"), m
        assert len(m.candidates) == 1 and m.candidates[0].launches == 3
        assert m.candidates[0].first_start_ns is not None
    assert matches[0].to_dict()["candidates"][0]["name"].startswith("saxpy(")


def test_other_tools_spellings_of_the_name_still_match() -> None:
    # Kineto (libstdc++) writes 'float const*' where ncu writes 'const float *'.
    con = loaded("small_kernels", "ncu-rep")
    _trace_from_ncu(con, lambda name, _m: name.replace("const float *", "float const*")
                    .replace("float *", "float*"))
    assert {(m.status, m.matched_on) for m in match_ncu_kernels(con)} == {
        ("matched", "name+config")}


def test_mangled_trace_names_match_the_reports_mangled_name() -> None:
    con = loaded("small_kernels", "ncu-rep")  # the report knows the mangled names
    _trace_from_ncu(con, lambda name, mangled: mangled or name)
    assert {(m.status, m.matched_on) for m in match_ncu_kernels(con)} == {
        ("matched", "name+config")}
    # A CSV has no mangled name: the function name inside the mangled one still matches.
    csv_con = loaded("small_kernels", "raw.csv")
    mangled = [m or "" for _, m, _, _ in _ncu_launches(con)]
    add_trace(csv_con, [(m, grid, block) for m, (_, _, grid, block)
                        in zip(mangled, _ncu_launches(csv_con), strict=True)])
    assert {(m.status, m.matched_on) for m in match_ncu_kernels(csv_con)} == {
        ("matched", "short-name+config")}


def test_a_different_launch_configuration_is_said() -> None:
    con = loaded("small_kernels", "raw.csv")
    launches = _ncu_launches(con)
    add_trace(con, [(name, (grid[0] * 2, grid[1], grid[2]), block)
                    for name, _, grid, block in launches])
    for m in match_ncu_kernels(con):
        assert (m.status, m.matched_on) == ("matched", "name")
        assert "launch configuration differs" in m.note


def test_ambiguous_and_unmatched_are_reported() -> None:
    con = loaded("small_kernels", "raw.csv")
    (saxpy, _, grid, block), (sgemm, _, sgrid, sblock) = _ncu_launches(con)[:2]
    add_trace(con, [
        # saxpy in two other configurations, neither the profiled one
        (saxpy, (1024, 1, 1), block), (saxpy, (2048, 1, 1), block),
        # two template instances sharing naive_sgemm's function name and configuration
        ("void naive_sgemm<float>(int, const float *, const float *, float *)", sgrid, sblock),
        ("void naive_sgemm<double>(int, const double *, const double *, double *)", sgrid,
         sblock),
    ])
    matches = {m.launch_id: m for m in match_ncu_kernels(con)}
    assert (matches[0].status, matches[0].matched_on) == ("ambiguous", "name")
    assert "2 launch configurations" in matches[0].note
    assert (matches[1].status, matches[1].matched_on) == ("ambiguous", "short-name+config")
    assert "2 kernels" in matches[1].note
    assert {m.status for i, m in matches.items() if i >= 2} == {"unmatched"}


def test_without_a_trace_every_launch_is_unmatched() -> None:
    matches = match_ncu_kernels(loaded("small_kernels", "details.csv"))
    assert {(m.status, m.note) for m in matches} == {
        ("unmatched", "no trace loaded (no gpu_activities table)")}


def test_template_instances_are_told_apart_across_demanglers() -> None:
    """gen_ncu.py's two vectorized_elementwise_kernel launches share a function name;
    the trace spells them as Kineto does (names copied from sample_traces/ddp_rank0)."""
    con = loaded("kernels", "details.csv")
    launches = _ncu_launches(con)
    add = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add"
           "<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, "
           "std::array<char*, 3ul>)")
    fill = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
            "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, "
            "std::array<char*, 1ul>)")
    # cuBLAS's other SIMT SGEMM tile (in sample_traces/gappy_training.sqlite), launched with
    # the profiled one's configuration: same function, other template arguments.
    sgemm = "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(T1::Params)"
    add_trace(con, [(add, launches[2][2], launches[2][3]),  # the add, as profiled
                    (fill, launches[2][2], launches[2][3]),  # another instance, same shape
                    (sgemm, launches[1][2], launches[1][3])])
    matches = match_ncu_kernels(con)
    assert (matches[2].status, matches[2].matched_on) == ("matched", "name+config")
    assert matches[2].candidates[0].name == add
    # launch 6 (tiny + 1, CUDAFunctorOnSelf_add) and launch 1 (the 256x128 SGEMM) are not
    # in the trace: only other instances of their templates, shown as candidates.
    for launch_id, other in ((6, (add, fill)), (1, (sgemm,))):
        assert (matches[launch_id].status, matches[launch_id].matched_on) == ("unmatched", None)
        assert "other template instance" in matches[launch_id].note
        assert {c.name for c in matches[launch_id].candidates} == set(other)
