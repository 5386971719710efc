"""What kind of parallelism each process group of a distributed run carries, and what to
do about each kind's cost.

Read from the calls the ranks made (the `collectives` table: PyTorch's c10d calls recorded
by Kineto) or, without them (an nsys report), from the NCCL kernels' names; the rules are
in queries/analysis/rank_parallelism.sql. Kinds: data, fsdp, tensor, pipeline, expert,
ring, context.
"""

from __future__ import annotations

import duckdb

from tui.analysis.finding import Finding
from tui.analysis.summary_types import ParallelGroup
from tui.core.queries import load_query
from tui.core.steps import step_patterns

KINDS = ("data", "fsdp", "tensor", "pipeline", "expert", "ring", "context")

# What each kind's communication or idle time asks for.
ADVICE = {
    "data": "overlap the gradient all-reduce with the backward (DDP's gradient buckets, "
            "bucket_cap_mb) and even out the ranks' work",
    "fsdp": "overlap the all-gathers with compute (prefetch the next unit's parameters: "
            "forward and backward prefetch) and the reduce-scatters with the backward; "
            "fewer, larger units mean fewer collectives",
    "tensor": "keep tensor parallelism on the fastest links (NVLink, within a node), "
              "overlap its all-reduces with the layers' compute (sequence parallelism, "
              "async tensor parallelism), or use fewer tensor-parallel ranks for this size",
    "pipeline": "shrink the pipeline's bubble: more micro-batches per step, an interleaved "
                "schedule (several stages per rank), and stages of equal time (move layers "
                "from the slower stage)",
    "expert": "balance the tokens among the experts (capacity factor, load-balancing loss) "
              "and overlap the all-to-all with compute",
    # a shard's keys and values grow with its length, its attention's compute with the
    # square of it: longer shards hide the exchange better
    "context": "hide the keys' and values' exchange behind the attention's compute: longer "
               "sequences a rank (the exchange grows with a rank's share of the sequence, "
               "its attention's compute with the square of it), the context-parallel ranks "
               "on the fastest links (NVLink, within a node), and a causal mask's work "
               "balanced over the ranks (context_parallel's load balancing)",
    "ring": "overlap each block's transfer with the compute on the block before it (XLA's "
            "latency-hiding scheduler; a collective matmul's, "
            "--xla_gpu_multi_streamed_windowed_einsum); where the devices are a pipeline's "
            "stages, more micro-batches a step shrink its bubble",
}
# A pipeline already looped (several stages a rank: tui/analysis/pipeline.py) is told
# the rest of the pipeline's advice, not to interleave.
LOOPED_PIPELINE_ADVICE = ("shrink the pipeline's bubble: more micro-batches per step or more "
                          "stages a rank, and stages of equal time (move layers from the "
                          "slower stage)")
# Where the collectives are an XLA program's (JAX): its compiler, not DDP or FSDP, does
# what the advice asks for.
XLA_ADVICE = {
    "data": "overlap the gradient all-reduce with the backward (XLA's latency-hiding "
            "scheduler, --xla_gpu_enable_latency_hiding_scheduler) and even out the "
            "devices' work",
    "fsdp": "overlap the all-gathers and reduce-scatters with compute (XLA's "
            "latency-hiding scheduler, --xla_gpu_enable_latency_hiding_scheduler); "
            "fewer, larger collectives (XLA's combine thresholds) mean less latency",
}
# The evidence each kind was named from, in words.
WHY = {
    "data": "all-reduces in the backward (gradients)",
    "fsdp": "all-gathers and reduce-scatters",
    "tensor": "all-reduces inside the forward (activations)",
    "pipeline": "send/recv between ranks",
    "expert": "all-to-alls in the forward (tokens sent to their experts)",
    "context": "collectives inside the attention (keys and values passed between the "
               "ranks: context parallelism)",
    "ring": "collective-permutes round the devices (a ring's blocks: collective matmul, "
            "ring attention; or a pipeline's stages, which the HLO does not tell apart)",
}
# Tensor parallelism told from reduce-scatters in the forward (sequence parallelism): its
# words and advice, whose all-gathers and reduce-scatters are already the overlap's start.
SEQUENCE_WHY = "reduce-scatters inside the forward (activations: sequence parallelism)"
SEQUENCE_ADVICE = ("keep tensor parallelism on the fastest links (NVLink, within a node), "
                   "overlap its all-gathers and reduce-scatters with the layers' GEMMs "
                   "(async tensor parallelism: torch.compile's micro-pipeline TP, "
                   "collective matmul), or use fewer tensor-parallel ranks for this size")


