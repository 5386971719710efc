"""Achieved FLOP/s and MFU, where the trace tells the FLOPs (Kineto's with_flops, or the
shapes record_shapes wrote: the table kernel_flops).

FLOP/s is FLOPs over time: per kernel name over its instances' time, per step over the
step's wall time, and over the window of work (tui/analysis/window.py) for the whole.
MFU is the achieved rate over the GPU's dense peak for the precision the work ran in
(tui/analysis/peaks.py). Where the work mixes precisions, the peak is the one that
would run those FLOPs, each at its own precision's peak, in the same time:
MFU = sum(flops_p / peak_p) / wall time, and the peak given is total / sum(flops_p / peak_p).
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import pyarrow as pa

from tui.analysis.peaks import PRECISIONS, gpu_peaks, peak_flops_per_s
from tui.analysis.summary_types import Flops, KernelFlops, StepFlops
from tui.analysis.window import Window, work_window
from tui.core.db import registered
from tui.core.queries import load_query
from tui.core.steps import step_patterns


@dataclass(frozen=True)
class NameFlops:
    """A kernel name's FLOPs, for the Kernels table."""

    flops: float
    flops_per_s: float | None
    mfu: float | None  # a fraction


def has_flops(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the trace tells any kernel's FLOPs (False for a store kept without them)."""
    try:
        return con.execute("SELECT 1 FROM kernel_flops LIMIT 1").fetchone() is not None
    except duckdb.CatalogException:
        return False


def _peaks_table(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """flop_peaks: every (device, precision) the peak table knows, in FLOP/s."""
    rows = [(device, precision, peak_flops_per_s(name, precision))
            for device, name in con.execute("SELECT device, name FROM devices").fetchall()
            for precision in PRECISIONS]
    known = [r for r in rows if r[2] is not None]
    return pa.table({"device": pa.array([r[0] for r in known], pa.int32()),
                     "precision": pa.array([r[1] for r in known], pa.string()),
                     "peak": pa.array([r[2] for r in known], pa.float64())})


def _rate(flops: float, ns: int | float | None) -> float | None:
    return flops / (ns / 1e9) if ns else None


def _mfu(ideal_s: float | None, ns: int | float | None, devices: int = 1) -> float | None:
    return ideal_s / (ns / 1e9 * max(devices, 1)) if ideal_s is not None and ns else None


def kernel_name_flops(con: duckdb.DuckDBPyConnection) -> dict[str, NameFlops]:
    """Each kernel name with FLOPs: its FLOPs, FLOP/s over its instances' time and MFU."""
    if not has_flops(con):
        return {}
    with registered(con, "flop_peaks", _peaks_table(con)):
        rows = con.execute(load_query("flops_kernels")).fetchall()
    return {name: NameFlops(flops, _rate(flops, ns), _mfu(ideal, ns))
            for name, _precision, _count, flops, ns, ideal in rows}


def flops_summary(con: duckdb.DuckDBPyConnection, window: Window | None = None,
                  ) -> Flops | None:
    """The FLOPs' figures for `--summary` (JSON `flops`) within the window of work
    (`window`: its work_window, where the caller has it already); None without FLOPs."""
    if not has_flops(con):
        return None
    window = window or work_window(con)
    if window is None:
        return None
    source = con.execute("SELECT CASE WHEN bool_or(source = 'hlo') THEN 'hlo' "
                         "WHEN bool_or(source = 'args') THEN 'args' "
                         "ELSE 'shapes' END FROM kernel_flops").fetchone()
    with registered(con, "flop_peaks", _peaks_table(con)):
        kernels = con.execute(load_query("flops_kernels")).fetchall()
        parts = con.execute(load_query("flops_window"),
                            {"start_ns": window.start_ns, "end_ns": window.end_ns}).fetchall()
        steps = con.execute(load_query("flops_steps"), step_patterns()).fetchall()
    total = sum(flops for _d, _p, flops, _k, _peak in parts)
    devices = len({device for device, *_ in parts})
    known = all(peak is not None for *_, peak in parts)
    ideal_s = sum(flops / peak for _d, _p, flops, _k, peak in parts) if known else None
    ns = window.duration_ns
    names = dict(con.execute("SELECT device, name FROM devices").fetchall())
    gpus = sorted({str(names.get(device)) for device, *_ in parts})
    unknown = sorted({f"{names.get(d)} {p or 'unknown precision'}"
                      for d, p, _f, _k, peak in parts if peak is None})
    by_kernel: list[KernelFlops] = [
        {"name": name, "precision": precision, "count": count, "flops": flops,
         "total_ns": int(kns), "flops_per_s": _rate(flops, kns), "mfu": _mfu(ideal, kns)}
        for name, precision, count, flops, kns, ideal in kernels]
    by_step: list[StepFlops] = [
        {"step": step, "start_ns": start, "duration_ns": end - start, "flops": flops,
         "flops_per_s": _rate(flops, end - start), "mfu": _mfu(ideal, end - start, n)}
        for step, start, end, flops, ideal, n in steps]
    return {
        "source": source[0] if source else "shapes",
        "window": {"kind": window.kind, "name": window.name, "start_ns": window.start_ns,
                   "end_ns": window.end_ns},
        "total": total,
        "achieved_flops_per_s": _rate(total, ns),
        "peak_flops_per_s": (total / ideal_s * devices) if ideal_s else None,
        "mfu": _mfu(ideal_s, ns, devices),
        "device": gpus[0] if len(gpus) == 1 else ", ".join(gpus),
        "peak_known_as": _peak_names(gpus),
        "no_peak_for": unknown,
        "by_precision": [{"device": d, "precision": p, "flops": flops,
                          "peak_flops_per_s": peak} for d, p, flops, _k, peak in parts],
        "by_kernel": by_kernel,
        "by_step": by_step,
    }


def _peak_names(gpus: list[str]) -> str | None:
    """The peak table's name for the GPU(s): 'H200 SXM'; None where unknown."""
    known = {peaks.name for g in gpus if (peaks := gpu_peaks(g)) is not None}
    return ", ".join(sorted(known)) or None
