"""`tui diff`: the real gappy/tuned pair, a Kineto trace against an nsys export of the same
program, the CI gate and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import oracle
from tests.helpers.paths import sample
from tui.analysis.kernel_names import kernel_key
from tui.cli.main import main

GAPPY = "gappy_training.pt.trace.json.gz"
TUNED = "tuned_training.pt.trace.json.gz"


def _diff(capsys: pytest.CaptureFixture, before: str | Path, after: str | Path,
          *args: str) -> tuple[int, dict]:
    code = main(["diff", str(before), str(after), "--json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out) if out else {}


@pytest.mark.slow
def test_tuned_is_faster_with_less_idle_time(capsys) -> None:
    code, diff = _diff(capsys, sample(GAPPY), sample(TUNED))
    assert code == 0
    before, after = diff["before"], diff["after"]
    assert after["idle_ns"] < before["idle_ns"]
    assert after["gap_ns"] < before["gap_ns"] and before["gaps"] == 10
    assert diff["time"]["measure"] == "median step" and diff["time"]["change_pct"] < -40
    assert diff["gaps"]["before"]["host-wait"]["count"] == 10
    assert diff["time"]["verdict"] == "faster"
    # fp32 GEMMs gave way to bf16 ones (other kernels: no pairs); 4 kernels changed variant
    assert diff["kernel_changes"] == {"appeared": 20, "vanished": 19, "variant": 4,
                                      "faster": 5, "slower": 0, "same": 7}
    assert [(f["rule"], f["text"]) for f in diff["findings"][:3]] == [
        ("time_change", "After is faster than before: median step 39.6 ms → 18.4 ms "
                        "(-53.6%, 2.15× as fast)."),
        ("idle_change", "GPU idle fell 50%: 163 ms → 81.9 ms; gaps over 1 ms: 10 → 0 "
                        "(109 ms → 0 ns)."),
        ("kernel_time_change", "Kernel time fell 81%: 87.3 ms → 16.2 ms, in 1,260 → 1,341 "
                               "launches."),
    ]
    assert diff["findings"][0]["cost_ns"] == diff["time"]["after_ns"] - diff["time"]["before_ns"]
    statuses = {k["status"] for k in diff["kernels"]}
    assert statuses <= {"appeared", "vanished", "variant", "faster", "slower", "same"}
    deltas = [abs(k["delta_ns"]) for k in diff["kernels"]]
    assert deltas == sorted(deltas, reverse=True)


@pytest.mark.slow
def test_totals_equal_the_json(capsys) -> None:
    _, diff = _diff(capsys, sample(GAPPY), sample(TUNED))
    for side, name in (("before", GAPPY), ("after", TUNED)):
        events = oracle.chrome_events(sample(name))
        kernels = [e for e in events if e.get("cat") == "kernel"]
        intervals = oracle.gpu_intervals(events)
        span = max(i[2] for i in intervals) - min(i[1] for i in intervals)
        idle = sum(g[2] for g in oracle.idle_gaps(intervals, 0))
        assert diff[side]["kernels"] == len(kernels)
        assert diff[side]["kernel_ns"] == sum(oracle.ns(e["dur"]) for e in kernels)
        assert (diff[side]["span_ns"], diff[side]["idle_ns"]) == (span, idle)
        by_name: dict[str, int] = {}
        for e in kernels:
            by_name[e["name"]] = by_name.get(e["name"], 0) + oracle.ns(e["dur"])
        total = sum(k[f"{side}_total_ns"] for k in diff["kernels"])
        assert total == sum(by_name.values())


def test_kineto_against_nsys_matches_every_kernel_by_name(capsys) -> None:
    code, diff = _diff(capsys, sample(GAPPY), sample("gappy_training.sqlite"))
    assert code == 0
    assert diff["before"]["format"] == "kineto" and diff["after"]["format"] == "nsys"
    changes = diff["kernel_changes"]
    assert changes["appeared"] == changes["vanished"] == changes["variant"] == 0
    assert len(diff["kernels"]) == 35
    # the same program run twice: every kernel's time per launch is the same within noise
    # (2% or 1 µs) but FillFunctor<float>'s, whose launches fill other sizes (65 in five
    # steps against 200 in eight)
    assert changes["same"] == 34 and changes["faster"] == 1
    fill = next(k for k in diff["kernels"] if k["status"] == "faster")
    assert "FillFunctor<float>" in fill["name"] and (fill["before_count"],
                                                       fill["after_count"]) == (65, 200)
    # the step time (not the GPU span, which in the nsys run includes model setup), and
    # its noise: 2% of 39.6 ms is more than 1 µs for each of the 252 launches of a step
    time = diff["time"]
    assert time["measure"] == "median step" and time["verdict"] == "same"
    assert time["noise_ns"] == round(0.02 * time["before_ns"]) == 792_965
    assert diff["findings"][0]["text"] == (
        "After is as fast as before: median step 39.6 ms → 40.4 ms (+1.8%), within noise "
        "(under 793 µs: 2% or 1 µs a launch, whichever is more).")
    assert any("5 steps and after 8" in w for w in diff["warnings"])


def test_template_variants_pair_up_and_ambiguous_ones_do_not(capsys) -> None:
    """fp32 -> bf16: a kernel instantiated for another dtype (and vector width) is one
    kernel that changed variant. Pairs checked by eye in the two traces' kernel names."""
    _, diff = _diff(capsys, sample(GAPPY), sample(TUNED))
    variants = {(k["before_name"], k["name"]): k for k in diff["kernels"]
                if k["status"] == "variant"}
    pairs = sorted((_brief(b), _brief(a)) for b, a in variants)
    assert pairs == [
        ("elementwise_kernel<128, 2, gpu_kernel_impl_nocast<CUDAFunctor_add<float>",
         "elementwise_kernel<128, 4, gpu_kernel_impl_nocast<CUDAFunctor_add<BFloat16>"),
        ("vectorized_elementwise_kernel<4, FillFunctor<unsigned char>",
         "vectorized_elementwise_kernel<8, FillFunctor<BFloat16>"),
        ("vectorized_elementwise_kernel<4, GeluBackwardCUDAKernelImpl(float)",
         "vectorized_elementwise_kernel<8, GeluBackwardCUDAKernelImpl(BFloat16)"),
        ("vectorized_elementwise_kernel<4, GeluCUDAKernelImpl(float)",
         "vectorized_elementwise_kernel<8, GeluCUDAKernelImpl(BFloat16)"),
    ]
    # each pair's figures are its two kernels' own, read from the JSON
    totals = {side: _totals_by_name(name) for side, name in (("before", GAPPY),
                                                              ("after", TUNED))}
    for (before, after), k in variants.items():
        assert (k["before_count"], k["before_total_ns"]) == totals["before"][before]
        assert (k["after_count"], k["after_total_ns"]) == totals["after"][after]
        assert before not in totals["after"] and after not in totals["before"]
    # ambiguous: the fp32 sum reductions <128, 4> and <512, 1> against one bf16 <128, 4>;
    # six foreach optimizer kernels against one fused AdamW kernel
    left = [k for k in diff["kernels"] if k["status"] in ("appeared", "vanished")]
    sums = [k["status"] for k in left if "reduce_kernel" in k["name"]
            and "sum_functor" in k["name"]]
    assert sorted(sums) == ["appeared", "vanished", "vanished"]
    foreach = [k["status"] for k in left if "multi_tensor_apply_kernel" in k["name"]]
    assert sorted(foreach) == ["appeared"] + ["vanished"] * 6
    finding = next(f for f in diff["findings"] if f["rule"] == "kernel_variant_changed")
    assert finding["text"] == (
        "4 kernels changed variant (the same kernel with other template arguments), largest "
        "first: vectorized_elementwise_kernel<…GeluBackwardCUDAKernelImpl…> (4 → 8, float → "
        "c10::BFloat16), avg 33.7 µs → 20.5 µs (faster); elementwise_kernel<…gpu_kernel_impl_"
        "nocast…> (2 → 4, float → c10::BFloat16), avg 14.1 µs → 15.3 µs (slower); "
        "vectorized_elementwise_kernel<…FillFunctor…> (4 → 8, unsigned char → c10::BFloat16), "
        "avg 3.55 µs → 4.73 µs (slower); and 1 more.")
    assert len(finding["rows"]) == 4
    assert finding["cost_ns"] == sum(k["delta_ns"] for k in variants.values())


