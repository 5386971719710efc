"""The shape of `tui --summary --json`: one TypedDict per object of the contract that
docs/summary.md writes out (tests/analysis/test_summary_types.py holds the two to each other, key
for key, both ways), and of a run's (`RunSummary`: multirank.md names what it adds and
lacks).

A key in a `total=False` class may be missing (docs/summary.md marks it `"key"?:`). A value
typed as a plain `dict` or `list[dict[str, Any]]` is not spelt out here: its keys are
described where the docs point (the rules' rows in the Findings table, the distributed
figures of `ranks` in multirank.md and distributed.md). Rows that come as a RowSet (made on
demand as they are written out) carry their rows' TypedDict in `Annotated`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from tui.analysis.row_sets import RowSet

if TYPE_CHECKING:
    from tui.analysis.finding import Finding as FindingRecord


class _SourceKeys(TypedDict):
    path: str
    format: str
    first_ns: int | None
    last_ns: int | None
    span_ns: int
    origin_ns: int | None  # the first GPU activity: the app's +0
    from_cache: bool
    cache_note: str
    min_gap_ns: int
    memory_budget: str  # the budget the figures were worked out under


class Source(_SourceKeys, total=False):
    # from the trace's metadata, where it has them
    rank: str
    world_size: str
    nsys_product_version: str
    export_product_version: str
    cuda_runtime_version: str
    cuda_driver_version: str
    xla_form: str  # XLA profiles: which file of which run
    run: str
    host: str
    hlo_source: str


SourceMetaKey = Literal[
    "rank", "world_size", "nsys_product_version", "export_product_version",
    "cuda_runtime_version", "cuda_driver_version", "xla_form", "run", "host", "hlo_source"]


class WorkWindow(TypedDict):
    """The window of work the diagnosis describes (tui/analysis/window.py)."""

    kind: str  # tui/analysis/window.py KINDS: profiler_steps, range, steps, profiler_range, ...
    name: str | None
    start_ns: int
    end_ns: int


class _DiagnosisKeys(TypedDict):
    bound: str | None  # None: no GPU work
    text: str
    window: WorkWindow | None
    setup_ns: int  # before the window
    setup_text: str | None
    steps_text: str | None  # the window's steps, the slow ones: tui/analysis/step_times.py
    idle_ns: int
    idle_by_cause: dict[str, int]  # <cause>_ns
    parts: dict[str, int]  # <bound>: ns
    figures: dict[str, Any] | None  # docs/diagnosis.md


class Diagnosis(_DiagnosisKeys, total=False):
    devices: list[Diagnosis]  # the same per device, when the trace has several
    host_where: str  # host-bound, with CPU samples or Python frames: host_samples.where
    setup_where: str  # a set-up said apart, with CPU samples: where its launching thread was
    shared_text: str  # several processes' work on one GPU at once: shared_devices.py


class Device(TypedDict):
    id: int
    name: str
    busy_ns: int
    span_ns: int


class Kernel(TypedDict):
    name: str
    count: int
    total_ns: int
    avg_ns: float
    median_ns: float
    min_ns: int
    max_ns: int
    percent: float


class Gap(TypedDict):
    device: int
    start_ns: int
    offset_ns: int
    duration_ns: int
    before: str
    after: str
    cause: str
    kind: str


class Finding(TypedDict):
    rule: str
    severity: str
    text: str
    cost_ns: int | None
    rows: Sequence[dict[str, Any]]  # a list or a RowSet; per rule: the Findings table


class Frame(TypedDict):
    frame: str
    gpu_ns: int
    self_gpu_ns: int
    launches: int


class CodePath(TypedDict):
    path: str
    depth: int
    gpu_ns: int
    self_gpu_ns: int
    launches: int


class Unattributed(TypedDict):
    gpu_ns: int
    launches: int
    linked: int


class MemoryPeak(TypedDict):
    device: int
    peak_allocated_bytes: int
    peak_ns: int
    peak_reserved_bytes: int | None


class _CodeAndMemoryKeys(TypedDict):
    code_source: str  # python | cuda_backtrace | nvtx | hlo | none
    code: list[Frame]
    memory: list[MemoryPeak]


class CodeAndMemory(_CodeAndMemoryKeys, total=False):
    # none of these for a database without the stacks' tables
    code_paths: list[CodePath]  # XLA traces with HLO ops
    code_user: list[str]
    code_unattributed: Unattributed
    host_memory: list[MemoryPeak]


class XlaOp(TypedDict):
    hlo_module: str
    hlo_op: str
    program_id: int | None
    category: str | None
    tf_op: str
    op_name: str | None
    source: str | None
    user_code: bool | None
    command_buffer: str | None
    matched: str | None
    count: int
    kernels: int
    total_ns: int
    avg_ns: float
    percent: float


class XlaModule(TypedDict):
    hlo_module: str
    ops: int
    count: int
    kernels: int
    total_ns: int
    percent: float


class CommandBuffer(TypedDict):
    hlo_module: str
    command_buffer: str
    replays: int
    activities: int
    per_replay: int
    ops: int
    program_ops: int
    name: int
    reuse: int
    order: int
    guess: int
    untied: int
    total_ns: int


class NamedTime(TypedDict):
    name: str
    ns: int


class GemmTensorCores(TypedDict):
    """Matrix kernels' time by where they computed, from their names (tensor_cores.py)."""

    gemm_ns: int  # every matrix kernel's: GEMMs, convolutions, attention
    tensor_core_ns: int
    cuda_core_ns: int
    unknown_ns: int  # named like a matrix kernel, saying nothing of how it computes
    kernel_ns: int  # every kernel's, for the shares
    top_cuda_core: list[NamedTime]  # the longest CUDA-core names


