"""XPlane stats -> the trace viewer's `args` JSON, for many events at once.

An event's args are the stats of its metadata, then its own, a later one replacing an
earlier one of the same name; each value printed as XLA's `XStatVisitor::ToString` prints
it: integers as they are, a double to six significant digits (absl::StrCat), a string as
it is, bytes as "<opaque bytes>", a ref value as the name of the stat metadata it points
at. Internal stats (xplane_schema.cc's IsInternalStat) are left out; keys are in byte
order, as the JSON has them; a `step_name` stat renames its event.

Everything per stat is numpy or Arrow compute: the Python here runs per plane, per stat
and event metadata, and per distinct (name, value) of the double, string and ref stats
(few: a kernel's details and HLO op repeat), not per event.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from google.protobuf.message import Message

from tui.sources import proto_wire

INTERNAL_STATS = frozenset({"_pt", "_ct", "_p", "_c", "_r", "flops", "program_id", "symbol_id"})
STEP_NAME = "step_name"
LONG_NAME = "long_name"  # the full name of an event shown by its display name
# XStat field numbers and wire types (xspace_schema): its metadata id, then the value oneof.
_METADATA = 1
_DOUBLE, _UINT, _INT, _STR, _BYTES, _REF = 2, 3, 4, 5, 6, 7
# The wire type of each value field, by field number (-1: not a value field).
_VALUE_WIRE = np.array([-1, -1, 1, 0, 0, 2, 2, 0, -1], np.int64)
_CHUNK_ROWS = 1 << 20  # stats decoded at a time: bounds the memory of big planes
_TEXT = pa.large_string()


def json_text(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


class Lookup:
    """Positions of int64 ids among `ids` (-1 where absent), vectorised."""

    def __init__(self, ids: list[int]) -> None:
        keys = np.array(ids, dtype=np.int64)
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]

    def __call__(self, query: np.ndarray) -> np.ndarray:
        if not len(self.keys):
            return np.full(len(query), -1, np.int64)
        at = np.minimum(np.searchsorted(self.keys, query), len(self.keys) - 1)
        return np.where(self.keys[at] == query, self.order[at], -1)


@dataclass
class EventArgs:
    """Names and args of the events that carry stats of their own."""

    events: np.ndarray  # int64: the events (as given to PlaneStats.event_args), ascending
    args: pa.Array  # large_string: each one's args JSON (null: no args)
    renamed: np.ndarray  # int64: those (indices into events) a step_name stat renames
    names: list[str]  # their new names


class PlaneStats:
    """One plane's stat metadata, and the args of its events."""

    def __init__(self, plane: Message) -> None:
        ids = list(plane.stat_metadata.keys())
        # One more entry, for an id the plane does not describe: named "", never internal.
        self.names = [plane.stat_metadata[i].name for i in ids] + [""]
        self.by_id = dict(zip(ids, self.names[:-1], strict=True))
        self.find = Lookup(ids)
        self.internal = np.array([n in INTERNAL_STATS for n in self.names])
        vocabulary = sorted(set(self.names) | {LONG_NAME}, key=lambda k: k.encode())
        self.rank = {k: i for i, k in enumerate(vocabulary)}
        self.name_rank = np.array([self.rank[n] for n in self.names], np.int64)
        self.vocabulary = vocabulary
        self.key_quote = pa.array([json_text(k) + ':"' for k in vocabulary], _TEXT)
        self.step_rank = self.rank.get(STEP_NAME, -1)
        # Each event metadata's args (kept by metadata_args), laid end to end.
        self.meta_offsets = [0]
        self.meta_rank: list[int] = []
        self.meta_pairs: list[str] = []

    def metadata_args(self, meta: Message) -> tuple[str, str | None]:
        """An event metadata's shown name and args JSON (None: no args); its args are also
        kept, in the order of calls, for the events that add stats of their own."""
        args: dict[str, str] = {}
        name = meta.name
        if meta.display_name:
            name = meta.display_name
            args[LONG_NAME] = meta.name
        for stat in meta.stats:
            key = self.by_id.get(stat.metadata_id, "")
            value = self._text(stat)
            if value is None or key in INTERNAL_STATS:
                continue
            args[key] = value
            if key == STEP_NAME:
                name = value
        self.meta_rank += [self.rank[k] for k in args]  # stat names and long_name: all ranked
        self.meta_pairs += [_pair(k, v) for k, v in args.items()]
        self.meta_offsets.append(len(self.meta_rank))
        pairs = sorted((k.encode(), _pair(k, v)) for k, v in args.items())
        return name, "{" + ",".join(p for _, p in pairs) + "}" if args else None

    def _text(self, stat: Message) -> str | None:
        kind = stat.WhichOneof("value")
        if kind is None:
            return None
        if kind == "str_value":
            return stat.str_value
        if kind == "ref_value":
            return self.by_id.get(stat.ref_value, "")
        if kind == "double_value":
            return "%.6g" % stat.double_value  # absl::StrCat(double): six significant digits
        if kind == "bytes_value":
            return "<opaque bytes>"
        return str(getattr(stat, kind))

    def event_args(self, buf: np.ndarray, event: np.ndarray, starts: np.ndarray,
                   lengths: np.ndarray, meta_row: np.ndarray) -> EventArgs:
        """Args of the events that carry stats: `event` (ascending) names the event of each
        stat buf[starts:starts + lengths]; meta_row[e] is event e's metadata, counted in
        the order of metadata_args's calls (-1: none). Raises WireError, ArrowInvalid."""
        starts_event = np.ones(len(event), bool)
        starts_event[1:] = event[1:] != event[:-1]
        first = np.flatnonzero(starts_event)  # each event's first stat
        events = event[first]
        parts: list[EventArgs] = []
        lo = 0
        while lo < len(events):  # events whose stats number up to _CHUNK_ROWS, at a time
            j = int(np.searchsorted(first, first[lo] + _CHUNK_ROWS, "right"))
            hi = len(events) if j >= len(events) else max(lo + 1, j - 1)
            rows = slice(first[lo], first[hi] if hi < len(events) else len(event))
            smid, kind, num, s_start = _decode(buf, starts[rows], lengths[rows])
            key_row = self.find(smid)
            keep = (kind != 0) & ~self.internal[key_row]
            parts.append(self._chunk(buf, events[lo:hi], meta_row[events[lo:hi]],
                                     event[rows][keep], key_row[keep], kind[keep], num[keep],
                                     s_start[keep]))
            lo = hi
        if not parts:
            return EventArgs(events, pa.array([], _TEXT), np.zeros(0, np.int64), [])
        return EventArgs(events, pa.concat_arrays([p.args for p in parts]),
                         np.searchsorted(events, np.concatenate([p.events[p.renamed]
                                                                 for p in parts])),
                         [n for p in parts for n in p.names])

    def _chunk(self, buf: np.ndarray, events: np.ndarray, meta_row: np.ndarray,
               event: np.ndarray, key_row: np.ndarray, kind: np.ndarray, num: np.ndarray,
               s_start: np.ndarray) -> EventArgs:
        rank = self.name_rank[key_row]
        own_texts, own_pick = self._pairs(buf, rank, kind, num, s_start)
        # The metadata's stats of each event, before its own.
        offsets = np.array(self.meta_offsets, np.int64)
        counts = np.where(meta_row >= 0, np.diff(offsets)[np.maximum(meta_row, 0)], 0)
        starts = offsets[np.maximum(meta_row, 0)]
        total = int(counts.sum())
        flat = np.arange(total) + np.repeat(starts - np.cumsum(counts) + counts, counts)
        meta_rank = np.array(self.meta_rank, np.int64)[flat] if total else np.zeros(0, np.int64)
        # Every pair's text, once: the metadata's, then the events' (one `take` below).
        texts = pa.concat_arrays([pa.array(self.meta_pairs, _TEXT), own_texts])
        pick = np.concatenate([flat, own_pick + len(self.meta_pairs)])

        # Sort by (event, key); a stable sort keeps the metadata's stats (put first) before
        # the event's own, and those in wire order.
        ev = np.concatenate([np.repeat(events, counts), event])
        rank = np.concatenate([meta_rank, rank])
        local = np.searchsorted(events, ev)
        order = np.argsort(local * len(self.vocabulary) + rank, kind="stable")
        ev, rank = ev[order], rank[order]
        last = np.ones(len(ev), bool)  # of the stats of one name, the last one counts
        last[:-1] = (ev[1:] != ev[:-1]) | (rank[1:] != rank[:-1])
        order, ev, rank = order[last], ev[last], rank[last]
        pairs = texts.take(pick[order])
        bounds = np.searchsorted(ev, events)
        ends = np.append(bounds[1:], len(ev))
        listed = pa.LargeListArray.from_arrays(np.append(bounds, len(ev)), pairs)
        text = pc.binary_join_element_wise(
            pa.scalar("{", _TEXT), pc.binary_join(listed, pa.scalar(",", _TEXT)),
            pa.scalar("}", _TEXT), pa.scalar("", _TEXT))
        if not (ends > bounds).all():  # events whose stats are all internal: no args
            text = pc.if_else(pa.array(ends > bounds), text, pa.scalar(None, _TEXT))
        steps = np.flatnonzero(rank == self.step_rank)
        names = [json.loads("{" + pairs[int(at)].as_py() + "}")[STEP_NAME] for at in steps]
        return EventArgs(events, text, np.searchsorted(events, ev[steps]), names)

    def _pairs(self, buf: np.ndarray, rank: np.ndarray, kind: np.ndarray, num: np.ndarray,
               s_start: np.ndarray) -> tuple[pa.Array, np.ndarray]:
        """Each stat as `"key":"value"` JSON: texts, and for each stat which text."""
        texts: list[pa.Array] = []
        pick = np.zeros(len(kind), np.int64)
        placed = 0
        for k in (_DOUBLE, _UINT, _INT, _STR, _BYTES, _REF):
            rows = np.flatnonzero(kind == k)
            if not len(rows):
                continue
            kind_texts, kind_pick = self._kind_pairs(k, buf, rank[rows], num[rows], s_start[rows])
            texts.append(kind_texts)
            pick[rows] = placed + kind_pick
            placed += len(kind_texts)
        return pa.concat_arrays(texts) if texts else pa.array([], _TEXT), pick

    def _kind_pairs(self, kind: int, buf: np.ndarray, rank: np.ndarray, num: np.ndarray,
                    s_start: np.ndarray) -> tuple[pa.Array, np.ndarray]:
        if kind in (_UINT, _INT):
            digits = pc.cast(pa.array(num if kind == _UINT else num.view(np.int64)), _TEXT)
            pairs = pc.binary_join_element_wise(self.key_quote.take(rank), digits,
                                                pa.scalar('"', _TEXT), pa.scalar("", _TEXT))
            return pairs, np.arange(len(num))
        # Few distinct values: their text is made once a (key, value) pair.
        if kind == _DOUBLE:
            encoded = pa.array(num).dictionary_encode()  # by bits: 0.0 is not -0.0
            code = encoded.indices.to_numpy().astype(np.int64)
            distinct = encoded.dictionary.to_numpy().view(np.float64)
            values = ["%.6g" % v for v in distinct]  # absl::StrCat(double): six digits
        elif kind == _REF:
            code = self.find(num.view(np.int64))
            code[code < 0] = len(self.names) - 1  # the "" entry
            values = self.names
        elif kind == _BYTES:
            code = np.zeros(len(num), np.int64)
            values = ["<opaque bytes>"]
        else:
            data, offsets = proto_wire.gather(buf, s_start, num.astype(np.int64))
            strings = pa.LargeStringArray.from_buffers(len(num), pa.py_buffer(offsets),
                                                       pa.py_buffer(data))
            strings.validate(full=True)  # string stats must be UTF-8, as protobuf requires
            encoded = strings.dictionary_encode()
            code = encoded.indices.to_numpy().astype(np.int64)
            values = encoded.dictionary.to_pylist()
        combos, index = _distinct(rank * len(values) + code, len(self.vocabulary) * len(values))
        texts = [_pair(self.vocabulary[c // len(values)], values[c % len(values)])
                 for c in combos.tolist()]
        return pa.array(texts, _TEXT), index


def _distinct(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(codes, return_inverse=True) for codes in [0, size), by a table when that
    is small (no sort)."""
    if size > 4 * len(codes) + 4096:
        return np.unique(codes, return_inverse=True)
    seen = np.zeros(size, bool)
    seen[codes] = True
    return np.flatnonzero(seen), (np.cumsum(seen) - 1)[codes]


def _pair(key: str, value: str) -> str:
    return f"{json_text(key)}:{json_text(value)}"


def _decode(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each XStat's metadata id, value kind (its field number; 0: unset), value (raw bits;
    a length for str/bytes) and where a str/bytes value starts."""
    n = len(starts)
    smid = np.zeros(n, np.int64)
    kind = np.zeros(n, np.int8)
    num = np.zeros(n, np.uint64)
    s_start = np.zeros(n, np.int64)
    for f in proto_wire.scan(buf, starts, starts + lengths):
        sel = (f.wire == 0) & (f.number == _METADATA)
        smid[f.msg[sel]] = f.value[sel].view(np.int64)
        # A value field with its right wire type; the last of the oneof on the wire wins.
        number = np.minimum(f.number, len(_VALUE_WIRE) - 1).astype(np.int64)
        sel = _VALUE_WIRE[number] == f.wire.astype(np.int64)
        at = f.msg[sel]
        kind[at] = number[sel]
        num[at] = f.value[sel]
        s_start[at] = f.start[sel]
    return smid, kind, num, s_start
