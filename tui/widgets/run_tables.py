"""The tables of RunApp (`tui DIR`): one row per rank, the waits per collective, the
collectives' bandwidth, and a pipeline's stages."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from tui.analysis.collective_labels import COLUMNS as BANDWIDTH_COLUMNS
from tui.analysis.collective_labels import bandwidth_cells, collective_label
from tui.analysis.gpu_metric_labels import is_step, nvlink
from tui.analysis.pipeline import pipeline_remedy
from tui.analysis.summary_types import CollectiveBandwidth, Pipeline, RunGpuMetrics
from tui.core.gpu_metric_names import DRAM_READ, DRAM_WRITE, SM, TENSOR
from tui.core.safe_text import plain
from tui.core.units import format_ns

RANK_COLUMNS = ("rank", "steps", "host step", "GPU step", "busy %", "compute", "NCCL",
                "NCCL wait", "waited-for", "longest-wait collective", "overlap %",
                "exposed/step", "idle %")
COLLECTIVE_COLUMNS = ("collective", "instances", "ranks", "wait", "longest wait",
                      "mostly waits for")
# the bubble of each stage: expected of the schedule, measured, and how far beyond
PIPELINE_COLUMNS = ("stage", "rank", "micro-batches", "schedule", "expected", "measured",
                    "beyond")

# the run's GPU hardware counters: the stretch, the rank and its GPU, then mean % of peak
COUNTER_COLUMNS = ("over", "rank", "GPU", "SM", "tensor", "NVLink", "DRAM rd", "DRAM wr")
COUNTER_KERNELS = 8  # kernel names with rows, the longest first
COUNTER_LABEL = 24  # characters of a range's or kernel's name: the figures fit in 80 columns


def _right(text: str, style: str = "") -> Text:
    return Text(text, style=style, justify="right")


class RankTable(DataTable):
    """run_summary()["ranks"], the straggler in bold red; row keys are the ranks."""

    DEFAULT_CSS = "RankTable { height: auto; max-height: 50%; }"
    # DataTable's own Enter (select the row: RunApp opens the rank) shown in the footer
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "open rank", key_display="Enter"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.rows_by_rank: dict[int, dict] = {}

    def show(self, ranks: list[dict], straggler: int | None,
             stragglers: list[int] | None = None) -> None:
        """`stragglers`: the group that arrives last (marked as the straggler is)."""
        self.clear(columns=True)
        self.rows_by_rank = {r["rank"]: r for r in ranks}
        for col in RANK_COLUMNS:
            self.add_column(col, key=col)
        marked = {straggler, *(stragglers or [])} - {None}
        for r in ranks:
            style = "bold red" if r["rank"] in marked else ""
            self.add_row(
                _right(str(r["rank"]) + (" ◀ straggler" if r["rank"] in marked else ""),
                       style),
                _right(str(r["steps"]) if r["steps"] else "-", style),
                _right(format_ns(r["step_host_ns"]), style),
                _right(format_ns(r["step_gpu_ns"]), style),
                _right(f"{r['busy_pct']:.1f}", style),
                _right(format_ns(r["compute_ns"]), style),
                _right(format_ns(r["comm_ns"]), style),
                _right(format_ns(r["wait_ns"]), style),
                _right(format_ns(r["caused_ns"]), style),
                plain(collective_label(r["waits_in"]) if r["wait_ns"] else "-", style),
                *_breakdown_cells(r, style),
                key=str(r["rank"]),
            )

    def rank_at_cursor(self) -> int | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return int(key) if key is not None else None


def _breakdown_cells(r: dict, style: str) -> list[Text]:
    """overlap %, exposed communication a step and idle % (HTA's, tui/analysis/distributed)."""
    overlap = r.get("overlap_pct")
    comm = r.get("communication") or {}
    exposed = comm.get("exposed_per_step_ns", comm.get("exposed_ns"))
    b = r.get("breakdown") or {}
    idle = (f"{100 * b['idle_ns'] / b['kernel_ns']:.1f}" if b.get("kernel_ns") else "-")
    return [_right("-" if overlap is None else f"{overlap:.1f}", style),
            _right(format_ns(exposed) if comm.get("comm_ns") else "-", style),
            _right(idle, style)]


class CollectiveTable(DataTable):
    """Waits per NCCL kernel name (tui.runs.summary.collective_waits), most waited first."""

    DEFAULT_CSS = "CollectiveTable { height: auto; max-height: 40%; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def show(self, rows: list[dict]) -> None:
        self.clear(columns=True)
        for col in COLLECTIVE_COLUMNS:
            self.add_column(col, key=col)
        for r in rows:
            self.add_row(
                plain(collective_label(r["name"])),
                _right(f"{r['instances']:,}"),
                _right(str(r["ranks"])),
                _right(format_ns(r["wait_ns"])),
                _right(format_ns(r["longest_ns"])),
                _right("-" if r["waited_for"] is None else f"rank {r['waited_for']}"),
            )


class BandwidthTable(DataTable):
    """What each (collective, size) achieved: run_summary()["collective_bandwidth"]."""

    DEFAULT_CSS = "BandwidthTable { height: auto; max-height: 40%; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def show(self, rows: list[CollectiveBandwidth]) -> None:
        self.clear(columns=True)
        for col in BANDWIDTH_COLUMNS:
            self.add_column(col, key=col)
        for row in rows:
            first, *rest = bandwidth_cells(row)
            self.add_row(plain(first), *(_right(cell) for cell in rest))


class PipelineTable(DataTable):
    """A pipeline's stages, first first: run_summary()["pipeline"]."""

    DEFAULT_CSS = "PipelineTable { height: auto; max-height: 40%; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def show(self, p: Pipeline | None) -> None:
        self.clear(columns=True)
        for col in PIPELINE_COLUMNS:
            self.add_column(col, key=col)
        if p is None:
            return
        expected = p["expected_bubble_pct"]
        for stage, rank in enumerate(p["order"]):
            measured = p["bubble_pct"].get(str(rank))
            self.add_row(
                _right(str(stage)), _right(str(rank)),
                _right(str(p["micro_batches"]) if p["micro_batches"] else "-"),
                Text(p["schedule"]),
                _right("-" if expected is None else f"{expected:.1f}%"),
                _right("-" if measured is None else f"{measured:.1f}%"),
                _right("-" if measured is None or expected is None
                       else f"{measured - expected:+.1f} pts"),
                key=str(rank))


def pipeline_title(p: Pipeline) -> str:
    """'Pipeline: ranks 0 → 1, 8 micro-batches a step, 1F1B; bubble per stage'."""
    mbs = (f"{p['micro_batches']} micro-batches a step" if p["micro_batches"]
           else "micro-batches unknown")
    return (f"Pipeline: ranks {' → '.join(map(str, p['order']))}, {mbs}, {p['schedule']}; "
            "bubble per stage")


def pipeline_remedy_text(p: Pipeline) -> Text:
    """The remedy that fits the pipeline's figures, or why none is needed."""
    remedy = pipeline_remedy(p)
    return plain(f"To shrink the bubble: {remedy}." if remedy
                 else "The bubble is as small as the schedule allows.")


class CounterTable(DataTable):
    """The ranks' GPU hardware counters (run_summary()["gpu_metrics"]): each rank's busy
    span, then each NVTX range (steps left out) and top kernel, every rank's row of a name
    together; NVLink: its busier direction's user data."""

    DEFAULT_CSS = "CounterTable { height: auto; max-height: 50%; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def show(self, gm: RunGpuMetrics | None) -> None:
        self.clear(columns=True)
        for col in COUNTER_COLUMNS:
            self.add_column(col, key=col)
        if not gm:
            return
        # (label, rank, GPU, means)
        rows = [("busy span", r["rank"], r["device"], r["mean"]) for r in gm["whole"]]
        named: dict[str, list[tuple[int, int, dict[str, float]]]] = {}
        for r in gm["by_range"]:
            if not is_step(r["range"]):
                named.setdefault(f"NVTX {r['range']}", []).append(
                    (r["rank"], r["device"], r["mean"]))
        kernels: dict[str, list[tuple[int, int, dict[str, float]]]] = {}
        for k in gm["by_kernel"]:
            kernels.setdefault(k["name"], []).append((k["rank"], k["device"], k["mean"]))
        for name, group in [*named.items(), *list(kernels.items())[:COUNTER_KERNELS]]:
            rows += [(name, *row) for row in group]
        for label, rank, device, mean in rows:
            values = (mean.get(SM), mean.get(TENSOR), nvlink(mean), mean.get(DRAM_READ),
                      mean.get(DRAM_WRITE))
            short = label if len(label) <= COUNTER_LABEL else label[:COUNTER_LABEL - 1] + "…"
            self.add_row(plain(short), _right(str(rank)), _right(str(device)),
                         *(_right("" if v is None else f"{v:.1f}") for v in values))