class _TraceSummaryKeys(_CodeAndMemoryKeys):
    source: Source
    diagnosis: Diagnosis
    devices: list[Device]
    kernels: list[Kernel]
    gaps: Annotated[RowSet, Gap]
    findings: list[Finding]
    rules_not_checked: dict[str, str]  # rule: why it was not run
    warnings: list[str]
    ranks: list[dict[str, Any]]  # the trace as one rank of a run: multirank.md
    host_samples: dict[str, Any] | None  # what the host did while the GPU waited (summary.md)
    gemm_tensor_cores: GemmTensorCores  # tensor or CUDA cores, from the kernels' names


class MetricMeans(TypedDict):
    """The mean of each GPU hardware counter (its name as nsys writes it) over a stretch."""

    device: int
    mean: dict[str, float]


class GapMetricMeans(MetricMeans):
    start_ns: int


class RangeMetricMeans(MetricMeans):
    range: str


class KernelMetricMeans(MetricMeans):
    name: str


class _GpuMetricsKeys(TypedDict):
    sample_rate_hz: int
    metrics: list[str]
    whole: list[MetricMeans]  # each GPU's busy span
    gaps: list[MetricMeans]  # its gaps over --min-gap-ms
    by_gap: list[GapMetricMeans]  # the longest of them
    by_range: list[RangeMetricMeans]  # NVTX range names, steps too
    by_kernel: list[KernelMetricMeans]  # the longest kernel names


class GpuMetrics(_GpuMetricsKeys, total=False):
    """nsys --gpu-metrics-devices, XLA's PM sampling: the counters' means
    (tui/analysis/gpu_metrics.py)."""

    # each GPU's means over the window of work the diagnosis describes (a trace's
    # summary, where it has one): a busy span holds the set-up's idle stretches too
    window: list[MetricMeans]


class KernelFlops(TypedDict):
    """A kernel name's FLOPs over its instances' time (tui/analysis/flops.py)."""

    name: str
    precision: str | None  # bf16 | fp16 | tf32 | fp32 | fp64 | fp8 | int8; None: unknown
    count: int  # its instances with FLOPs
    flops: float
    total_ns: int  # those instances' time
    flops_per_s: float | None
    mfu: float | None  # a fraction of the GPU's dense peak for its precision


class StepFlops(TypedDict):
    step: str  # 'ProfilerStep#3'
    start_ns: int
    duration_ns: int  # its wall time: to the end of the last kernel it launched
    flops: float
    flops_per_s: float | None
    mfu: float | None


class PrecisionFlops(TypedDict):
    device: int
    precision: str | None
    flops: float  # in the window of work
    peak_flops_per_s: float | None  # None: not in the peak table


class Flops(TypedDict):
    """Achieved FLOP/s and MFU (Kineto with_flops or record_shapes: tui/analysis/flops.py)."""

    source: Literal["args", "shapes", "hlo"]  # the profiler's count, or from the shapes
    window: WorkWindow  # the window of work the whole is taken over
    total: float  # FLOPs of the kernels that started in it
    achieved_flops_per_s: float | None
    peak_flops_per_s: float | None  # None: a GPU or precision not in the peak table
    mfu: float | None  # a fraction
    device: str  # the GPU's name as the trace gives it
    peak_known_as: str | None  # the peak table's row: 'H200 SXM'
    no_peak_for: list[str]  # '<GPU> <precision>' missing from the peak table
    by_precision: list[PrecisionFlops]
    by_kernel: list[KernelFlops]
    by_step: list[StepFlops]


