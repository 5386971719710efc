"""Whether one process drives several GPUs as torch.nn.DataParallel does: a Python thread
per replica, the weights broadcast from the first GPU each step and the gradients reduced
back onto it (queries/analysis/dataparallel_devices.sql). Its host, launch, communication
and waiting costs have one remedy, PyTorch's own: DistributedDataParallel, a process per
GPU, "significantly faster than torch.nn.DataParallel for single-node multi-GPU data
parallel training" (its documentation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.analysis.finding import Finding
from tui.core.queries import load_query
from tui.core.units import format_ns

if TYPE_CHECKING:
    import duckdb


def dataparallel_devices(con: duckdb.DuckDBPyConnection, start_ns: int | None = None,
                         end_ns: int | None = None) -> set[int]:
    """The devices that a DataParallel process drove in [start_ns, end_ns)."""
    return {device for row in _processes(con, start_ns, end_ns) for device in row["devices"]}


def dataparallel_finding(con: duckdb.DuckDBPyConnection) -> Finding | None:
    """Each DataParallel process over the whole trace, with what its collectives cost the
    GPUs (the Broadcast and Reduce kernels' time, summed over devices); None without one."""
    rows = _processes(con)
    if not rows:
        return None
    said = "; ".join(
        f"process {r['pid']} drives GPUs {', '.join(map(str, r['devices']))}: "
        f"{r['broadcasts']:,} NCCL Broadcast kernels ({format_ns(r['broadcast_ns'])}) copy "
        f"the weights from the first GPU to the others every step, {r['reduces']:,} Reduce "
        f"kernels ({format_ns(r['reduce_ns'])}) sum the gradients back onto it"
        for r in rows)
    # a row each: named by its process and GPUs, its count the collectives' kernels
    rows = [{"name": f"process {r['pid']} (GPUs {', '.join(map(str, r['devices']))})",
             "count": r["broadcasts"] + r["reduces"], **r} for r in rows]
    return Finding(
        "dataparallel", "warning",
        f"torch.nn.DataParallel: {said}, a Python thread per replica. "
        "DistributedDataParallel, a process per GPU (torchrun), copies no weights and "
        "all-reduces the gradients overlapped with the backward; PyTorch documents it as "
        "significantly faster even on one machine.",
        sum(r["broadcast_ns"] + r["reduce_ns"] for r in rows), rows)


def _processes(con: duckdb.DuckDBPyConnection, start_ns: int | None = None,
               end_ns: int | None = None) -> list[dict]:
    cursor = con.execute(load_query("dataparallel_devices"),
                         {"start_ns": start_ns, "end_ns": end_ns})
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
