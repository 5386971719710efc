"""The `tui --summary` dict of a distributed run: the usual keys over every rank, plus
"ranks" (each with its own "diagnosis", decided with its NCCL waits), "straggler" and
"balance" (the straggler verdict's figures), "stragglers" (the group of ranks that arrive
last) and "straggler_group" (with their hosts and what they share). "findings" holds
Finding objects (`tui.analysis.finding`), written as their to_json() by --json.

Each rank's own summary (devices, gaps with their causes) is built in the process that
loaded it (LoadJob.min_gap_ns); kernel statistics are computed over the combined tables,
so a kernel's count, total and median cover every rank.
"""

from __future__ import annotations

from typing import cast

import duckdb

from tui.analysis.collective_bandwidth import collective_bandwidth
from tui.analysis.diagnosis import rank_diagnosis, run_diagnosis
from tui.analysis.distributed.findings import distributed_findings
from tui.analysis.distributed.idle import gap_classes
from tui.analysis.distributed.stragglers import rank_host, shared_traits, straggler_group
from tui.analysis.gpu_metrics import run_gpu_metrics, with_metrics_phrase
from tui.analysis.kernels import kernel_stats
from tui.analysis.parallelism import (
    LOOPED_PIPELINE_ADVICE,
    advice_by_kind,
    kinds_of,
    parallelism,
    parallelism_findings,
    parallelism_text,
)
from tui.analysis.pipeline import beyond_schedule, pipeline, pipeline_findings, pipeline_text
from tui.analysis.rank_findings import rank_findings
from tui.analysis.ranks import rank_analysis
from tui.analysis.summary_types import (
    GpuMetrics,
    RunDevice,
    RunGap,
    RunSource,
    RunSummary,
    StragglerGroup,
)
from tui.analysis.tensor_cores import gemm_tensor_cores, matrix_kernels
from tui.core.budget import memory_budget
from tui.core.queries import load_query
from tui.runs.combine import RankSet, clock_offsets


def _advice_format(rank: dict, store_format: str) -> str:
    """Whose words a rank's advice takes: its own summary's (rank_summary: 'xla' for an XLA
    program under nsys), else its store's format (a summary kept before it said)."""
    return rank.get("advice_format") or store_format


def _run_advice_format(per_rank: dict[int, dict], run_format: str) -> str:
    """The run's: its ranks' where they agree (a JAX job's ranks under nsys: 'xla'), else
    the run's format."""
    said = {rank.get("advice_format") for rank in per_rank.values()}
    agreed = said.pop() if len(said) == 1 else None
    return agreed or run_format


def _where_the_host_was(decided: dict, own: dict | None) -> None:
    """A rank's diagnosis decided again over the run keeps what its own summary said of
    where its host was (diagnosis_context.told_diagnosis): `host_where` where it is still
    host-bound, `setup_where` (its set-up is its own)."""
    if not own:
        return
    if own.get("host_where") and decided.get("bound") == "host":
        decided["host_where"] = own["host_where"]
    if own.get("setup_where"):
        decided["setup_where"] = own["setup_where"]


