"""A pipeline-parallel run: its stage order, micro-batches per step, schedule, and the
bubble each stage measured against the one its schedule implies.

Read from c10d's send/recv calls (the `collectives` table, Kineto), or NCCL's own NVTX
ranges of them in an nsys report (queries/analysis/rank_p2p_calls.sql), and each rank's
steps (tui/analysis/ranks.py): the first stage starts a step with a send, each stage's first
send goes to the next stage (queries/analysis/rank_pipeline_*.sql). GPipe runs every
micro-batch's forward before any backward; 1F1B interleaves them. Either way the
expected bubble of p stages and m micro-batches is (p-1)/(m+p-1) of the step. A
multi-stage schedule (interleaved 1F1B: v stages a rank, looped) marks each forward
`PP:<stage>F<micro-batch>` (queries/analysis/rank_pipeline_actions.sql): its bubble is
(p-1)/(v·m+p-1).
"""

from __future__ import annotations

from typing import Literal

import duckdb

from tui.analysis.finding import Finding
from tui.analysis.ranks import ensure_rank_tables
from tui.analysis.summary_types import Pipeline
from tui.core.queries import load_query

Schedule = Literal["GPipe", "1F1B", "interleaved 1F1B"]
# Stages' bubbles this many points apart: uneven stages; this many above the schedule's:
# the stages wait for more than each other.
UNEVEN_POINTS = 10.0


def pipeline(con: duckdb.DuckDBPyConnection) -> Pipeline | None:
    """{order, micro_batches, schedule, expected_bubble_pct, bubble_pct {rank: pct}}, or
    None where no ranks send to each other in steps."""
    ensure_rank_tables(con)
    con.execute("CREATE TEMP TABLE IF NOT EXISTS p2p_calls AS "
                + load_query("rank_p2p_calls").rstrip().rstrip(";"))
    order = stage_order(con.execute(load_query("rank_pipeline_stages")).fetchall())
    if len(order) < 2:
        return None
    rows = con.execute(load_query("rank_pipeline_schedule"), {"order": order}).fetchall()
    if not rows:
        return None
    stages = {stage: (rank, forward_sends, phased)
              for rank, stage, _, forward_sends, phased in rows}
    first = stages.get(0)
    micro_batches = round(first[1]) if first and first[1] else None
    schedule: Schedule = "GPipe" if all(s[2] for s in stages.values()) else "1F1B"
    # a multi-stage schedule's own marks: v stages a rank, looped (rank r runs stages r,
    # r + p, ...), whose sends go both ways between neighbours: counted as forward ones
    # above, and no phases to read
    looped = {rank: (v, m) for rank, v, m
              in con.execute(load_query("rank_pipeline_actions")).fetchall() if rank in order}
    per_rank = 1
    if looped and {v for v, _ in looped.values()} != {1}:
        per_rank = max(v for v, _ in looped.values())
        micro_batches = max(m for _, m in looped.values()) or None
        schedule = "interleaved 1F1B"
    p = len(order)
    # the bubble's share of a step: (p-1)/(m+p-1), each rank's v looped stages dividing
    # its idle start and end by v (Narayanan et al. 2021: (p-1)/(v·m) of the ideal time)
    expected = ((100 * (p - 1) / (per_rank * micro_batches + p - 1)) if micro_batches
                else None)
    bubble = {str(rank): round(pct, 1) for rank, _, _, _, pct
              in con.execute(load_query("rank_pipeline_bubble")).fetchall()
              if rank in order}
    out: Pipeline = {"order": order, "micro_batches": micro_batches, "schedule": schedule,
                     "expected_bubble_pct": None if expected is None else round(expected, 1),
                     "bubble_pct": bubble}
    if per_rank > 1:
        out["stages_per_rank"] = per_rank
    return out


