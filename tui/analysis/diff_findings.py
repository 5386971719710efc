"""The findings of `tui diff`: what changed between before and after, in sentences.

Each is a Finding (tui/analysis/finding.py); its cost_ns is after minus before (negative:
time saved). Rules: time_change, idle_change, kernel_time_change, kernel_change,
kernel_variant_changed, kernels_appeared, kernels_vanished. Every "faster", "slower" or
"same" follows the noise rule of tui/analysis/diff_noise.py.
"""

from __future__ import annotations

from tui.analysis.diff_noise import change, describe
from tui.analysis.finding import Finding
from tui.analysis.kernel_names import hinted_kernel_name, variant_label
from tui.core.units import format_ns

MAX_NAMED = 3  # variants named in a sentence; the rows hold every one


def diff_findings(before: dict, after: dict, time: dict, kernels: list[dict],
                  min_gap_ns: int) -> list[Finding]:
    out = [_time_finding(time)]
    out.append(Finding(
        "idle_change", "info",
        f"GPU idle {_moved(before['idle_ns'], after['idle_ns'], before['kernels'])}; gaps "
        f"over {format_ns(min_gap_ns)}: {before['gaps']} → {after['gaps']} "
        f"({format_ns(before['gap_ns'])} → {format_ns(after['gap_ns'])}).",
        after["idle_ns"] - before["idle_ns"]))
    out.append(Finding(
        "kernel_time_change", "info",
        f"Kernel time {_moved(before['kernel_ns'], after['kernel_ns'], before['kernels'])}, "
        f"in {before['kernels']:,} → {after['kernels']:,} launches.",
        after["kernel_ns"] - before["kernel_ns"]))
    both = [k for k in kernels if k["status"] in ("faster", "slower")]
    if both:
        k = both[0]
        out.append(Finding(
            "kernel_change", "info",
            f"Largest change among kernels in both: {hinted_kernel_name(k['name'])}, "
            f"{_launches(k)}, avg {_avg(k)} ({k['status']}), total "
            f"{format_ns(k['before_total_ns'])} → {format_ns(k['after_total_ns'])}.",
            sum(k["delta_ns"] for k in both), [dict(k) for k in both]))
    variants = [k for k in kernels if k["status"] == "variant"]
    if variants:
        named = "; ".join(
            f"{variant_label(k['before_name'], k['name'])}, avg {_avg(k)} ({k['change']})"
            for k in variants[:MAX_NAMED])
        more = f"; and {len(variants) - MAX_NAMED} more" if len(variants) > MAX_NAMED else ""
        count = "1 kernel" if len(variants) == 1 else f"{len(variants)} kernels"
        out.append(Finding(
            "kernel_variant_changed", "info",
            f"{count} changed variant (the same kernel with other template arguments), "
            f"largest first: {named}{more}.",
            sum(k["delta_ns"] for k in variants), [dict(k) for k in variants]))
    for status, side in (("appeared", "after"), ("vanished", "before")):
        rows = [k for k in kernels if k["status"] == status]
        if rows:
            total = sum(k[f"{side}_total_ns"] for k in rows)
            top = rows[0]
            out.append(Finding(
                f"kernels_{status}", "info",
                f"{len(rows)} kernel{'s' if len(rows) > 1 else ''} {status}, "
                f"{format_ns(total)} in all (largest {hinted_kernel_name(top['name'])}, "
                f"{format_ns(top[f'{side}_total_ns'])} in {top[f'{side}_count']:,} "
                "launches).",
                total if status == "appeared" else -total, [dict(k) for k in rows]))
    return out


def signed_ns(ns: int) -> str:
    """-2400000 -> "-2.4 ms", 499000 -> "+499 µs"."""
    return ("-" if ns < 0 else "+") + format_ns(abs(ns))


def _time_finding(time: dict) -> Finding:
    b, a = time["before_ns"], time["after_ns"]
    figures = f"{time['measure']} {format_ns(b)} → {format_ns(a)} ({time['change_pct']:+.1f}%"
    verdict = time["verdict"]
    if verdict == "faster":
        text = f"After is faster than before: {figures}, {b / a:.2f}× as fast)."
    elif verdict == "slower":
        text = f"After is slower than before: {figures})."
    else:
        text = (f"After is as fast as before: {figures}), within noise (under "
                f"{format_ns(time['noise_ns'])}: {describe()}).")
    return Finding("time_change", "warning" if verdict == "slower" else "info", text, a - b)


def _moved(b: int, a: int, launches: int) -> str:
    """'fell 50%: 163 ms → 81.9 ms', 'rose ...', or 'stayed within noise: ...'."""
    figures = f"{format_ns(b)} → {format_ns(a)}"
    word = change(b, a, launches)
    if word == "same" or not b:
        return (f"stayed within noise: {figures}" if word == "same" else f"rose: {figures}")
    return f"{'fell' if word == 'faster' else 'rose'} {abs(100 * (a - b) / b):.0f}%: {figures}"


def _launches(k: dict) -> str:
    if k["before_count"] == k["after_count"]:
        return f"{k['after_count']:,} launches"
    return f"{k['before_count']:,} → {k['after_count']:,} launches"


def _avg(k: dict) -> str:
    return f"{format_ns(k['before_avg_ns'])} → {format_ns(k['after_avg_ns'])}"
