"""Plain-language findings about a distributed run: is there a straggler, and why.

Each is a Finding (tui/analysis/finding.py); rules: `straggler`, `straggler_idle`,
`collective_wait`, `ranks_balanced`, `no_collectives`, `no_shared_collectives`,
`comm_share`, `step_times`. A
straggler is named only from GPU-side waiting that is material (tui/analysis/ranks.py,
MATERIAL_PCT of the median step); otherwise the ranks are balanced, with the figures.
"""

from __future__ import annotations

from collections import Counter

import duckdb

from tui.analysis.collective_labels import collective_label
from tui.analysis.distributed.stragglers import ranks_text
from tui.analysis.finding import Finding
from tui.analysis.ranks import PER_STEP, waiting_kernels
from tui.core.units import format_ns

_GAP_ROW_KEYS = ("device", "start_ns", "duration_ns", "kind")


def rank_findings(con: duckdb.DuckDBPyConnection, analysis: dict,
                  gaps_by_rank: dict[int, list[dict]]) -> list[Finding]:
    """Findings from rank_analysis() and each rank's own gaps (longest first); `con` is
    the combined run, for the rows behind each finding."""
    rows, verdict = analysis["ranks"], analysis["balance"]
    out: list[Finding] = []
    if not any(r["comm_kernels"] for r in rows):
        out.append(Finding("no_collectives", "info",
                           "No NCCL kernels: the ranks do not communicate on the GPU "
                           "(or the traces did not record it)."))
    elif verdict["straggler"] is not None:
        out += _straggler_findings(con, rows, verdict, gaps_by_rank)
        group = analysis.get("straggler_group") or {}
        if len(group.get("ranks", [])) > 1:
            out[0] = _group_finding(out[0], rows, verdict, group)
    else:
        out.append(_balanced(rows, verdict))
    if len(rows) > 1:
        out += _spread_findings(rows, verdict)
    return out


def straggler_headline(verdict: dict) -> str:
    """One line for a header: who holds the others up, or why nobody is named."""
    if verdict["straggler"] is not None:
        return (f"straggler: rank {verdict['straggler']} — holds the others up in NCCL "
                f"kernels by {_hold(verdict)}")
    if not verdict["ranks"]:
        return "no straggler: the ranks share no NCCL kernels"
    return (f"no straggler: ranks are balanced (rank {verdict['rank']} holds the others up "
            f"most, by {_hold(verdict)}; {_rule(verdict)})")


def _hold(verdict: dict) -> str:
    """'14.8 ms per step, 74.9% of the 19.7 ms median GPU step'."""
    net, ref = max(verdict["net_hold_ns"], 0), verdict["reference_ns"]
    pct = f"{100 * net / ref:.1f}%" if ref else "-"
    if verdict["measure"] == PER_STEP:
        return f"{format_ns(net)} per step, {pct} of the {format_ns(ref)} median GPU step"
    return (f"{format_ns(net)} over the trace, {pct} of the {format_ns(ref)} from the "
            "ranks' first NCCL kernel to their last")


def _rule(verdict: dict, reference: bool = False) -> str:
    """'a straggler is named from 5%, 985 µs' (with `reference`: '5% of the 19.7 ms
    median GPU step, 985 µs')."""
    of = ""
    if reference:
        of = f" of the {format_ns(verdict['reference_ns'])} " + (
            "median GPU step" if verdict["measure"] == PER_STEP
            else "from the ranks' first NCCL kernel to their last")
    why = "" if verdict["measure"] == PER_STEP else "; the traces have no steps"
    return (f"a straggler is named from {verdict['threshold_pct']:g}%{of}, "
            f"{format_ns(verdict['threshold_ns'])}{why}")


def _who_waits(slow: dict, rows: list[dict], verdict: dict) -> str:
    """'rank 0 waits 14.8 ms per step for it, it waits 0 ns for rank 0'."""
    others = [r for r in rows if r["comm_kernels"] and r["rank"] != slow["rank"]]
    per_step = verdict["measure"] == PER_STEP
    caused = (slow["caused_per_step_ns"] if per_step
              else round(slow["caused_ns"] / max(len(others), 1)))
    own = slow["wait_per_step_ns"] if per_step else slow["wait_ns"]
    when = "per step" if per_step else "over the trace"
    if len(others) == 1:
        who, them = f"rank {others[0]['rank']} waits", f"rank {others[0]['rank']}"
    else:
        who, them = f"the other {len(others)} ranks wait on average", "them"
    return f"{who} {format_ns(caused)} {when} for it, it waits {format_ns(own)} for {them}"


def _straggler_findings(con: duckdb.DuckDBPyConnection, rows: list[dict], verdict: dict,
                        gaps_by_rank: dict[int, list[dict]]) -> list[Finding]:
    by_rank = {r["rank"]: r for r in rows}
    slow = by_rank[verdict["straggler"]]
    waiter = max((r for r in rows if r["rank"] != slow["rank"]),
                 key=lambda r: (r["wait_ns"], -r["rank"]))
    share = 100 * waiter["wait_ns"] / waiter["comm_ns"] if waiter["comm_ns"] else 0.0
    text = (f"Rank {slow['rank']} is the straggler: it holds the others up in NCCL kernels "
            f"by {_hold(verdict)} ({_rule(verdict)}): {_who_waits(slow, rows, verdict)}. "
            f"Rank {waiter['rank']} waits longest, {format_ns(waiter['wait_ns'])} in all "
            f"({share:.0f}% of its NCCL kernel time), most in "
            f"{collective_label(waiter['waits_in'])} (up to "
            f"{format_ns(waiter['longest_wait_ns'])} at once).")
    out = [Finding("straggler", "warning", text, slow["caused_ns"],
                   _kernel_rows(waiting_kernels(con, waited_for=slow["rank"])))]
    gaps = gaps_by_rank.get(slow["rank"], [])
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
    out.append(Finding("straggler_idle", "info", why + ".",
                       sum(g["duration_ns"] for g in gaps) if gaps else None,
                       [{"rank": slow["rank"], **{k: g[k] for k in _GAP_ROW_KEYS}}
                        for g in gaps]))
    if waiter["busy_ns"] and waiter["wait_ns"] > 0.2 * waiter["busy_ns"]:
        out.append(Finding(
            "collective_wait", "info",
            f"Rank {waiter['rank']}'s GPU counts as {waiter['busy_pct']:.0f}% busy, but "
            f"{format_ns(waiter['wait_ns'])} of its {format_ns(waiter['busy_ns'])} busy time "
            "is NCCL kernels waiting for other ranks.",
            waiter["wait_ns"], _kernel_rows(waiting_kernels(con, rank=waiter["rank"]))))
    return out