def run_summary(run: RankSet, min_gap_ns: int, label: str) -> RunSummary:
    """`label` names the run: the directory, or the first file given."""
    analysis = rank_analysis(run.con)
    groups = parallelism(run.con)
    stages = pipeline(run.con) if "pipeline" in kinds_of(groups) else None
    if stages and stages.get("stages_per_rank"):  # interleaved already
        for g in groups:
            if g["kind"] == "pipeline":
                g["advice"] = LOOPED_PIPELINE_ADVICE
    per_rank = {rank: store.summary or {} for rank, store in zip(run.ranks, run.stores,
                                                                  strict=True)}
    for row in analysis["ranks"]:
        store = run.store(row["rank"])
        row["path"] = str(store.path)
        row["format"] = store.format
        row["diagnosis"] = rank_diagnosis(per_rank[row["rank"]].get("diagnosis"),
                                          row["rank"], row["wait_ns"],
                                          _advice_format(per_rank[row["rank"]], store.format),
                                          kinds_of(groups), beyond_schedule(stages),
                                          advice_by_kind(groups))
        if row["diagnosis"] is not None:  # what the rank's own GPU's counters add
            row["diagnosis"] = with_metrics_phrase(row["diagnosis"],
                                                   per_rank[row["rank"]].get("gpu_metrics"))
            _where_the_host_was(row["diagnosis"], per_rank[row["rank"]].get("diagnosis"))
        row.update(per_rank[row["rank"]].get("distributed") or {})
        row["gap_classes"] = gap_classes(per_rank[row["rank"]].get("gaps", []))
    analysis["straggler_group"] = _group(run, analysis, per_rank)
    span = run.con.execute(load_query("trace_span")).fetchall()[0]
    formats = sorted({store.format for store in run.stores})
    source: RunSource = {
        "path": label,
        "paths": [str(store.path) for store in run.stores],
        "format": formats[0] if len(formats) == 1 else "mixed",
        "first_ns": span[0],
        "last_ns": span[1],
        "span_ns": (span[1] - span[0]) if span[0] is not None else 0,
        "from_cache": all(store.from_cache for store in run.stores),
        "cache_notes": [store.cache_note for store in run.stores],
        "min_gap_ns": min_gap_ns,
        "ranks": len(run.ranks),
        "load_s": [round(store.load_s, 3) for store in run.stores],
        "memory_budget": memory_budget(),
    }
    world = {w for store in run.stores if (w := store.meta.get("world_size")) is not None}
    if len(world) == 1:
        source["world_size"] = world.pop()
    # the ranks' own summaries (rank_summary) come untyped through the stores: their
    # devices and gaps are summary_types.Device and Gap
    # each rank's gaps on the run's clock (a report a rank: combine.clock_offsets), as the
    # run's tables have them; offset_ns stays from its own trace's start
    moved = dict(zip(run.ranks, clock_offsets(run.stores), strict=True))
    gaps = cast(list[RunGap], sorted(
        ({"rank": rank, **gap, "start_ns": gap["start_ns"] + moved[rank]}
         for rank, s in per_rank.items() for gap in s.get("gaps", [])),
        key=lambda g: (-g["duration_ns"], g["rank"], g["start_ns"]),
    ))
    devices = cast(list[RunDevice], [{"rank": rank, **d} for rank, s in per_rank.items()
                                     for d in s.get("devices", [])])
    kernels = kernel_stats(run.con)
    counters = run_gpu_metrics({rank: s.get("gpu_metrics") for rank, s in per_rank.items()})
    slow = _stragglers(analysis)
    summary: RunSummary = {
        "source": source,
        "diagnosis": run_diagnosis(
            {r["rank"]: r["diagnosis"] for r in analysis["ranks"]},
            _run_advice_format(per_rank, source["format"]),
            slow,
            # the others' wait in the collectives the stragglers arrived at last (not every
            # rank's wait: a straggler's own for the others is none of it)
            sum(r["caused_ns"] or 0 for r in analysis["ranks"] if r["rank"] in slow),
            kinds_of(groups),
            parallelism_text(groups) + (" " + pipeline_text(stages) if stages else ""),
            beyond_schedule(stages), advice_by_kind(groups)),
        "devices": devices,
        "kernels": [k.as_dict() for k in kernels],
        # each kernel name's time over every rank, as "kernels"
        "gemm_tensor_cores": gemm_tensor_cores(matrix_kernels(run.con),
                                               sum(k.total_ns for k in kernels)),
        "gaps": gaps,
        "findings": rank_findings(
            run.con, analysis, {rank: s.get("gaps", []) for rank, s in per_rank.items()},
        ) + distributed_findings(analysis["ranks"]) + parallelism_findings(groups)
        + pipeline_findings(stages),
        "warnings": list(run.warnings) + [
            f"rank {rank}: {w}" for rank, s in per_rank.items() for w in s.get("warnings", [])
        ],
        "ranks": analysis["ranks"],
        "straggler": analysis["straggler"],
        "stragglers": analysis["straggler_group"]["ranks"],
        "straggler_group": analysis["straggler_group"],
        "balance": analysis["balance"],
        "parallelism": groups,
        "collective_bandwidth": collective_bandwidth(run.con),
        "pipeline": stages,
    }
    if counters is not None:  # the ranks' GPU hardware counters (nsys --gpu-metrics-devices)
        summary["gpu_metrics"] = counters
        summary["diagnosis"] = with_metrics_phrase(summary["diagnosis"],
                                                   cast(GpuMetrics, counters))
    return summary


def _group(run: RankSet, analysis: dict, per_rank: dict[int, dict]) -> StragglerGroup:
    """{"ranks": the stragglers (tui/analysis/distributed/stragglers.py), "hosts": each
    one's host where its trace says (None where not), "shared": what they share}."""
    group = straggler_group(analysis["ranks"], analysis["balance"])
    hosts = {rank: rank_host(store.meta, store.path.name)
             for rank, store in zip(run.ranks, run.stores, strict=True)}
    devices = {rank: sorted(d["id"] for d in s.get("devices", []))
               for rank, s in per_rank.items()}
    for row in analysis["ranks"]:
        row["host"] = hosts.get(row["rank"])
    return {"ranks": group, "hosts": [hosts.get(r) for r in group],
            "shared": shared_traits(group, list(run.ranks), hosts, devices)}


def _stragglers(analysis: dict) -> list[int]:
    """The ranks the run waits for: the group that arrives last, else the straggler."""
    group = (analysis.get("straggler_group") or {}).get("ranks") or []
    if group:
        return list(group)
    return [] if analysis.get("straggler") is None else [analysis["straggler"]]


_COLLECTIVE_WAITS = """
SELECT name, count(DISTINCT instance) AS instances, max(ranks) AS ranks,
       sum(wait_ns) AS wait_ns, max(wait_ns) AS longest_ns,
       mode(waited_for) FILTER (WHERE wait_ns > 0) AS waited_for
FROM collective_instances
GROUP BY name
ORDER BY wait_ns DESC, name
"""


def collective_waits(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Per NCCL kernel name: instances, ranks, summed and longest wait, and the rank the
    others waited for most often. Needs rank_rows() (its temp table) to have run."""
    cursor = con.execute(_COLLECTIVE_WAITS)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
