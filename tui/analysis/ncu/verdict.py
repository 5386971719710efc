"""A verdict per launch from its metrics alone, in plain words, with the next step.

The verdict follows the same decision as Nsight Compute's SpeedOfLight "Bottleneck" rule
(SOLBottleneck), so it agrees with NVIDIA's text for the kernel, but it needs no rule rows:
it works on a raw CSV too. All thresholds live in this block, each with its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tui.analysis.ncu.advice import Advice, advise
from tui.analysis.ncu.figures import KernelFigures

# A unit at >= 80% of its peak is at its practical ceiling: NVIDIA's "High Throughput",
# which points at the busier side; so do we (compute or memory), except that when both
# sides are within DOMINANCE_POINTS we say balanced where NVIDIA still names one.
SATURATED_PCT = 80.0
# Both compute and memory below 60%: neither is the limit, warps are waiting (latency):
# NVIDIA's "Latency Issue".
LATENCY_PCT = 60.0
# One side must lead by 10 points to be "the" bottleneck; closer than that is balanced
# (NVIDIA's balanced_threshold).
DOMINANCE_POINTS = 10.0
# Fewer blocks than one full wave leaves SMs with nothing to run (NVIDIA's "Small Grid").
FULL_WAVE = 1.0
# A warp's 4-byte loads need 4 sectors, 16-byte (vector) loads 16: more than 16 sectors per
# request can only come from addresses that are not coalesced.
UNCOALESCED_SECTORS = 16.0
# Shared loads needing 2 or more wavefronts per request are serialised by bank conflicts.
BANK_CONFLICT_WAYS = 2.0
# Fewer than 24 of 32 threads active per instruction: a quarter of the lanes idle, from
# divergent branches or early exits.
DIVERGENT_THREADS = 24.0
# Theoretical occupancy below 60% limits how much latency the scheduler can hide.
LOW_OCCUPANCY_PCT = 60.0
# A launch under 10 us is comparable to its own launch overhead (a few us): batching it
# or CUDA graphs pay off.
SHORT_LAUNCH_NS = 10_000

VERDICTS = ("compute", "memory", "balanced", "latency", "small-grid")

STALL_REASONS = {
    "long_scoreboard": "waiting for global/local memory (L1TEX) data",
    "short_scoreboard": "waiting for shared memory or special-function results",
    "barrier": "waiting at a __syncthreads() barrier",
    "mio_throttle": "a full shared-memory/special-instruction queue",
    "lg_throttle": "a full global-memory instruction queue",
    "math_pipe_throttle": "a busy math pipe",
    "wait": "fixed-latency instruction dependencies",
    "not_selected": "another eligible warp being picked (plenty of ready warps)",
    "drain": "memory stores draining at exit",
    "no_instruction": "instruction fetch (cache misses or tiny kernels)",
    "imc_miss": "constant-cache misses",
    "branch_resolving": "branch target resolution",
    "dispatch_stall": "dispatch stalls",
    "membar": "memory barriers",
    "gmma": "warpgroup MMA (wgmma) results",
    "sleeping": "sleeping warps",
    "tex_throttle": "a full texture queue",
    "misc": "miscellaneous reasons",
}

_PIPE_NAMES = {"tensor": "the tensor pipe", "fma": "FMA (FP32)", "alu": "ALU (integer)",
               "xu": "XU (special functions)", "fp64": "FP64", "lsu": "LSU (load/store)"}
_PIPE_STEP = {
    "tensor": "tensor cores are the limit, so the kernel is near its ceiling: what remains "
              "is less work (skip redundant GEMMs) or a lower precision (FP8)",
    "fma": "FP32 math on the CUDA cores is the limit: move it to tensor cores (a TF32/BF16 "
           "GEMM) or remove redundant arithmetic",
    "alu": "integer/logic instructions are the limit: simplify index arithmetic and "
           "comparisons, hoist invariants out of loops",
    "xu": "special functions (sin, exp, division) are the limit: use fast intrinsics "
          "(__sinf, __expf) or fewer transcendental calls",
    "fp64": "FP64 math is the limit: use FP32 where precision allows",
    "lsu": "load/store instructions are the limit: use wider (vector) loads and fewer of them",
}


@dataclass
class Verdict:
    kind: str | None  # one of VERDICTS; None when the SpeedOfLight metrics are missing
    explanation: str
    next_step: str
    unit: str | None = None  # memory: 'DRAM' | 'L2' | 'L1'; compute: the busiest pipe
    advice: list[Advice] = field(default_factory=list)  # every condition that holds


def memory_unit(f: KernelFigures) -> tuple[str, float] | None:
    """The memory unit that sets "Memory Throughput": that figure is the maximum over the
    units' sub-metrics, so the unit whose SpeedOfLight figure is closest to it is the one
    (DRAM's matches exactly). On ties DRAM, then L2, then L1."""
    mem = f["mem_pct"]
    units = [(u, f[k]) for u, k in (("DRAM", "dram_pct"), ("L2", "l2_pct"), ("L1", "l1_pct"))]
    known = [(u, v) for u, v in units if v is not None]
    if mem is None or not known:
        return None
    return min(known, key=lambda uv: abs(uv[1] - mem))


def _pct(value: float | None) -> str:
    return "?" if value is None else f"{value:.0f}%"


def _memory(f: KernelFigures, sm: float) -> Verdict:
    unit, pct = memory_unit(f) or ("memory", f["mem_pct"] or 0.0)
    text = (f"Memory-bound: the memory system is at {f['mem_pct'] or pct:.0f}% of peak (busiest "
            f"unit: {unit}) against {sm:.0f}% for compute, so time goes to moving data.")
    sectors, ways = f.global_load_sectors_per_request, f.shared_load_ways
    if sectors is not None and sectors > UNCOALESCED_SECTORS:
        step = (f"global loads are uncoalesced ({sectors:.0f} sectors per request, 4 for "
                "coalesced 4-byte loads): make neighbouring threads read neighbouring "
                "addresses (change the layout, or stage through shared memory)")
    elif unit == "L1" and ways is not None and ways >= BANK_CONFLICT_WAYS:
        step = (f"shared-memory loads are {ways:.0f}-way bank conflicted: pad the shared "
                "array (e.g. [32][33]) or swizzle its index")
    elif unit == "DRAM":
        step = (f"DRAM throughput is {pct:.0f}% of peak: reduce bytes moved — fuse with the "
                "neighbouring elementwise kernels, use a smaller data type, or reuse data "
                "while it is in cache")
    elif unit == "L2":
        step = ("L2 is the busiest unit: improve locality so more loads hit L1, tile reused "
                "data into shared memory, or fuse kernels that read the same data")
    else:
        step = ("L1 is the busiest unit: see what fills it (shared, global, local or texture "
                "traffic: Memory Workload Analysis splits it by memory space) before choosing "
                "a remedy")
    return Verdict("memory", text, step[0].upper() + step[1:] + ".", unit)


def _compute(f: KernelFigures, sm: float, mem: float) -> Verdict:
    pipe = max(f.pipes.items(), key=lambda kv: kv[1]) if f.pipes else None
    text = f"Compute-bound: the SMs are at {sm:.0f}% of peak against {mem:.0f}% for memory"
    text += f"; the busiest pipe is {_PIPE_NAMES.get(pipe[0], pipe[0])} at {pipe[1]:.0f}%." \
        if pipe else "."
    threads = f["active_threads_per_warp"]
    if threads is not None and threads < DIVERGENT_THREADS:
        step = (f"only {threads:.0f} of 32 threads per warp are active on average: branches "
                "diverge inside warps — make each warp take one path (partition the work)")
    elif pipe is not None and pipe[0] in _PIPE_STEP:
        step = _PIPE_STEP[pipe[0]]
    elif not f.pipes:  # no pipe utilisation at all (a report of the speed of light alone)
        step = ("profile it again with `--section ComputeWorkloadAnalysis` (or `--set full`): "
                "this report has no pipe utilisation, and the busiest pipe decides the remedy "
                "(the tensor cores' ceiling, or redundant instructions to remove)")
    else:
        step = ("see what the pipelines spend their time on (Compute Workload Analysis) "
                "and remove redundant instructions")
    return Verdict("compute", text, step[0].upper() + step[1:] + ".",
                   pipe[0] if pipe else None)


def _latency(f: KernelFigures, sm: float, mem: float) -> Verdict:
    text = (f"Latency-bound: neither compute ({sm:.0f}%) nor memory ({mem:.0f}%) is near "
            "peak, so warps spend their time waiting")
    # "not selected" means a warp was ready but another issued: not a wait.
    waits = [(r, c) for r, c in f.stalls if r != "not_selected"]
    if waits:
        reason, cycles = waits[0]
        text += (f"; the top stall is {STALL_REASONS.get(reason, reason)} ({cycles:.1f} "
                 "cycles per instruction)")
    theoretical, achieved = f["theoretical_occupancy_pct"], f["achieved_occupancy_pct"]
    if theoretical is not None and theoretical < LOW_OCCUPANCY_PCT and f.occupancy_limiters:
        step = (f"Theoretical occupancy is only {theoretical:.0f}% (limited by "
                f"{' and '.join(f.occupancy_limiters)}): use fewer registers "
                "(__launch_bounds__) or less shared memory per block so more warps fit.")
    elif waits and waits[0][0] == "long_scoreboard":
        step = ("Keep more memory requests in flight: more independent loads per thread, "
                "asynchronous copies (cp.async/TMA), or more warps per SM.")
    else:
        step = ("Give the schedulers more independent work: more warps (occupancy "
                f"{_pct(achieved)} of {_pct(theoretical)} possible) or more independent "
                "instructions per thread.")
    return Verdict("latency", text + ".", step)


def _small_grid(f: KernelFigures) -> Verdict:
    blocks, sms, waves = f["grid_blocks"], f["sm_count"], f["waves_per_sm"] or 0.0
    shape = "too few blocks" if blocks is None else (
        f"{blocks:.0f} block{'' if blocks == 1 else 's'}")
    text = (f"Small grid: {shape} for {sms:.0f} SMs ({waves:.2f} waves), so most SMs sit idle."
            if sms is not None else f"Small grid: {waves:.2f} waves, so most SMs sit idle.")
    step = ("Launch more blocks (at least one per SM, ideally several waves) by splitting "
            "the work, batch it with similar small launches, or fuse it into a neighbouring "
            "kernel")
    duration = f["duration_ns"]
    if duration is not None and duration < SHORT_LAUNCH_NS:
        step += f"; at {duration / 1000:.1f} us it is mostly launch overhead: CUDA graphs help"
    return Verdict("small-grid", text, step + ".")


def decide(f: KernelFigures, rules: Sequence[dict[str, Any]] = ()) -> Verdict:
    """The verdict, its next step from the first condition of the advice table that holds
    (tui/analysis/ncu/advice.py), else from the verdict alone."""
    verdict = _decide(f)
    found = advise(f, rules)
    verdict.advice = found
    if found and verdict.kind is not None and not _tensor_saturated(verdict, f):
        first = found[0]
        verdict.next_step = f"{first.finding[0].upper()}{first.finding[1:]}. {first.step}"
    return verdict


def _tensor_saturated(verdict: Verdict, f: KernelFigures) -> bool:
    """Compute-bound with the tensor pipe at SATURATED_PCT or more: the math units are
    the ceiling, and what the advice table finds (shared memory busy: a Hopper wgmma GEMM
    reads its operands from shared memory by descriptor; warps at its barriers) is how
    such a kernel feeds them, not a loss; its rows are kept, the ceiling is the next step.
    A cuBLAS GEMM at 91% of the tensor pipe was told to tile through registers."""
    return (verdict.kind == "compute" and verdict.unit == "tensor"
            and f.pipes.get("tensor", 0.0) >= SATURATED_PCT)


def _decide(f: KernelFigures) -> Verdict:
    """SOLBottleneck's order: both sides under LATENCY_PCT -> small grid (under a wave) or
    latency; sides within DOMINANCE_POINTS -> balanced; else the busier side."""
    sm, mem = f["sm_pct"], f["mem_pct"]
    if sm is None or mem is None:
        return Verdict(None, "The SpeedOfLight metrics are missing, so there is no verdict.",
                       "Profile with `--section SpeedOfLight` (or `--set full`).")
    lead = sm - mem
    if max(sm, mem) < LATENCY_PCT:
        waves = f["waves_per_sm"]
        if waves is not None and waves < FULL_WAVE:
            return _small_grid(f)
        return _latency(f, sm, mem)
    if abs(lead) < DOMINANCE_POINTS:
        level = "near peak" if max(sm, mem) >= SATURATED_PCT else "busy"
        return Verdict("balanced",
                       f"Balanced: compute ({sm:.0f}%) and memory ({mem:.0f}%) are both "
                       f"{level}, within {DOMINANCE_POINTS:.0f} points of each other.",
                       "Both math and memory traffic must shrink: fuse kernels to cut traffic "
                       "and remove redundant arithmetic.")
    return _compute(f, sm, mem) if lead > 0 else _memory(f, sm)
