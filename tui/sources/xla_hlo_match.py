"""Tie an XLA trace's GPU work to the HLO ops it ran for (the table gpu_hlo_ops).

Work launched alone names its op (gpu_activities.hlo_op is an op of hlo_ops): matched
'op'. Work replayed in a command buffer names only the buffer ('command_buffer_1'): each
replay's activities, in the order they ran, are placed on the program's ops in the order
those run (tui/sources/xla_hlo_order.py), once per distinct sequence however often it
was replayed; where several programs share the module's name, on the one they fit best.
Runs after the activities are written (their ids are the table's keys).
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from tui.db import registered
from tui.queries import load_query
from tui.sources.xla_hlo_order import Op, place

PLACED_SCHEMA = pa.schema([("sig", pa.int64()), ("pos", pa.int64()),
                           ("program_id", pa.int64()), ("hlo_op", pa.string()),
                           ("matched", pa.string())])


def tie_gpu_work_to_hlo(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Fill gpu_hlo_ops from gpu_activities and the programs in hlo_ops; returns
    warnings (work in command buffers that could not be tied)."""
    if con.execute("SELECT 1 FROM hlo_ops LIMIT 1").fetchone() is None:
        return []
    con.execute(load_query("xla_hlo_named"))
    con.execute(load_query("xla_hlo_replays"))
    orders: dict[str, dict[int, list[Op]]] = {}
    for module, program, name, opcode, category in con.execute(
            load_query("xla_hlo_programs")).fetchall():
        orders.setdefault(module, {}).setdefault(program, []).append(
            Op(name, opcode, category or ""))
    ops: dict[tuple[str, int], dict[str, Op]] = {}
    for module, program, name, opcode, category in con.execute(
            load_query("xla_hlo_program_ops")).fetchall():
        ops.setdefault((module, program), {})[name] = Op(name, opcode, category or "")
    columns: dict[str, list] = {name: [] for name in PLACED_SCHEMA.names}
    for sig, module, names, kinds in con.execute(load_query("xla_hlo_sequences")).fetchall():
        best: tuple[float, int, list] | None = None
        for program, order in orders.get(module, {}).items():
            score, placed = place(names, kinds, order, ops[(module, program)])
            if best is None or score > best[0]:
                best = (score, program, placed)
        if best is None:
            continue
        for pos, spot in enumerate(best[2], start=1):
            if spot.op is not None:
                for column, value in (("sig", sig), ("pos", pos), ("program_id", best[1]),
                                      ("hlo_op", spot.op), ("matched", spot.matched)):
                    columns[column].append(value)
    with registered(con, "xla_hlo_placed", pa.table(columns, schema=PLACED_SCHEMA)):
        con.execute(load_query("xla_hlo_placed"))
    con.execute("DROP TABLE xla_hlo_replays")
    if con.execute(load_query("xla_hlo_has_lines")).fetchone():
        # the lines of code are the HLO ops', not the Python frames around the launches
        # (the runtime's, for XLA's kernels)
        con.execute("INSERT OR REPLACE INTO trace_meta VALUES ('code_source', 'hlo')")
    return _untied(con)


def _untied(con: duckdb.DuckDBPyConnection) -> list[str]:
    row = con.execute(load_query("xla_hlo_untied")).fetchone()
    if not row or not row[0]:
        return []
    count, total_ns, buffers = row
    return [f"{count:,} GPU activities ({total_ns / 1e6:.2f} ms) under hlo_op {buffers} could "
            "not be tied to an op of their HLO program: their op, line and op path are "
            "unknown"]
