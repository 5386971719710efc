"""`tui diff`: the real gappy/tuned pair, a Kineto trace against an nsys export of the same
program, the CI gate and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import oracle
from tests.conftest import sample
from tui.analysis.kernel_names import kernel_key
from tui.cli import main

GAPPY = "gappy_training.pt.trace.json.gz"
TUNED = "tuned_training.pt.trace.json.gz"


def _diff(capsys: pytest.CaptureFixture, before: str | Path, after: str | Path,
          *args: str) -> tuple[int, dict]:
    code = main(["diff", str(before), str(after), "--json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out) if out else {}


def test_tuned_is_faster_with_less_idle_time(capsys) -> None:
    code, diff = _diff(capsys, sample(GAPPY), sample(TUNED))
    assert code == 0
    before, after = diff["before"], diff["after"]
    assert after["idle_ns"] < before["idle_ns"]
    assert after["gap_ns"] < before["gap_ns"] and before["gaps"] == 10
    assert diff["time"]["measure"] == "median step" and diff["time"]["change_pct"] < -40
    assert diff["gaps"]["before"]["host-wait"]["count"] == 10
    assert diff["findings"][0].startswith("After is 54% faster")
    changes = diff["kernel_changes"]
    assert changes["appeared"] > 0 and changes["vanished"] > 0  # fp32 GEMMs gave way to bf16
    statuses = {k["status"] for k in diff["kernels"]}
    assert statuses <= {"appeared", "vanished", "faster", "slower", "same"}
    deltas = [abs(k["delta_ns"]) for k in diff["kernels"]]
    assert deltas == sorted(deltas, reverse=True)


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
    assert changes["appeared"] == changes["vanished"] == 0
    assert len(diff["kernels"]) == 35
    assert changes["same"] >= 30  # the same program: per-launch times agree within 5%
    # the step time (not the GPU span, which in the nsys run includes model setup)
    assert diff["time"]["measure"] == "median step"
    assert abs(diff["time"]["change_pct"]) < 5
    assert any("5 steps and after 8" in w for w in diff["warnings"])


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
    assert "vanished" in out and "appeared" in out


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


def test_kernel_key_keeps_different_kernels_apart() -> None:
    assert kernel_key("f<float>(int)") != kernel_key("f<double>(int)")
    assert kernel_key("sm80_gemm_128x64") != kernel_key("sm80_gemm_64x64")


def test_the_plain_functions_can_be_called_again_on_one_connection() -> None:
    """What the app will call: kernel_diff on an open pair, more than once."""
    from tui.analysis.diff import kernel_diff
    from tui.multirank.run import open_run

    with open_run([sample(GAPPY), sample(TUNED)], by_order=True) as pair:
        first = kernel_diff(pair.con)
        assert kernel_diff(pair.con) == first and len(first) == 59
