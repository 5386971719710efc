"""Verdicts for kernels whose character is known from their source, on every input form,
and agreement with NVIDIA's own SpeedOfLight analysis of the same kernels."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from tests.helpers.ncu_inputs import FORMS, SHARED, loaded
from tui.analysis.ncu.figures import KernelFigures, Metrics, kernel_figures
from tui.analysis.ncu.nvidia import sol_kind, sol_unit
from tui.analysis.ncu.verdict import decide, memory_unit
from tui.core.queries import load_query

# ../shared/realtraces/kernels.cu, in launch order, with what the source says:
SMALL_KERNELS = [
    # y[i] = a * x[i] + y[i]: 12 bytes moved per 2 FLOP, a pure DRAM stream.
    ("saxpy", "memory", "DRAM"),
    # No tiling: every FMA loads A[r][k] and B[k][c] again; the reuse is served by L1,
    # which saturates (96%) long before the FMA pipe does.
    ("naive_sgemm", "memory", "L1"),
    # x[i * 33 % n]: each thread of a warp touches its own sector (uncoalesced), DRAM-bound.
    ("strided_read", "memory", "DRAM"),
    # tile[threadIdx.x][threadIdx.y] reads down a column of a 32x32 float tile: 32-way
    # shared-memory bank conflicts, so L1/shared memory is the busy unit.
    ("transpose_bank_conflicts", "memory", "L1"),
    # <<<1, 32>>>: one block on a 132-SM GPU.
    ("tiny_grid", "small-grid", None),
]
# ../shared/realtraces/gen_ncu.py, in launch order:
GEN_NCU_KERNELS = [
    ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "compute", None),  # bf16 GEMM, tensor
    ("Kernel2", "compute", None),  # fp32 SIMT GEMM without TF32: the FMA pipe
    ("vectorized_elementwise_kernel", "memory", "DRAM"),  # big + big2: streaming add
    ("elementwise_kernel", "memory", "L2"),  # sq.t().contiguous(): strided transpose copy
    # torch.softmax over 8192x8192: one might expect DRAM-bound, but it reaches neither
    # bandwidth (46%) nor compute (55%): register-limited occupancy (50%) -> latency.
    ("cunn_SoftMaxForwardReg", "latency", None),
    ("reduce_kernel", "memory", "DRAM"),  # big.sum(): reads 256 MB once
    ("vectorized_elementwise_kernel", "small-grid", None),  # tiny + 1: one block
    ("strided_copy", "memory", "DRAM"),  # stride-33 gather: uncoalesced
    ("divergent_math", "compute", None),  # sin/cos loops on alternate lanes
]
EXPECTED = {"small_kernels": SMALL_KERNELS, "kernels": GEN_NCU_KERNELS}


def _figures(con: duckdb.DuckDBPyConnection, launch_id: int) -> KernelFigures:
    rows = con.execute(load_query("ncu_launch_metrics"), {"launch_id": launch_id}).fetchall()
    return kernel_figures(Metrics(rows))


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_verdicts_match_the_kernels_known_character(stem: str, form: str) -> None:
    con = loaded(stem, form)
    names = [r[0] for r in con.execute(
        "SELECT short_name FROM ncu_kernels ORDER BY launch_id").fetchall()]
    assert names == [name for name, _, _ in EXPECTED[stem]]
    for launch_id, (name, kind, unit) in enumerate(EXPECTED[stem]):
        verdict = decide(_figures(con, launch_id))
        assert verdict.kind == kind, (name, verdict.explanation)
        if unit:
            assert verdict.unit == unit, (name, verdict.explanation)
        assert verdict.explanation and verdict.next_step


def test_next_steps_name_the_cause_where_the_metrics_show_it() -> None:
    con = loaded("small_kernels", "ncu-rep")
    steps = [decide(_figures(con, i)).next_step for i in range(5)]
    assert "reduce bytes moved" in steps[0]  # saxpy
    assert "tiled GEMM" in steps[1]  # naive_sgemm
    assert "uncoalesced (32 sectors per request" in steps[2]  # strided_read
    assert "32-way bank conflicted" in steps[3]  # transpose_bank_conflicts
    assert "more blocks" in steps[4]  # tiny_grid
    gen = loaded("kernels", "raw.csv")
    assert "tensor cores" in decide(_figures(gen, 1)).next_step  # FP32 GEMM on FMA
    assert "16 of 32 threads" in decide(_figures(gen, 8)).next_step  # divergent_math
    assert "limited by registers" in decide(_figures(gen, 4)).next_step  # softmax


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_verdict_agrees_with_nvidia_solbottleneck_rule(stem: str) -> None:
    """The rule rows of the same report: our verdict (from metrics) says what NVIDIA says."""
    con = loaded(stem, "details.csv")
    sol = dict(con.execute("SELECT launch_id, description FROM ncu_rules "
                           "WHERE rule = 'SOLBottleneck'").fetchall())
    assert len(sol) == len(EXPECTED[stem])
    for launch_id, text in sol.items():
        verdict = decide(_figures(con, launch_id))
        assert sol_kind(text) == verdict.kind, (launch_id, text)
        if sol_unit(text) and verdict.kind == "memory":
            assert sol_unit(text) == verdict.unit, (launch_id, text)


def _sol_statements(details_txt: Path) -> list[str]:
    """NVIDIA's SpeedOfLight finding per kernel, from `ncu --page details` text output."""
    header = re.compile(r"^  \S.*, Context \d+, Stream \d+, Device \d+, CC [\d.]+$")
    statements: list[str] = []
    in_sol = collecting = False
    for line in details_txt.read_text().splitlines():
        if header.match(line):
            statements.append("")
            in_sol = collecting = False
        elif line.strip().startswith("Section:"):
            in_sol, collecting = line.strip() == "Section: GPU Speed Of Light Throughput", False
        elif in_sol and not statements[-1] and re.match(r"^    (OPT|INF|WRN)   ", line):
            statements[-1], collecting = line[10:].strip(), True
        elif collecting and line.startswith(" " * 10) and line.strip():
            statements[-1] += " " + line.strip()
        else:
            collecting = False
    return statements


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_verdict_agrees_with_ncus_own_text_output(stem: str) -> None:
    txt = SHARED / f"{stem}.details.txt"
    if not txt.is_file():
        pytest.skip(f"{txt} is not present")
    statements = _sol_statements(txt)
    assert len(statements) == len(EXPECTED[stem])
    con = loaded(stem, "raw.csv")  # no rule rows: the verdict comes from metrics alone
    for launch_id, statement in enumerate(statements):
        verdict = decide(_figures(con, launch_id))
        assert sol_kind(statement) == verdict.kind, (launch_id, statement)
        if verdict.kind == "memory" and sol_unit(statement):
            unit = memory_unit(_figures(con, launch_id))
            assert unit is not None and unit[0] == sol_unit(statement)


