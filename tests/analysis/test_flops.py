"""Achieved FLOP/s and MFU on the GPT-style model recorded under torch.profiler with
record_shapes (sample_traces/flops/, one H200: bf16, tf32, fp32), against an oracle that
reads the raw trace with json and does the arithmetic itself, and against the model's
FLOPs worked out on paper."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import ROOT, SAMPLES, sample
from tests.helpers.pilot import settle, sync
from tests.helpers.tables import ready
from tui.analysis.flops import flops_summary, has_flops, kernel_name_flops
from tui.analysis.peaks import gpu_peaks, peak_flops_per_s
from tui.analysis.summary import trace_summary
from tui.apps.trace_app import TraceApp
from tui.loading.parquet_store import export_parquet, open_store_trace
from tui.loading.trace import Trace, open_trace
from tui.views.reports.flops import print_flops

PRECISIONS = ("bf16", "tf32", "fp32")
# the model of recordings/gen_flops.py
VOCAB, D_MODEL, LAYERS, HEADS, SEQ, BATCH = 50257, 1024, 4, 16, 512, 8
H200_BF16_DENSE = 989.5e12  # NVIDIA's H200 datasheet: 1,979 TFLOPS with sparsity
SAMPLES_FLOPS = SAMPLES / "flops"
DATA_FLOPS = ROOT / "tests" / "data" / "flops"


def _path(precision: str) -> Path:
    return sample(f"flops/flops_{precision}.pt.trace.json.gz")


@pytest.fixture(scope="module")
def traces() -> Iterator[dict[str, Trace]]:
    loaded = {p: open_trace(_path(p)) for p in PRECISIONS}
    yield loaded
    for trace in loaded.values():
        trace.close()


@pytest.fixture(scope="module")
def summaries(traces: dict[str, Trace]) -> dict[str, dict]:
    out = {}
    for precision, trace in traces.items():
        found = flops_summary(trace.con)
        assert found is not None
        out[precision] = dict(found)
    return out


def _events(precision: str) -> list[dict]:
    with gzip.open(_path(precision)) as f:
        return json.load(f)["traceEvents"]


def _steps(events: list[dict]) -> list[dict]:
    return sorted((e for e in events if e.get("cat") == "user_annotation"
                   and e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])


def _oracle(precision: str) -> tuple[float, float, list[float]]:
    """(GEMM FLOPs, attention FLOPs) of the ops inside the profiled steps, and the steps'
    durations in s, read from the raw trace: 2·M·K·N over aten::mm/addmm/bmm (addmm's
    matrices are its second and third inputs), PyTorch's FLOP counter's attention formulas
    over the SDPA backends' ops (q·kᵀ and scores·v forward; five products backward)."""
    events = _events(precision)
    steps = _steps(events)
    start, end = steps[0]["ts"], steps[-1]["ts"] + steps[-1]["dur"]
    gemm = attention = 0.0
    for e in events:
        if e.get("cat") != "cpu_op" or not start <= e["ts"] < end:
            continue
        dims = e["args"].get("Input Dims")
        name = e["name"]
        if name == "aten::mm":
            (m, k), (_, n) = dims[0], dims[1]
            gemm += 2 * m * k * n
        elif name == "aten::addmm":
            (m, k), (_, n) = dims[1], dims[2]
            gemm += 2 * m * k * n
        elif name == "aten::bmm":
            (b, m, k), (_, _, n) = dims[0], dims[1]
            gemm += 2 * b * m * k * n
        elif name.startswith("aten::_scaled_dot_product_") and name.endswith("_backward"):
            b, h, s, d = dims[1]
            attention += 5 * 2 * b * h * s * s * d
        elif name.startswith("aten::_scaled_dot_product_"):
            b, h, s, d = dims[0]
            attention += 2 * 2 * b * h * s * s * d
    return gemm, attention, [s["dur"] / 1e6 for s in steps]


@pytest.mark.parametrize("precision", PRECISIONS)
def test_total_equals_the_oracle(summaries: dict[str, dict], traces: dict[str, Trace],
                                 precision: str) -> None:
    gemm, attention, _ = _oracle(precision)
    fl = summaries[precision]
    assert fl["source"] == "shapes"
    assert fl["total"] == pytest.approx(gemm + attention, rel=1e-3)
    # the GEMMs alone: the kernels that aten::mm and aten::addmm launched
    row = traces[precision].con.execute(
        "SELECT sum(k.flops) FROM kernel_flops AS k JOIN host_activities AS h "
        "ON h.id = k.op_id WHERE h.name IN ('aten::mm', 'aten::addmm', 'aten::bmm')"
    ).fetchone()
    assert row is not None and row[0] == pytest.approx(gemm, rel=1e-3)


