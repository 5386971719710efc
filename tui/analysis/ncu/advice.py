"""What to do about a launch, from the evidence of what keeps its units busy.

The SpeedOfLight verdict (verdict.py) says which side limits a kernel; it cannot say
*with what* a unit is busy. L1 busy with shared-memory loads wants register tiling, L1
busy with local memory wants the per-thread array out of it, L1 busy with global loads
wants tiling through shared memory. ADVICE below is the one table of those conditions:
each row says when it applies (a test on the launch's figures), what it found, and what
an expert would do, with NVIDIA's rules that speak of the same thing. The rows are tried
in order, most specific first; every row that holds is reported, the first is the next
step. A details-page CSV has no per-space instruction counts or stall breakdown: there
NVIDIA's own rule findings are the evidence (`from_rules`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tui.analysis.ncu.figures import KernelFigures

# A memory space with this share of the memory instructions is what the LSU/L1 is busy with.
DOMINANT_SHARE = 0.5
# Shared accesses this large a share are worth freeing of bank conflicts.
CONFLICT_SHARE = 0.25
# Local memory this large a share of the memory instructions is worth removing.
LOCAL_SHARE = 0.2
# Most local requests being spills: the compiler put them there, not the source's array.
SPILL_SHARE = 0.5
# L1 at 60% of its peak or more is busy enough to be the limit (NVIDIA's latency cut).
L1_BUSY_PCT = 60.0
# Shared wavefronts 10% above the ideal for the same accesses: bank conflicts cost time.
SHARED_EXCESS = 1.1
# A warp's 4-byte loads need 4 sectors; more than 16 only come from scattered addresses.
UNCOALESCED_SECTORS = 16.0
# Atomics this large a share of the memory instructions dominate the global traffic.
ATOMIC_SHARE = 0.1
# Fewer than 24 of 32 threads active per instruction: a quarter of the lanes idle.
DIVERGENT_THREADS = 24.0
# Theoretical occupancy under 60% limits how much latency the schedulers can hide.
LOW_OCCUPANCY_PCT = 60.0
# Fewer blocks than one full wave leave SMs idle (NVIDIA's "Small Grid").
FULL_WAVE = 1.0
# The top stall must be this many cycles per instruction to be called the cause.
STALL_CYCLES = 2.0


@dataclass(frozen=True)
class Condition:
    """One row of ADVICE: `holds` tests the figures; `finding` says what the figures show
    (called only when it holds); `step` is what to do; `rules` are (NVIDIA rule name, a
    phrase of its text) pairs: NVIDIA's findings that speak of the same cause."""

    name: str
    holds: Callable[[KernelFigures], bool]
    finding: Callable[[KernelFigures], str]
    step: str
    rules: tuple[tuple[str, str], ...] = ()
    # a unit's throughput means little while most SMs idle: skipped under one full wave
    needs_full_grid: bool = False
    # where the per-space counts are missing (a details-page CSV): NVIDIA's findings as the
    # evidence, and what they show
    from_rules: Callable[[KernelFigures, Sequence[dict[str, Any]]], bool] | None = None
    rule_finding: str = ""


@dataclass(frozen=True)
class Advice:
    condition: str
    finding: str
    step: str
    nvidia: str | None  # NVIDIA's rule that agrees, with its estimated speedup


def _top_stall(f: KernelFigures) -> str | None:
    waits = [(r, c) for r, c in f.stalls if r not in ("not_selected", "selected")]
    return waits[0][0] if waits and waits[0][1] >= STALL_CYCLES else None


def _pct(share: float) -> str:
    return f"{100 * share:.0f}%"


def _l1_busy(f: KernelFigures) -> bool:
    l1 = f["l1_pct"]
    return (l1 is not None and l1 >= L1_BUSY_PCT) or _top_stall(f) in (
        "mio_throttle", "short_scoreboard", "lg_throttle", "tex_throttle")


def _spills(f: KernelFigures) -> bool:
    local = f.memory_instructions.get("local", 0.0)
    return (f.memory_share("local") >= LOCAL_SHARE and bool(f.spill_requests)
            and f.spill_requests >= SPILL_SHARE * local)  # type: ignore[operator]


