"""Two to five plain-language findings drawn from the statistics and the gaps."""

from __future__ import annotations

from collections import Counter

from tui.analysis.gaps import Gap
from tui.analysis.kernels import DeviceBusy, KernelStats
from tui.units import format_bytes, format_ns

# Kernels shorter than this are dominated by launch cost (~5-10 µs of host time each).
TINY_KERNEL_NS = 10_000


def findings(
    devices: list[DeviceBusy], kernels: list[KernelStats], gaps: list[Gap],
    copies: list[tuple], min_gap_ns: int,
) -> list[str]:
    out: list[str] = []
    for dev in devices:
        idle_pct = 100.0 - dev.busy_pct
        out.append(
            f"GPU {dev.id} idle {idle_pct:.0f}% of its active span "
            f"({format_ns(dev.span_ns - dev.busy_ns)} of {format_ns(dev.span_ns)})"
            + (f"; {len([g for g in gaps if g.device == dev.id])} gaps over "
               f"{format_ns(min_gap_ns)}" if gaps else "")
            + "."
        )
    if gaps:
        out.append(_gap_finding(gaps))
    if kernels:
        top = kernels[0]
        out.append(
            f"The top kernel takes {top.percent:.0f}% of GPU kernel time "
            f"({top.count:,} launches, {format_ns(top.total_ns)}): {_short(top.name)}."
        )
        tiny = sum(k.count for k in kernels if k.median_ns < TINY_KERNEL_NS)
        launches = sum(k.count for k in kernels)
        if launches and tiny / launches >= 0.5:
            out.append(
                f"{100 * tiny / launches:.0f}% of the {launches:,} kernel launches are kernels "
                f"whose median runs under {format_ns(TINY_KERNEL_NS)}: launch overhead "
                "dominates; fuse them (torch.compile) or replay them as a CUDA graph."
            )
    pageable = [c for c in copies if "Pageable" in (c[1] or "", c[2] or "")]
    if pageable:
        count = sum(c[3] for c in pageable)
        total = sum(c[5] for c in pageable)
        moved = sum(c[4] or 0 for c in pageable)
        out.append(
            f"{count:,} copies use pageable host memory ({format_bytes(moved)}, "
            f"{format_ns(total)} on the GPU): they block the host; use pinned memory "
            "(pin_memory=True) and non_blocking=True."
        )
    return out[:5]


def _gap_finding(gaps: list[Gap]) -> str:
    longest = sorted(gaps, key=lambda g: -g.duration_ns)[:5]
    kinds = Counter(g.kind for g in longest)
    kind, n = kinds.most_common(1)[0]
    example = next(g for g in longest if g.kind == kind)
    return (
        f"{n} of the {len(longest)} longest gaps are '{kind}': e.g. "
        f"{format_ns(example.duration_ns)} idle, {example.cause}."
    )


def _short(name: str, width: int = 70) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"