@pytest.mark.slow
def test_variants_pair_across_kineto_and_nsys(capsys) -> None:
    """The nsys export of the fp32 run against the bf16 Kineto trace: the same four
    pairs, through the two profilers' spellings."""
    _, diff = _diff(capsys, sample("gappy_training.sqlite"), sample(TUNED))
    pairs = sorted((_brief(k["before_name"]), _brief(k["name"])) for k in diff["kernels"]
                   if k["status"] == "variant")
    _, kineto = _diff(capsys, sample(GAPPY), sample(TUNED))
    assert pairs == sorted((_brief(k["before_name"]), _brief(k["name"]))
                           for k in kineto["kernels"] if k["status"] == "variant")


def test_slower_and_its_sentences(capsys) -> None:
    _, diff = _diff(capsys, sample(TUNED), sample(GAPPY))
    assert diff["time"]["verdict"] == "slower"
    texts = [f["text"] for f in diff["findings"]]
    assert texts[0] == "After is slower than before: median step 18.4 ms → 39.6 ms (+115.5%)."
    assert texts[1] == ("GPU idle rose 99%: 81.9 ms → 163 ms; gaps over 1 ms: 0 → 10 "
                        "(0 ns → 109 ms).")
    assert diff["findings"][0]["severity"] == "warning"