def test_roofline_matches_nvidias_fp32_figure() -> None:
    """SOLFPRoofline says e.g. "achieved 76% of this device's FP32 peak performance"."""
    con = loaded("kernels", "ncu-rep")
    texts = dict(con.execute("SELECT launch_id, description FROM ncu_rules "
                             "WHERE rule = 'SOLFPRoofline'").fetchall())
    for launch_id, text in texts.items():
        found = re.search(r"achieved\s+(?:close to )?(\d+)% of this device's FP32", text)
        assert found, text
        pct = float(found.group(1))
        roofline = _figures(con, launch_id).roofline
        got = 0.0 if roofline is None or roofline.precision != "fp32" else roofline.pct_of_peak
        assert abs(got - pct) <= 1.0, (launch_id, got, text)


def _synthetic(**values: float) -> KernelFigures:
    return KernelFigures(values=dict(values))


@pytest.mark.parametrize("sm,mem,waves,kind", [
    (85, 40, 10, "compute"), (40, 85, 10, "memory"), (85, 80, 10, "balanced"),
    (70, 65, 10, "balanced"), (75, 60, 10, "compute"), (50, 65, 10, "memory"),
    (59, 59, 10, "latency"), (59, 59, 0.5, "small-grid"), (70, 10, 0.5, "compute"),
])
def test_thresholds(sm: float, mem: float, waves: float, kind: str) -> None:
    figures = _synthetic(sm_pct=sm, mem_pct=mem, waves_per_sm=waves, dram_pct=mem,
                         grid_blocks=10, sm_count=132)
    assert decide(figures).kind == kind


def test_a_compute_bound_launch_without_pipe_figures_is_told_to_collect_them() -> None:
    """Constructed figures: the speed of light alone (85% SM, no pipe utilisation over
    either the active or the elapsed cycles), which leaves the remedy to the busiest pipe
    the report lacks."""
    verdict = decide(_synthetic(sm_pct=85, mem_pct=40, waves_per_sm=10, dram_pct=40,
                                grid_blocks=10, sm_count=132))
    assert verdict.kind == "compute" and verdict.unit is None
    assert verdict.next_step.startswith(
        "Profile it again with `--section ComputeWorkloadAnalysis` (or `--set full`)")


def test_missing_speed_of_light_gives_no_verdict() -> None:
    verdict = decide(_synthetic())
    assert verdict.kind is None and "SpeedOfLight" in verdict.explanation


