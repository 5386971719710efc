"""Each GPU kernel's FLOPs (the table kernel_flops), built once at load: for Kineto, the
FLOPs of the op that launched it (op_flops), shared among the op's kernels by duration;
for XLA, those of the HLO op it ran for (hlo_ops.flops), the same way over the op's runs."""

from __future__ import annotations

import duckdb

from tui.core.queries import load_query


def build_kernel_flops(con: duckdb.DuckDBPyConnection) -> None:
    """Fill kernel_flops (nothing to do where the trace has no FLOPs)."""
    if con.execute("SELECT 1 FROM op_flops LIMIT 1").fetchone() is not None:
        con.execute(load_query("kernel_flops_write"))
    if con.execute("SELECT 1 FROM hlo_ops WHERE flops > 0 LIMIT 1").fetchone() is not None:
        con.execute(load_query("kernel_flops_hlo"))