def test_a_step_does_the_model_s_flops_on_paper(summaries: dict[str, dict]) -> None:
    """6 · parameters · tokens for the GEMMs (forward 2, backward 4), plus attention's
    q·kᵀ and scores·v (4·b·h·s²·d forward, 2.5 times that backward)."""
    params = LAYERS * 12 * D_MODEL ** 2 + VOCAB * D_MODEL  # qkv, proj, up, down; the head
    tokens = BATCH * SEQ
    attention = LAYERS * 3.5 * 4 * BATCH * SEQ * SEQ * D_MODEL
    paper = 6 * params * tokens + attention
    for fl in summaries.values():
        assert len(fl["by_step"]) == 4
        for step in fl["by_step"]:
            assert step["flops"] == pytest.approx(paper, rel=0.15)


def test_bf16_mfu_against_the_h200_s_dense_peak(summaries: dict[str, dict]) -> None:
    gemm, attention, durations = _oracle("bf16")
    fl = summaries["bf16"]
    assert fl["device"] == "NVIDIA H200" and fl["peak_known_as"] == "H200 SXM"
    assert fl["peak_flops_per_s"] == H200_BF16_DENSE
    per_step = (gemm + attention) / len(durations)
    for step, seconds in zip(fl["by_step"], durations, strict=True):
        # the script synchronizes each step: its wall time is the profiler step's
        assert step["duration_ns"] / 1e9 == pytest.approx(seconds, rel=0.01)
        assert step["mfu"] == pytest.approx(per_step / seconds / H200_BF16_DENSE, rel=0.01)
    assert 0.05 < fl["mfu"] < 0.5  # ~21.5 ms steps of 2.6 TFLOP: 12%
    assert fl["mfu"] == pytest.approx((gemm + attention) / sum(durations) / H200_BF16_DENSE,
                                      rel=0.01)


def test_fp32_runs_at_a_fraction_of_bf16(summaries: dict[str, dict]) -> None:
    _, _, bf16_steps = _oracle("bf16")
    _, _, fp32_steps = _oracle("fp32")
    bf16, fp32 = summaries["bf16"], summaries["fp32"]
    ratio = bf16["achieved_flops_per_s"] / fp32["achieved_flops_per_s"]
    assert ratio == pytest.approx(sum(fp32_steps) / sum(bf16_steps), rel=0.02)
    assert 2.3 < ratio < 3.2  # 58 ms steps against 21.5
    # fp32 GEMMs on CUDA cores: measured against the fp32 peak, not a tensor-core one
    assert {p["precision"] for p in fp32["by_precision"]} == {"fp32"}
    assert fp32["peak_flops_per_s"] == peak_flops_per_s("NVIDIA H200", "fp32")
    assert fp32["mfu"] > bf16["mfu"]


def test_tf32_gemms_count_at_the_tf32_peak(summaries: dict[str, dict]) -> None:
    fl = summaries["tf32"]
    by_name = {k["name"]: k for k in fl["by_kernel"]}
    tensorop = [k for name, k in by_name.items() if "tensorop_s1688gemm" in name]
    assert tensorop and all(k["precision"] == "tf32" for k in tensorop)
    # attention's FP32 kernels keep fp32: the peak lies between the two
    assert (peak_flops_per_s("NVIDIA H200", "fp32") < fl["peak_flops_per_s"]
            < peak_flops_per_s("NVIDIA H200", "tf32"))


def test_an_op_s_flops_are_shared_among_its_kernels_by_duration(
        traces: dict[str, Trace]) -> None:
    con = traces["tf32"].con
    rows = con.execute(
        "SELECT k.op_id, o.flops, sum(k.flops), count(*), "
        "       max(k.flops / g.duration_ns) - min(k.flops / g.duration_ns) "
        "FROM kernel_flops AS k JOIN gpu_activities AS g ON g.id = k.gpu_id "
        "JOIN host_activities AS h ON h.id = k.op_id "
        "JOIN op_flops AS o ON o.tid = h.tid AND o.start_ns = h.start_ns "
        "GROUP BY k.op_id, o.flops HAVING count(*) > 1").fetchall()
    assert rows  # split-K GEMMs and attention's passes
    for _op, op_flops, shared, _kernels, spread in rows:
        assert shared == pytest.approx(op_flops, rel=1e-9)
        assert spread == pytest.approx(0, abs=1e-6 * op_flops)


def test_text_summary_says_it(summaries: dict[str, dict]) -> None:
    console = Console(width=100, record=True)
    print_flops(summaries["bf16"], console)
    text = console.export_text()
    assert "FLOPs (from the ops' recorded shapes): 10.5 TFLOP" in text
    assert "MFU 12.3% of the H200 SXM's 990 TFLOP/s dense peak (bf16)" in text
    assert "per step: 2.62 TFLOP" in text


