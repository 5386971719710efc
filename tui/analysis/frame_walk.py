"""GPU time by frame name, from the frames' links to their parents, in NumPy.

A frame name's inclusive time is the GPU work launched while a frame of that name was on
the stack, counted once however often the name recurs on one stack (nn.Module's
`_call_impl` does at every level). Summed per launching frame (an origin) that is each
origin's work once for every distinct name on its stack, which a join of every origin
with each of its ancestors computed (1.6M rows for 70k origins on a 600 MB trace). The
same sum, taken at the outermost frame of each name on a stack instead: a frame with no
ancestor of its own name collects the work of every origin below it, once. So the work
is added up each stack upwards (a step per level), and each frame on those stacks is
checked against its ancestors' names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class NameTimes:
    """Per frame name (its key): inclusive and own GPU time and launches."""

    name_key: np.ndarray
    gpu_ns: np.ndarray
    launches: np.ndarray
    self_gpu_ns: np.ndarray
    self_launches: np.ndarray


def name_times(ids: np.ndarray, parent_ids: np.ndarray, top: np.ndarray,
               name_key: np.ndarray, origin_ids: np.ndarray, origin_gpu_ns: np.ndarray,
               origin_launches: np.ndarray) -> NameTimes:
    """Frames (ids in ascending order, their parents' ids, whether they have none, their
    names' keys) and origins (frames that launched GPU work, what they launched): every
    name on an origin's stack, with its times."""
    parent = _parents(ids, parent_ids, top)
    origin = _index_of(ids, origin_ids)
    known = origin >= 0
    origin, gpu, launches = origin[known], origin_gpu_ns[known], origin_launches[known]
    below_gpu = np.zeros(len(ids), np.int64)  # the work of the origins at or below a frame
    below_launches = np.zeros(len(ids), np.int64)
    on_stack = np.zeros(len(ids), bool)
    at, step_gpu, step_launches = origin, gpu.astype(np.int64), launches.astype(np.int64)
    for _ in range(len(ids) + 1):  # a level a step; links cannot loop (stacks.py)
        if len(at) == 0:
            break
        np.add.at(below_gpu, at, step_gpu)
        np.add.at(below_launches, at, step_launches)
        on_stack[at] = True
        up = parent[at]
        more = up >= 0
        at, step_gpu, step_launches = up[more], step_gpu[more], step_launches[more]
    frames = np.flatnonzero(on_stack)
    outermost = frames[~_has_ancestor_of_its_name(frames, parent, name_key)]
    keys, slot = np.unique(name_key[outermost], return_inverse=True)
    own_slot = np.searchsorted(keys, name_key[origin])  # an origin's name is among them
    return NameTimes(
        name_key=keys,
        gpu_ns=_sums(slot, below_gpu[outermost], len(keys)),
        launches=_sums(slot, below_launches[outermost], len(keys)),
        self_gpu_ns=_sums(own_slot, gpu, len(keys)),
        self_launches=_sums(own_slot, launches, len(keys)),
    )


def _parents(ids: np.ndarray, parent_ids: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Each frame's parent's position, -1 at the top (or where the parent is no frame)."""
    parent = _index_of(ids, parent_ids)
    parent[top] = -1
    return parent


def _index_of(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The position in `ids` (ascending) of each of `wanted`, -1 where it is not there."""
    if len(ids) == 0:
        return np.full(len(wanted), -1, np.int64)
    at = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    return np.where(ids[at] == wanted, at, -1)


def _has_ancestor_of_its_name(frames: np.ndarray, parent: np.ndarray,
                              name_key: np.ndarray) -> np.ndarray:
    """For each of `frames`, whether a frame above it has its name."""
    found = np.zeros(len(frames), bool)
    above = parent[frames]
    looking = np.flatnonzero(above >= 0)
    for _ in range(len(parent) + 1):
        if len(looking) == 0:
            break
        same = name_key[above[looking]] == name_key[frames[looking]]
        found[looking[same]] = True
        looking = looking[~same]
        above[looking] = parent[above[looking]]
        looking = looking[above[looking] >= 0]
    return found


def _sums(slot: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    out = np.zeros(count, np.int64)
    np.add.at(out, slot, values.astype(np.int64))
    return out