def _brief(name: str) -> str:
    """A kernel name cut to what tells the pairs apart, for the assertions above."""
    import re

    text = re.sub(r"\b(at::native::|c10::|\(anonymous namespace\)::|<unnamed>::|void )", "",
                  name)
    text = re.sub(r"\(int\)|(?<=\d)ul\b", "", text)
    gelu = re.match(r"(vectorized_elementwise_kernel<\d+, Gelu\w+)", text)
    if gelu:
        dtype = "BFloat16" if "BFloat16" in text else "float"
        return f"{gelu.group(1)}({dtype})"
    return text.split(" >")[0].split(">(")[0].split(", std::")[0]


def _totals_by_name(trace: str) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for e in oracle.chrome_events(sample(trace)):
        if e.get("cat") == "kernel":
            count, total = out.get(e["name"], (0, 0))
            out[e["name"]] = (count + 1, total + oracle.ns(e["dur"]))
    return out


@pytest.mark.slow
def test_fail_above_is_a_ci_gate(capsys) -> None:
    code, diff = _diff(capsys, sample(TUNED), sample(GAPPY), "--fail-above", "5")
    assert code == 1 and diff["gate"] == {"fail_above_pct": 5.0, "failed": True}
    code, diff = _diff(capsys, sample(GAPPY), sample(TUNED), "--fail-above", "5")
    assert code == 0 and diff["gate"]["failed"] is False
    code, _ = _diff(capsys, sample(TUNED), sample(GAPPY), "--fail-above", "500")
    assert code == 0


def test_gate_message_is_one_line_on_stderr(capsys) -> None:
    assert main(["diff", str(sample(TUNED)), str(sample(GAPPY)), "--fail-above", "5"]) == 1
    captured = capsys.readouterr()
    assert "Totals" in captured.out and "gate FAILED" in captured.out
    assert captured.err.count("\n") == 1 and "above --fail-above 5%" in captured.err


