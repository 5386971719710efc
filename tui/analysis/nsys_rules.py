"""Nsight Systems' expert rules (`nsys analyze`), one record each: the query that finds a
rule's rows, the schema tables it reads, what the trace must hold for it to run, what to
do about its rows, and the idle cause it leads to. `tui.analysis.rules` runs them and
words their findings; `tui.analysis.findings` adds the GPU idle of each one's cause.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# nsys' defaults for gpu_time_util: 30 equal chunks per device, below 50% in use.
TIME_UTIL_CHUNKS = 30
TIME_UTIL_THRESHOLD = 50

# What a rule may need of the trace, and what is said when the trace lacks it; each is
# counted by queries/analysis/rule_inputs.sql (tui.analysis.rules.lacking).
LACKING = {
    "runtime": ("the trace has no CUDA runtime calls, so which call issued a copy, a set or "
                "a wait is unknown (record them: nsys -t cuda, or the PyTorch profiler's CUDA "
                "activity)"),
    "copy_kinds": "the trace does not say which copies use pageable memory",
    "set_kinds": "the trace does not say what kind of memory each set is in",
    "gpu": "the trace has no GPU activity",
}


@dataclass(frozen=True)
class Rule:
    """One rule. `query`: queries/analysis/<query>.sql, its rows in the rule's order (None:
    gpu_gaps, whose rows are the explained gaps of tui.analysis.gaps); `tables`: the
    schema tables it reads; `needs`: LACKING keys, the first one lacking is why it is not
    run; `advice`: the finding's last sentence; `cause`: the idle cause
    (tui.analysis.idle_causes) whose GPU idle its finding also tells; `gpu_rows`: the
    rule_inputs.sql column counting the GPU rows that pass its own filter (none: no rows,
    so its query is not run); `params`: its query's parameters."""

    name: str
    query: str | None
    tables: tuple[str, ...]
    needs: tuple[str, ...]
    advice: str | None
    cause: str | None = None
    gpu_rows: str | None = None
    params: dict[str, int] = field(default_factory=dict)


_COPY_TABLES = ("gpu_activities", "host_activities")

# In the order their findings are made and their reasons told
RULES: dict[str, Rule] = {rule.name: rule for rule in (
    Rule("cuda_memcpy_async", "rule_cuda_memcpy_async", _COPY_TABLES,
         ("runtime", "copy_kinds"),
         "Pin the host buffers (cudaHostAlloc; in PyTorch pin_memory=True with "
         "non_blocking=True).", cause="copy", gpu_rows="memcpy_async_rows"),
    Rule("cuda_memcpy_sync", "rule_cuda_memcpy_sync", _COPY_TABLES, ("runtime",),
         "Use cudaMemcpyAsync on a stream, from pinned memory, and synchronise once where "
         "the result is needed.", cause="copy", gpu_rows="memcpy_sync_rows"),
    Rule("cuda_memset_sync", "rule_cuda_memset_sync", _COPY_TABLES, ("runtime", "set_kinds"),
         "Use cudaMemsetAsync on a stream.", gpu_rows="memset_sync_rows"),
    Rule("cuda_api_sync", "rule_cuda_api_sync", ("host_activities",), ("runtime",),
         "Synchronise only where the host needs a result (.item(), .cpu() and printing a GPU "
         "tensor synchronise too); order GPU work with events (cudaStreamWaitEvent) instead.",
         cause="sync"),
    Rule("gpu_gaps", None, ("gpu_activities", "gpu_idle"), ("gpu",), None),
    Rule("gpu_time_util", "rule_gpu_time_util", ("gpu_activities",), ("gpu",),
         "Why the GPU idles there: the gpu_idle finding of each device, by cause.",
         params={"chunks": TIME_UTIL_CHUNKS, "threshold": TIME_UTIL_THRESHOLD}),
)}