def test_an_unknown_gpu_gets_flops_but_no_mfu() -> None:
    assert gpu_peaks("NVIDIA GeForce RTX 4090") is None
    assert gpu_peaks("NVIDIA A100-SXM4-80GB") is not None
    assert gpu_peaks("NVIDIA A10") is not None and gpu_peaks("NVIDIA A10").name == "A10"
    with open_trace(_path("bf16"), use_cache=False) as trace:  # in memory: renamed here
        trace.con.execute("UPDATE devices SET name = 'NVIDIA Hypothetical X1'")
        fl = flops_summary(trace.con)
    assert fl is not None and fl["achieved_flops_per_s"] > 0
    assert fl["mfu"] is None and fl["peak_flops_per_s"] is None
    assert fl["no_peak_for"] == ["NVIDIA Hypothetical X1 bf16"]
    console = Console(width=200, record=True)
    print_flops(dict(fl), console)
    assert "no MFU: no peak known for NVIDIA Hypothetical X1 bf16" in console.export_text()


@pytest.mark.slow
def test_a_trace_without_shapes_has_no_flops() -> None:
    with open_trace(sample("bound_compute.pt.trace.json.gz")) as trace:
        assert not has_flops(trace.con)
        assert kernel_name_flops(trace.con) == {}
        assert "flops" not in trace_summary(trace, 1_000_000)


def test_a_converted_store_keeps_the_flops(traces: dict[str, Trace], tmp_path: Path,
                                           summaries: dict[str, dict]) -> None:
    store = export_parquet(traces["bf16"], tmp_path / "bf16.tui-store")
    with open_store_trace(store) as trace:
        fl = flops_summary(trace.con)
    assert fl is not None and fl["total"] == summaries["bf16"]["total"]


@pytest.mark.slow
@sync
async def test_kernels_table_shows_flop_rate_and_mfu(summaries: dict[str, dict]) -> None:
    app = TraceApp(_path("bf16"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        kernels = await ready(pilot, "kernel-names")
        top = kernels.row_at(0)  # the head's GEMM, 23.6% of the GPU time
        assert top is not None
        expected = {k["name"]: k for k in summaries["bf16"]["by_kernel"]}[top["name"]]
        assert top["flops_per_s"] == pytest.approx(expected["flops_per_s"])
        assert top["mfu_pct"] == pytest.approx(100 * expected["mfu"])
        assert "FLOP/s" in kernels.render_line(0).text
        assert "MFU %" in kernels.render_line(0).text


# -- XLA: a jitted bf16 MLP step (recordings/gen_flops_jax.py), 5 steps ---------------

JAX_SIZES, JAX_BATCH = (4096, 8192, 8192, 4096), 4096


@pytest.fixture(scope="module")
def jax_trace() -> Iterator[Trace]:
    path = next((SAMPLES_FLOPS / "jax_flops").rglob("*.xplane.pb"))
    with open_trace(path) as trace:
        yield trace


def test_xla_dots_from_the_hlo_shapes(jax_trace: Trace) -> None:
    """The step's GEMMs on paper: forward x·W per layer, backward dW per layer and dx for
    all but the first: 2·batch·in·out each."""
    layers = list(zip(JAX_SIZES[:-1], JAX_SIZES[1:], strict=True))
    gemm = 2 * JAX_BATCH * sum(a * b for a, b in layers)
    paper = 2 * gemm + 2 * JAX_BATCH * sum(a * b for a, b in layers[1:])
    fl = flops_summary(jax_trace.con)
    assert fl is not None and fl["source"] == "hlo"
    assert [s["flops"] for s in fl["by_step"]] == [pytest.approx(paper, rel=1e-9)] * 5
    assert fl["total"] == pytest.approx(5 * paper, rel=1e-9)
    assert {p["precision"] for p in fl["by_precision"]} == {"bf16"}
    # the GPU as the XSpace's device plane names it, and its bf16 peak
    assert fl["device"] == "NVIDIA H200" and fl["peak_flops_per_s"] == H200_BF16_DENSE
    devices = jax_trace.con.execute("SELECT sm_count, compute_capability FROM devices").fetchall()
    assert devices == [(132, "9.0")]
    assert fl["mfu"] == pytest.approx(fl["achieved_flops_per_s"] / H200_BF16_DENSE)
    # the steps after the first (dispatched ahead): each GPU's run of the step
    for step in fl["by_step"][1:]:
        assert 0.5 < step["mfu"] < 0.9


def test_xla_cost_analysis_leaves_out_the_cublas_calls(jax_trace: Trace) -> None:
    """XLA's compiled.cost_analysis() of the step (1.3765e12) counts the dots of its
    Triton GEMM fusions and the element-wise work, and nothing for the GEMMs it hands to
    cuBLAS (custom calls): tui counts those too."""
    cost = json.loads((DATA_FLOPS / "jax_flops_cost.json").read_text())["cost_analysis"]
    fusions, calls = jax_trace.con.execute(
        "SELECT sum(flops) FILTER (WHERE opcode = 'fusion'), "
        "       sum(flops) FILTER (WHERE opcode = 'custom-call') "
        "FROM hlo_ops WHERE hlo_module = 'jit_step'").fetchone()
    assert calls > 0
    assert 0 < cost["flops"] - fusions < 0.01 * cost["flops"]  # element-wise: under 1%