def stage_order(rows: list[tuple[int, str, int | None]]) -> list[int]:
    """The ranks first stage first, from (rank, first call, peer of its first send): the
    stage that starts with a send is the first; each next one is the peer of the previous
    one's first send, until a rank comes again."""
    first_send = {rank: peer for rank, _, peer in rows}
    starts = [rank for rank, call, _ in rows if call == "send"]
    if len(starts) != 1:
        return []
    order = [starts[0]]
    while (nxt := first_send.get(order[-1])) is not None and nxt not in order:
        order.append(nxt)
    return order


def beyond_schedule(p: Pipeline | None) -> bool:
    """Every stage idles UNEVEN_POINTS or more beyond the schedule's bubble: the stages
    wait for more than each other (the host, the transfers)."""
    if p is None or p["expected_bubble_pct"] is None or not p["bubble_pct"]:
        return False
    return min(p["bubble_pct"].values()) - p["expected_bubble_pct"] >= UNEVEN_POINTS


def pipeline_text(p: Pipeline) -> str:
    """'Pipeline: ranks 0 → 1, 8 micro-batches a step, 1F1B: a bubble of 11.1% expected,
    measured 35.0% (rank 0) to 52.0% (rank 1).'"""
    measured = sorted(p["bubble_pct"].items(), key=lambda kv: kv[1])
    got = (f"measured {measured[0][1]:.1f}% (rank {measured[0][0]}) to "
           f"{measured[-1][1]:.1f}% (rank {measured[-1][0]})" if len(measured) > 1
           else f"measured {measured[0][1]:.1f}%" if measured else "not measured")
    mbs = (f"{p['micro_batches']} micro-batches a step" if p["micro_batches"]
           else "micro-batches unknown")
    if p.get("stages_per_rank"):
        mbs = f"{p['stages_per_rank']} stages a rank (looped), {mbs}"
    expected = ("" if p["expected_bubble_pct"] is None
                else f"a bubble of {p['expected_bubble_pct']:.1f}% expected, ")
    return (f"Pipeline: ranks {' → '.join(map(str, p['order']))}, {mbs}, {p['schedule']}: "
            f"{expected}{got} (the steps' GPU time without compute).")


def pipeline_remedy(p: Pipeline) -> str:
    """What fits the pipeline's figures."""
    out = []
    expected = p["expected_bubble_pct"]
    if expected is not None and expected >= 10 and p.get("stages_per_rank"):
        out.append(f"more micro-batches per step ({p['micro_batches']} now: the bubble "
                   "(p-1)/(v·m+p-1) falls as m grows) or more stages a rank (v)")
    elif expected is not None and expected >= 10:
        out.append(f"more micro-batches per step ({p['micro_batches']} now: the bubble "
                   f"(p-1)/(m+p-1) falls as m grows) or an interleaved schedule (several "
                   "stages per rank divide it by their number)")
    measured = p["bubble_pct"]
    if measured and expected is not None:
        busiest = min(measured.items(), key=lambda kv: kv[1])
        idlest = max(measured.items(), key=lambda kv: kv[1])
        if idlest[1] - busiest[1] >= UNEVEN_POINTS:
            out.append(f"even out the stages: rank {idlest[0]} idles {idlest[1]:.0f}% of its "
                       f"steps against {busiest[1]:.0f}% on rank {busiest[0]}, the slower "
                       f"stage: move layers from rank {busiest[0]}'s stage to rank "
                       f"{idlest[0]}'s")
        if beyond_schedule(p):
            out.append(f"every stage idles far beyond the schedule's {expected:.0f}% "
                       f"(at least {busiest[1]:.0f}%): the stages wait for something "
                       "other than each other, the host (its data step, launches) or the "
                       "transfers, as the diagnosis says")
    if p["schedule"] == "GPipe":
        out.append("1F1B keeps fewer micro-batches' activations alive at once for the same "
                   "bubble")
    return "; ".join(out)


def pipeline_findings(p: Pipeline | None) -> list[Finding]:
    """A `pipeline_bubble` finding: the pipeline, its bubbles and the remedy that fits."""
    if p is None:
        return []
    remedy = pipeline_remedy(p)
    text = pipeline_text(p) + (f" To shrink it: {remedy}." if remedy else "")
    return [Finding("pipeline_bubble", "info", text)]
