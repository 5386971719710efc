"""Which HLO op each activity of one command-buffer replay ran for, by the order of both.

XLA records a command buffer (a CUDA graph) from a stretch of its ops' schedule and
replays it as one launch: the profiler then names every kernel's op `command_buffer_1`.
What is left to tie a kernel to its op is its name and its place:

- a kernel XLA generated is named after its op (`input_reduce_fusion_29` is
  `input_reduce_fusion.29`): by name ('name'), or, where XLA ran one kernel for several
  identical fusions (`loop_multiply_fusion` for `loop_multiply_fusion.1` too), by the
  place of a fusion of the same stem that has no kernel of its own ('reuse');
- a library kernel (cuBLAS, cuDNN, NCCL), copy or set carries no op's name: it is placed
  between the named kernels around it, on the op the schedule has there that can run it
  (a custom call, a collective, a copy): 'order' where exactly one op can take each,
  'guess' where the counts leave a choice (two ops, three kernels).

Kernels named after an op are paired with the ops of that name in order where their
counts agree; the longest run of pairs in order on both sides anchors the replay
(`_anchors`); between two anchors the rest is aligned by dynamic programming, each
activity taking the op that scores best with the order kept (`_align`).
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

LIBRARY_OPCODES = frozenset({
    "custom-call", "all-reduce", "all-reduce-start", "all-gather", "all-gather-start",
    "reduce-scatter", "all-to-all", "ragged-all-to-all", "collective-permute",
    "collective-permute-start", "collective-broadcast", "send", "recv", "fft",
    "convolution", "triangular-solve", "cholesky", "sort", "rng-get-and-update-state",
})
COPY_OPCODES = frozenset({"copy", "copy-start", "dynamic-update-slice", "fusion-start"})
# A fusion backed by a library (cuDNN graphs, cuBLAS epilogues): its kernels carry the
# library's names, not the fusion's
_LIBRARY_FUSION = re.compile(r"cudnn|cublas|custom_fusion|dynamic_memcpy", re.IGNORECASE)
# A CUDA graph's copy or set run as a kernel of the driver's (a command buffer's
# memcpy node: 'memcpy32_post', 'memcpy128'): a copy, not a library's kernel
_COPY_KERNEL = re.compile(r"(memcpy|memset)\w*$", re.IGNORECASE)
# A fusion XLA may run as a copy or set (a dynamic slice or update of a loop's buffers:
# a memcpy of one slice; a broadcast of a constant: a memset)
_COPY_FUSION = re.compile(r"dynamic_(update_)?slice|copy|memcpy|broadcast")
NEG = -1e9
DROP = -3.0  # an activity left without an op (placed by name afterwards, if it can be)
# An op skipped between two placed activities: a replay runs a stretch of the schedule
# whole, so a skip is rare (an op that launched nothing); more than one costs more than
# the difference between a copy op and a fusion as the home of a copy
SKIP = 0.5
# The largest stretch between two anchors aligned (activities × ops): its tables take
# 9 bytes a cell. A larger one (a replay whose kernels name no op) is left to the names.
MAX_CELLS = 4_000_000


def kernel_name(op: str) -> str:
    """The name XLA gives the kernel it generates for an op (LLVM's function names)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", op)


def stem(name: str) -> str:
    """A name without its trailing number: 'loop_add_fusion_2' -> 'loop_add_fusion'."""
    return re.sub(r"[_.]\d+$", "", name)


@dataclass
class Op:
    name: str
    opcode: str
    category: str


@dataclass
class Placed:
    op: str | None
    matched: str | None


def place(names: list[str], kinds: list[str], order: list[Op], all_ops: dict[str, Op],
          outside: frozenset[str] = frozenset()) -> tuple[float, list[Placed]]:
    """Each activity's op (names and kinds in the order they ran: 'kernel', 'memcpy',
    'memset'), with how it was found; and a score of the fit (higher: better), to pick
    among programs of the same name. `outside`: ops the trace shows launched alone, which
    therefore ran in no command buffer."""
    order = [op for op in order if op.name not in outside]
    n, m = len(names), len(order)
    kernels_named = {nm for nm, k in zip(names, kinds, strict=True) if k == "kernel"}
    item_kernel = [kernel_name(op.name) for op in order]
    by_kernel: dict[str, str] = {}
    for op in all_ops.values():
        by_kernel.setdefault(kernel_name(op.name), op.name)
    event_class = ["xla" if k == "kernel" and nm in by_kernel else
                   "lib" if k == "kernel" and not _COPY_KERNEL.match(nm) else "copy"
                   for nm, k in zip(names, kinds, strict=True)]
    placed = [Placed(None, None) for _ in range(n)]
    anchors = _anchors(names, event_class, item_kernel)
    score = 10.0 * len(anchors)
    for e, i in anchors:
        placed[e] = Placed(order[i].name, "name")
    bounds = [(-1, -1), *anchors, (n, m)]
    for (e0, i0), (e1, i1) in itertools.pairwise(bounds):
        events = list(range(e0 + 1, e1))
        if not events:
            continue
        # The anchors' own ops may take activities next to them (a fusion's init memset,
        # a second kernel of the same name), then the ops between
        items = ([i0] if i0 >= 0 else []) + list(range(i0 + 1, i1)) + ([i1] if i1 < m else [])
        # Before the first anchor the stretch's start is unknown: aligned from the anchor
        # back, so that of equal fits the ops nearest it are taken
        backward = i0 < 0 <= i1 < m
        if backward:
            events, items = events[::-1], items[::-1]
        table = _Items.of(items, order, item_kernel, kernels_named, i1)
        gained, chosen = _align(events, table, names, event_class)
        score += gained
        _label(events, items, chosen, table, placed, names, event_class, order, {i0, i1},
               edge=i0 < 0 or i1 >= m)
    for e, p in enumerate(placed):  # left without an op: by its name, where it has one
        if p.op is None and event_class[e] == "xla":
            placed[e] = Placed(by_kernel[names[e]], "name")
    return score, placed


def _anchors(names: list[str], event_class: list[str],
             item_kernel: list[str]) -> list[tuple[int, int]]:
    """(activity, op) pairs of kernels named after ops, paired in order where a name
    comes as often in the replay as in the order; the longest run increasing on both."""
    events_of: dict[str, list[int]] = {}
    for e, (nm, cls) in enumerate(zip(names, event_class, strict=True)):
        if cls == "xla":
            events_of.setdefault(nm, []).append(e)
    items_of: dict[str, list[int]] = {}
    for i, kernel in enumerate(item_kernel):
        items_of.setdefault(kernel, []).append(i)
    pairs = sorted((e, i) for nm, es in events_of.items()
                   if len(es) == len(items_of.get(nm, ()))
                   for e, i in zip(es, items_of[nm], strict=True))
    # longest strictly increasing run of op positions (events are increasing already)
    tails: list[int] = []
    tail_at: list[int] = []
    back = [-1] * len(pairs)
    for k, (_, i) in enumerate(pairs):
        at = bisect_left(tails, i)
        if at == len(tails):
            tails.append(i)
            tail_at.append(k)
        else:
            tails[at] = i
            tail_at[at] = k
        back[k] = tail_at[at - 1] if at else -1
    out = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    return out[::-1]


@dataclass
class _Items:
    """What the scores need of each op a stretch of activities may take."""

    kernel: np.ndarray  # object: the name of the kernel XLA would generate for it
    stem: np.ndarray  # object
    own: np.ndarray  # bool: a kernel of its name ran in this replay
    fusion: np.ndarray  # bool
    library: np.ndarray  # bool: a library call, collective, or library-backed fusion
    copy: np.ndarray  # bool
    init: np.ndarray  # bool: the anchor after the stretch, whose output a set may zero first

    @classmethod
    def of(cls, items: list[int], order: list[Op], item_kernel: list[str],
           kernels_named: set[str], next_anchor: int) -> _Items:
        ops = [order[i] for i in items]
        kernel = np.array([item_kernel[i] for i in items], dtype=object)
        return cls(kernel, np.array([stem(k) for k in kernel], dtype=object),
                   np.array([k in kernels_named for k in kernel], bool),
                   np.array([op.opcode == "fusion" for op in ops], bool),
                   np.array([op.opcode in LIBRARY_OPCODES or (
                       op.opcode == "fusion" and bool(_LIBRARY_FUSION.search(op.category)))
                       for op in ops], bool),
                   np.array([op.opcode in COPY_OPCODES or bool(_COPY_FUSION.search(op.name))
                             for op in ops], bool),
                   np.array([i == next_anchor for i in items], bool))

    def scores(self, name: str, cls: str) -> tuple[np.ndarray, np.ndarray]:
        """(score as the op's first activity, score as a further one) of an activity
        of this name and class on each op."""
        first = np.full(len(self.kernel), NEG)
        extra = np.full(len(self.kernel), NEG)
        if cls == "xla":
            same = self.kernel == name
            first[same] = 10.0
            extra[same] = 5.0  # a second kernel of its op: less likely than a reused one
            reused = self.fusion & ~self.own & (self.stem == stem(name)) & ~same
            first[reused] = 8.0
            return first, extra
        free = ~self.own
        if cls == "lib":
            first[free] = np.where(self.library, 6.0, np.where(self.fusion, 2.0, 1.0))[free]
            extra[free & self.library] = 4.0
            return first, extra
        # a copy or set: a copy op's, a memset fusion's, a library's own, or the init of a
        # reduction fusion's output before its kernel
        first[free] = np.where(self.copy, 5.0, np.where(
            self.library, 3.0, np.where(self.fusion, 4.0, 1.0)))[free]
        extra[free & self.library] = 3.0
        first[self.init] = 2.0
        return first, extra


def _align(events: list[int], table: _Items, names: list[str],
           event_class: list[str]) -> tuple[float, list[int]]:
    """The best monotone placing of `events` on the ops of `table` (an op may take
    several activities in a row, or none; an activity may be left out at DROP): the
    score, and per event the index of the op it took (-1: left out).

    A command buffer replays a stretch of the schedule without gaps (but for ops that
    launch nothing), so an op skipped between two placed activities costs SKIP: of fits
    otherwise equal, the tightest wins (one iteration of an unrolled loop, not parts of
    two). Ops before the first placed activity and after the last are free."""
    n, m = len(events), len(table.kernel)
    if m == 0 or n * m > MAX_CELLS:
        return DROP * n, [-1] * n
    # done[c]: the best with the events so far on items before c (c = 0..m), the ops
    # between the last one taken and c counted as skipped; on[c]: the best with the last
    # event on item c
    done = np.zeros(m + 1)
    on = np.full(m, NEG)
    took_first = np.zeros((n, m), bool)  # the event was item c's first
    came_from = np.zeros((n, m + 1), np.int32)  # done[c]: 1 + the item the event took; 0: dropped
    ends = np.zeros(n)  # the best with event r the last placed (on any item)
    end_at = np.zeros(n, np.int64)
    positions = np.arange(m + 1)
    skip = SKIP * positions
    for r, e in enumerate(events):
        first, extra = table.scores(names[e], event_class[e])
        as_first = done[:-1] + first
        as_extra = on + extra
        on = np.maximum(as_first, as_extra)
        took_first[r] = as_first >= as_extra
        end_at[r] = int(np.argmax(on))
        ends[r] = on[end_at[r]]
        # running[c] = max over c' < c of on[c'] - SKIP * (c - 1 - c')
        before = np.concatenate([[NEG], on]) + skip  # before[k] = on[k - 1] + SKIP * k
        best = np.maximum.accumulate(before)
        rises = np.concatenate([[True], before[1:] > best[:-1]])
        where = np.maximum.accumulate(np.where(rises, positions, 0))
        running = best - skip
        dropped = done + DROP
        placed = running > dropped
        done = np.where(placed, running, dropped)
        came_from[r] = np.where(placed, where, 0)
    # the last placed event, the ones after it left out
    finals = ends + DROP * (n - 1 - np.arange(n))
    last = int(np.argmax(finals))
    chosen = [-1] * n
    if finals[last] <= DROP * n:
        return DROP * n, chosen
    c, on_item = int(end_at[last]), True
    for r in range(last, -1, -1):
        if not on_item:
            source = int(came_from[r, c])
            if source == 0:
                continue  # left out
            c, on_item = source - 1, True
        chosen[r] = c
        if took_first[r, c]:
            on_item = False  # before it: the events on items before c
    return float(finals[last]), chosen


def _label(events: list[int], items: list[int], chosen: list[int], table: _Items,
           placed: list[Placed], names: list[str], event_class: list[str],
           order: list[Op], anchor_items: set[int], edge: bool) -> None:
    """Name each placed activity's op and say how sure the placing is: a library kernel,
    copy or set is placed by 'order' where the ops between the anchors that could well
    have run one (_Items.scores: 3 or more) each took one, or where there is one such op
    and it took them all; else it is a 'guess'. At an edge of the replay (before its first
    named kernel, after its last) the stretch ends at the farthest op taken; in a replay
    without anchors it is the stretch from the first op taken to the last."""
    taken: dict[int, int] = {}
    with_xla: set[int] = set()
    classes: set[str] = set()
    for r, c in enumerate(chosen):
        cls = event_class[events[r]]
        if cls == "xla":
            with_xla.add(c)
        else:
            classes.add(cls)
            if c >= 0:
                taken[c] = taken.get(c, 0) + 1
    likely = np.zeros(len(items), bool)
    for cls in classes:  # a library call for a library kernel, a copy op for a copy
        likely |= table.scores("", cls)[0] >= 5.0
    span = range(len(items))
    placed_at = [c for c in chosen if c >= 0]
    if edge and placed_at:  # items run from the anchor outwards; with none, the stretch taken
        anchored = any(i in anchor_items for i in items)
        span = range(0 if anchored else min(placed_at), max(placed_at) + 1)
    open_ops = {c for c in span
                if likely[c] and items[c] not in anchor_items and c not in with_xla}
    forced = (set(taken) == open_ops
              and (len(open_ops) == 1 or all(v == 1 for v in taken.values())))
    for r, c in enumerate(chosen):
        if c < 0:
            continue
        e, i = events[r], items[c]
        if event_class[e] == "xla":
            how = "name" if table.kernel[c] == names[e] else "reuse"
        else:
            how = "order" if forced else "guess"
        placed[e] = Placed(order[i].name, how)
