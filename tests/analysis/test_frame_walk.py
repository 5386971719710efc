"""GPU time by frame name (tui/analysis/frame_walk.py) against the definition: for each
origin, every distinct name on its stack gets its work once."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.properties import examples
from tui.analysis.frame_walk import name_times

# A forest of frames: each frame's parent is an earlier frame or none; names from a few,
# so that a name recurs on one stack (nn.Module's _call_impl does at every level)
FORESTS = st.lists(st.tuples(st.integers(-1, 30), st.integers(0, 3)), min_size=1,
                   max_size=40)


def _definition(parents: list[int], names: list[int], origins: dict[int, int]) -> dict:
    inclusive: dict[int, int] = {}
    for frame, work in origins.items():
        seen = set()
        at = frame
        while at >= 0:
            seen.add(names[at])
            at = parents[at]
        for name in seen:
            inclusive[name] = inclusive.get(name, 0) + work
    return inclusive


@settings(max_examples=examples(200))
@given(FORESTS, st.data())
def test_inclusive_time_counts_each_name_once_per_stack(forest, data) -> None:
    parents = [p if 0 <= p < i else -1 for i, (p, _) in enumerate(forest)]
    names = [name for _, name in forest]
    origins = data.draw(st.dictionaries(st.integers(0, len(forest) - 1),
                                        st.integers(1, 1000), min_size=1))
    ids = np.arange(len(forest), dtype=np.int64) * 7 + 3  # ids are not positions
    parent_ids = np.where(np.array(parents) >= 0, np.array(parents) * 7 + 3, ids)
    origin_frames = np.array(sorted(origins), dtype=np.int64)
    work = np.array([origins[f] for f in origin_frames], dtype=np.int64)
    times = name_times(ids, parent_ids, np.array(parents) < 0, np.array(names, np.uint64),
                       origin_frames * 7 + 3, work, np.ones(len(work), np.int64))
    got = dict(zip(times.name_key.tolist(), times.gpu_ns.tolist(), strict=True))
    assert got == _definition(parents, names, origins)
    launches = _definition(parents, names, dict.fromkeys(origins, 1))
    assert dict(zip(times.name_key.tolist(), times.launches.tolist(), strict=True)) == launches
    own: dict[int, int] = {}
    for frame, w in origins.items():
        own[names[frame]] = own.get(names[frame], 0) + w
    assert {k: v for k, v in zip(times.name_key.tolist(), times.self_gpu_ns.tolist(),
                                 strict=True) if v} == own


def test_a_parent_that_is_no_frame_ends_the_stack() -> None:
    # frame 11's parent 99 is not among the frames: its stack is itself alone
    times = name_times(np.array([10, 11]), np.array([10, 99]), np.array([True, False]),
                       np.array([5, 6], np.uint64), np.array([11]), np.array([40]),
                       np.array([2]))
    assert times.name_key.tolist() == [6] and times.gpu_ns.tolist() == [40]
