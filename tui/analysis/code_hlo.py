"""GPU time by line of code and by framework op path, for XLA traces (code_source 'hlo').

An XLA kernel was launched by the runtime, not by the Python line that traced its op; the
line (and the Python stack above it) is in the op's HLO metadata. Each GPU activity tied
to an HLO op (gpu_hlo_ops) counts for the frames of that op's stack, as a PyTorch kernel
counts for the Python frames around its launch (tui/analysis/code.py): inclusive for every
frame, self for the innermost. The top-down view is the op path JAX records
(`jit(step)/transpose(jvp(LM))/Dense_0/dot_general`): a tree of its scopes.
"""

from __future__ import annotations

import duckdb

from tui.analysis.code_types import CodeNode, FrameTime, Unattributed
from tui.analysis.summary_types import CodePath
from tui.core.queries import load_query


def frame_file(frame: str) -> str:
    """The file of a frame named 'file(line): func' (or 'file(line)')."""
    head = frame.split("): ", 1)[0]
    return head[: head.rfind("(")] if "(" in head else head


def frame_is_user(frame: str) -> bool:
    """Whether a frame ('file(line): func') is the user's own code."""
    # here, not at the top: tui.sources.xla_hlo imports protobuf, which every summary
    # would then pay for (a fifth of a second), XLA trace or not
    from tui.sources.xla_hlo import is_user_file

    return is_user_file(frame_file(frame))


def hlo_frame_times(con: duckdb.DuckDBPyConnection) -> list[FrameTime]:
    """Every line of code whose ops ran GPU work, by inclusive GPU time, then by name."""
    rows = con.execute(load_query("code_hlo_frames")).fetchall()
    frames = [FrameTime(frame, frame_is_user(frame), int(gpu), int(own),
                        int(launches), int(own_launches))
              for frame, gpu, own, launches, own_launches in rows]
    return sorted(frames, key=lambda f: (-f.gpu_ns, f.frame))


def split_path(path: str) -> list[str]:
    """'jit(step)/transpose(jvp(LM))/Dense_0/dot_general' -> its scopes; a '/' inside
    parentheses (jvp(a/b)) does not split."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(path):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char == "/" and depth == 0:
            parts.append(path[start:at])
            start = at + 1
    parts.append(path[start:])
    return [p for p in parts if p]


def hlo_op_path_tree(con: duckdb.DuckDBPyConnection) -> list[CodeNode]:
    """The op paths as a tree of scopes, parents before children, each child list by GPU
    time; self: the work of ops whose path ends at the node."""
    nodes: dict[tuple[str, ...], CodeNode] = {}
    for path, gpu_ns, launches in con.execute(load_query("code_hlo_paths")).fetchall():
        scopes = tuple(split_path(path))
        for depth in range(1, len(scopes) + 1):
            key = scopes[:depth]
            node = nodes.get(key)
            if node is None:
                parent = nodes[key[:-1]].node if depth > 1 else None
                node = CodeNode(node=len(nodes) + 1, parent=parent, depth=depth - 1,
                                frame=key[-1], user_code=False, gpu_ns=0, self_gpu_ns=0,
                                launches=0, frame_ids=[], path="/".join(key))
                nodes[key] = node
            node.gpu_ns += int(gpu_ns)
            node.launches += int(launches)
            if depth == len(scopes):
                node.self_gpu_ns += int(gpu_ns)
    return sorted(nodes.values(), key=lambda n: (n.depth, -n.gpu_ns, n.frame))


def hlo_unattributed(con: duckdb.DuckDBPyConnection) -> Unattributed:
    row = next(iter(con.execute(load_query("code_hlo_unattributed")).fetchall()), (0, 0, 0))
    return Unattributed(*(int(v or 0) for v in row))


def op_path_rows(con: duckdb.DuckDBPyConnection) -> list[CodePath]:
    """The op path tree as records, each node's full path: the `--summary --json`
    `code_paths` and `tui export TRACE op_paths`; [] for a trace without HLO ops."""
    try:
        nodes = hlo_op_path_tree(con)
    except duckdb.CatalogException:  # a store `tui convert` wrote: no HLO tables
        return []
    children: dict[int | None, list[CodeNode]] = {}
    for node in nodes:  # by depth, then GPU time: each child list comes in that order
        children.setdefault(node.parent, []).append(node)
    rows: list[CodePath] = []
    stack = list(reversed(children.get(None, [])))
    while stack:  # depth first: each node followed by the scopes under it
        node = stack.pop()
        rows.append({"path": node.path, "depth": node.depth, "gpu_ns": node.gpu_ns,
                     "self_gpu_ns": node.self_gpu_ns, "launches": node.launches})
        stack += reversed(children.get(node.node, []))
    return rows
