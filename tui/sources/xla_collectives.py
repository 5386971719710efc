"""What an XLA collective moves and between which devices, from its HloInstructionProto.

- Its size: the elements and bytes of its result shape (a tuple's array leaves summed: a
  combined collective), and their type ('f32'; None where the leaves' types differ).
- Its groups of devices, in whichever form XLA wrote them: a Shardy mesh and the axes the
  collective runs over (`mesh_axes_replica_group_list`: one group per point of the other
  axes), an iota list (`iota_collective_device_list`, or inside the
  `collective_device_list`: iota(N) reshaped, transposed and cut into groups), listed
  groups (`collective_device_list.replica_groups`, or the older `replica_groups`), or a
  collective-permute's source-target pairs (each pair a group). No groups written: every
  device of the program (XLA's meaning of empty replica groups).

The ids are XLA's: replica or partition ids, or global device ids
(`use_global_device_ids`); on one process's mesh whose device assignment is the identity
they are the GPUs' ids, as tui numbers the ranks of such a mesh.
"""

from __future__ import annotations

import json

import numpy as np
from google.protobuf.message import Message

from tui.sources.hlo_schema import PRIMITIVE_BYTES, TUPLE_TYPE

# XLA's collective opcodes (an async '-start' names the same collective)
COLLECTIVES = frozenset({
    "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "ragged-all-to-all",
    "collective-permute", "collective-broadcast", "send", "recv",
})


def collective_of(opcode: str) -> str | None:
    """'all-reduce-start' -> 'all-reduce'; None for an op that is no collective."""
    name = opcode.removesuffix("-start")
    return name if name in COLLECTIVES else None


def shape_size(shape: Message) -> tuple[int | None, str | None, int | None]:
    """(elements, element type, bytes) of a ShapeProto; a tuple's array leaves summed,
    its type None where they differ; (None, None, None) without an array leaf."""
    leaves: list[tuple[int, int]] = []  # (elements, PrimitiveType)

    def walk(s: Message, depth: int) -> None:
        if s.element_type == TUPLE_TYPE:
            if depth < 16:
                for inner in s.tuple_shapes:
                    walk(inner, depth + 1)
        elif s.element_type in PRIMITIVE_BYTES:
            leaves.append((int(np.prod(list(s.dimensions), dtype=np.int64)), s.element_type))

    walk(shape, 0)
    if not leaves:
        return None, None, None
    types = {t for _, t in leaves}
    dtype = PRIMITIVE_BYTES[types.pop()][0] if len(types) == 1 else None
    return (sum(n for n, _ in leaves), dtype,
            sum(n * PRIMITIVE_BYTES[t][1] for n, t in leaves))


def device_groups(inst: Message) -> tuple[list[list[int]], str | None]:
    """The collective's groups of device ids ([] where none is written: every device),
    and the mesh axes it runs over ('data', 'axis_0+axis_1'; None without a mesh)."""
    if inst.HasField("mesh_axes_replica_group_list"):
        found = _mesh_groups(inst.mesh_axes_replica_group_list)
        if found is not None:
            return found
    if inst.HasField("iota_collective_device_list"):
        return _iota_groups(inst.iota_collective_device_list), None
    listed = inst.collective_device_list
    if listed.HasField("iota_replica_group_list"):
        return _iota_groups(listed.iota_replica_group_list), None
    groups = listed.replica_groups or inst.replica_groups
    if groups:
        return [list(g.replica_ids) for g in groups], None
    if inst.source_target_pairs:
        return [[p.source, p.target] for p in inst.source_target_pairs], None
    return [], None


def groups_text(groups: list[list[int]]) -> str | None:
    """'[[0, 1, 2, 3]]' (DuckDB reads it as BIGINT[][]); None for no groups."""
    return json.dumps(groups) if groups else None


def _iota_groups(iota: Message) -> list[list[int]]:
    groups, per_group = iota.num_replica_groups, iota.num_devices_per_group
    if groups <= 0 or per_group <= 0:
        return []
    ids = np.arange(groups * per_group)
    dims = list(iota.iota_reshape_dims)
    perm = list(iota.iota_transpose_perm)
    if dims and int(np.prod(dims)) == ids.size:
        ids = ids.reshape(dims)
        if sorted(perm) == list(range(len(dims))):
            ids = ids.transpose(perm)
    return ids.reshape(groups, per_group).tolist()


def _mesh_groups(spec: Message) -> tuple[list[list[int]], str | None] | None:
    """A Shardy mesh's groups over the axes named: the devices that differ only along
    those axes, one group per point of the others. None where a sub-axis is named (a
    split axis: read no further)."""
    sizes = [int(a.size) for a in spec.mesh.axes]
    if not sizes or any(s <= 0 for s in sizes):
        return None
    axes = sorted({int(a.mesh_axis_index) for a in spec.axes})
    if (not axes or any(not 0 <= a < len(sizes) for a in axes)
            or any(a.HasField("sub_axis_info") for a in spec.axes)):
        return None
    count = int(np.prod(sizes))
    ids = np.array(list(spec.mesh.device_ids) or range(count), dtype=np.int64)
    transform = spec.mesh.iota_transform
    if not spec.mesh.device_ids and transform.reshape_dims:
        dims, perm = list(transform.reshape_dims), list(transform.transpose_perm)
        if int(np.prod(dims)) == count and sorted(perm) == list(range(len(dims))):
            ids = ids.reshape(dims).transpose(perm).reshape(-1)
    if ids.size != count:
        return None
    mesh = ids.reshape(sizes)
    others = [a for a in range(len(sizes)) if a not in axes]
    per_group = int(np.prod([sizes[a] for a in axes]))
    groups = mesh.transpose(others + axes).reshape(-1, per_group).tolist()
    return groups, "+".join(spec.mesh.axes[a].name or f"axis {a}" for a in axes)