# A run each of whose ranks ran its other kernels less than this share of its NCCL
# kernels' time ran collectives alone: a communication benchmark (`collbench`: 0.4 ms
# beside 76 ms a rank). Each rank apart: a straggler computes while the others wait.
BENCHMARK_COMPUTE = 0.02
BENCHMARK_WHY = ("collectives alone, with no compute between them (a communication "
                 "benchmark, as nccl-tests runs): no model's parallelism to tell")


def parallelism(con: duckdb.DuckDBPyConnection) -> list[ParallelGroup]:
    """One entry per process group that communicated: {"process_group", "ranks", "kind",
    "why", "advice"}; kind (and advice) None where the calls fit no rule, or where the
    run computed next to nothing beside them (BENCHMARK_WHY)."""
    (recorded,) = con.execute(load_query("rank_c10d_calls")).fetchone() or (False,)
    shares = con.execute(load_query("rank_kernel_shares")).fetchall()
    benchmark = bool(shares) and all(nccl > 0 and other < BENCHMARK_COMPUTE * nccl
                                     for _rank, nccl, other in shares)
    # with no c10d call the kinds come from the kernels; only then are those read
    cursor = con.execute(load_query("rank_parallelism"),
                         {**step_patterns(), "from_kernels": not recorded})
    names = [d[0] for d in cursor.description]
    out: list[ParallelGroup] = []
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        sequence = row["kind"] == "tensor" and row["forward_reduce_scatters"] > 0
        why = (SEQUENCE_WHY if sequence else WHY.get(row["kind"])) if row["kind"] else None
        if why and row["kind"] == "context" and row["backward_all_reduces"]:
            # the context-parallel ranks are data-parallel ones too: their gradients summed
            why = f"{why}, and {WHY['data']}"
        if why and row["from_kernels"]:
            # an all-to-all is told from sends only by NCCL's payloads (nsys_collectives.sql)
            why += (", from NCCL's payloads" if row["kind"] == "expert"
                    else ", from the NCCL kernels' names")
        elif why and row["from_hlo"]:
            why += ", from XLA's HLO collectives"
        kind = row["kind"]
        advice = ((row["from_hlo"] and XLA_ADVICE.get(kind))
                  or (SEQUENCE_ADVICE if sequence else ADVICE.get(kind)) if kind else None)
        if kind == "context" and row["backward_all_reduces"]:
            advice = f"{advice}; {ADVICE['data']}"
        if benchmark:
            kind, why, advice = None, BENCHMARK_WHY, None
        out.append({"process_group": row["process_group"], "ranks": list(row["ranks"]),
                    "kind": kind, "why": why, "advice": advice})
    return out


# The group of the ranks' NCCL kernels where no process group is recorded (an nsys
# report): rank_parallelism.sql names it so.
UNNAMED_GROUP = "?"


def kinds_of(groups: list[ParallelGroup]) -> list[str]:
    """The kinds named, in KINDS order."""
    named = {g["kind"] for g in groups}
    return [k for k in KINDS if k in named]


def advice_by_kind(groups: list[ParallelGroup]) -> dict[str, str]:
    """Each kind's advice as its first group gives it (sequence parallelism's, an XLA
    program's), for the diagnosis' remedies."""
    out: dict[str, str] = {}
    for g in groups:
        if g["kind"] and g["kind"] not in out:
            out[g["kind"]] = advice_of(g)
    return out


def parallelism_text(groups: list[ParallelGroup]) -> str:
    """'Parallelism: pipeline over ranks 0, 1, from send/recv between ranks: shrink ...'
    with each kind's advice; '' without a kind."""
    parts = [f"{g['kind']} over ranks {', '.join(map(str, g['ranks']))}, from {g['why']}: "
             f"{advice_of(g)}" for g in groups if g["kind"]]
    parts = list(dict.fromkeys(parts))  # two names of one group (XLA's mesh axis and axis_0)
    return f"Parallelism: {'; '.join(parts)}." if parts else ""


def parallelism_findings(groups: list[ParallelGroup]) -> list[Finding]:
    """A `parallelism` finding per group of a known kind: what it is, and its advice."""
    return [Finding("parallelism", "info",
                    f"{_who(g)} {g['kind']} parallelism, from {g['why']}: {advice_of(g)}.")
            for g in groups if g["kind"]]


def _who(group: ParallelGroup) -> str:
    """'Process group 0 (ranks 0, 1) carries'; 'Ranks 0, 1 carry' for the group of an
    nsys report, whose process groups are not recorded (rank_parallelism.sql's '?')."""
    ranks = ", ".join(map(str, group["ranks"]))
    if group["process_group"] == UNNAMED_GROUP:
        return f"Ranks {ranks} carry"
    return f"Process group {group['process_group']} (ranks {ranks}) carries"


def advice_of(group: ParallelGroup) -> str:
    """The group's advice (an XLA program's its own), else its kind's."""
    return group.get("advice") or ADVICE[group["kind"] or ""]