def _local_array(f: KernelFigures) -> bool:
    return f.memory_share("local") >= LOCAL_SHARE and not _spills(f)


def _conflicts(f: KernelFigures) -> bool:
    ways = f.shared_load_ways
    excess = f.shared_excess
    return (f.memory_share("shared") >= CONFLICT_SHARE and ways is not None and ways >= 2
            and (excess is None or excess >= SHARED_EXCESS))


def _leads(f: KernelFigures, space: str) -> bool:
    """`space` has DOMINANT_SHARE of the memory instructions and more than any other."""
    share = f.memory_share(space)
    return share >= DOMINANT_SHARE and all(
        f.memory_share(other) < share for other in f.memory_instructions if other != space)


def _shared_bound(f: KernelFigures) -> bool:
    return _leads(f, "shared") and _l1_busy(f) and not _conflicts(f)


def _texture_bound(f: KernelFigures) -> bool:
    return _leads(f, "texture") and _l1_busy(f)


def _atomics(f: KernelFigures) -> bool:
    total = sum(f.memory_instructions.values())
    return bool(total and f.atomic_instructions
                and f.atomic_instructions >= ATOMIC_SHARE * total)


def _uncoalesced(f: KernelFigures) -> bool:
    sectors = f.global_load_sectors_per_request
    return sectors is not None and sectors > UNCOALESCED_SECTORS


def _global_l1(f: KernelFigures) -> bool:
    unit = f["l1_pct"]
    return (_leads(f, "global") and unit is not None and unit >= L1_BUSY_PCT
            and (f["l2_pct"] or 0) < unit and (f["dram_pct"] or 0) < unit)


def _register_occupancy(f: KernelFigures) -> bool:
    """Few warps matter only while the SMs wait rather than compute."""
    theoretical, sm = f["theoretical_occupancy_pct"], f["sm_pct"]
    return (theoretical is not None and theoretical < LOW_OCCUPANCY_PCT
            and "registers" in f.occupancy_limiters and (sm is None or sm < L1_BUSY_PCT))


def _divergent(f: KernelFigures) -> bool:
    threads = f["active_threads_per_warp"]
    return threads is not None and threads < DIVERGENT_THREADS


def _said(rules: Sequence[dict[str, Any]], rule: str, phrase: str) -> bool:
    """NVIDIA's finding `rule` (OPT or WRN) says `phrase`."""
    return any(r.get("rule") == rule and r.get("type") in ("OPT", "WRN")
               and phrase in (r.get("description") or "") for r in rules)


def _local_said(rules: Sequence[dict[str, Any]]) -> bool:
    return (_said(rules, "MemoryCacheAccessPattern", "local loads")
            or _said(rules, "MemoryCacheAccessPattern", "local stores"))


_EXCESSIVE = re.compile(r"excessive sectors \((\d+)% of the total")


def _uncoalesced_said(rules: Sequence[dict[str, Any]]) -> bool:
    """UncoalescedGlobalAccess: half or more of the global sectors are excessive."""
    for r in rules:
        found = _EXCESSIVE.search(r.get("description") or "")
        if r.get("rule") == "UncoalescedGlobalAccess" and found and int(found.group(1)) >= 50:
            return True
    return False


def _stall_text(f: KernelFigures) -> str:
    stall = _top_stall(f)
    return "" if stall is None else f"; the top stall is {stall.replace('_', ' ')}"


