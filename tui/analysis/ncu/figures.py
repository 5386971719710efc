"""One launch's key figures, read from its metrics whichever page they came from.

A raw page or a .ncu-rep names metrics by raw name; the details page by ncu's label in
a section. FIGURES maps each figure to both, so the drill-down works on all three forms
(the details page lacks stall reasons, pipes and roofline inputs: those stay empty).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

SOL = "GPU Speed Of Light Throughput"
_LAUNCH, _OCC, _WARP = "Launch Statistics", "Occupancy", "Warp State Statistics"

# figure: (raw metric name, (details section, details label) or None). Base units.
FIGURES: dict[str, tuple[str, tuple[str, str] | None]] = {
    "duration_ns": ("gpu__time_duration.sum", (SOL, "Duration")),
    "sm_pct": ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
               (SOL, "Compute (SM) Throughput")),
    "mem_pct": ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                (SOL, "Memory Throughput")),
    "dram_pct": ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                 (SOL, "DRAM Throughput")),
    "l2_pct": ("lts__throughput.avg.pct_of_peak_sustained_elapsed", (SOL, "L2 Cache Throughput")),
    "l1_pct": ("l1tex__throughput.avg.pct_of_peak_sustained_active",
               (SOL, "L1/TEX Cache Throughput")),
    "dram_bytes_per_s": ("dram__bytes.sum.per_second",
                         ("Memory Workload Analysis", "Memory Throughput")),
    "achieved_occupancy_pct": ("sm__warps_active.avg.pct_of_peak_sustained_active",
                               (_OCC, "Achieved Occupancy")),
    "theoretical_occupancy_pct": ("sm__maximum_warps_per_active_cycle_pct",
                                  (_OCC, "Theoretical Occupancy")),
    "waves_per_sm": ("launch__waves_per_multiprocessor", (_LAUNCH, "Waves Per SM")),
    "sm_count": ("launch__sm_count", (_LAUNCH, "# SMs")),
    "grid_blocks": ("launch__grid_size", (_LAUNCH, "Grid Size")),
    "block_threads": ("launch__block_size", (_LAUNCH, "Block Size")),
    "registers_per_thread": ("launch__registers_per_thread", (_LAUNCH, "Registers Per Thread")),
    "warp_cycles_per_issue": ("smsp__average_warp_latency_per_inst_issued.ratio",
                              (_WARP, "Warp Cycles Per Issued Instruction")),
    "active_threads_per_warp": ("smsp__thread_inst_executed_per_inst_executed.ratio",
                                (_WARP, "Avg. Active Threads Per Warp")),
}

# What caps the blocks an SM can hold; the smallest limit sets theoretical occupancy.
OCCUPANCY_LIMITS: dict[str, tuple[str, str]] = {
    "registers": ("launch__occupancy_limit_registers", "Block Limit Registers"),
    "shared memory": ("launch__occupancy_limit_shared_mem", "Block Limit Shared Mem"),
    "block size": ("launch__occupancy_limit_warps", "Block Limit Warps"),
    "blocks per SM": ("launch__occupancy_limit_blocks", "Block Limit SM"),
    "barriers": ("launch__occupancy_limit_barriers", "Block Limit Barriers"),
}

# Pipe utilisation, % of peak over the SM's active cycles (Compute Workload Analysis);
# without that section (ncu's default sections), over the elapsed cycles, which the speed
# of light's breakdown collects (_pipe).
PIPES: dict[str, str] = {
    "tensor": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "fma": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "alu": "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    "fp64": "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
    "xu": "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
    "lsu": "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
}

# Warp-level memory instructions by memory space (SASS counts; absent metrics are skipped).
MEMORY_SPACES: dict[str, tuple[str, ...]] = {
    "shared": ("smsp__sass_inst_executed_op_shared_ld.sum",
               "smsp__sass_inst_executed_op_shared_st.sum",
               "smsp__inst_executed_op_shared_atom.sum"),
    "global": ("smsp__sass_inst_executed_op_global_ld.sum",
               "smsp__sass_inst_executed_op_global_st.sum",
               "smsp__inst_executed_op_global_red.sum",
               "smsp__inst_executed_op_generic_atom_dot_alu.sum",
               "smsp__inst_executed_op_generic_atom_dot_cas.sum"),
    "local": ("smsp__sass_inst_executed_op_local_ld.sum",
              "smsp__sass_inst_executed_op_local_st.sum"),
    "texture": ("smsp__inst_executed_op_texture.sum",),
}
_ATOMICS = ("smsp__inst_executed_op_global_red.sum",
            "smsp__inst_executed_op_generic_atom_dot_alu.sum",
            "smsp__inst_executed_op_generic_atom_dot_cas.sum")

# Warp-state breakdown: cycles per issued instruction spent in each stall reason.
_STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")


class Metrics:
    """One launch's metrics, looked up by raw name or by (section, label)."""

    def __init__(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """rows: (section, name, unit, value, text) as in ncu_metrics."""
        self.by_name: dict[str, float | None] = {}
        self.by_label: dict[tuple[str, str], float | None] = {}
        self.texts: dict[str, str] = {}
        for section, name, _unit, value, text in rows:
            if section is None:
                self.by_name.setdefault(name, value)
            else:
                self.by_label.setdefault((section, name), value)
            if text is not None:
                self.texts.setdefault(name, text)

    def raw(self, name: str) -> float | None:
        return self.by_name.get(name)

    def figure(self, key: str) -> float | None:
        raw_name, label = FIGURES[key]
        value = self.by_name.get(raw_name)
        if value is None and label is not None:
            value = self.by_label.get(label)
        return value

    def limit(self, key: str) -> float | None:
        raw_name, label = OCCUPANCY_LIMITS[key]
        value = self.by_name.get(raw_name)
        return self.by_label.get((_OCC, label)) if value is None else value


def _ratio(num: float | None, den: float | None) -> float | None:
    return None if num is None or not den else num / den


@dataclass
class Roofline:
    """Where the launch sits on the DRAM roofline of its dominant float precision."""

    precision: str  # 'fp32' | 'fp64'
    flop_per_s: float
    peak_flop_per_s: float
    arithmetic_intensity: float  # FLOP per DRAM byte
    ridge_point: float  # FLOP/byte where the DRAM roof meets the compute roof
    side: str  # 'memory' (left of the ridge) | 'compute'

    @property
    def pct_of_peak(self) -> float:
        return 100.0 * self.flop_per_s / self.peak_flop_per_s


def roofline(m: Metrics) -> Roofline | None:
    """ncu's roofline chart inputs: SASS FP instruction rates (an FMA is 2 FLOP) and DRAM
    bytes, against the peaks at the clocks measured. None when inputs or FLOPs are missing."""
    hz, dram_hz = m.raw("smsp__cycles_elapsed.avg.per_second"), m.raw(
        "dram__cycles_elapsed.avg.per_second")
    bytes_per_s = m.raw("dram__bytes.sum.per_second")
    peak_bytes = m.raw("dram__bytes.sum.peak_sustained")
    best: Roofline | None = None
    for precision, p in (("fp32", "f"), ("fp64", "d")):
        rates = [m.raw(f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum.per_cycle_elapsed")
                 for op in ("fma", "add", "mul")]
        rate = [r for r in rates if r is not None]
        peak = m.raw(f"sm__sass_thread_inst_executed_op_{p}fma_pred_on.sum.peak_sustained")
        if len(rate) < 3 or not (hz and dram_hz and bytes_per_s and peak_bytes and peak):
            continue
        flops = (2 * rate[0] + rate[1] + rate[2]) * hz
        if flops <= 0 or (best is not None and flops <= best.flop_per_s):
            continue
        peak_flops, peak_bw = 2 * peak * hz, peak_bytes * dram_hz
        intensity = flops / bytes_per_s
        ridge = peak_flops / peak_bw
        best = Roofline(precision, flops, peak_flops, intensity, ridge,
                        "memory" if intensity < ridge else "compute")
    return best


@dataclass
class KernelFigures:
    values: dict[str, float | None]  # FIGURES keys
    occupancy_limiters: list[str] = field(default_factory=list)
    stalls: list[tuple[str, float]] = field(default_factory=list)  # top reasons first
    pipes: dict[str, float] = field(default_factory=dict)
    global_load_sectors_per_request: float | None = None  # 4 = coalesced 4-byte loads
    shared_load_ways: float | None = None  # wavefronts per shared load: 1 = no conflict
    # shared wavefronts over the ideal for the same accesses (SourceCounters): 1 = none
    # wasted; a 64-bit load needs 2 wavefronts and is no conflict
    shared_excess: float | None = None
    # warp-level memory instructions by space ('shared', 'global', 'local', 'texture')
    memory_instructions: dict[str, float] = field(default_factory=dict)
    atomic_instructions: float | None = None  # global atomics and reductions (RED)
    spill_requests: float | None = None  # local-memory requests that are register spills
    roofline: Roofline | None = None

    def memory_share(self, space: str) -> float:
        """The space's part of all memory instructions (0 when none are known)."""
        total = sum(self.memory_instructions.values())
        return self.memory_instructions.get(space, 0.0) / total if total else 0.0

    def __getitem__(self, key: str) -> float | None:
        return self.values.get(key)


def kernel_figures(m: Metrics) -> KernelFigures:
    figures = KernelFigures(values={key: m.figure(key) for key in FIGURES})
    limits = {k: v for k in OCCUPANCY_LIMITS if (v := m.limit(k)) is not None}
    theoretical = figures["theoretical_occupancy_pct"]
    if limits and theoretical is not None and theoretical < 99.5:
        lowest = min(limits.values())
        tied = [k for k, v in limits.items() if v == lowest]
        # The barrier limit ties with the others when a block uses no barriers: not a cause.
        figures.occupancy_limiters = [k for k in tied if k != "barriers"] or tied
    stalls = [(match.group(1), value) for name, value in m.by_name.items()
              if (match := _STALL.match(name)) and value and match.group(1) != "selected"]
    figures.stalls = sorted(stalls, key=lambda s: -s[1])[:3]
    figures.pipes = {k: v for k, name in PIPES.items() if (v := _pipe(m, name)) is not None}
    figures.global_load_sectors_per_request = _ratio(
        m.raw("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
        m.raw("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"))
    figures.shared_load_ways = _ratio(
        m.raw("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
        m.raw("smsp__sass_inst_executed_op_shared_ld.sum"))
    figures.shared_excess = _ratio(m.raw("memory_l1_wavefronts_shared"),
                                   m.raw("memory_l1_wavefronts_shared_ideal"))
    for space, names in MEMORY_SPACES.items():
        found = [v for name in names if (v := m.raw(name)) is not None]
        if found:
            figures.memory_instructions[space] = sum(found)
    atomics = [v for name in _ATOMICS if (v := m.raw(name)) is not None]
    figures.atomic_instructions = sum(atomics) if atomics else None
    figures.spill_requests = m.raw("derived__local_spilling_requests")
    if figures.spill_requests is None:  # the details page names it by its label
        figures.spill_requests = m.by_label.get(
            ("Memory Workload Analysis", "Local Memory Spilling Requests"))
    figures.roofline = roofline(m)
    return figures


def _pipe(m: Metrics, active: str) -> float | None:
    """A pipe's utilisation over the SM's active cycles, else over the elapsed ones (ncu's
    default sections: `gemm_default.ncu-rep`'s cuBLAS GEMM, its tensor pipe at 89% of the
    elapsed cycles, 91% of the active ones under --set full): never above the first."""
    value = m.raw(active)
    if value is None:
        value = m.raw(active.replace("pct_of_peak_sustained_active",
                                     "pct_of_peak_sustained_elapsed"))
    return value
