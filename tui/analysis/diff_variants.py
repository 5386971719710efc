"""Kernels of a diff that changed variant: the same kernel with other template arguments
(another dtype, tile size, vector width, flag) on each side.

A vanished and an appeared kernel pair up when their dtype_key (scalar types abstracted)
is the same and no other unpaired kernel has it (one before, one after); what is left is
tried again on the variant_key (numbers abstracted too), then on the family_key (every
template argument dropped), each under the same rule. Anything ambiguous
stays appeared/vanished: three vanished foreach kernels and one fused one are not a pair.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from tui.analysis.diff_noise import change
from tui.analysis.kernel_names import dtype_key, family_key, variant_key


def pair_variants(kernels: list[dict]) -> list[dict]:
    """kernel_diff() rows with each unambiguous vanished/appeared pair merged into one row
    of status 'variant' (`name` is the after name, `before_name` the before one, `change`
    faster/slower/same by the average per launch); largest |delta| first."""
    rows = list(kernels)
    for key in (dtype_key, variant_key, family_key):
        rows = _pair_on(rows, key)
    return sorted(rows, key=lambda k: (-abs(k["delta_ns"]), k["name"]))


def _pair_on(rows: list[dict], key: Callable[[str], str | None]) -> list[dict]:
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for i, k in enumerate(rows):
        if k["status"] in ("appeared", "vanished"):
            groups[key(k["name"]) or k["name"]][k["status"]].append(i)
    merged: list[dict] = []
    used: set[int] = set()
    for sides in groups.values():
        gone, new = sides["vanished"], sides["appeared"]
        if len(gone) == len(new) == 1:
            merged.append(_merge(rows[gone[0]], rows[new[0]]))
            used.update((gone[0], new[0]))
    return [k for i, k in enumerate(rows) if i not in used] + merged


def _merge(before: dict, after: dict) -> dict:
    b_avg, a_avg = before["before_avg_ns"], after["after_avg_ns"]
    return {
        "name": after["name"],
        "key": after["key"],
        "status": "variant",
        "before_count": before["before_count"],
        "after_count": after["after_count"],
        "before_total_ns": before["before_total_ns"],
        "after_total_ns": after["after_total_ns"],
        "delta_ns": after["after_total_ns"] - before["before_total_ns"],
        "before_avg_ns": b_avg,
        "after_avg_ns": a_avg,
        "avg_change_pct": 100.0 * (a_avg / b_avg - 1) if b_avg else None,
        "before_name": before["name"],
        "change": change(b_avg, a_avg),
    }