def test_a_gemm_at_the_tensor_pipes_ceiling_is_not_told_to_tile_through_registers(
        tmp_path: Path) -> None:
    """gemm_attention.ncu-rep: gen_unannotated.py's `ckpt` under `ncu --set full`, its
    first cuBLAS GEMM (nvjet, bf16 wgmma) and cuDNN's flash attention forward. The GEMM's
    tensor pipe is at 91% (NVIDIA's raw page, beside it): the math units are the ceiling.
    Its shared memory is busy because a wgmma reads its operands from there, not because
    each value feeds too little math: that row is kept as evidence, and the next step is
    the tensor cores' ceiling, not register tiling. ncu's roofline counts the CUDA cores'
    FP instructions alone, which the figures line says of a tensor kernel."""
    from tests.helpers.ncu_inputs import inflated_report, nvidia_page
    from tui.analysis.ncu.summary import _figures_text
    from tui.sources.ncu.load import load_ncu

    rows = nvidia_page("gemm_attention", "raw")
    column = rows[0].index("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active")
    tensor = [float(r[column]) for r in rows[2:]]
    assert tensor[0] > 90 and 60 < tensor[1] < 80
    con = duckdb.connect()
    load_ncu(inflated_report("gemm_attention", tmp_path), con)
    gemm = decide(_figures(con, 0))
    assert (gemm.kind, gemm.unit) == ("compute", "tensor")
    assert gemm.next_step.startswith("Tensor cores are the limit")
    assert "shared-throughput" in [a.condition for a in gemm.advice]
    assert "register tiling" not in gemm.next_step
    attention = decide(_figures(con, 1))
    assert (attention.kind, attention.unit) == ("compute", "tensor")
    figures = _figures(con, 0)
    assert figures.pipes["tensor"] == pytest.approx(tensor[0], abs=0.01)
    line = _figures_text({"dram_pct": 1.0, "l2_pct": 1.0, "l1_pct": 1.0,
                          "achieved_occupancy_pct": 1.0, "theoretical_occupancy_pct": 1.0,
                          "occupancy_limiters": [], "waves_per_sm": None, "sm_count": None,
                          "stalls": [], "pipes_pct": figures.pipes,
                          "roofline": {"precision": "fp32", "flop_per_s": 1.0,
                                       "pct_of_peak": 0.0, "arithmetic_intensity": 0.2,
                                       "side": "memory", "ridge_point": 9.4}}).plain
    assert "roofline fp32 (CUDA cores only: its tensor-core math is not counted)" in line


def test_a_triton_kernel_is_told_tritons_knobs(tmp_path: Path) -> None:
    """triton_softmax.ncu-rep: gen_unannotated.py's `triton` under `ncu --set full
    --import-source yes`, two launches of its Triton softmax. Triton writes the kernel's
    line table against its Python source, which the Source view reads (the hottest
    lines are recordings/gen_unannotated.py's and Triton's own standard.py, where tl.max
    is inlined from, as ncu's Source page gives them). Its next step names the Triton
    knobs for the CUDA C ones; a CUDA kernel's (hot.ncu-rep's, lines in hot.cu) does not."""
    from tests.helpers.ncu_inputs import inflated_report
    from tui.analysis.ncu.kept import report_summary
    from tui.analysis.ncu.summary import TRITON_KNOBS

    found = {name: report_summary(inflated_report(name, tmp_path), use_cache=False)["kernels"]
             for name in ("triton_softmax", "hot")}
    triton = found["triton_softmax"]
    assert [k["short_name"] for k in triton] == ["softmax_kernel"] * 2
    for k in triton:
        files = {line["file"].rsplit("/", 1)[-1] for line in k["hot_lines"]}
        assert "gen_unannotated.py" in files
        assert k["language"] == "triton" and k["next_step"].endswith(TRITON_KNOBS)
        assert "limited by registers" in k["next_step"]
    assert all("language" not in k and TRITON_KNOBS not in k["next_step"]
               for k in found["hot"])


def test_ncu_s_default_sections_give_the_pipes_over_the_elapsed_cycles(
        tmp_path: Path) -> None:
    """gemm_default.ncu-rep: `ckpt`'s first cuBLAS GEMM and cuDNN's flash attention under
    ncu's default sections (no --set). They hold no pipe utilisation over the SM's active
    cycles (Compute Workload Analysis's) but the speed of light's, over the elapsed ones
    (NVIDIA's raw page of it, beside it): read so, the GEMM's tensor pipe is at 89% (91%
    of the active cycles under --set full: gemm_attention) and the tensor cores are its
    ceiling, where it was told to remove redundant instructions."""
    from tests.helpers.ncu_inputs import inflated_report, nvidia_page
    from tui.sources.ncu.load import load_ncu

    rows = nvidia_page("gemm_default", "raw")
    assert not [c for c in rows[0] if c.startswith("sm__pipe_")
                and c.endswith("pct_of_peak_sustained_active")]
    column = rows[0].index("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
    tensor = [float(r[column]) for r in rows[2:]]
    assert tensor[0] > 85 and 60 < tensor[1] < 70
    con = duckdb.connect()
    load_ncu(inflated_report("gemm_default", tmp_path), con)
    for launch in (0, 1):
        figures = _figures(con, launch)
        assert figures.pipes["tensor"] == pytest.approx(tensor[launch], abs=0.01)
        assert (decide(figures).kind, decide(figures).unit) == ("compute", "tensor")
    assert decide(_figures(con, 0)).next_step.startswith("Tensor cores are the limit")
