"""`tui diff before.ncu-rep after.ncu-rep` on the recorded pair (recordings/ncu_advice:
three kernels optimised under the same name, the others unchanged): per kernel what
changed, with each side's durations as NVIDIA's details pages print them."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.ncu_advice import KERNELS, nvidia_rules, report
from tui.analysis.ncu.compare import compare_reports
from tui.cli.main import main


@cache
def result() -> dict[str, Any]:
    return compare_reports(report("before"), report("after"))


def _kernel(name: str) -> dict[str, Any]:
    return next(k for k in result()["kernels"] if k["name"] == name)


def test_every_kernel_is_paired_and_the_durations_are_nvidias() -> None:
    assert [k["name"] for k in result()["kernels"]] == KERNELS
    assert result()["appeared"] == result()["vanished"] == []
    for side in ("before", "after"):
        nvidia = dict(nvidia_rules(side).execute(
            "SELECT launch_id, duration_ns FROM ncu_kernels").fetchall())
        for k in result()["kernels"]:
            ours = k[f"duration_{side}_ns"]
            # the details page prints the duration to 3 significant digits (e.g. 414.21 us)
            assert ours == pytest.approx(nvidia[k[f"launch_{side}"]], rel=5e-3), k["name"]


@pytest.mark.parametrize("name,gone,speedup", [
    ("local_array", "local-array", 2.0),  # the array's indices made constant
    ("spill", "register-spills", 8.0),  # the register cap lifted
    ("atomic_hist", "contended-atomics", 20.0),  # per-block bins in shared memory
])
def test_each_fix_is_faster_and_its_condition_gone(name: str, gone: str,
                                                   speedup: float) -> None:
    k = _kernel(name)
    assert k["status"] == "faster" and k["speedup"] > speedup
    assert k["conditions_gone"] == [gone] and not k["conditions_new"]


def test_unchanged_kernels_are_the_same() -> None:
    for name in ("register_tiled_gemm", "barrier_heavy", "divergent_loop", "texture_read",
                 "register_heavy"):
        k = _kernel(name)
        assert k["status"] == "same", (name, k["change_pct"])
        assert k["conditions_gone"] == k["conditions_new"] == []


def test_padding_the_tile_does_not_speed_up_the_shared_tiled_gemm() -> None:
    """An odd pitch stops the compiler pairing the A loads (LDS.64 -> LDS): more shared
    instructions, the same time; MIO throttle still leads (the advice said so)."""
    k = _kernel("tiled_gemm")
    assert k["status"] == "same" and k["conditions_kept"] == ["shared-throughput"]
    shared = next(m for m in k["memory_instructions"] if m["space"] == "shared")
    assert shared["after"] > shared["before"]


def test_lines_are_paired_by_their_text() -> None:
    """local_array's loop moved up 13 lines (the #ifdef): it is paired by its text; the
    dynamically indexed read left with the fix."""
    lines = _kernel("local_array")["lines"]
    read = next(x for x in lines if x["text"].startswith("acc += buf[(j + k * 5) & 15]"))
    assert (read["line_before"], read["line_after"]) == (99, None)
    assert read["share_before"] > 0.6 and read["share_after"] == 0
    loop = next(x for x in lines if x["text"].startswith("for (int k = 0; k < iters"))
    assert (loop["line_before"], loop["line_after"]) == (98, 85)


def test_the_cli_prints_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    before, after = str(report("before")), str(report("after"))
    assert main(["diff", before, after, "--summary"]) == 0
    text = capsys.readouterr().out
    assert "spill" in text and "gone: register-spills" in text and "faster" in text
    # --fail-above: exit 1 when a kernel is slower by more (0.5%: noise is enough)
    assert main(["diff", before, after, "--json", "--fail-above", "0.5"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {k["name"]: k["status"] for k in data["kernels"]}["atomic_hist"] == "faster"
    assert main(["diff", before, "sample_traces/small_kernels.ncu-rep"]) == 0


def test_a_report_against_a_trace_is_a_one_line_error(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    from tests.conftest import sample

    code = main(["diff", str(report("before")), str(sample("ncu_kernels.pt.trace.json.gz"))])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Nsight Compute" in err[0]


def test_a_report_read_again_comes_from_the_cache_as_it_was(
        private_cache: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A report's summary is kept in the cache: the second `--summary` and `diff` of it
    read no report and print what the first did; --no-cache reads it again."""
    from tui.analysis.ncu import kept

    before = str(report("before"))
    assert main(["--summary", "--json", before]) == 0
    first = capsys.readouterr().out
    assert len(list(private_cache.glob(f"*.ncu-source.{kept.NCU_MEMO_VERSION}.json"))) == 1

    def no_report(*_args: object) -> None:
        raise AssertionError("the report was read again")

    with monkeypatch.context() as patch:
        patch.setattr(kept, "_summed_up", no_report)
        assert main(["--summary", "--json", before]) == 0
        assert capsys.readouterr().out == first
        assert main(["--summary", "--json", "--no-cache", before]) == 2  # read: refused here
        assert main(["diff", before, before, "--json", "--no-cache"]) == 2  # the same
    assert main(["--summary", "--json", "--no-cache", before]) == 0
    assert capsys.readouterr().out == first