class TraceSummary(_TraceSummaryKeys, total=False):
    """`tui --summary --json TRACE` (tui.analysis.summary.trace_summary)."""

    code_paths: list[CodePath]
    code_user: list[str]
    code_unattributed: Unattributed
    host_memory: list[MemoryPeak]
    xla_ops: list[XlaOp]  # XLA traces only
    xla_modules: list[XlaModule]
    xla_command_buffers: list[CommandBuffer]
    gpu_metrics: GpuMetrics  # nsys reports recorded with GPU metrics, XLA with PM sampling
    flops: Flops  # traces that tell their FLOPs (Kineto with_flops / record_shapes)
    ncu: dict[str, Any]  # with --ncu REPORT: its launches matched to the kernels (ncu.md)


# -- a run of many traces: `tui --summary --json DIR` (tui.runs.summary.run_summary);
# docs/multirank.md#json


class _RunSourceKeys(TypedDict):
    path: str  # the directory, or the first file given
    paths: list[str]
    format: str  # the ranks' format, or "mixed"
    first_ns: int | None
    last_ns: int | None
    span_ns: int
    from_cache: bool
    cache_notes: list[str]
    min_gap_ns: int
    ranks: int
    load_s: list[float]
    memory_budget: str


class RunSource(_RunSourceKeys, total=False):
    world_size: str  # where the ranks agree on one


class RunDevice(Device):
    rank: int


class RunGap(Gap):
    rank: int


class StragglerGroup(TypedDict):
    ranks: list[int]
    hosts: list[str | None]
    shared: list[str]  # what they share, in words


class ParallelGroup(TypedDict):
    process_group: str  # c10d's name of the group ('?': from the NCCL kernels alone); an
    # XLA program's: the mesh axes its collective runs over ('axis_0'), else 'devices'
    ranks: list[int]
    kind: Literal["data", "fsdp", "tensor", "pipeline", "expert", "ring", "context"] | None
    why: str | None  # the evidence, in words
    advice: str | None  # what the kind asks for (an XLA program's: its compiler's means)


class CollectiveBandwidth(TypedDict):
    name: str  # c10d's collective: 'allreduce', '_allgather_base', 'recv+send'
    bytes: int  # nccl-tests' size
    group_size: int
    instances: int
    transfer_ns_median: int  # from the last rank's arrival to the last end
    algbw_gbps_median: float
    busbw_gbps_median: float
    wait_ns_median: int  # latest start minus a rank's own start, over ranks and instances
    device: str | None  # the GPU's name
    link_peak_gbps: float | None  # its NVLink peak per direction, where known


class _PipelineKeys(TypedDict):
    order: list[int]  # the ranks, first stage first
    micro_batches: int | None  # per step
    schedule: Literal["GPipe", "1F1B", "interleaved 1F1B"]
    expected_bubble_pct: float | None  # (p-1)/(m+p-1); interleaved: (p-1)/(v·m+p-1)
    bubble_pct: dict[str, float]  # rank: its steps' GPU time without compute


class Pipeline(_PipelineKeys, total=False):
    stages_per_rank: int  # v of a multi-stage (looped) schedule; absent: one


class RunMetricMeans(MetricMeans):
    rank: int


class RunGapMetricMeans(GapMetricMeans):
    rank: int


class RunRangeMetricMeans(RangeMetricMeans):
    rank: int


class RunKernelMetricMeans(KernelMetricMeans):
    rank: int


class RunGpuMetrics(TypedDict):
    """GpuMetrics over a run: each rank's own devices' rows, tagged with the rank."""

    sample_rate_hz: int
    metrics: list[str]
    whole: list[RunMetricMeans]
    gaps: list[RunMetricMeans]
    by_gap: list[RunGapMetricMeans]
    by_range: list[RunRangeMetricMeans]
    by_kernel: list[RunKernelMetricMeans]


class _RunSummaryKeys(TypedDict):
    source: RunSource
    diagnosis: Diagnosis
    devices: list[RunDevice]
    kernels: list[Kernel]
    gaps: list[RunGap]
    findings: list[FindingRecord]  # written as their to_json(): Finding above
    warnings: list[str]
    ranks: list[dict[str, Any]]  # docs/multirank.md#json
    straggler: int | None
    stragglers: list[int]
    straggler_group: StragglerGroup
    balance: dict[str, Any]  # the straggler verdict's figures
    parallelism: list[ParallelGroup]
    collective_bandwidth: list[CollectiveBandwidth]
    pipeline: Pipeline | None
    gemm_tensor_cores: GemmTensorCores  # summed over the ranks


class RunSummary(_RunSummaryKeys, total=False):
    """`tui --summary --json DIR` (tui.runs.summary.run_summary)."""

    gpu_metrics: RunGpuMetrics  # ranks recorded with nsys --gpu-metrics-devices
