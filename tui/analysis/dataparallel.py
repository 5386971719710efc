"""Whether one process drives several GPUs as torch.nn.DataParallel does: a Python thread
per replica, the weights broadcast from the first GPU each step and the gradients reduced
back onto it (queries/analysis/dataparallel_devices.sql). Its host, launch, communication
and waiting costs have one remedy, PyTorch's own: DistributedDataParallel, a process per
GPU, "significantly faster than torch.nn.DataParallel for single-node multi-GPU data
parallel training" (its documentation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.core.queries import load_query

if TYPE_CHECKING:
    import duckdb


def dataparallel_devices(con: duckdb.DuckDBPyConnection, start_ns: int | None = None,
                         end_ns: int | None = None) -> set[int]:
    """The devices that a DataParallel process drove in [start_ns, end_ns)."""
    rows = con.execute(load_query("dataparallel_devices"),
                       {"start_ns": start_ns, "end_ns": end_ns}).fetchall()
    return {device for _pid, devices, _broadcasts, _reduces in rows for device in devices}
