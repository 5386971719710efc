"""Match each profiled launch to the trace's kernels (`tui TRACE --ncu REPORT`).

A profiled kernel is looked for in `gpu_activities` by name — the full demangled name
reduced by `canonical_name` (tools spell it differently), the mangled name, then the bare
function name — and by launch configuration (grid and block). The strongest level that
finds anything decides; more than one distinct kernel there is reported as ambiguous.
A trace kernel whose template arguments visibly differ is another instance of the same
template, never a match, however its launch configuration compares.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import duckdb

from tui.core.db import CursorSource
from tui.core.queries import load_query
from tui.sources.ncu.names import canonical_name, short_name

Dims = tuple[int | None, int | None, int | None]


@dataclass
class TraceKernelGroup:
    """The trace's launches of one kernel name with one launch configuration."""

    name: str
    grid: Dims
    block: Dims
    launches: int
    first_id: int | None
    first_start_ns: int | None
    median_duration_ns: float | None
    total_duration_ns: int | None


@dataclass
class KernelMatch:
    launch_id: int
    ncu_name: str
    status: str  # 'matched' | 'ambiguous' | 'unmatched'
    matched_on: str | None  # 'name+config' | 'short-name+config' | 'name' | 'short-name'
    note: str
    candidates: list[TraceKernelGroup] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _groups(con: duckdb.DuckDBPyConnection) -> list[TraceKernelGroup] | None:
    try:
        rows = con.execute(load_query("ncu_trace_kernel_groups")).fetchall()
    except duckdb.CatalogException:
        return None  # no trace loaded: nothing to match against
    return [TraceKernelGroup(r[0], (r[1], r[2], r[3]), (r[4], r[5], r[6]), *r[7:])
            for r in rows]


def _same_config(found: list[TraceKernelGroup], grid: Dims,
                 block: Dims) -> list[TraceKernelGroup]:
    return [g for g in found if g.grid == grid and g.block == block]


def _dims_text(dims: Dims) -> str:
    return "(" + ", ".join("?" if d is None else str(d) for d in dims) + ")"


def _other_instance(a: str, b: str) -> bool:
    """Both canonical names carry template arguments and they differ: two instances of one
    template (Kernel2<sgemm_256x128> vs Kernel2<sgemm_128x256>), not two spellings."""
    return a != b and "<" in a and "<" in b and not a.startswith("_Z") and not b.startswith("_Z")


def _decide(launch: dict[str, Any], levels: list[tuple[str, list[TraceKernelGroup]]],
            config: str, others: list[TraceKernelGroup]) -> KernelMatch:
    launch_id, name = launch["launch_id"], launch["name"]
    for level, found in levels:
        if not found:
            continue
        distinct = {(g.name, g.grid, g.block) for g in found}
        if len(distinct) == 1:
            note = f"{found[0].launches} launch(es) in the trace"
            if "config" not in level:
                note += (f"; launch configuration differs: ncu {config}, trace "
                         f"{_dims_text(found[0].grid)}x{_dims_text(found[0].block)}")
            return KernelMatch(launch_id, name, "matched", level, note, found)
        what = "kernels" if len({g.name for g in found}) > 1 else "launch configurations"
        return KernelMatch(launch_id, name, "ambiguous", level,
                           f"{len(distinct)} {what} in the trace fit by {level}", found)
    if others:
        return KernelMatch(launch_id, name, "unmatched", None,
                           f"not in the trace, which has {len(others)} other template "
                           "instance(s) of this function (listed as candidates)", others)
    return KernelMatch(launch_id, name, "unmatched", None, "no kernel of this name in the trace")


def match_ncu_kernels(con: duckdb.DuckDBPyConnection,
                      trace: CursorSource | None = None) -> list[KernelMatch]:
    """One KernelMatch per profiled launch, in the report's order.

    The trace's kernels are read from `trace` when given (the trace's own database, which
    may be read-only: only grouped rows come out of it), else from `con` itself.
    """
    kernels = con.execute(load_query("ncu_kernels"))
    names = [d[0] for d in kernels.description or []]
    launches = [dict(zip(names, row, strict=True)) for row in kernels.fetchall()]
    if trace is None:
        groups = _groups(con)
    else:
        with trace.cursor() as cur:  # a cursor of its own: the app's workers share `trace`
            groups = _groups(cur)
    if groups is None:
        return [KernelMatch(k["launch_id"], k["name"], "unmatched", None,
                            "no trace loaded (no gpu_activities table)") for k in launches]
    # Normalise each distinct trace name once, however many launches share it.
    canon = {g.name: canonical_name(g.name) for g in groups}
    short = {g.name: short_name(g.name) for g in groups}
    matches = []
    for k in launches:
        grid = (k["grid_x"], k["grid_y"], k["grid_z"])
        block = (k["block_x"], k["block_y"], k["block_z"])
        full_key, short_key = canonical_name(k["name"]), k["short_name"] or short_name(k["name"])
        mangled = k["mangled_name"]
        by_name = [g for g in groups if canon[g.name] == full_key or g.name == mangled]
        same_short = [g for g in groups if short[g.name] == short_key]
        others = [g for g in same_short if _other_instance(canon[g.name], full_key)]
        by_short = [g for g in same_short if g not in others]
        levels = [("name+config", _same_config(by_name, grid, block)),
                  ("short-name+config", _same_config(by_short, grid, block)),
                  ("name", by_name), ("short-name", by_short)]
        matches.append(_decide(k, levels, f"{_dims_text(grid)}x{_dims_text(block)}", others))
    return matches
