"""Findings from the distributed figures, only where material: exposed communication, deep
launch queues, and GPU idle time by HTA's category. Each states figures of
tui/analysis/distributed (trace_figures) as they are; rules: `exposed_communication`,
`deep_launch_queue`, `idle_by_category`.
"""

from __future__ import annotations

from tui.analysis.finding import Finding
from tui.core.units import format_ns

EXPOSED_PCT = 5.0  # exposed communication worth a finding: >= this % of the kernel time
IDLE_PCT = 10.0  # HTA's idle time worth a finding: >= this % of the kernel time
DEEP_DELAY_NS = 1_000_000  # a mean launch delay from 1 ms: the GPU queue is deep
CATEGORY_WORDS = {"host_wait_ns": "host wait (the host had not queued the next work yet)",
                  "kernel_wait_ns": "kernel wait (launch overhead between back-to-back work)",
                  "other_ns": "other (queued, but waiting on another stream or an event)"}


def distributed_findings(ranks: list[dict], run: bool = True) -> list[Finding]:
    """The findings over every rank's figures (one entry a rank, as in the summary). Of a
    single trace (`run` False) no idle finding: the trace's own findings tell its idle time."""
    rows = [r for r in ranks if r.get("breakdown") and r["breakdown"]["kernel_ns"]]
    out = []
    for rule in (_exposed, _deep_queue) + ((_idle,) if run else ()):
        finding = rule(rows)
        if finding is not None:
            out.append(finding)
    return out


def _who(rank: dict, rows: list[dict]) -> str:
    return "" if len(rows) == 1 else f"Rank {rank['rank']}: "


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _exposed(rows: list[dict]) -> Finding | None:
    hits = [r for r in rows if r["communication"]["comm_ns"]
            and 100 * r["communication"]["exposed_ns"] / r["breakdown"]["kernel_ns"]
            >= EXPOSED_PCT]
    if not hits:
        return None
    top = max(hits, key=lambda r: (r["communication"]["exposed_ns"], -r["rank"]))
    comm = top["communication"]
    exposed_pct = 100 * comm["exposed_ns"] / comm["comm_ns"]
    per_step = comm["exposed_per_step_ns"]
    amount = (f"{format_ns(per_step)} a step" if per_step is not None
              else f"{format_ns(comm['exposed_ns'])} in all")
    text = (_sentence(f"{_who(top, rows)}communication {exposed_pct:.0f}% exposed: "
            f"{amount} not hidden behind compute ({format_ns(comm['comm_ns'])} of "
            f"communication kernels, {top['overlap_pct']:.1f}% of it overlapped by compute "
            f"kernels)."))
    if len(hits) > 1:
        text += f" {len(hits)} of {len(rows)} ranks expose {EXPOSED_PCT:g}% or more."
    return Finding("exposed_communication", "warning", text, comm["exposed_ns"])


def _deep_queue(rows: list[dict]) -> Finding | None:
    def mean_delay(r: dict) -> float:
        n = r["launch_stats"]["launches"]
        return r["launch_stats"]["delay_ns_sum"] / n if n else 0.0

    # a deep queue keeps the GPU busy: where it idles much, long delays come from bursts
    hits = [r for r in rows if mean_delay(r) >= DEEP_DELAY_NS
            and 100 * r["breakdown"]["idle_ns"] / r["breakdown"]["kernel_ns"] < IDLE_PCT]
    if not hits:
        return None
    top = max(hits, key=lambda r: (mean_delay(r), -r["rank"]))
    stats = top["launch_stats"]
    deepest = max(top.get("queue_length") or [], key=lambda q: q["max"], default=None)
    text = (_sentence(f"{_who(top, rows)}launches wait {format_ns(mean_delay(top))} on "
            f"average before their work starts (p90 {format_ns(stats['delay_ns_p90'])}, "
            f"max {format_ns(stats['delay_ns_max'])}, {stats['launches']:,} launches): the "
            "GPU queue is deep"))
    if deepest is not None:
        text += (f", up to {deepest['max']} launches outstanding on stream "
                 f"{deepest['stream']}")
    waiting = top.get("wait_ns") or 0  # a run's rank: NCCL kernels waiting for other ranks
    if waiting >= 0.2 * top["breakdown"]["kernel_ns"]:
        text += (f"; the host runs ahead, and the stream is held by NCCL kernels waiting "
                 f"{format_ns(waiting)} in all for other ranks.")
    else:
        text += "; the host runs ahead and the GPU bounds the step."
    if len(hits) > 1:
        text += f" {len(hits)} of {len(rows)} ranks' launches wait 1 ms or more on average."
    return Finding("deep_launch_queue", "info", text)


def _idle(rows: list[dict]) -> Finding | None:
    hits = [r for r in rows
            if 100 * r["breakdown"]["idle_ns"] / r["breakdown"]["kernel_ns"] >= IDLE_PCT]
    if not hits:
        return None
    top = max(hits, key=lambda r: (r["breakdown"]["idle_ns"], -r["rank"]))
    b = top["breakdown"]
    sums = {key: sum(c[key] for c in top.get("idle_breakdown") or [])
            for key in CATEGORY_WORDS}
    total = sum(sums.values())
    text = (_sentence(f"{_who(top, rows)}the GPU idles {format_ns(b['idle_ns'])}, "
            f"{100 * b['idle_ns'] / b['kernel_ns']:.0f}% of its "
            f"{format_ns(b['kernel_ns'])} of kernel time (HTA's name for the span from "
            "its first GPU work to its last)"))
    if total:
        key = max(sums, key=lambda k: sums[k])
        text += (f"; per stream, {100 * sums[key] / total:.0f}% of the gaps between its "
                 f"work is {CATEGORY_WORDS[key]}")
    text += "."
    if len(hits) > 1:
        text += f" {len(hits)} of {len(rows)} ranks idle {IDLE_PCT:g}% or more."
    return Finding("idle_by_category", "info", text, b["idle_ns"])