@pytest.mark.slow
def test_no_gpu_activity_cannot_be_compared(tmp_path: Path, capsys) -> None:
    """A generated edge case: the gappy trace with its GPU events removed."""
    events = [e for e in oracle.chrome_events(sample(GAPPY))
              if e.get("cat") not in oracle.GPU_CATS]
    cpu_only = tmp_path / "cpu_only.json"
    cpu_only.write_text(json.dumps({"traceEvents": events}, default=float))
    assert main(["diff", str(sample(GAPPY)), str(cpu_only)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot compare" in err and "after" in err


def test_bad_input_is_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["diff", str(sample(GAPPY)), str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["diff", str(sample(GAPPY)), str(tmp_path)]) == 2
    assert "directory" in capsys.readouterr().err


def test_text_output_has_tables_and_findings(capsys) -> None:
    assert main(["diff", str(sample(GAPPY)), str(sample(TUNED))]) == 0
    out = capsys.readouterr().out
    for heading in ("Totals", "Kernels by change", "GPU-idle gaps", "Findings"):
        assert heading in out
    assert "vanished" in out and "appeared" in out and "variant" in out
    assert "After is faster than before: median step 39.6 ms → 18.4 ms" in out


@pytest.mark.parametrize(("kineto", "nsys"), [
    ("void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<float, "
     "float, false>(float const*, float const*, float const*, float const*, float const*, "
     "float*, int)",
     "void at::native::<unnamed>::layer_norm_grad_input_kernel_vectorized<float, float, "
     "(bool)0>(const T1 *, const T1 *, const T2 *, const T2 *, const T1 *, T1 *, int)"),
    ("void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false, "
     "float, float, float, true, false, false, false>(cublasLt::cublasSplitKParams<float>, "
     "float const*, float const*, float*, float const*, float const*, float const*, float "
     "const*, float*, void*, long, float*, int*, float*, float*, float const*, float const*, "
     "float const*, float const*, float const*)",
     "void cublasLt::splitKreduce_kernel<(int)32, (int)16, int, float, float, float, float, "
     "(bool)0, float, float, float, (bool)1, (bool)0, (bool)0, (bool)0>(cublasLt::"
     "cublasSplitKParams<T6>, const T4 *, const T5 *, T5 *, const T6 *, const T6 *, const T7 "
     "*, const T4 *, T7 *, void *, long, T6 *, int *, T6 *, T6 *, const T6 *, const T6 *, "
     "const T6 *, const T6 *, const T6 *)"),
    ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::"
     "native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add"
     "<float> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::"
     "CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> "
     "const&)::{lambda(int)#1})",
     "void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl_"
     "nocast<at::native::CUDAFunctor_add<float>>(at::TensorIteratorBase &, const T1 &)::"
     "[lambda(int) (instance 1)]>(int, T3)"),
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"),
])
def test_kernel_key_matches_kineto_and_nsys_spellings(kineto: str, nsys: str) -> None:
    assert kernel_key(kineto) == kernel_key(nsys)


def _row(name: str, status: str, before: int = 0, after: int = 0) -> dict:
    """A kernel_diff() row, made up for the pairing rule (generated, not from a trace)."""
    return {"name": name, "key": kernel_key(name), "status": status,
            "before_count": int(before > 0), "after_count": int(after > 0),
            "before_total_ns": before, "after_total_ns": after, "delta_ns": after - before,
            "before_avg_ns": before or None, "after_avg_ns": after or None,
            "avg_change_pct": None}


def test_pairing_prefers_the_finest_key_and_skips_ambiguous_names() -> None:
    from tui.analysis.diff_variants import pair_variants

    rows = [_row("k<128, float>(float*)", "vanished", before=10_000),
            _row("k<512, float>(float*)", "vanished", before=20_000),
            _row("k<128, c10::BFloat16>(c10::BFloat16*)", "appeared", after=6_000),
            _row("g<float>(int)", "vanished", before=5_000),
            _row("g<double>(int)", "vanished", before=5_000),
            _row("g<c10::Half>(int)", "appeared", after=5_050),
            _row("h<Tile128>()", "vanished", before=3_000),
            _row("h<Tile256>()", "appeared", after=2_000)]
    paired = {k["name"]: k for k in pair_variants(rows)}
    # k: only the scalar type differs for <128>: paired before numbers are abstracted
    assert paired["k<128, c10::BFloat16>(c10::BFloat16*)"]["before_name"] == \
        "k<128, float>(float*)"
    assert paired["k<512, float>(float*)"]["status"] == "vanished"
    # g: two before, one after, on every key: ambiguous
    assert {paired[n]["status"] for n in ("g<float>(int)", "g<double>(int)",
                                          "g<c10::Half>(int)")} == {"vanished", "appeared"}
    # h: differs in a named argument: paired on the family key alone
    h = paired["h<Tile256>()"]
    assert (h["status"], h["before_name"], h["change"]) == ("variant", "h<Tile128>()",
                                                            "faster")
    assert paired["k<128, c10::BFloat16>(c10::BFloat16*)"]["change"] == "faster"
    assert [k["status"] for k in pair_variants(rows)].count("variant") == 2


def test_kernel_key_keeps_different_kernels_apart() -> None:
    assert kernel_key("f<float>(int)") != kernel_key("f<double>(int)")
    assert kernel_key("sm80_gemm_128x64") != kernel_key("sm80_gemm_64x64")


def test_the_plain_functions_can_be_called_again_on_one_connection() -> None:
    """What the app will call: kernel_diff on an open pair, more than once."""
    from tui.runs.diff import kernel_diff
    from tui.runs.run import open_run

    with open_run([sample(GAPPY), sample(TUNED)], by_order=True) as pair:
        first = kernel_diff(pair.con)
        assert kernel_diff(pair.con) == first and len(first) == 59  # variants not paired
