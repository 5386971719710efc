"""Tie an XLA trace's GPU work to the HLO ops it ran for (the table gpu_hlo_ops).

Work launched alone names its op (gpu_activities.hlo_op is an op of hlo_ops): matched
'op'. Work replayed in a command buffer names only the buffer ('command_buffer_1'): each
replay's activities, in the order they ran, are placed on the program's ops in the order
those run (tui/derived/xla_hlo_order.py), once per distinct sequence however often it
was replayed; where several programs share the module's name, on the one they fit best.
Runs after the activities are written (their ids are the table's keys).

The replays are told apart and their sequences compared with NumPy over the activities'
columns (a hash of each sequence of names and kinds), not with lists of names per replay
in SQL: 1.5M activities in 40,000 replays take about a second.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tui.core.db import registered
from tui.core.queries import load_query
from tui.derived.xla_hlo_order import Op, Placed, place

TIED_SCHEMA = pa.schema([("gpu_id", pa.int64()), ("program_id", pa.int64()),
                         ("hlo_op", pa.string()), ("command_buffer", pa.string()),
                         ("matched", pa.string())])
_MIX = np.uint64(0x9E3779B97F4A7C15)  # spreads a position over the bits of a name's hash


def tie_gpu_work_to_hlo(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Fill gpu_hlo_ops from gpu_activities and the programs in hlo_ops; returns
    warnings (work in command buffers that could not be tied)."""
    if not con.execute("SELECT 1 FROM hlo_ops LIMIT 1").fetchall():
        return []
    con.execute(load_query("xla_hlo_named"))
    work = con.sql(load_query("xla_hlo_replays")).to_arrow_table()
    if work.num_rows:
        alone: dict[str, set[str]] = {}
        for module, op in con.execute(load_query("xla_hlo_alone")).fetchall():
            alone.setdefault(module, set()).add(op)
        tied = _place_replays(work, *_programs(con), alone)
        with registered(con, "xla_hlo_tied", tied):
            con.execute("INSERT INTO gpu_hlo_ops SELECT * FROM xla_hlo_tied")
    if con.execute(load_query("xla_hlo_has_lines")).fetchall():
        # the lines of code are the HLO ops', not the Python frames around the launches
        # (the runtime's, for XLA's kernels)
        con.execute("INSERT OR REPLACE INTO trace_meta VALUES ('code_source', 'hlo')")
    # the collectives' kernels as calls with their sizes and groups, as Kineto's are
    con.execute(load_query("xla_collectives"))
    return _untied(con)


def _programs(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, dict[int, list[Op]]],
                                                       dict[tuple[str, int], dict[str, Op]]]:
    """Each module's programs' ops in the order they run, and every op by name."""
    orders: dict[str, dict[int, list[Op]]] = {}
    for module, program, name, opcode, category in con.execute(
            load_query("xla_hlo_programs")).fetchall():
        orders.setdefault(module, {}).setdefault(program, []).append(
            Op(name, opcode, category or ""))
    ops: dict[tuple[str, int], dict[str, Op]] = {}
    for module, program, name, opcode, category in con.execute(
            load_query("xla_hlo_program_ops")).fetchall():
        ops.setdefault((module, program), {})[name] = Op(name, opcode, category or "")
    return orders, ops


def _place_replays(work: pa.Table, orders: dict[str, dict[int, list[Op]]],
                   ops: dict[tuple[str, int], dict[str, Op]],
                   alone: dict[str, set[str]]) -> pa.Table:
    """gpu_hlo_ops rows for the command buffers' activities (`work`: xla_hlo_replays.sql);
    `alone`: per module, the ops its work launched alone names (in no command buffer)."""
    replay_of = work["replay"].to_numpy()
    names = pc.dictionary_encode(work["name"].combine_chunks().fill_null(""))
    kinds = pc.dictionary_encode(work["kind"].combine_chunks().fill_null(""))
    name_codes = names.indices.to_numpy().astype(np.uint64)
    kind_codes = kinds.indices.to_numpy().astype(np.uint64)
    # each replay's activities together, in id order (a stable sort keeps it)
    _, group = np.unique(replay_of, return_inverse=True)
    order = np.argsort(group, kind="stable")
    group_sorted = group[order]
    starts = np.flatnonzero(np.r_[True, group_sorted[1:] != group_sorted[:-1]])
    lengths = np.diff(np.r_[starts, len(order)])
    pos = np.arange(len(order)) - np.repeat(starts, lengths)  # from 0, in the sorted order
    # a replay's signature: its module, length and the xor of (name, kind, place) hashes
    element = ((name_codes[order] * np.uint64(1_000_003) + kind_codes[order] + np.uint64(1))
               ^ (pos.astype(np.uint64) * _MIX)) * _MIX
    modules = pc.dictionary_encode(work["hlo_module"].combine_chunks().fill_null(""))
    module_codes = modules.indices.to_numpy().astype(np.uint64)
    signature = (np.bitwise_xor.reduceat(element, starts) ^ lengths.astype(np.uint64)
                 ^ (module_codes[order[starts]] * _MIX * _MIX))  # a module's own sequences
    _, first_group, sig_of_group = np.unique(signature, return_index=True, return_inverse=True)
    module_text = modules.dictionary.to_pylist()
    name_text = names.dictionary.to_pylist()
    kind_text = kinds.dictionary.to_pylist()
    # place each distinct sequence once
    placements: list[tuple[int, list[Placed]]] = []
    for g in first_group:
        rows = order[starts[g]: starts[g] + lengths[g]]
        module = module_text[int(module_codes[rows[0]])]
        seq_names = [name_text[i] for i in name_codes[rows]]
        seq_kinds = [kind_text[i] for i in kind_codes[rows]]
        best: tuple[float, int, list[Placed]] | None = None
        for program, program_order in orders.get(module, {}).items():
            score, placed = place(seq_names, seq_kinds, program_order,
                                  ops[(module, program)], frozenset(alone.get(module, ())))
            if best is None or score > best[0]:
                best = (score, program, placed)
        placements.append((best[1], best[2]) if best else (-1, [Placed(None, None)] * len(rows)))
    # every activity: the place of its position in its replay's sequence
    offsets = np.r_[0, np.cumsum([len(p) for _, p in placements])]
    flat_ops = [spot.op for _, p in placements for spot in p]
    flat_how = [spot.matched for _, p in placements for spot in p]
    flat_program = np.concatenate([np.full(len(p), prog, np.int64) for prog, p in placements])
    at = np.empty(len(order), np.int64)
    at[order] = offsets[sig_of_group[group_sorted]] + pos
    op_text = pa.array(flat_ops, pa.string()).take(pa.array(at))
    keep = pc.is_valid(op_text)
    return pa.table({
        "gpu_id": work["id"].combine_chunks(),
        "program_id": pa.array(flat_program[at]),
        "hlo_op": op_text,
        "command_buffer": work["command_buffer"].combine_chunks(),
        "matched": pa.array(flat_how, pa.string()).take(pa.array(at)),
    }, schema=TIED_SCHEMA).filter(keep)


def _untied(con: duckdb.DuckDBPyConnection) -> list[str]:
    row = next(iter(con.execute(load_query("xla_hlo_untied")).fetchall()), None)
    if not row or not row[0]:
        return []
    count, total_ns, buffers = row
    return [f"{count:,} GPU activities ({total_ns / 1e6:.2f} ms) under hlo_op {buffers} could "
            "not be tied to an op of their HLO program: their op, line and op path are "
            "unknown"]
