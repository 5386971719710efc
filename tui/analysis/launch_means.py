"""How a trace's kernels were made and launched: by torch.compile (Inductor's Triton
kernels), replayed as CUDA graphs, or neither. The advice for launch-bound work is to
compile the step or replay it as CUDA graphs (tui/analysis/remedies.py); where the work
does one of them already, the advice says so and turns to the other."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tui.analysis.remedies import GRAPHS, INDUCTOR
from tui.core.db import one_row
from tui.core.queries import fill, fragment

if TYPE_CHECKING:
    import duckdb

# Inductor's kernels among the kernels launched: torch.compile is in use. A compiled model
# still launches cuBLAS' GEMMs, attention and the framework's eager ops around it (an HF
# generate() loop compiled with a static cache: 37% of its launches Inductor's).
INDUCTOR_SHARE = 0.1
# The kernels' GPU time that CUDA graphs' replays ran: the work is replayed as graphs (an
# HF generate() whose compiled forward replays as a graph: 83% of the GPU's time in 188
# replays, the launches between them the eager ops of its decoding loop).
GRAPHED_SHARE = 0.5


def launched_as(con: duckdb.DuckDBPyConnection, start_ns: int | None = None,
                end_ns: int | None = None) -> str | None:
    """GRAPHS where most of the GPU time of the kernels starting in [start_ns, end_ns) was
    CUDA graphs' replays, else INDUCTOR where torch.compile made a share of them, else
    None."""
    kernels, kernel_ns, inductor, graphed_ns = launch_figures(con, start_ns, end_ns)
    if not kernels:
        return None
    if kernel_ns and graphed_ns >= GRAPHED_SHARE * kernel_ns:
        return GRAPHS
    return INDUCTOR if inductor >= INDUCTOR_SHARE * kernels else None


def launch_figures(con: duckdb.DuckDBPyConnection, start_ns: int | None = None,
                   end_ns: int | None = None) -> tuple[int, int, int, int]:
    """(kernels, their GPU ns, Inductor's kernels, GPU ns of CUDA graphs' replays) of the
    kernels starting in [start_ns, end_ns) (launch_means.sql)."""
    kernels, kernel_ns, inductor, graphed_ns = one_row(
        con, fill("launch_means", graph_replays=fragment("graph_replays")),
        {"start_ns": start_ns, "end_ns": end_ns})
    return kernels, kernel_ns, inductor, graphed_ns


class GraphReplays(NamedTuple):
    """What CUDA graphs' replays ran on a device (graph_replays_by_device.sql)."""

    kernels: int  # kernels the replays ran
    activities: int  # kernels and copies they ran
    launches: int  # the graphs' launches that ran them


def graph_replays(con: duckdb.DuckDBPyConnection, start_ns: int | None = None,
                  end_ns: int | None = None) -> dict[int, GraphReplays]:
    """Per device, the kernels and copies overlapping [start_ns, end_ns) that CUDA graphs'
    replays ran, and the graphs' launches behind them (none for a device without)."""
    rows = con.execute(fill("graph_replays_by_device",
                            graph_replays=fragment("graph_replays")),
                       {"start_ns": start_ns, "end_ns": end_ns}).fetchall()
    return {device: GraphReplays(*counts) for device, *counts in rows}
