"""An XLA profile's GPU hardware counters (CUPTI PM sampling, XLA's `gpu_pm_sample_counters`):
jax_pm_counters/ (one H200, recordings/gen_pm_counters_jax.py: 40 bf16 8192² GEMMs in the
TraceAnnotation `compute_bound`, 40 elementwise passes over 512 MB in `memory_bound`, a 200
ms sleep in `host_bound`; SMs active, tensor pipe, DRAM read and write, PCIe bytes, every
500 µs) loads its counters into gpu_metrics, not as kernels, and their means per range
equal what the raw XSpace gives, read here with the protobuf runtime, not tui's loader."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from tests.helpers.paths import SAMPLES
from tui.analysis.gpu_metrics import gpu_metrics_summary, range_means
from tui.analysis.summary import trace_summary
from tui.analysis.window import work_window
from tui.core.gpu_metric_names import DRAM_READ, DRAM_WRITE, SM, TENSOR
from tui.core.queries import load_query
from tui.loading.trace import Trace, open_trace
from tui.sources.cupti_metrics import kept_names
from tui.sources.xla_counters import counter_samples, read_counter_samples
from tui.sources.xplane import parse_xspace
from tui.sources.xspace_schema import XSpace

RUN = SAMPLES / "jax_pm_counters" / "plugins" / "profile" / "2026_11_28_13_28_23"
XPLANE = RUN / "vm.xplane.pb"
PHASES = ("compute_bound", "memory_bound", "host_bound")
PERIOD_NS = 500_000  # gpu_pm_sample_interval_us=500 (recordings/gen_pm_counters_jax.py)
# what each CUPTI metric of the recording means (CUPTI's PM sampling metrics table)
OURS = {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed": SM,
        "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed": TENSOR,
        "dram__read_throughput.avg.pct_of_peak_sustained_elapsed": DRAM_READ,
        "dram__write_throughput.avg.pct_of_peak_sustained_elapsed": DRAM_WRITE}
BYTE_COUNTS = ("pcie__read_bytes.sum", "pcie__write_bytes.sum")


class Raw:
    """The recording as the XSpace holds it."""

    def __init__(self, path: Path) -> None:
        space = XSpace()
        space.ParseFromString(path.read_bytes())
        gpu = next(p for p in space.planes if p.name == "/device:GPU:0")
        host = next(p for p in space.planes if p.name == "/host:CPU")
        stat_names = {k: v.name for k, v in gpu.stat_metadata.items()}
        # (metric, start ns, value) of every sample, and the streams' events
        self.samples: list[tuple[str, int, float]] = []
        self.stream_events = 0
        for line in gpu.lines:
            if line.name != "_counters_":
                self.stream_events += len(line.events)
                continue
            for event in line.events:
                (stat,) = event.stats
                self.samples.append((stat_names[stat.metadata_id],
                                     line.timestamp_ns + event.offset_ps // 1000,
                                     stat.double_value))
        self.line_start_ns = next(line.timestamp_ns for line in gpu.lines
                                  if line.name == "_counters_")
        names = {k: v.name for k, v in host.event_metadata.items()}
        self.ranges = [(names[e.metadata_id], line.timestamp_ns + e.offset_ps // 1000,
                        line.timestamp_ns + (e.offset_ps + e.duration_ps) // 1000)
                       for line in host.lines for e in line.events
                       if names.get(e.metadata_id) in PHASES]

    def range_means(self) -> dict[str, dict[str, float]]:
        """Each range's mean of each metric over the samples stamped inside [start, end):
        a sample stamped at the end of its 500 µs period, as nsys stamps its own; the
        samples that start before the session (a negative offset) left out."""
        sums: dict[tuple[str, str], list[float]] = defaultdict(list)
        for metric, start, value in self.samples:
            if metric not in OURS or start < self.line_start_ns:
                continue
            stamp = start + PERIOD_NS
            for name, lo, hi in self.ranges:
                if lo <= stamp < hi:
                    sums[(name, OURS[metric])].append(value)
        out: dict[str, dict[str, float]] = defaultdict(dict)
        for (name, metric), values in sums.items():
            out[name][metric] = sum(values) / len(values)
        return out


@pytest.fixture(scope="module")
def raw() -> Raw:
    return Raw(XPLANE)


@pytest.fixture(scope="module")
def trace() -> Trace:
    with open_trace(XPLANE) as loaded:
        yield loaded


def test_the_counters_are_not_kernels(trace: Trace, raw: Raw) -> None:
    names = [n for (n,) in trace.con.execute("SELECT name FROM gpu_activities").fetchall()]
    assert raw.stream_events == 120  # 40 GEMMs, their 40 memsets, 40 elementwise passes
    assert len(names) == raw.stream_events
    assert not {metric for metric, _, _ in raw.samples} & set(names)
    streams = {s for (s,) in trace.con.execute(
        "SELECT DISTINCT stream FROM gpu_activities").fetchall()}
    assert streams == {14}


def test_samples_before_the_session_are_left_out(trace: Trace, raw: Raw) -> None:
    early = [s for s in raw.samples if s[1] < raw.line_start_ns]
    assert len(early) == 6 and len(raw.samples) == 6 * 534  # each metric's first
    starts = sorted({start for _, start, _ in raw.samples if start >= raw.line_start_ns})
    assert starts[0] - max(s for _, s, _ in early) > 300_000_000  # 336 ms before the next
    rows = trace.con.execute(
        "SELECT n.name, count(*), min(g.ts_ns), max(g.ts_ns) FROM gpu_metrics AS g "
        "JOIN gpu_metric_names AS n USING (device, metric_id) GROUP BY n.name").fetchall()
    assert {name for name, *_ in rows} == set(OURS.values())  # byte counts left out
    for _name, count, first, last in rows:
        assert count == 533
        # stamped at the end of the period: the median distance of the samples, 499,997 ns
        assert first == pytest.approx(starts[0] + PERIOD_NS, abs=10)
        assert last == pytest.approx(starts[-1] + PERIOD_NS, abs=10)
    (first_gpu,), = trace.con.execute("SELECT min(start_ns) FROM gpu_activities").fetchall()
    assert abs(starts[0] - first_gpu) < PERIOD_NS  # sampling starts with the work
    # the rate over the samples kept: 2 kHz (the early one would make it 885 Hz)
    devices = load_query("gpu_metric_devices").rstrip().rstrip(";")
    (rate,), = trace.con.execute(f"SELECT rate_hz FROM ({devices})").fetchall()
    assert rate == pytest.approx(2000, rel=0.001)


def test_range_means_equal_the_raw_samples(trace: Trace, raw: Raw) -> None:
    expected = raw.range_means()
    found = {name: mean for (name, _device), mean in range_means(trace.con).items()}
    assert set(found) == set(PHASES) == set(expected)
    for name in PHASES:
        assert set(found[name]) == set(expected[name])
        for metric, value in expected[name].items():
            assert found[name][metric] == pytest.approx(value, abs=0.1), (name, metric)
    # the phases read as designed
    assert found["compute_bound"][TENSOR] > 80 and found["compute_bound"][SM] > 90
    assert found["memory_bound"][DRAM_READ] + found["memory_bound"][DRAM_WRITE] > 70
    assert found["memory_bound"][TENSOR] < 1
    assert all(v < 1 for v in found["host_bound"].values())


def test_summary_reports_the_counters_and_the_window_of_work(trace: Trace, raw: Raw) -> None:
    gm = gpu_metrics_summary(trace.con, 1_000_000, [])
    assert gm is not None and gm["sample_rate_hz"] == 2000
    assert gm["metrics"] == [SM, TENSOR, DRAM_READ, DRAM_WRITE]
    window = work_window(trace.con)
    assert window is not None and (window.kind, window.name) == ("range", "compute_bound")
    summary = trace_summary(trace, 1_000_000)
    assert summary["gpu_metrics"]["by_range"]
    text = summary["diagnosis"]["text"]
    assert text.startswith("Compute-bound in range `compute_bound`")
    assert "'memory_bound'" in text  # DRAM near its peak there
    # the counters over the window, compute_bound, as the raw samples give them
    window = raw.range_means()["compute_bound"]
    assert (f"SMs active {window[SM]:.0f}% (good), tensor cores {window[TENSOR]:.0f}% "
            "active: the math runs on tensor cores") in text


def test_metric_table_keeps_one_metric_a_name() -> None:
    recorded = list(OURS) + list(BYTE_COUNTS)
    assert kept_names(recorded) == OURS
    # the controller's DRAM view (nsys's) before the DRAM's own, whatever the order given
    both = ["dram__read_throughput.avg.pct_of_peak_sustained_elapsed",
            "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"]
    assert kept_names(both) == {both[1]: DRAM_READ}
    assert kept_names(["nvlrx__bytes.sum", "made_up.metric"]) == {}


def test_the_counter_lines_alone_give_the_same_samples() -> None:
    """A run opened by its JSON reads the XSpace beside it for the counters, its GPU
    planes' counter lines alone: the same samples as the whole file parsed."""
    alone = read_counter_samples(XPLANE)
    assert alone.num_rows == 6 * 533
    assert alone.equals(counter_samples(parse_xspace(XPLANE)))
    assert read_counter_samples(RUN / "missing.xplane.pb").num_rows == 0
