"""Our numbers on the nsys exports equal NVIDIA's own (`nsys stats`, `nsys analyze`)."""

from __future__ import annotations

import csv

import pytest

from tests.helpers.paths import NSYS_REFERENCE, NSYS_TRACES, sample
from tui.analysis.gaps import explained_gaps
from tui.analysis.kernels import kernel_stats
from tui.loading.trace import open_trace


def _reference(trace: str, report: str) -> list[dict]:
    with open(NSYS_REFERENCE / f"{trace}.{report}.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
@pytest.mark.parametrize("trace", NSYS_TRACES)
def test_gaps_equal_nsys_analyze_gpu_gaps(trace: str) -> None:
    expected = [
        (int(r["Device ID"]), int(r["Start (ns)"]), int(r["Duration (ns)"]))
        for r in _reference(trace, "gpu_gaps")
    ]
    with open_trace(sample(f"{trace}.sqlite")) as loaded:
        gaps = explained_gaps(loaded.con, min_gap_ns=1_000_000)
    assert [(g.device, g.start_ns, g.duration_ns) for g in gaps] == expected
    assert len(expected) == {"gappy_training": 28, "multistream": 9, "gappy_then_tuned": 49}[trace]


@pytest.mark.parametrize("trace", NSYS_TRACES)
def test_kernel_stats_equal_nsys_stats_cuda_gpu_kern_sum(trace: str) -> None:
    expected = {
        r["Name"]: (int(r["Instances"]), int(r["Total Time (ns)"]), int(r["Min (ns)"]),
                    int(r["Max (ns)"]), float(r["Med (ns)"]), float(r["Avg (ns)"]),
                    float(r["Time (%)"]))
        for r in _reference(trace, "kern_sum")
    }
    with open_trace(sample(f"{trace}.sqlite")) as loaded:
        stats = kernel_stats(loaded.con)
    assert len(stats) == len(expected)
    for k in stats:
        count, total, low, high, median, avg, pct = expected[k.name]
        assert (k.count, k.total_ns, k.min_ns, k.max_ns) == (count, total, low, high), k.name
        assert k.median_ns == pytest.approx(median, abs=0.0501)  # nsys prints one decimal
        assert k.avg_ns == pytest.approx(avg, abs=0.0501)  # nsys prints one decimal
        assert k.percent == pytest.approx(pct, abs=0.0501)  # nsys prints one decimal


@pytest.mark.parametrize("trace", NSYS_TRACES)
def test_copy_totals_equal_nsys_stats_cuda_gpu_mem_time_sum(trace: str) -> None:
    names = {"Host-to-Device": "HtoD", "Device-to-Host": "DtoH", "Device-to-Device": "DtoD"}
    expected = {}
    for r in _reference(trace, "mem_time_sum"):
        op = r["Operation"].strip("[]")
        key = ("memset", None) if op == "CUDA memset" else ("memcpy", names[op.split()[-1]])
        expected[key] = (int(r["Count"]), int(r["Total Time (ns)"]))
    with open_trace(sample(f"{trace}.sqlite")) as loaded:
        rows = loaded.con.execute(
            "SELECT kind, copy_kind, count(*), sum(duration_ns) FROM gpu_activities "
            "WHERE kind IN ('memcpy', 'memset') GROUP BY ALL"
        ).fetchall()
    assert {(kind, ck): (n, total) for kind, ck, n, total in rows} == expected