# The table: condition, when it holds, what it found, what to do, NVIDIA's rules.
ADVICE: Sequence[Condition] = (
    Condition(
        "register-spills", _spills,
        lambda f: (f"registers spill to local memory: {f.spill_requests:,.0f} local requests "
                   f"are spills, {_pct(f.memory_share('local'))} of the memory instructions "
                   f"are local ({f['registers_per_thread'] or 0:.0f} registers a thread)"),
        "Let the values stay in registers: relax the register cap (a smaller minimum-blocks "
        "figure in __launch_bounds__, or a larger -maxrregcount), or keep fewer values live "
        "at once (smaller per-thread arrays, recompute instead of keeping); `nvcc -Xptxas -v` "
        "reports the spill stores and loads.",
        (("MemoryCacheAccessPattern", "local"), ("CPIStall", "L1TEX")),
        from_rules=lambda f, rules: _local_said(rules) and bool(f.spill_requests),
        rule_finding=("NVIDIA finds local loads and stores, and the details page counts "
                      "register spills among the local requests")),
    Condition(
        "local-array", _local_array,
        lambda f: (f"{_pct(f.memory_share('local'))} of the memory instructions are local "
                   "loads and stores, not register spills: a per-thread array indexed with "
                   "values known only at run time cannot live in registers, so it sits in "
                   "local memory (device memory, cached in L1 and L2)"),
        "Keep the array in registers by making every index a compile-time constant (fully "
        "unroll the loops over it; replace a[i] by selects or a switch), or move it to shared "
        "memory with one column per thread.",
        (("MemoryCacheAccessPattern", "local"),),
        from_rules=lambda f, rules: _local_said(rules) and not f.spill_requests,
        rule_finding=("NVIDIA finds local loads and stores that are not register spills: a "
                      "per-thread array indexed at run time lives in local memory")),
    Condition(
        "shared-bank-conflicts", _conflicts,
        lambda f: (f"shared-memory loads are {f.shared_load_ways:.0f}-way bank conflicted "
                   f"({_pct(f.memory_share('shared'))} of the memory instructions are "
                   "shared)"),
        "Pad the shared array (e.g. [32][33]) or swizzle its index so the 32 lanes of a "
        "warp read 32 different banks.",
        (("SharedMemoryConflicts", ""), ("MemoryL1TEXCache", "shared"))),
    Condition(
        "shared-throughput", _shared_bound,
        lambda f: (f"L1 is busy with shared memory: {_pct(f.memory_share('shared'))} of the "
                   f"memory instructions are shared loads and stores (L1 at "
                   f"{f['l1_pct'] or 0:.0f}%){_stall_text(f)}: the data is already tiled in "
                   "shared memory, and each value loaded feeds too little math"),
        "Make each shared load feed more math: compute several outputs per thread (register "
        "tiling, e.g. a 4x4 or 8x8 micro-tile that reuses each loaded A and B value from "
        "registers), load 8 or 16 bytes at a time (float2/float4), and pad the tile where "
        "the wavefronts show bank conflicts.",
        (("CPIStall", "MIO"),),
        needs_full_grid=True,
        from_rules=lambda f, rules: _said(rules, "CPIStall", "MIO") and (
            f["l1_pct"] or 0) >= L1_BUSY_PCT,
        rule_finding=("L1 is busy and warps stall on the MIO queue (NVIDIA's CPIStall): "
                      "shared-memory (or special-function) instructions saturate it")),
    Condition(
        "texture-throughput", _texture_bound,
        lambda f: (f"L1 is busy with texture fetches: {_pct(f.memory_share('texture'))} of "
                   f"the memory instructions go through the texture pipe{_stall_text(f)}"),
        "Fetch fewer texels per output (share taps between neighbouring threads through "
        "shared memory), let neighbouring threads fetch neighbouring texels, or read a plain "
        "1-D array with coalesced global loads instead of tex1Dfetch.",
        (("CPIStall", "queue for texture operations"),),
        needs_full_grid=True,
        from_rules=lambda f, rules: _said(rules, "CPIStall", "queue for texture operations"),
        rule_finding=("warps stall on a full texture queue (NVIDIA's CPIStall)")),
    Condition(
        "contended-atomics", _atomics,
        lambda f: (f"{f.atomic_instructions or 0:,.0f} global atomic instructions, "
                   f"{_pct((f.atomic_instructions or 0) / sum(f.memory_instructions.values()))} of "
                   "the memory instructions: atomics on the same addresses are serialised in "
                   "L2"),
        "Privatise the updates: accumulate per warp (__reduce_add_sync or shuffles) or per "
        "block in shared memory, then issue one global atomic per block and address.",
        (("WorkloadImbalance", "L2 Slices"),)),
    Condition(
        "uncoalesced-global", _uncoalesced,
        lambda f: (f"global loads are uncoalesced ({f.global_load_sectors_per_request:.0f} "
                   "sectors per request, 4 for coalesced 4-byte loads)"),
        "Make neighbouring threads read neighbouring addresses (change the layout, or stage "
        "through shared memory).",
        (("UncoalescedGlobalAccess", ""), ("MemoryCacheAccessPattern", "global")),
        from_rules=lambda f, rules: _uncoalesced_said(rules),
        rule_finding=("half or more of the global sectors are excessive (NVIDIA's "
                      "UncoalescedGlobalAccess): the accesses are not coalesced")),
    Condition(
        "global-reuse-in-l1", _global_l1,
        lambda f: (f"L1 is the busiest unit ({f['l1_pct'] or 0:.0f}%) and its traffic is "
                   f"global loads and stores ({_pct(f.memory_share('global'))}): the same "
                   "data is re-read from global memory"),
        "Stop re-reading the same data: keep reused values in registers or tile them "
        "through shared memory (e.g. a tiled GEMM).",
        (("MemoryCacheAccessPattern", "global"),),
        needs_full_grid=True),
    Condition(
        "barrier-stalls", lambda f: _top_stall(f) == "barrier",
        lambda f: ("warps wait at __syncthreads(): the barrier stall leads "
                   f"({f.stalls[0][1]:.1f} cycles per instruction), so some warps reach it "
                   "much later than others"),
        "Even out the work between barriers (no warp should do extra work before one), "
        "use fewer barriers per step (double-buffer the shared data), or exchange data "
        "within a warp with shuffles and __syncwarp() where a block-wide barrier is not "
        "needed.",
        (("CPIStall", "CTA barrier"),),
        from_rules=lambda f, rules: _said(rules, "CPIStall", "CTA barrier"),
        rule_finding=("warps wait at a barrier for their siblings (NVIDIA's CPIStall)")),
    Condition(
        "thread-divergence", _divergent,
        lambda f: (f"only {f['active_threads_per_warp'] or 0:.0f} of 32 threads per warp are "
                   "active on average: lanes of a warp take different paths or loop "
                   "different numbers of times"),
        "Make each warp take one path: sort or partition the work so the lanes of a warp "
        "do the same amount, and move per-lane loops of uneven length out of the warp.",
        (("ThreadDivergence", ""),)),
    Condition(
        "register-limited-occupancy", _register_occupancy,
        lambda f: (f"theoretical occupancy is {f['theoretical_occupancy_pct'] or 0:.0f}%, "
                   f"limited by registers ({f['registers_per_thread'] or 0:.0f} a thread): "
                   "too few warps to hide memory latency"),
        "Use fewer registers: cap them with __launch_bounds__(threads, minBlocks) or "
        "-maxrregcount (check for spills), or keep fewer values live; or give each warp "
        "more independent work so fewer warps suffice.",
        (("TheoreticalOccupancy", "register"),)),
)