def _group_finding(single: Finding, rows: list[dict], verdict: dict, group: dict) -> Finding:
    """The straggler finding of several stragglers: the group, what its ranks share, and
    how long the other ranks wait for them."""
    members = group["ranks"]
    talking = [r for r in rows if r["comm_kernels"]]
    others = [r for r in talking if r["rank"] not in members]
    per_step = verdict["measure"] == PER_STEP
    key = "wait_per_step_ns" if per_step else "wait_ns"
    when = "per step" if per_step else "over the trace"
    waits = [r[key] or 0 for r in others]
    inside = [r[key] or 0 for r in talking if r["rank"] in members]
    shared = "; they share " + " and ".join(group["shared"]) if group["shared"] else ""
    text = (f"Ranks {ranks_text(members)} ({len(members)} of {len(talking)}) are the "
            f"stragglers: they arrive last at the NCCL collectives, each waiting at most "
            f"{format_ns(max(inside))} {when}, while the other {len(others)} ranks wait "
            f"{format_ns(sum(waits) / len(waits))} {when} on average for them"
            f"{shared}. Rank {verdict['straggler']} holds the others up most, by "
            f"{_hold(verdict)} ({_rule(verdict)}).")
    return Finding("straggler", "warning", text, single.cost_ns, single.rows)


def _balanced(rows: list[dict], verdict: dict) -> Finding:
    shared = max(r["collectives"] for r in rows)
    if not shared:
        return Finding("no_shared_collectives", "info",
                       "No NCCL kernel was matched across ranks (the profiling windows do "
                       "not overlap, or the ranks ran different collectives): no straggler "
                       "can be judged.")
    if not any(r["wait_ns"] for r in rows):
        return Finding("ranks_balanced", "info",
                       f"Ranks are balanced: no rank waits for another in the {shared:,} "
                       f"NCCL kernels that the traces share "
                       f"({_rule(verdict, reference=True)}).")
    top = next(r for r in rows if r["rank"] == verdict["rank"])
    return Finding(
        "ranks_balanced", "info",
        f"Ranks are balanced: no rank holds the others up in NCCL kernels by "
        f"{verdict['threshold_pct']:g}% or more ({_rule(verdict, reference=True)}). The "
        f"most is rank {top['rank']}, by {_hold(verdict)}: {_who_waits(top, rows, verdict)}.")


def _spread_findings(rows: list[dict], verdict: dict) -> list[Finding]:
    out = []
    shares = [(100 * r["comm_ns"] / (r["comm_ns"] + r["compute_ns"]), r["rank"])
              for r in rows if r["comm_ns"] + r["compute_ns"]]
    if shares and max(shares)[0] > 0:
        (lo, lo_rank), (hi, hi_rank) = min(shares), max(shares)
        spread = (f"{lo:.0f}% of the kernel time on every rank" if f"{lo:.0f}" == f"{hi:.0f}"
                  else f"{lo:.0f}% (rank {lo_rank}) to {hi:.0f}% (rank {hi_rank}) of each "
                  "rank's kernel time")
        out.append(Finding("comm_share", "info", f"NCCL kernels take {spread}."))
    host = _range("step_host_ns", rows)
    if host:
        text = f"Median step time from the host ranges {host}"
        gpu = _range("step_gpu_ns", rows)
        if gpu:
            text += (f"; on the GPU (first start to last end of the work each step "
                     f"launched) {gpu}")
            slowest = max((r for r in rows if r["step_gpu_ns"]),
                          key=lambda r: r["step_gpu_ns"])
            if ("every rank" not in gpu
                    and (slowest["wait_per_step_ns"] or 0) >= verdict["threshold_ns"] > 0):
                text += (f", rank {slowest['rank']}'s with "
                         f"{format_ns(slowest['wait_per_step_ns'])} of NCCL waiting per step")
        out.append(Finding("step_times", "info", text + "."))
    return out


def _range(key: str, rows: list[dict]) -> str:
    """'19.1 ms (rank 0) to 20.1 ms (rank 1)', or '19.1 ms on every rank'."""
    values = sorted((r[key], r["rank"]) for r in rows if r[key])
    if len(values) < 2:
        return ""
    (lo, lo_rank), (hi, hi_rank) = values[0], values[-1]
    if format_ns(lo) == format_ns(hi):
        return f"{format_ns(lo)} on every rank"
    return f"{format_ns(lo)} (rank {lo_rank}) to {format_ns(hi)} (rank {hi_rank})"


def _kernel_rows(kernels: list[dict]) -> list[dict]:
    return [{"rank": k["rank"], "device": k["device"], "start_ns": k["start_ns"],
             "duration_ns": k["duration_ns"], "wait_ns": k["wait_ns"],
             "waited_for": k["waited_for"], "name": k["name"]} for k in kernels]
