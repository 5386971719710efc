"""Each GPU kernel's FLOPs (the table kernel_flops): the FLOPs of the op that launched it,
which the loader found (op_flops), shared among the op's kernels by duration. Built once
at load, after the host rows have their ids."""

from __future__ import annotations

import duckdb

from tui.core.queries import load_query


def build_kernel_flops(con: duckdb.DuckDBPyConnection) -> None:
    """Fill kernel_flops from op_flops (nothing to do where the trace has no FLOPs)."""
    if con.execute("SELECT 1 FROM op_flops LIMIT 1").fetchone() is None:
        return
    con.execute(load_query("kernel_flops_write"))