def _nvidia(condition: Condition, rules: Sequence[dict[str, Any]]) -> str | None:
    """The biggest estimated gain among NVIDIA's findings that name this cause."""
    found = [r for r in rules if r.get("type") in ("OPT", "WRN") and any(
        r.get("rule") == name and phrase in (r.get("description") or "")
        for name, phrase in condition.rules)]
    if not found:
        return None
    best = max(found, key=lambda r: r.get("speedup_pct") or 0.0)
    speedup = best.get("speedup_pct")
    gain = f" (est. speedup {speedup:.0f}%)" if speedup else ""
    return f"{best['rule']}{gain}"


def advise(f: KernelFigures, rules: Sequence[dict[str, Any]] = ()) -> list[Advice]:
    """Every row of ADVICE that holds for the launch, in table order."""
    waves = f["waves_per_sm"]
    small = waves is not None and waves < FULL_WAVE
    counted = bool(f.memory_instructions) or bool(f.stalls)  # raw metrics, not details
    out: list[Advice] = []
    for c in ADVICE:
        if small and c.needs_full_grid:
            continue
        if c.holds(f):
            out.append(Advice(c.name, c.finding(f), c.step, _nvidia(c, rules)))
        elif not counted and c.from_rules is not None and c.from_rules(f, rules):
            out.append(Advice(c.name, c.rule_finding, c.step, _nvidia(c, rules)))
    return out


def conditions() -> list[str]:
    return [c.name for c in ADVICE]
