"""Plain-language findings about a distributed run: who is the straggler, and why."""

from __future__ import annotations

import re
from collections import Counter

from tui.units import format_ns

_NCCL_KERNEL = re.compile(r"nccl(?:Dev)?Kernel_([A-Za-z0-9_]+)")


def collective_label(name: str | None) -> str:
    """'ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)' -> 'AllReduce_Sum_f32_RING_LL'."""
    if not name:
        return "-"
    match = _NCCL_KERNEL.search(name)
    return match.group(1) if match else (name if len(name) <= 60 else name[:59] + "…")


def rank_findings(rows: list[dict], straggler: int | None,
                  gaps_by_rank: dict[int, list[dict]]) -> list[str]:
    """Two to five findings from rank_rows() and each rank's own gaps (longest first)."""
    out: list[str] = []
    by_rank = {r["rank"]: r for r in rows}
    waiters = sorted((r for r in rows if r["wait_ns"] > 0), key=lambda r: -r["wait_ns"])
    if straggler is not None and waiters:
        out += _straggler_findings(by_rank[straggler], waiters[0],
                                   gaps_by_rank.get(straggler, []))
    elif any(r["comm_kernels"] for r in rows):
        out.append("No rank waits for another in NCCL kernels that the traces share: "
                   "no straggler.")
    else:
        out.append("No NCCL kernels: the ranks do not communicate on the GPU "
                   "(or the traces did not record it).")
    if len(rows) > 1:
        out += _spread_findings(rows)
    return out[:5]


def _straggler_findings(slow: dict, waiter: dict, gaps: list[dict]) -> list[str]:
    share = 100 * waiter["wait_ns"] / waiter["comm_ns"] if waiter["comm_ns"] else 0.0
    out = [
        f"Rank {slow['rank']} is the straggler: the other ranks wait "
        f"{format_ns(slow['caused_ns'])} for it in NCCL kernels. Rank {waiter['rank']} waits "
        f"longest, {format_ns(waiter['wait_ns'])} ({share:.0f}% of its NCCL kernel time), "
        f"most in {collective_label(waiter['waits_in'])} (up to "
        f"{format_ns(waiter['longest_wait_ns'])} at once)."
    ]
    why = (f"Rank {slow['rank']}'s GPU idles {100 - slow['busy_pct']:.0f}% of its span "
           f"against {100 - waiter['busy_pct']:.0f}% on rank {waiter['rank']}")
    longest = gaps[:5]
    if longest:
        kind, n = Counter(g["kind"] for g in longest).most_common(1)[0]
        example = next(g for g in longest if g["kind"] == kind)
        which = (f"its {n} longest gaps are all" if n == len(longest) > 1
                 else f"{n} of its {len(longest)} longest gaps are")
        why += (f"; {which} '{kind}', e.g. {format_ns(example['duration_ns'])} idle: "
                f"{example['cause']}")
    out.append(why + ".")
    if waiter["busy_ns"] and waiter["wait_ns"] > 0.2 * waiter["busy_ns"]:
        out.append(
            f"Rank {waiter['rank']}'s GPU counts as {waiter['busy_pct']:.0f}% busy, but "
            f"{format_ns(waiter['wait_ns'])} of its {format_ns(waiter['busy_ns'])} busy time "
            "is NCCL kernels waiting for other ranks."
        )
    return out


def _spread_findings(rows: list[dict]) -> list[str]:
    out = []
    shares = [(100 * r["comm_ns"] / (r["comm_ns"] + r["compute_ns"]), r["rank"])
              for r in rows if r["comm_ns"] + r["compute_ns"]]
    if shares and max(shares)[0] > 0:
        (lo, lo_rank), (hi, hi_rank) = min(shares), max(shares)
        out.append(f"NCCL kernels take {lo:.0f}% (rank {lo_rank}) to {hi:.0f}% "
                   f"(rank {hi_rank}) of each rank's kernel time.")
    steps = [(r["step_ns"], r["rank"]) for r in rows if r["step_ns"]]
    if len(steps) > 1:
        (lo_ns, lo_rank), (hi_ns, hi_rank) = min(steps), max(steps)
        lockstep = any(r["comm_kernels"] for r in rows)
        out.append(f"Median step time {format_ns(lo_ns)} (rank {lo_rank}) to "
                   f"{format_ns(hi_ns)} (rank {hi_rank})"
                   + (": collectives keep the ranks in lockstep, so each step lasts as "
                      "long as the slowest rank's." if lockstep else "."))
    return out
