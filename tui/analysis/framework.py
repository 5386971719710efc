"""Which framework's words the advice takes: the trace's format, except that a JAX or
TensorFlow program recorded by Nsight Systems is an nsys trace whose advice is XLA's
(jax.jit, device_put, its input pipeline), not PyTorch's. XLA marks its own work with NVTX
ranges there (`XlaModule:#hlo_module=jit_step…#`, its compiler's `XlaCompileBackend:#…#`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.core.db import one_row
from tui.core.queries import load_query

if TYPE_CHECKING:
    import duckdb


def source_format(con: duckdb.DuckDBPyConnection) -> str | None:
    """'xla' for an nsys trace of an XLA program; else the trace's format (trace_meta)."""
    row = con.execute("SELECT value FROM trace_meta WHERE key = 'format'").fetchone()
    fmt = row[0] if row else None
    if fmt == "nsys" and one_row(con, load_query("xla_ranges_exist"))[0]:
        return "xla"
    return fmt
